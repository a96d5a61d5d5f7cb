// Whole-vector work on 1-byte symbols for the CPU twins (SSE2 where the compiler targets it,
// the portable loop elsewhere): the bit planes of 16 bytes and back (BIT1), and 64-symbol
// masks of kept symbols (RZE1: non-zero; RRE1: differs from the byte before).
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sciz::stages::cpu {

// plane[r] bit i = bit r of p[i], i < 16.
inline void bit_planes16(const uint8_t* p, uint16_t plane[8]) {
#if defined(__SSE2__)
  __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  for (int r = 7; r >= 0; --r) {  // movemask takes bit 7 of each byte; doubling moves bit r - 1 there
    plane[r] = static_cast<uint16_t>(_mm_movemask_epi8(v));
    v = _mm_add_epi8(v, v);
  }
#else
  for (int r = 0; r < 8; ++r) {
    uint16_t w = 0;
    for (int i = 0; i < 16; ++i) w |= static_cast<uint16_t>(((p[i] >> r) & 1) << i);
    plane[r] = w;
  }
#endif
}

// The inverse: out[i] bit r = plane[r] bit i.
inline void from_bit_planes16(const uint16_t plane[8], uint8_t* out) {
#if defined(__SSE2__)
  // Lane i tests bit i % 8 of the plane word's low byte (i < 8) or high byte.
  const __m128i bit = _mm_set_epi8(-128, 64, 32, 16, 8, 4, 2, 1, -128, 64, 32, 16, 8, 4, 2, 1);
  __m128i acc = _mm_setzero_si128();
  for (int r = 0; r < 8; ++r) {
    const uint64_t lo = (plane[r] & 0xFFu) * 0x0101010101010101ull, hi = (plane[r] >> 8) * 0x0101010101010101ull;
    const __m128i v = _mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo));
    const __m128i set = _mm_cmpeq_epi8(_mm_and_si128(v, bit), bit);
    acc = _mm_or_si128(acc, _mm_and_si128(set, _mm_set1_epi8(static_cast<char>(1 << r))));
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), acc);
#else
  for (int i = 0; i < 16; ++i) {
    uint8_t b = 0;
    for (int r = 0; r < 8; ++r) b |= static_cast<uint8_t>(((plane[r] >> i) & 1) << r);
    out[i] = b;
  }
#endif
}

// Bit j set when p[j] != 0, j < 64.
inline uint64_t nonzero_mask64(const uint8_t* p) {
#if defined(__SSE2__)
  const __m128i z = _mm_setzero_si128();
  uint64_t m = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    m |= static_cast<uint64_t>(static_cast<uint16_t>(~_mm_movemask_epi8(_mm_cmpeq_epi8(a, z)))) << (16 * k);
  }
  return m;
#else
  uint64_t m = 0;
  for (int j = 0; j < 64; ++j) m |= static_cast<uint64_t>(p[j] != 0) << j;
  return m;
#endif
}

// Bit j set when p[j] != p[j - 1], j < 64 (reads p[-1] .. p[63]).
inline uint64_t change_mask64(const uint8_t* p) {
#if defined(__SSE2__)
  uint64_t m = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k - 1));
    m |= static_cast<uint64_t>(static_cast<uint16_t>(~_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)))) << (16 * k);
  }
  return m;
#else
  uint64_t m = 0;
  for (int j = 0; j < 64; ++j) m |= static_cast<uint64_t>(p[j] != p[j - 1]) << j;
  return m;
#endif
}

}  // namespace sciz::stages::cpu
