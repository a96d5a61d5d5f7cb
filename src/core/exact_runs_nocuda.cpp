// Built only without CUDA (see device_nocuda.cpp).
#include <sciz/error.hpp>

#include "core/exact_runs_cuda.hpp"

namespace sciz::runs {
namespace {
[[noreturn]] void no_cuda() { fail(Status::no_device, "exact values on the device: this sciz was built without CUDA"); }
}  // namespace

template <class T>
DeviceBlob write_device(const uint64_t*, const T*, uint64_t, cudaStream_t) {
  no_cuda();
}
template <class T>
DeviceRuns<T> parse_device(const uint8_t*, uint64_t, uint64_t, DeviceStatus*, uint32_t, cudaStream_t) {
  no_cuda();
}
template <class T>
void scatter_device(const DeviceRuns<T>&, T*, const DeviceStatus*, cudaStream_t) {
  no_cuda();
}

#define SCIZ_EXACT_RUNS_NOCUDA(T)                                                                                   \
  template DeviceBlob write_device<T>(const uint64_t*, const T*, uint64_t, cudaStream_t);                         \
  template DeviceRuns<T> parse_device<T>(const uint8_t*, uint64_t, uint64_t, DeviceStatus*, uint32_t, cudaStream_t); \
  template void scatter_device<T>(const DeviceRuns<T>&, T*, const DeviceStatus*, cudaStream_t);
SCIZ_EXACT_RUNS_NOCUDA(float)
SCIZ_EXACT_RUNS_NOCUDA(double)
#undef SCIZ_EXACT_RUNS_NOCUDA

}  // namespace sciz::runs
