// BIT_w: bit shuffle inside a block, for both twins.
//
// A block of b bytes holds m = b / w whole symbols; the first m8 = m - m % 8 of them are
// shuffled, the rest of the block (under 8 symbols and any partial symbol) is carried as is,
// so the output has exactly the input's size. Bit plane k (k = 0 is the least significant bit
// of a symbol, k < 8w) takes m8 / 8 bytes at offset k * m8 / 8; bit t of its byte j is bit k
// of symbol 8j + t. Planes of quant codes near a common value are long runs of equal bytes,
// which RRE1 and RZE1 then remove.
//
// The unit of work is 8 symbols x one byte of each: an 8 x 8 bit matrix, transposed in a
// 64-bit word. Its 8 output bytes are byte j of planes 8q .. 8q + 7. The inverse gathers those
// plane bytes and transposes back (the transpose is its own inverse).
#pragma once
#include <cstdint>

#include "core/hd.hpp"

namespace sciz::stages {

// Bit c of byte r <-> bit r of byte c (bit 8r + c <-> bit 8c + r): three rounds of swapping
// the off-diagonal halves of 2x2, 4x4 and 8x8 sub-blocks.
SCIZ_HD uint64_t transpose8x8(uint64_t x) {
  uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
  x ^= t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
  x ^= t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
  x ^= t ^ (t << 28);
  return x;
}

// Symbols of a block of `bytes` bytes that go through the shuffle (a multiple of 8).
SCIZ_HD uint32_t shuffled_symbols(uint32_t bytes, int w) { return (bytes / static_cast<uint32_t>(w)) & ~7u; }

// Group j (symbols 8j .. 8j + 7), byte q of each: in = the block, out = its shuffle; g = m8 / 8.
SCIZ_HD void shuffle_group(const uint8_t* in, uint8_t* out, int w, uint32_t g, uint32_t j, int q) {
  uint64_t x = 0;
  for (int t = 0; t < 8; ++t) x |= static_cast<uint64_t>(in[(8 * j + t) * w + q]) << (8 * t);
  const uint64_t y = transpose8x8(x);
  for (int r = 0; r < 8; ++r) out[static_cast<uint64_t>(8 * q + r) * g + j] = static_cast<uint8_t>(y >> (8 * r));
}

SCIZ_HD void unshuffle_group(const uint8_t* in, uint8_t* out, int w, uint32_t g, uint32_t j, int q) {
  uint64_t x = 0;
  for (int r = 0; r < 8; ++r) x |= static_cast<uint64_t>(in[static_cast<uint64_t>(8 * q + r) * g + j]) << (8 * r);
  const uint64_t y = transpose8x8(x);
  for (int t = 0; t < 8; ++t) out[(8 * j + t) * w + q] = static_cast<uint8_t>(y >> (8 * t));
}

// Byte p of a block of `bytes` bytes read back from its shuffle `blk` (any one byte, for checks).
SCIZ_HD uint8_t unshuffled_byte(const uint8_t* blk, uint32_t bytes, int w, uint32_t p) {
  const uint32_t m8 = shuffled_symbols(bytes, w), g = m8 / 8, s = p / static_cast<uint32_t>(w);
  if (s >= m8) return blk[p];
  const int q = static_cast<int>(p % static_cast<uint32_t>(w));
  uint32_t v = 0;
  for (int r = 0; r < 8; ++r) v |= ((blk[static_cast<uint64_t>(8 * q + r) * g + s / 8] >> (s % 8)) & 1u) << r;
  return static_cast<uint8_t>(v);
}

// 32 symbols at once (groups j .. j + 3 of a block, j a multiple of 4): the unit of the GPU's
// thread and the CPU's inner loop. `sym` holds the 32 W-byte symbols as 8W little-endian words;
// plane word p (of 8W) holds plane p's bytes j .. j + 3, that is bit p of the 32 symbols, bit i
// for symbol i. Plane word p goes to byte offset p * g + j of the block.
SCIZ_HD uint32_t byte_of(const uint32_t* w, int i) {
  return (w[i >> 2] >> (8 * (i & 3))) & 0xFFu;
}

template <int W>
SCIZ_HD void shuffle32(const uint32_t* sym, uint32_t* plane) {
SCIZ_UNROLL
  for (int p = 0; p < 8 * W; ++p) plane[p] = 0;
SCIZ_UNROLL
  for (int jj = 0; jj < 4; ++jj)
SCIZ_UNROLL
    for (int q = 0; q < W; ++q) {
      uint64_t x;
      if constexpr (W == 1) {
        x = sym[2 * jj] | static_cast<uint64_t>(sym[2 * jj + 1]) << 32;
      } else {
        x = 0;
SCIZ_UNROLL
        for (int t = 0; t < 8; ++t) x |= static_cast<uint64_t>(byte_of(sym, (8 * jj + t) * W + q)) << (8 * t);
      }
      const uint64_t y = transpose8x8(x);
SCIZ_UNROLL
      for (int r = 0; r < 8; ++r) plane[8 * q + r] |= static_cast<uint32_t>((y >> (8 * r)) & 0xFFu) << (8 * jj);
    }
}

template <int W>
SCIZ_HD void unshuffle32(const uint32_t* plane, uint32_t* sym) {
SCIZ_UNROLL
  for (int k = 0; k < 8 * W; ++k) sym[k] = 0;
SCIZ_UNROLL
  for (int jj = 0; jj < 4; ++jj)
SCIZ_UNROLL
    for (int q = 0; q < W; ++q) {
      uint64_t x = 0;
SCIZ_UNROLL
      for (int r = 0; r < 8; ++r) x |= static_cast<uint64_t>((plane[8 * q + r] >> (8 * jj)) & 0xFFu) << (8 * r);
      const uint64_t y = transpose8x8(x);
      if constexpr (W == 1) {
        sym[2 * jj] = static_cast<uint32_t>(y);
        sym[2 * jj + 1] = static_cast<uint32_t>(y >> 32);
      } else {
SCIZ_UNROLL
        for (int t = 0; t < 8; ++t) {
          const int i = (8 * jj + t) * W + q;
          sym[i >> 2] |= static_cast<uint32_t>((y >> (8 * t)) & 0xFFu) << (8 * (i & 3));
        }
      }
    }
}

}  // namespace sciz::stages
