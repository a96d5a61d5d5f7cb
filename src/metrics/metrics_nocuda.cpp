// Built only without CUDA: the device twin exists so callers link, and says why it cannot run.
#include <sciz/error.hpp>

#include "metrics/metrics.hpp"

namespace sciz::metrics {
template <class T>
Quality compare_cuda(const T*, const T*, const Shape&, cudaStream_t) {
  fail(Status::no_device, "metrics: this sciz was built without CUDA; compare on the CPU");
}
template Quality compare_cuda<float>(const float*, const float*, const Shape&, cudaStream_t);
template Quality compare_cuda<double>(const double*, const double*, const Shape&, cudaStream_t);
}  // namespace sciz::metrics
