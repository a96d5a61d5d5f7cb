// Built only without CUDA: the pipeline never gets here without a device (the API refuses
// first); these keep the link whole and say the same thing if called directly.
#include <sciz/error.hpp>

#include "predict/interp/interp.hpp"

namespace sciz::interp {

template <class T>
TuneInput<T> gather_cuda(const T*, const Layout&, cudaStream_t) {
  fail(Status::no_device, "interp: this sciz was built without CUDA");
}
template <class T>
void compress_cuda(const T*, const Layout&, const Choice&, double, uint8_t*, Sparse<T>&, cudaStream_t) {
  fail(Status::no_device, "interp: this sciz was built without CUDA");
}
template <class T>
void decompress_cuda(const uint8_t*, const Sparse<T>&, const Layout&, const Choice&, T*, cudaStream_t) {
  fail(Status::no_device, "interp: this sciz was built without CUDA");
}

template <class T>
DeviceSparseOut compress_device(const T*, const Layout&, const Choice&, double, uint8_t*, cudaStream_t) {
  fail(Status::no_device, "interp: this sciz was built without CUDA");
}
template <class T>
void decompress_device(const uint8_t*, DeviceSpan, DeviceSpan, const Layout&, const Choice&, T*, DeviceStatus*,
                       cudaStream_t) {
  fail(Status::no_device, "interp: this sciz was built without CUDA");
}

#define SCIZ_INTERP_NOCUDA(T)                                                                                     \
  template TuneInput<T> gather_cuda<T>(const T*, const Layout&, cudaStream_t);                                  \
  template void compress_cuda<T>(const T*, const Layout&, const Choice&, double, uint8_t*, Sparse<T>&, cudaStream_t); \
  template void decompress_cuda<T>(const uint8_t*, const Sparse<T>&, const Layout&, const Choice&, T*, cudaStream_t); \
  template DeviceSparseOut compress_device<T>(const T*, const Layout&, const Choice&, double, uint8_t*, cudaStream_t);  \
  template void decompress_device<T>(const uint8_t*, DeviceSpan, DeviceSpan, const Layout&, const Choice&, T*,         \
                                     DeviceStatus*, cudaStream_t);
SCIZ_INTERP_NOCUDA(float)
SCIZ_INTERP_NOCUDA(double)
#undef SCIZ_INTERP_NOCUDA

}  // namespace sciz::interp
