// One chunk's symbols decoded on the device, shared by the blob decoder and the
// device-resident one: symbols [lo, hi) from r into out, eight at a time as one 16-byte store.
// Include from .cu files only.
#pragma once
#include <cstdint>

#include "lossless/huffman/huffman_math.hpp"

namespace sciz::huffman {

// used: the bits the codes took; ok: false on a code the tables do not know (the chunk is then
// corrupt; the caller compares used with the chunk's stated bits too).
template <class Reader>
__device__ inline void decode_chunk_symbols(Reader& br, const uint32_t* primary, const SlowTables& slow,
                                            uint16_t* __restrict__ out, uint64_t lo, uint64_t hi, uint64_t& used,
                                            bool& ok) {
  auto next = [&]() {
    uint32_t s, l;
    ok &= decode_symbol(br, primary, slow, s, l);
    used += l;
    return s;
  };
  uint64_t i = lo;
  for (; i + 8 <= hi; i += 8) {
    uint32_t w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const uint32_t a = next();
      w[j] = a | next() << 16;
    }
    *reinterpret_cast<uint4*>(out + i) = make_uint4(w[0], w[1], w[2], w[3]);
  }
  for (; i < hi; ++i) out[i] = static_cast<uint16_t>(next());
}

}  // namespace sciz::huffman
