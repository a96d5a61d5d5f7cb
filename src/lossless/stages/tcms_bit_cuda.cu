// TCMS_w followed by BIT_v in one pass (cuSZ-Hi's tcms1,bit1), CUDA: the TCMS blob (its
// header, then the mapped bytes) is never written. BIT's block b reads TCMS blob bytes
// [16384 b, 16384 (b + 1)), that is input bytes 8 earlier, so a thread of bit_full_kernel's
// layout loads its 32 v bytes from the input at offset - 8 (the header standing in for the
// first 8 bytes of block 0), maps whole 8-byte words with tcms_forward_word and shuffles them in
// registers. TCMS symbols never straddle 8-byte words there (w divides 8 and 16384). Decoding
// runs the same way back. The blocks past the last one made only of whole symbols (at most two)
// go through the separate kernels over a small buffer.
#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "lossless/stages/bitshuffle_cuda.cuh"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cuda.cuh"
#include "lossless/stages/stage_cuda.hpp"
#include "lossless/stages/tcms_math.hpp"

namespace sciz::stages::cuda {
namespace {

// Maps the 8-byte words a[2k], a[2k + 1] for k >= from (word 0 of block 0 is the header).
template <int TW, bool Forward>
__device__ void map_pairs(uint32_t* a, int pairs, int from) {
  SCIZ_UNROLL
  for (int k = 0; k < pairs; ++k) {
    if (k < from) continue;
    uint64_t v = a[2 * k] | static_cast<uint64_t>(a[2 * k + 1]) << 32;
    v = Forward ? tcms_forward_word<TW>(v) : tcms_inverse_word<TW>(v);
    a[2 * k] = static_cast<uint32_t>(v);
    a[2 * k + 1] = static_cast<uint32_t>(v >> 32);
  }
}

// Blocks 0 .. full - 1 of the TCMS blob (all whole symbols). x: the input (8-byte aligned);
// planes: BIT's body (4-byte aligned). Forward: x -> planes; else planes -> x.
template <int TW, int V, bool Forward>
__global__ void __launch_bounds__(kThreads)
    tcms_bit_kernel(uint8_t* x, uint8_t* planes, uint64_t full, uint64_t tcms_header, uint64_t bit_header,
                    uint8_t* header_dst, const DeviceStatus* st) {
  if (check::gate(st)) return;
  write_header_bytes(header_dst, bit_header);
  constexpr uint32_t g = kBlockBytes / (8 * V), per_block = g / 4;
  const uint64_t total = full * per_block;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total;
       i += static_cast<uint64_t>(gridDim.x) * kThreads) {
    const uint64_t at = i / per_block * kBlockBytes;
    const uint32_t t = static_cast<uint32_t>(i % per_block);
    const uint64_t o = at + 32 * V * t;  // offset in the TCMS blob; input offset o - 8
    const int from = o == 0 ? 1 : 0;     // the header word is not mapped
    uint32_t a[8 * V], b[8 * V];
    if constexpr (Forward) {
      if (from) {
        a[0] = static_cast<uint32_t>(tcms_header);
        a[1] = static_cast<uint32_t>(tcms_header >> 32);
        load_words<8>(x, a + 2, 8 * V - 2);
      } else {
        load_words<8>(x + o - 8, a, 8 * V);
      }
      map_pairs<TW, true>(a, 4 * V, from);
      shuffle32<V>(a, b);
      SCIZ_UNROLL
      for (int p = 0; p < 8 * V; ++p) *reinterpret_cast<uint32_t*>(planes + at + p * g + 4 * t) = b[p];
    } else {
      SCIZ_UNROLL
      for (int p = 0; p < 8 * V; ++p) a[p] = *reinterpret_cast<const uint32_t*>(planes + at + p * g + 4 * t);
      unshuffle32<V>(a, b);
      map_pairs<TW, false>(b, 4 * V, from);
      if (from) store_words<8>(x, b + 2, 8 * V - 2);  // the header was checked before
      else store_words<8>(x + o - 8, b, 8 * V);
    }
  }
}

// The TCMS blob's header as BIT's block 0 holds it, against the one expected.
__global__ void tcms_header_kernel(const uint8_t* planes, uint64_t tcms_n, int v, uint64_t expected, uint32_t id,
                                   DeviceStatus* st) {
  const uint32_t bytes = block_size(tcms_n + kHeaderBytes, 0);
  uint64_t h = 0;
  for (uint32_t p = 0; p < 8; ++p) h |= static_cast<uint64_t>(unshuffled_byte(planes, bytes, v, p)) << (8 * p);
  if (h != expected) report(st, kStatusStageHeader, id, h, expected);
}

// TCMS blob blocks made only of whole symbols: those before the last symbol's end.
uint64_t whole_blocks(uint64_t n, int tw) {
  const uint64_t mapped_end = kHeaderBytes + n / tw * tw;
  return std::min((n + kHeaderBytes) / kBlockBytes, mapped_end / kBlockBytes);
}

bool aligned(const void* x, const void* planes) {
  return reinterpret_cast<uintptr_t>(x) % 8 == 0 && reinterpret_cast<uintptr_t>(planes) % 4 == 0;
}

template <bool Forward>
void launch_fused(StageId tcms, StageId bit, uint8_t* x, uint8_t* planes, uint64_t full, uint64_t n,
                  uint8_t* header_dst, const DeviceStatus* st, cudaStream_t s) {
  with_width(width_of(tcms), [&]<int TW>() {
    with_width(width_of(bit), [&]<int V>() {
      const unsigned grid = grid_for(full * (kBlockBytes / (32 * V)), kThreads);
      tcms_bit_kernel<TW, V, Forward><<<grid, kThreads, 0, s>>>(x, planes, full, make_header(tcms, n),
                                                                 make_header(bit, n + kHeaderBytes), header_dst, st);
    });
  });
  SCIZ_CUDA_CHECK_LAUNCH("tcms_bit_kernel");
}

}  // namespace

