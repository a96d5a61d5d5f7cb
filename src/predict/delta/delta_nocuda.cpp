// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "predict/delta/delta.hpp"

namespace sciz::delta {
namespace {
[[noreturn]] void no_cuda() { fail(Status::no_device, "delta: this sciz was built without CUDA"); }
}  // namespace

template <class T>
Encoded encode_cuda(const T*, uint64_t, double, cudaStream_t, Stats*) {
  no_cuda();
}
template <class T>
void decode_cuda(const Sections&, uint64_t, double, T*, cudaStream_t) {
  no_cuda();
}

template Encoded encode_cuda<float>(const float*, uint64_t, double, cudaStream_t, Stats*);
template Encoded encode_cuda<double>(const double*, uint64_t, double, cudaStream_t, Stats*);
template void decode_cuda<float>(const Sections&, uint64_t, double, float*, cudaStream_t);
template void decode_cuda<double>(const Sections&, uint64_t, double, double*, cudaStream_t);

}  // namespace sciz::delta
