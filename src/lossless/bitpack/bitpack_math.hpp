// Fixed-length packing of 16-bit symbols, one bit width per block of 32: the block's
// zigzagged offsets from a centre symbol are stored as w bit-planes of 32 bits (word k holds
// bit k of every symbol, symbol i in bit i). On a GPU a plane is one warp ballot.
#pragma once
#include <cstdint>

#include "core/hd.hpp"

namespace sciz::bitpack {

inline constexpr uint32_t kBlock = 32;
inline constexpr uint32_t kHeaderBytes = 16;  // u64 count, u16 centre, u16 + u32 reserved
inline constexpr uint32_t kMaxWidth = 16;

SCIZ_HD uint32_t zigzag(uint16_t sym, uint16_t centre) {
  const int32_t v = static_cast<int32_t>(sym) - static_cast<int32_t>(centre);
  return static_cast<uint32_t>((v << 1) ^ (v >> 31));
}
SCIZ_HD uint16_t unzigzag(uint32_t z, uint16_t centre) {
  const int32_t v = static_cast<int32_t>(z >> 1) ^ -static_cast<int32_t>(z & 1);
  return static_cast<uint16_t>(v + static_cast<int32_t>(centre));
}
SCIZ_HD uint32_t bit_width(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return 32 - __clz(v);
#else
  return v ? 32 - __builtin_clz(v) : 0;
#endif
}

// Whether every symbol of the alphabet zigzags into kMaxWidth bits around the centre: symbols
// up to 32768 below it and 32767 above. Every pipeline's context fits (centre = radius,
// alphabet = 2 radius); a stage list applied with another context must be refused before
// encoding, or the encoder would write widths its decoder refuses (found by fuzz_stages).
inline bool context_fits(uint32_t alphabet, uint16_t centre) {
  return centre <= 32768u && alphabet >= 1 && alphabet - 1 - centre <= 32767u;
}

SCIZ_HD uint64_t num_blocks(uint64_t n) { return (n + kBlock - 1) / kBlock; }
// Widths start right after the header; words start at the next 4-byte boundary.
SCIZ_HD uint64_t words_offset(uint64_t n) { return (kHeaderBytes + num_blocks(n) + 3) & ~uint64_t(3); }

}  // namespace sciz::bitpack