void tcms_bit_encode(StageId tcms, StageId bit, const uint8_t* d_x, uint64_t n, uint8_t* d_out, cudaStream_t s) {
  const uint64_t a_n = n + kHeaderBytes, full = whole_blocks(n, width_of(tcms));
  uint8_t* planes = d_out + kHeaderBytes;
  if (full == 0 || !aligned(d_x, planes)) {  // the stages one after the other
    dev::Buffer<uint8_t> a(a_n, s);
    tcms_encode(tcms, d_x, n, a.get(), s);
    bit_encode(bit, a.get(), a_n, d_out, s);
    return;
  }
  launch_fused<true>(tcms, bit, const_cast<uint8_t*>(d_x), planes, full, n, d_out, nullptr, s);
  if (full == block_count(a_n)) return;
  // The rest of the TCMS blob, from input offset 16384 full - 8 (a whole symbol's start).
  const uint64_t from = full * kBlockBytes, rest = a_n - from;
  dev::Buffer<uint8_t> a(rest, s);
  tcms_map(tcms, d_x + from - kHeaderBytes, a.get(), rest, true, nullptr, s);
  bit_kernel<true><<<grid_for(block_count(a_n) - full, 1), kThreads, 0, s>>>(
      a.get(), planes, a_n, full, width_of(bit), 0, nullptr, nullptr, from, 0);
  SCIZ_CUDA_CHECK_LAUNCH("bit_kernel (after tcms_bit_kernel)");
}

void bit_tcms_decode(StageId bit, StageId tcms, const uint8_t* d_blob, uint64_t n, uint8_t* d_x, DeviceStatus* st,
                     cudaStream_t s) {
  const uint64_t a_n = n + kHeaderBytes, full = whole_blocks(n, width_of(tcms));
  const uint8_t* planes = d_blob + kHeaderBytes;
  if (full == 0 || !aligned(d_x, planes)) {
    dev::Buffer<uint8_t> a(a_n, s);
    bit_decode(bit, d_blob, a_n, a.get(), st, s);
    tcms_decode(tcms, a.get(), n, d_x, st, s);
    return;
  }
  check_header(bit, d_blob, a_n, st, s);
  tcms_header_kernel<<<1, 1, 0, s>>>(planes, n, width_of(bit), make_header(tcms, n), static_cast<uint32_t>(tcms), st);
  SCIZ_CUDA_CHECK_LAUNCH("tcms_header_kernel");
  launch_fused<false>(tcms, bit, d_x, const_cast<uint8_t*>(planes), full, n, nullptr, st, s);
  if (full == block_count(a_n)) return;
  const uint64_t from = full * kBlockBytes, rest = a_n - from;
  dev::Buffer<uint8_t> a(rest, s);
  bit_kernel<false><<<grid_for(block_count(a_n) - full, 1), kThreads, 0, s>>>(
      planes, a.get(), a_n, full, width_of(bit), 0, nullptr, st, 0, from);
  SCIZ_CUDA_CHECK_LAUNCH("bit_kernel (after tcms_bit_kernel)");
  tcms_map(tcms, a.get(), d_x + from - kHeaderBytes, rest, false, st, s);
}

}  // namespace sciz::stages::cuda
