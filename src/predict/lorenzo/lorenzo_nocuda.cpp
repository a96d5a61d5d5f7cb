// Built only without CUDA. dev::require_available() has already refused by the time a pipeline
// could get here; these keep the link whole and say the same thing if called directly.
#include <sciz/error.hpp>

#include "predict/lorenzo/lorenzo.hpp"

namespace sciz::lorenzo {
template <class T>
void compress_cuda(const T*, const Extent&, const TileShape&, const QuantParams<T>&, uint16_t*, Sparse<T>&, cudaStream_t) {
  fail(Status::no_device, "lorenzo: this sciz was built without CUDA");
}
template <class T>
void decompress_cuda(const uint16_t*, const Sparse<T>&, const Extent&, const TileShape&, const QuantParams<T>&, T*, cudaStream_t) {
  fail(Status::no_device, "lorenzo: this sciz was built without CUDA");
}
template <class T>
DeviceSectionsOut compress_device(const T*, const Extent&, const TileShape&, const QuantParams<T>&, uint32_t, uint16_t,
                                  std::optional<Lossless>, cudaStream_t, RangeKeys*) {
  fail(Status::no_device, "lorenzo: this sciz was built without CUDA");
}
template <class T>
void decompress_device(DeviceSpan, DeviceSpan, DeviceSpan, std::optional<Lossless>, const Extent&, const TileShape&,
                       const QuantParams<T>&, T*, DeviceStatus*, cudaStream_t) {
  fail(Status::no_device, "lorenzo: this sciz was built without CUDA");
}
template DeviceSectionsOut compress_device<float>(const float*, const Extent&, const TileShape&, const QuantParams<float>&, uint32_t, uint16_t, std::optional<Lossless>, cudaStream_t, RangeKeys*);
template DeviceSectionsOut compress_device<double>(const double*, const Extent&, const TileShape&, const QuantParams<double>&, uint32_t, uint16_t, std::optional<Lossless>, cudaStream_t, RangeKeys*);
template void decompress_device<float>(DeviceSpan, DeviceSpan, DeviceSpan, std::optional<Lossless>, const Extent&, const TileShape&, const QuantParams<float>&, float*, DeviceStatus*, cudaStream_t);
template void decompress_device<double>(DeviceSpan, DeviceSpan, DeviceSpan, std::optional<Lossless>, const Extent&, const TileShape&, const QuantParams<double>&, double*, DeviceStatus*, cudaStream_t);
template void compress_cuda<float>(const float*, const Extent&, const TileShape&, const QuantParams<float>&, uint16_t*, Sparse<float>&, cudaStream_t);
template void compress_cuda<double>(const double*, const Extent&, const TileShape&, const QuantParams<double>&, uint16_t*, Sparse<double>&, cudaStream_t);
template void decompress_cuda<float>(const uint16_t*, const Sparse<float>&, const Extent&, const TileShape&, const QuantParams<float>&, float*, cudaStream_t);
template void decompress_cuda<double>(const uint16_t*, const Sparse<double>&, const Extent&, const TileShape&, const QuantParams<double>&, double*, cudaStream_t);
}  // namespace sciz::lorenzo

// The kernel-level entry points (lorenzo_cuda.cuh), for callers such as tests that time them.
#include "predict/lorenzo/lorenzo_cuda.cuh"

namespace sciz::lorenzo::cuda {
template <class T>
void launch_quantize(const T*, const Extent&, const TileShape&, const QuantParams<T>&, uint16_t*, const SparseSink<T>&,
                     cudaStream_t) {
  fail(Status::no_device, "lorenzo: this sciz was built without CUDA");
}
template <class T>
void launch_reconstruct(const uint16_t*, const uint64_t*, const int32_t*, uint64_t, const Extent&, const TileShape&,
                        const QuantParams<T>&, T*, cudaStream_t) {
  fail(Status::no_device, "lorenzo: this sciz was built without CUDA");
}
template <class T>
void launch_reconstruct_section(const uint16_t*, const uint8_t*, const Extent&, const TileShape&, const QuantParams<T>&,
                                T*, const DeviceStatus*, cudaStream_t) {
  fail(Status::no_device, "lorenzo: this sciz was built without CUDA");
}
template <class T>
void launch_scatter_exact(const uint64_t*, const T*, uint64_t, T*, uint64_t, cudaStream_t) {
  fail(Status::no_device, "lorenzo: this sciz was built without CUDA");
}
#define SCIZ_INSTANTIATE(T)                                                                                         \
  template void launch_quantize<T>(const T*, const Extent&, const TileShape&, const QuantParams<T>&, uint16_t*,    \
                                   const SparseSink<T>&, cudaStream_t);                                            \
  template void launch_reconstruct<T>(const uint16_t*, const uint64_t*, const int32_t*, uint64_t, const Extent&,    \
                                      const TileShape&, const QuantParams<T>&, T*, cudaStream_t);                   \
  template void launch_reconstruct_section<T>(const uint16_t*, const uint8_t*, const Extent&, const TileShape&,     \
                                              const QuantParams<T>&, T*, const DeviceStatus*, cudaStream_t);        \
  template void launch_scatter_exact<T>(const uint64_t*, const T*, uint64_t, T*, uint64_t, cudaStream_t);
SCIZ_INSTANTIATE(float)
SCIZ_INSTANTIATE(double)
#undef SCIZ_INSTANTIATE
}  // namespace sciz::lorenzo::cuda
