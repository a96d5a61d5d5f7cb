// BIT_w, CPU twin: blocks over OpenMP, each shuffled by the 8 x 8 transposes of
// bitshuffle_math.hpp. Blocks are independent, so the bytes do not depend on the threads.
#include <cstring>

#include "core/omp_threads.hpp"
#include "lossless/stages/bitshuffle_math.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cpu.hpp"

namespace sciz::stages::cpu {
namespace {

template <bool Forward>
void shuffle_blocks(const uint8_t* in, uint8_t* out, uint64_t n, int w) {
  const int64_t blocks = static_cast<int64_t>(block_count(n));
#pragma omp parallel for schedule(static) num_threads(thread_count(static_cast<uint64_t>(blocks) / kBlocksPerThread))
  for (int64_t b = 0; b < blocks; ++b) {
    const uint64_t at = static_cast<uint64_t>(b) * kBlockBytes;
    const uint32_t bytes = block_size(n, static_cast<uint64_t>(b));
    const uint32_t m8 = shuffled_symbols(bytes, w), g = m8 / 8;
    for (uint32_t j = 0; j < g; ++j)
      for (int q = 0; q < w; ++q) {
        if (Forward) shuffle_group(in + at, out + at, w, g, j, q);
        else unshuffle_group(in + at, out + at, w, g, j, q);
      }
    const uint32_t done = m8 * static_cast<uint32_t>(w);
    std::memcpy(out + at + done, in + at + done, bytes - done);
  }
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
