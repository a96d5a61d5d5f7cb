// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "predict/szx/szx.hpp"

namespace sciz::szx {
namespace {
[[noreturn]] void no_cuda() { fail(Status::no_device, "szx: this sciz was built without CUDA"); }
}  // namespace

template <class T>
DeviceEncoded<T> encode_device(const T*, uint64_t, double, uint32_t, cudaStream_t, RangeKeys*) {
  no_cuda();
}
template <class T>
Encoded download(const DeviceEncoded<T>&, cudaStream_t, Stats*) {
  no_cuda();
}
template <class T>
DeviceSections<T> upload(const Sections&, uint64_t, cudaStream_t) {
  no_cuda();
}
template <class T>
void decode_device(const DeviceSections<T>&, T*, cudaStream_t) {
  no_cuda();
}
template <class T>
void decode_device_sections(const DeviceSectionsIn&, uint64_t, T*, DeviceStatus*, cudaStream_t) {
  no_cuda();
}

#define SCIZ_SZX_INSTANTIATE(T)                                                        \
  template DeviceEncoded<T> encode_device<T>(const T*, uint64_t, double, uint32_t, cudaStream_t, RangeKeys*); \
  template Encoded download<T>(const DeviceEncoded<T>&, cudaStream_t, Stats*);        \
  template DeviceSections<T> upload<T>(const Sections&, uint64_t, cudaStream_t);      \
  template void decode_device<T>(const DeviceSections<T>&, T*, cudaStream_t);          \
  template void decode_device_sections<T>(const DeviceSectionsIn&, uint64_t, T*, DeviceStatus*, cudaStream_t);
SCIZ_SZX_INSTANTIATE(float)
SCIZ_SZX_INSTANTIATE(double)
#undef SCIZ_SZX_INSTANTIATE

}  // namespace sciz::szx
