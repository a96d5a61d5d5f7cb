// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "predict/delta/delta.hpp"

namespace sciz::delta {
namespace {
[[noreturn]] void no_cuda() { fail(Status::no_device, "delta: this sciz was built without CUDA"); }
}  // namespace

template <class T>
DeviceEncoded<T> encode_device(const T*, uint64_t, double, cudaStream_t, uint64_t, RangeKeys*) {
  no_cuda();
}
template <class T>
Encoded download(const DeviceEncoded<T>&, cudaStream_t, Stats*) {
  no_cuda();
}
template <class T>
DeviceSections<T> upload(const Sections&, uint64_t, double, cudaStream_t) {
  no_cuda();
}
template <class T>
void decode_device(const DeviceSections<T>&, T*, cudaStream_t) {
  no_cuda();
}
template <class T>
void decode_device_sections(const DeviceSectionsIn&, uint64_t, double, T*, DeviceStatus*, cudaStream_t) {
  no_cuda();
}

#define SCIZ_DELTA_INSTANTIATE(T)                                                          \
  template DeviceEncoded<T> encode_device<T>(const T*, uint64_t, double, cudaStream_t, uint64_t, RangeKeys*); \
  template Encoded download<T>(const DeviceEncoded<T>&, cudaStream_t, Stats*);            \
  template DeviceSections<T> upload<T>(const Sections&, uint64_t, double, cudaStream_t);  \
  template void decode_device<T>(const DeviceSections<T>&, T*, cudaStream_t);              \
  template void decode_device_sections<T>(const DeviceSectionsIn&, uint64_t, double, T*, DeviceStatus*, cudaStream_t);
SCIZ_DELTA_INSTANTIATE(float)
SCIZ_DELTA_INSTANTIATE(double)
#undef SCIZ_DELTA_INSTANTIATE

}  // namespace sciz::delta
