// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "core/value_range.hpp"

namespace sciz {
template <class T>
ValueRange value_range_cuda(const T*, uint64_t, cudaStream_t) {
  fail(Status::no_device, "value range: this sciz was built without CUDA");
}
void reset_range_keys(RangeKeys*, cudaStream_t) { fail(Status::no_device, "value range: this sciz was built without CUDA"); }
template <class T>
void value_range_fold_cuda(const T*, uint64_t, RangeKeys*, cudaStream_t) {
  fail(Status::no_device, "value range: this sciz was built without CUDA");
}
template void value_range_fold_cuda<float>(const float*, uint64_t, RangeKeys*, cudaStream_t);
template void value_range_fold_cuda<double>(const double*, uint64_t, RangeKeys*, cudaStream_t);
template ValueRange value_range_cuda<float>(const float*, uint64_t, cudaStream_t);
template ValueRange value_range_cuda<double>(const double*, uint64_t, cudaStream_t);
}  // namespace sciz
