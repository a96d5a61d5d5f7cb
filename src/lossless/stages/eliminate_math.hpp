// RRE_w and RZE_w: elimination of symbols behind a bitmap, for both twins. Layout of a block's
// payload (docs/FORMAT.md, "Stage blobs"):
//
//   m = block bytes / w symbols, t = block bytes % w tail bytes (only a last block has any).
//   Symbol i is *kept* when it is not predictable: RRE keeps i = 0 and every symbol that
//   differs from its predecessor in the block; RZE keeps every non-zero symbol.
//   Level 0 is the bitmap of kept symbols: bit t (least significant first) of byte j is set
//   when symbol 8j + t is kept; s_0 = ceil(m / 8) bytes. Level k + 1 is the bitmap of the
//   non-zero bytes of level k, s_(k+1) = ceil(s_k / 8) bytes, until a level of at most one
//   byte, the top level D (D <= 4 for a 16 KiB block: 2048, 256, 32, 4, 1 bytes). Bits past
//   a level's size are zero.
//   Payload: level D verbatim (s_D bytes), then for k = D - 1 down to 0 the non-zero bytes of
//   level k in order (as many as level k + 1 has set bits), then the kept symbols in order,
//   then the t tail bytes.
//
// Why bitmaps of bitmaps: a kept bit is rare exactly where the stage pays, so the level-0
// bitmap is mostly zero bytes and costs 1 bit a symbol; eliminating its zero bytes the same
// way, level by level, brings an all-repeat block of 16 KiB to 6 bytes. Why zero bytes and
// not repeated bytes at the upper levels: the set bits mark kept symbols, so the bytes of a
// compressible bitmap are mostly zero; a bitmap of mostly non-zero bytes belongs to a block
// that is stored raw anyway.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/bit_count.hpp"
#include "core/hd.hpp"
#include "lossless/stages/stage_id.hpp"
#include "lossless/stages/symbols.hpp"

namespace sciz::stages {

inline constexpr int kMaxLevels = 5;  // levels 0..4 of a block of at most 16384 symbols
static_assert(kBlockBytes <= 8 * 8 * 8 * 8 * 8, "levels 0..4 end in one byte for every block");

struct Levels {
  int top = 0;                      // D: the level stored verbatim
  uint32_t size[kMaxLevels] = {};   // s_k, bytes of level k
  uint32_t at[kMaxLevels] = {};     // offset of level k when all levels sit back to back
  uint32_t total = 0;               // bytes of all levels
};

SCIZ_HD Levels bitmap_levels(uint32_t m) {
  Levels l;
  l.size[0] = (m + 7) / 8;
  while (l.size[l.top] > 1 && l.top + 1 < kMaxLevels) {
    l.size[l.top + 1] = (l.size[l.top] + 7) / 8;
    ++l.top;
  }
  for (int k = 0; k <= l.top; ++k) {
    l.at[k] = l.total;
    l.total += l.size[k];
  }
  return l;
}

// Bytes of every level of a full block of 1-byte symbols, the largest case.
inline constexpr uint32_t kMaxLevelBytes = 2048 + 256 + 32 + 4 + 1;

// Whether symbol i of the block is kept (see above).
template <Family F, int W>
SCIZ_HD bool kept(const uint8_t* block, uint32_t i) {
  const uint_t<W> v = load_sym<W>(block + static_cast<uint64_t>(i) * W);
  if constexpr (F == Family::rze) return v != 0;
  else return i == 0 || v != load_sym<W>(block + static_cast<uint64_t>(i - 1) * W);
}

// Byte j of level 0 for a block of m symbols.
template <Family F, int W>
SCIZ_HD uint8_t level0_byte(const uint8_t* block, uint32_t m, uint32_t j) {
  uint8_t b = 0;
  const uint32_t i0 = 8 * j;
  uint_t<W> prev = i0 > 0 ? load_sym<W>(block + static_cast<uint64_t>(i0 - 1) * W) : uint_t<W>(0);
  if (i0 + 8 <= m && i0 > 0) {  // a whole byte inside the block: a fixed trip count the compiler unrolls
    for (uint32_t t = 0; t < 8; ++t) {
      const uint_t<W> v = load_sym<W>(block + static_cast<uint64_t>(i0 + t) * W);
      b |= static_cast<uint8_t>(F == Family::rze ? v != 0 : v != prev) << t;
      prev = v;
    }
    return b;
  }
  for (uint32_t t = 0; t < 8 && i0 + t < m; ++t) {
    const uint_t<W> v = load_sym<W>(block + static_cast<uint64_t>(i0 + t) * W);
    const bool k = F == Family::rze ? v != 0 : (i0 + t == 0 || v != prev);
    b |= static_cast<uint8_t>(k) << t;
    prev = v;
  }
  return b;
}

// Byte j of level k + 1 from level k (`lower`, `size` bytes).
SCIZ_HD uint8_t upper_byte(const uint8_t* lower, uint32_t size, uint32_t j) {
  uint8_t b = 0;
  for (uint32_t t = 0; t < 8 && 8 * j + t < size; ++t) b |= static_cast<uint8_t>(lower[8 * j + t] != 0) << t;
  return b;
}

// Valid bits of level k: one per symbol at level 0, one per byte of level k - 1 above it.
SCIZ_HD uint32_t level_bits(const Levels& l, uint32_t m, int k) { return k == 0 ? m : l.size[k - 1]; }

// The bits of a level's last byte past its valid bits, which must be zero.
SCIZ_HD uint8_t padding_mask(uint32_t bits) { return bits % 8 ? static_cast<uint8_t>(0xFFu << (bits % 8)) : 0; }

// Set bits of a byte and of a word: on the host core/bit_count.hpp's inline SWAR (the baseline
// ISA has no POPCNT: __builtin_popcount was a libgcc call per bitmap byte, 4 % of a small
// interp-tp call's time).
SCIZ_HD int popcount8(uint8_t b) {
#if defined(__CUDA_ARCH__)
  return __popc(b);
#else
  return set_bits(static_cast<uint32_t>(b));
#endif
}
SCIZ_HD int popcount64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#else
  return set_bits(x);
#endif
}

