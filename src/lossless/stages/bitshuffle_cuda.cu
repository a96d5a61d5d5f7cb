// BIT_w, CUDA twin. Full 16 KiB blocks with word-aligned buffers (a chain's, and blob bodies
// at offset 8 of one): a thread per 32 symbols (shuffle32 / unshuffle32 of
// bitshuffle_math.hpp) in registers, no shared memory and no synchronization. Its 32 W
// contiguous bytes move in 16-, 8- or 4-byte accesses as the buffer allows; its 8 W plane
// words are 4-byte accesses that a warp makes into one 128-byte segment per plane. The last
// partial block, and buffers that are not word-aligned, go through the general kernel: a CTA
// per block staged through shared memory, a thread per (8-symbol group, byte of symbol).
#include "core/cuda_check.cuh"
#include "lossless/stages/bitshuffle_cuda.cuh"
#include "lossless/stages/bitshuffle_math.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cuda.cuh"
#include "lossless/stages/stage_cuda.hpp"

namespace sciz::stages::cuda {
namespace {

template <bool Forward>
void launch(StageId id, const uint8_t* in, uint8_t* out, uint64_t n, uint8_t* header_dst, const DeviceStatus* st,
            cudaStream_t s) {
  const uint64_t header = make_header(id, n), full = n / kBlockBytes;
  const uintptr_t sym = reinterpret_cast<uintptr_t>(Forward ? in : out);
  const uintptr_t planes = reinterpret_cast<uintptr_t>(Forward ? out : in);
  uint64_t first = 0;  // blocks the general kernel starts from
  if (full > 0 && sym % 4 == 0 && planes % 4 == 0) {
    with_width(width_of(id), [&]<int W>() {
      const unsigned grid = grid_for(full * (kBlockBytes / (32 * W)), kThreads);
      if (sym % 16 == 0) bit_full_kernel<W, Forward, 16><<<grid, kThreads, 0, s>>>(in, out, full, header, header_dst, st);
      else if (sym % 8 == 0) bit_full_kernel<W, Forward, 8><<<grid, kThreads, 0, s>>>(in, out, full, header, header_dst, st);
      else bit_full_kernel<W, Forward, 4><<<grid, kThreads, 0, s>>>(in, out, full, header, header_dst, st);
    });
    SCIZ_CUDA_CHECK_LAUNCH("bit_full_kernel");
    if (full == block_count(n)) return;
    first = full;
    header_dst = nullptr;  // written above
  }
  bit_kernel<Forward><<<grid_for(block_count(n) - first, 1), kThreads, 0, s>>>(in, out, n, first, width_of(id), header,
                                                                              header_dst, st);
  SCIZ_CUDA_CHECK_LAUNCH("bit_kernel");
}

}  // namespace

void bit_encode(StageId id, const uint8_t* d_in, uint64_t n, uint8_t* d_out, cudaStream_t s) {
  launch<true>(id, d_in, d_out + kHeaderBytes, n, d_out, nullptr, s);
}

void bit_decode(StageId id, const uint8_t* d_blob, uint64_t n, uint8_t* d_out, DeviceStatus* st, cudaStream_t s) {
  check_header(id, d_blob, n, st, s);
  launch<false>(id, d_blob + kHeaderBytes, d_out, n, nullptr, st, s);
}

}  // namespace sciz::stages::cuda
