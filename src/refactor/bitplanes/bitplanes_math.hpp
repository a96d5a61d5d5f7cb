// The arithmetic of mdr's bitplanes (docs/MDR.md section 2), once, for both twins: fixed
// point after exponent alignment, negabinary digits, the reconstruction of a coefficient from
// its known top digits, and the register-block layout of a plane's words.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/hd.hpp"

namespace sciz::bitplanes {

// Digit words and fixed-point scale per field type: |v| <= 2^scale needs scale + 2 negabinary
// digits, and every reconstruction 2 v_k + (hi_k + lo_k) stays below 2^(scale + 3) <= 2^53, so
// it is exact in double (f64 would lose it with a wider scale).
template <class T>
struct Digits;
template <>
struct Digits<float> {
  using Word = uint32_t;
  static constexpr int scale = 30, count = 32;
};
template <>
struct Digits<double> {
  using Word = uint64_t;
  static constexpr int scale = 50, count = 52;
};

// Bits at the odd positions below `digits`: the negative powers of -2.
SCIZ_HD uint64_t odd_mask(int digits) {
  const uint64_t all = digits >= 64 ? ~uint64_t(0) : (uint64_t(1) << digits) - 1;
  return all & 0xAAAAAAAAAAAAAAAAull;
}

// Negabinary digits of v, |v| <= 2^(digits - 2): inside both ends of the representable range.
SCIZ_HD uint64_t to_negabinary(int64_t v, int digits) {
  const uint64_t m = odd_mask(digits);
  return (static_cast<uint64_t>(v) + m) ^ m;
}
// Value of any digit string (known digits only; the unknown ones are zero in nb).
SCIZ_HD int64_t from_negabinary(uint64_t nb, int digits) {
  const uint64_t m = odd_mask(digits);
  return static_cast<int64_t>(nb ^ m) - static_cast<int64_t>(m);
}

// With the low k digits unknown the missing part lies in [lo_k, hi_k]: hi_k the even powers
// of two below 2^k, lo_k minus the odd ones. Twice its midpoint, an odd integer for k >= 1.
SCIZ_HD int64_t twice_mid(int k) {
  const uint64_t low = k >= 64 ? ~uint64_t(0) : (uint64_t(1) << k) - 1;
  return static_cast<int64_t>(low & 0x5555555555555555ull) - static_cast<int64_t>(low & 0xAAAAAAAAAAAAAAAAull);
}

// The fixed-point integer of a coefficient of a level whose max |c| is below 2^e:
// |v| <= 2^scale. ldexp by a power of two is exact, rint rounds once (|y - v| <= 1/2).
SCIZ_HD int64_t quantize(double c, int e, int scale) {
  return static_cast<int64_t>(rint(ldexp(c, scale - e)));
}

// The coefficient the decoder uses, in units of 2^(e - scale - 1) (twice the fixed-point
// unit, so that the midpoint is an integer): exact in double. k: digits still unknown.
SCIZ_HD int64_t recon_half_units(uint64_t nb, int k, int digits) {
  const int64_t v = from_negabinary(nb, digits);
  return k == 0 ? 2 * v : 2 * v + twice_mid(k);
}
// read: whether any group of the level has been read (with none, the coefficient is 0).
SCIZ_HD double reconstruct(uint64_t nb, int k, int digits, int e, int scale, bool read) {
  return read ? ldexp(static_cast<double>(recon_half_units(nb, k, digits)), e - scale - 1) : 0.0;
}

// |y - recon| <= 2^(k-1) units with k digits unknown (half the unknown range plus half a unit
// of rounding). Once a coefficient comes within 2^-20 of it, the scan of that plane count stops
// and the worst case itself is recorded: a true bound at most 10^-6 above the measured one, and
// the same number on both twins whatever the thread count (the measured maximum reaches the
// threshold exactly when some coefficient does).
SCIZ_HD double worst_units(int k) { return ldexp(1.0, k - 1); }
SCIZ_HD double saturation(int k) { return worst_units(k) * (1 - 0x1p-20); }
SCIZ_HD double settle(double measured, int k) { return measured >= saturation(k) ? worst_units(k) : measured; }

// A level's error table entry from the largest |y - recon| over its coefficients, in
// fixed-point units: scaled back and raised two ulps (the one rounding of each |y - recon| and
// of the scaling), plus the smallest subnormal (underflow), so it is never below the truth.
SCIZ_HD double error_from_units(double units, int e, int scale) {
  return nextafter(nextafter(ldexp(units, e - scale), INFINITY), INFINITY) + 0x1p-1074;
}

// Register-block layout (docs/MDR.md, "Register-block layout"): a plane of n coefficients is
// ceil(n / 32) words; word w belongs to region w / 32 (1024 coefficients, fewer in the last),
// served by `threads` words; bit j of the word holds coefficient first + j * threads.
inline constexpr uint32_t kRegion = 1024;
SCIZ_HD uint64_t plane_words(uint64_t n) { return (n + 31) / 32; }
struct WordSlot {
  uint64_t first;    // coefficient of bit 0
  uint64_t threads;  // stride between bits (32 in a full region)
};
SCIZ_HD WordSlot slot_of(uint64_t w, uint64_t n) {
  const uint64_t base = (w / 32) * kRegion;
  const uint64_t m = n - base < kRegion ? n - base : kRegion;
  return {base + w % 32, (m + 31) / 32};
}

// Bit-matrix transpose: afterwards bit j of a[p] is what bit p of a[j] was. Swaps the
// off-diagonal blocks of ever smaller squares: the top-right j x j block of each 2j x 2j
// square (rows k, bits >= j) trades places with its bottom-left one. Fully unrolled on the
// GPU, a[] stays in registers.
SCIZ_HD void transpose32(uint32_t a[32]) {
  uint32_t m = 0x0000FFFFu;
  SCIZ_UNROLL
  for (int j = 16; j != 0; j >>= 1, m ^= m << j) {
    SCIZ_UNROLL
    for (int k = 0; k < 32; k = ((k | j) + 1) & ~j) {
      const uint32_t t = ((a[k] >> j) ^ a[k | j]) & m;
      a[k] ^= t << j;
      a[k | j] ^= t;
    }
  }
}

// The 32 digit words one register-block thread holds (zero past n), transposed into plane
// words: half[h][d] is the plane word of digit 32 h + d. Both twins encode through it.
template <class W, class Load>
SCIZ_HD void gather_planes(const WordSlot& s, uint64_t n, Load&& load, uint32_t half[][32]) {
  constexpr int halves = sizeof(W) / 4;
  SCIZ_UNROLL
  for (int j = 0; j < 32; ++j) {
    const uint64_t i = s.first + j * s.threads;
    const uint64_t v = i < n ? static_cast<uint64_t>(load(i)) : 0;
    SCIZ_UNROLL
    for (int h = 0; h < halves; ++h) half[h][j] = static_cast<uint32_t>(v >> (32 * h));
  }
  SCIZ_UNROLL
  for (int h = 0; h < halves; ++h) transpose32(half[h]);
}

}  // namespace sciz::bitplanes
