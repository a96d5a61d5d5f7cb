// 64-position bit masks over 16-bit codes (CPU only): the scans of the zrle/rle CPU twins and
// of the stage selection visit mask bits instead of every code.
#pragma once
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sciz::codes {

inline uint64_t low_bits(uint32_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// Bit j set when p[j] == c, j < 64 (all 64 read).
inline uint64_t eq_mask64(const uint16_t* p, uint16_t c) {
#if defined(__SSE2__)
  const __m128i cv = _mm_set1_epi16(static_cast<short>(c));
  uint64_t m = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k + 8));
    const __m128i e = _mm_packs_epi16(_mm_cmpeq_epi16(a, cv), _mm_cmpeq_epi16(b, cv));
    m |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(e))) << (16 * k);
  }
  return m;
#else
  uint64_t m = 0;
  for (int j = 0; j < 64; ++j) m |= static_cast<uint64_t>(p[j] == c) << j;
  return m;
#endif
}

// Bit j set when p[j] == p[j - 1], j < 64 (reads p[-1] .. p[63]).
inline uint64_t same_mask64(const uint16_t* p) {
#if defined(__SSE2__)
  uint64_t m = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k + 8));
    const __m128i a1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k - 1));
    const __m128i b1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k + 7));
    const __m128i e = _mm_packs_epi16(_mm_cmpeq_epi16(a, a1), _mm_cmpeq_epi16(b, b1));
    m |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(e))) << (16 * k);
  }
  return m;
#else
  uint64_t m = 0;
  for (int j = 0; j < 64; ++j) m |= static_cast<uint64_t>(p[j] == p[j - 1]) << j;
  return m;
#endif
}

// Bits j < nb (nb <= 64) of the scalar equivalents, for partial words.
inline uint64_t eq_mask(const uint16_t* p, uint16_t c, uint32_t nb) {
  uint64_t m = 0;
  for (uint32_t j = 0; j < nb; ++j) m |= static_cast<uint64_t>(p[j] == c) << j;
  return m;
}

}  // namespace sciz::codes