// ---- 64 symbols at a time: the GPU thread's unit (symbols 64t .. 64t + 63 of a block, whose
// level-0 bytes 8t .. 8t + 7 form one 64-bit word and whose level-1 byte is byte t) ----

SCIZ_HD uint64_t low_bits64(uint32_t k) { return k >= 64 ? ~uint64_t{0} : (uint64_t{1} << k) - 1; }

// Bit k set when byte k of x is not zero (k < 8).
SCIZ_HD uint32_t nonzero_bytes8(uint64_t x) {
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;
  const uint64_t hi = (x | ((x & kLow7) + kLow7)) & ~kLow7;  // bit 7 of each non-zero byte
  return static_cast<uint32_t>(((hi >> 7) * 0x0102040810204080ull) >> 56);  // gathered into one byte
}

// The 8 bytes at p, which is 8-byte aligned on the device.
SCIZ_HD uint64_t load_u64(const uint8_t* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const uint64_t*>(p);
#else
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
#endif
}

// Level-0 bits of symbols first .. first + 63 of a block of m symbols (bit i: symbol first + i
// kept; none past m). On the device the block is 8-byte aligned (shared memory) and first a
// multiple of 64; 1-byte symbols of a whole unit go 8 at a time.
template <Family F, int W>
SCIZ_HD uint64_t kept_bits64(const uint8_t* block, uint32_t m, uint32_t first) {
  if (first >= m) return 0;
  if constexpr (W == 1) {
    if (first + 64 <= m) {
      uint64_t bits = 0;
      uint64_t prev = first > 0 ? block[first - 1] : 0;  // the symbol before, in the low byte
      SCIZ_UNROLL
      for (int k = 0; k < 8; ++k) {
        const uint64_t v = load_u64(block + first + 8 * k);
        const uint64_t diff = F == Family::rze ? v : v ^ ((v << 8) | prev);
        bits |= static_cast<uint64_t>(nonzero_bytes8(diff)) << (8 * k);
        prev = v >> 56;
      }
      if (F == Family::rre && first == 0) bits |= 1;  // symbol 0 has no predecessor: kept
      return bits;
    }
  }
  // Symbol by symbol, from a block aligned to W (symbols at multiples of W).
  const uint32_t end = m - first < 64 ? m : first + 64;
  uint64_t bits = 0;
  uint_t<W> prev = first > 0 ? load_sym_aligned<W>(block + static_cast<uint64_t>(first - 1) * W) : uint_t<W>(0);
  for (uint32_t i = first; i < end; ++i) {
    const uint_t<W> v = load_sym_aligned<W>(block + static_cast<uint64_t>(i) * W);
    const bool k = F == Family::rze ? v != 0 : (i == 0 || v != prev);
    bits |= static_cast<uint64_t>(k) << (i - first);
    prev = v;
  }
  return bits;
}

// Why a block's payload was refused; the same kinds on both devices.
enum BlockFault : uint32_t {
  kBlockOk = 0,
  kBlockSize = 1,     // a: payload bytes, b: bytes its bitmaps call for (at least)
  kBlockPadding = 2,  // a: level whose bits past its size are set
  kBlockFirst = 3,    // RRE: the block's first symbol is not marked kept
};

// Stored-raw flag of a block's u16 entry in a reducer's table; the low 15 bits are its bytes.
inline constexpr uint16_t kRawFlag = 0x8000;
static_assert(kBlockBytes < kRawFlag, "a block's size fits the entry's 15 bits");

}  // namespace sciz::stages
