// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "refactor/bitplanes/bitplanes.hpp"

namespace sciz::bitplanes {
namespace {
[[noreturn]] void no_cuda() { fail(Status::no_device, "bitplanes: this sciz was built without CUDA"); }
}  // namespace

template <class W>
Level<W> quantize_cuda(const double*, uint64_t, int, int, W*, cudaStream_t) {
  no_cuda();
}
template <class W>
std::vector<double> level_errors_cuda(const double*, const W*, uint64_t, const Level<W>&, int, int, int, cudaStream_t) {
  no_cuda();
}
template <class W>
void encode_planes_cuda(const W*, uint64_t, int, uint32_t*, cudaStream_t) {
  no_cuda();
}
template <class W>
void decode_planes_cuda(const uint32_t*, uint64_t, int, int, W*, cudaStream_t) {
  no_cuda();
}
template <class W>
void reconstruct_cuda(const W*, uint64_t, int, int, int, int, bool, double*, cudaStream_t) {
  no_cuda();
}

#define SCIZ_BITPLANES_NOCUDA(W)                                                                                     \
  template Level<W> quantize_cuda<W>(const double*, uint64_t, int, int, W*, cudaStream_t);                           \
  template std::vector<double> level_errors_cuda<W>(const double*, const W*, uint64_t, const Level<W>&, int, int, int, \
                                                    cudaStream_t);                                                   \
  template void encode_planes_cuda<W>(const W*, uint64_t, int, uint32_t*, cudaStream_t);                             \
  template void decode_planes_cuda<W>(const uint32_t*, uint64_t, int, int, W*, cudaStream_t);                        \
  template void reconstruct_cuda<W>(const W*, uint64_t, int, int, int, int, bool, double*, cudaStream_t);
SCIZ_BITPLANES_NOCUDA(uint32_t)
SCIZ_BITPLANES_NOCUDA(uint64_t)
#undef SCIZ_BITPLANES_NOCUDA
}  // namespace sciz::bitplanes
