// BIT_w, CPU twin: blocks over OpenMP, each shuffled by the 8 x 8 transposes of
// bitshuffle_math.hpp, BIT1 by vector bit planes. Blocks are independent, so the bytes do not
// depend on the threads.
#include <cstring>

#include "core/omp_threads.hpp"
#include "lossless/stages/bitshuffle_math.hpp"
#include "lossless/stages/bytes_cpu.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cpu.hpp"
#include "lossless/stages/symbols.hpp"

namespace sciz::stages::cpu {
namespace {

// BIT1: 16 symbols a step through vector bit planes (bytes_cpu.hpp), 2 bytes of each plane.
template <bool Forward>
uint32_t shuffle_bytes16(const uint8_t* in, uint8_t* out, uint32_t g) {
  const uint32_t steps = g / 2;
  for (uint32_t k = 0; k < steps; ++k) {
    uint16_t plane[8];
    if (Forward) {
      bit_planes16(in + 16 * k, plane);
      for (int r = 0; r < 8; ++r) std::memcpy(out + static_cast<uint64_t>(r) * g + 2 * k, &plane[r], 2);
    } else {
      for (int r = 0; r < 8; ++r) std::memcpy(&plane[r], in + static_cast<uint64_t>(r) * g + 2 * k, 2);
      from_bit_planes16(plane, out + 16 * k);
    }
  }
  return 2 * steps;  // groups done
}

// Wider symbols: 32 at a time through the GPU thread's unit where that pays (W = 1 without
// vectors), else one 8 x 8 transpose per group and byte (measured faster for W > 1 on the CPU).
template <int W, bool Forward>
void shuffle_block(const uint8_t* in, uint8_t* out, uint32_t bytes) {
  const uint32_t m8 = shuffled_symbols(bytes, W), g = m8 / 8;
  uint32_t quads = 0, first = 0;
#if defined(__SSE2__)
  if constexpr (W == 1) first = shuffle_bytes16<Forward>(in, out, g);
#else
  if constexpr (W == 1) quads = g / 4, first = 4 * quads;
#endif
  for (uint32_t t = 0; t < quads; ++t) {
    uint32_t a[8 * W], b[8 * W];
    if (Forward) {
      std::memcpy(a, in + 32 * W * t, 32 * W);
      shuffle32<W>(a, b);
      for (int p = 0; p < 8 * W; ++p) std::memcpy(out + static_cast<uint64_t>(p) * g + 4 * t, &b[p], 4);
    } else {
      for (int p = 0; p < 8 * W; ++p) std::memcpy(&a[p], in + static_cast<uint64_t>(p) * g + 4 * t, 4);
      unshuffle32<W>(a, b);
      std::memcpy(out + 32 * W * t, b, 32 * W);
    }
  }
  for (uint32_t j = first; j < g; ++j)
    for (int q = 0; q < W; ++q) {
      if (Forward) shuffle_group(in, out, W, g, j, q);
      else unshuffle_group(in, out, W, g, j, q);
    }
  const uint32_t done = m8 * W;
  std::memcpy(out + done, in + done, bytes - done);
}

template <bool Forward>
void shuffle_blocks(const uint8_t* in, uint8_t* out, uint64_t n, int w) {
  const int64_t blocks = static_cast<int64_t>(block_count(n));
  with_width(w, [&]<int W>() {
#pragma omp parallel for schedule(static) num_threads(thread_count(static_cast<uint64_t>(blocks) / kBlocksPerThread))
    for (int64_t b = 0; b < blocks; ++b) {
      const uint64_t at = static_cast<uint64_t>(b) * kBlockBytes;
      shuffle_block<W, Forward>(in + at, out + at, block_size(n, static_cast<uint64_t>(b)));
    }
  });
}

}  // namespace

Bytes bit_encode(StageId id, In in) {
  Bytes out(kHeaderBytes + in.size());
  write_header(out.data(), id, in.size());
  shuffle_blocks<true>(in.data(), out.data() + kHeaderBytes, in.size(), width_of(id));
  return out;
}

Bytes bit_decode(StageId id, In blob, uint64_t max_out) {
  const uint64_t n = check_same_size(blob, id, max_out);
  Bytes out(n);
  shuffle_blocks<false>(blob.data() + kHeaderBytes, out.data(), n, width_of(id));
  return out;
}

}  // namespace sciz::stages::cpu
