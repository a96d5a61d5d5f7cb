// BIT_w, CUDA twin: a CTA per 16 KiB block, staged through shared memory both ways so that
// global reads and writes stay coalesced; a thread per (8-symbol group, byte of symbol) does
// the 8 x 8 transpose of bitshuffle_math.hpp.
#include "core/cuda_check.cuh"
#include "lossless/stages/bitshuffle_math.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cuda.cuh"
#include "lossless/stages/stage_cuda.hpp"

namespace sciz::stages::cuda {
namespace {

template <bool Forward>
__global__ void __launch_bounds__(kThreads)
    bit_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, uint64_t n, int w, uint64_t header,
               uint8_t* header_dst, const DeviceStatus* st) {
  if (check::gate(st)) return;
  write_header_bytes(header_dst, header);
  __shared__ uint8_t a[kBlockBytes], b[kBlockBytes];
  const uint64_t blocks = block_count(n);
  for (uint64_t blk = blockIdx.x; blk < blocks; blk += gridDim.x) {
    const uint64_t at = blk * kBlockBytes;
    const uint32_t bytes = block_size(n, blk);
    for (uint32_t i = threadIdx.x; i < bytes; i += kThreads) a[i] = in[at + i];
    __syncthreads();
    const uint32_t m8 = shuffled_symbols(bytes, w), g = m8 / 8, items = g * static_cast<uint32_t>(w);
    for (uint32_t it = threadIdx.x; it < items; it += kThreads) {  // consecutive threads: consecutive plane bytes
      const int q = static_cast<int>(it / g);
      const uint32_t j = it % g;
      if (Forward) shuffle_group(a, b, w, g, j, q);
      else unshuffle_group(a, b, w, g, j, q);
    }
    for (uint32_t i = m8 * static_cast<uint32_t>(w) + threadIdx.x; i < bytes; i += kThreads) b[i] = a[i];
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < bytes; i += kThreads) out[at + i] = b[i];
    __syncthreads();
  }
}

template <bool Forward>
void launch(StageId id, const uint8_t* in, uint8_t* out, uint64_t n, uint8_t* header_dst, const DeviceStatus* st,
            cudaStream_t s) {
  bit_kernel<Forward><<<grid_for(block_count(n), 1), kThreads, 0, s>>>(in, out, n, width_of(id), make_header(id, n),
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
