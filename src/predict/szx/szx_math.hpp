// The arithmetic of SZx (Yu et al., HPDC'22, Alg. 1 with the byte-aligned truncation of
// section 5.1), once, for both twins. Everything that decides a stored bit lives here: the
// block base and radius, the kept bits per value, the leading-identical-byte code, the
// reconstruction and the bound check. The CPU and CUDA twins differ only in how they loop.
// docs/SZX.md is the normative description of what these functions compute, for both
// layouts: 1 (kept bytes cut from the top of the pattern, full-width means) and 2 (kept bits
// moved down to end on a byte boundary, bases stored in 0, W/4, W/2 or W bytes).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/hd.hpp"

namespace sciz::szx {

inline constexpr uint32_t kDefaultBlock = 128;
inline constexpr uint32_t kMinBlock = 32;
inline constexpr uint32_t kMaxBlock = 4096;

SCIZ_HD bool valid_block(uint32_t b) { return b >= kMinBlock && b <= kMaxBlock && b % 32 == 0; }

// IEEE-754 layout of the two field types.
template <class T>
struct Traits;
template <>
struct Traits<float> {
  using U = uint32_t;
  static constexpr int kBytes = 4, kMantBits = 23, kExpBits = 8, kBias = 127, kExpMax = 0xff;
};
template <>
struct Traits<double> {
  using U = uint64_t;
  static constexpr int kBytes = 8, kMantBits = 52, kExpBits = 11, kBias = 1023, kExpMax = 0x7ff;
};

SCIZ_HD uint32_t to_bits(float v) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(v);
#else
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
#endif
}
SCIZ_HD uint64_t to_bits(double v) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(v));
#else
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
#endif
}
template <class T>
SCIZ_HD T from_bits(typename Traits<T>::U b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4)
    return __uint_as_float(b);
  else
    return __longlong_as_double(static_cast<long long>(b));
#else
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
#endif
}

// Count of leading zero bits; clz(0) is the width.
SCIZ_HD int clz(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(v));
#else
  return v ? __builtin_clz(v) : 32;
#endif
}
SCIZ_HD int clz(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(v));
#else
  return v ? __builtin_clzll(v) : 64;
#endif
}

// Byte reversal: turns a kept pattern into its bytes in stream order (most significant first).
SCIZ_HD uint32_t bswap(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(v, 0, 0x0123);
#else
  return __builtin_bswap32(v);
#endif
}
SCIZ_HD uint64_t bswap(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return (static_cast<uint64_t>(bswap(static_cast<uint32_t>(v))) << 32) | bswap(static_cast<uint32_t>(v >> 32));
#else
  return __builtin_bswap64(v);
#endif
}

template <class T>
SCIZ_HD bool is_finite(T v) {
  using Tr = Traits<T>;
  return ((to_bits(v) >> Tr::kMantBits) & Tr::kExpMax) != Tr::kExpMax;
}

// Order-preserving integer key of a finite value (-0 sorts just below +0): min/max become
// integer reductions that vectorize on the CPU and map onto atomicMin/Max on the GPU. Which
// of +-0 a reduction returns cannot matter (block_mu), so any total order would do.
template <class T>
SCIZ_HD auto order_key(T v) {
  using U = typename Traits<T>::U;
  using S = std::make_signed_t<U>;
  const U b = to_bits(v);
  const U flip = static_cast<U>(static_cast<S>(b) >> (8 * sizeof(U) - 1)) >> 1;  // low bits when negative
  return static_cast<S>(b ^ flip);
}
template <class T>
SCIZ_HD T from_order_key(std::make_signed_t<typename Traits<T>::U> key) {
  using U = typename Traits<T>::U;
  using S = std::make_signed_t<U>;
  const U flip = static_cast<U>(static_cast<S>(key) >> (8 * sizeof(U) - 1)) >> 1;
  return from_bits<T>(static_cast<U>(key) ^ flip);
}

// The bound every reconstructed value is checked against: the double the caller gave and
// T(eb), whichever is tighter, so a check done in either precision passes (as lorenzo does).
template <class T>
SCIZ_HD double eb_check(double eb) {
  const double t = static_cast<double>(static_cast<T>(eb));
  return t < eb ? t : eb;
}

// floor(log2(e)) for e = eb_check > 0 from the exponent field of the double; a subnormal or
// zero bound gives -1075, below every subnormal exponent (conservative: more bits kept).
SCIZ_HD int eb_exponent(double e) {
  const int E = static_cast<int>((to_bits(e) >> 52) & 0x7ff);
  return E == 0 ? -1075 : E - 1023;
}

// Block mean mu = T(min/2 + max/2) in T arithmetic (halving first cannot overflow). The final
// "+ 0" turns a -0 into +0: min/max of a block holding both +0 and -0 depends on the order
// of a reduction, mu must not.
template <class T>
SCIZ_HD T block_mu(T mn, T mx) {
  return (mn * static_cast<T>(0.5) + mx * static_cast<T>(0.5)) + static_cast<T>(0);
}

// Largest |x - mu| over the block's finite values, in double. For float the differences are
// exact in double; for double each is the rounded difference, and rounding is monotonic, so
// this is exactly the largest error a constant block would make under the double check.
template <class T>
SCIZ_HD double block_radius(T mn, T mx, T mu) {
  const double a = static_cast<double>(mx) - static_cast<double>(mu);
  const double b = static_cast<double>(mu) - static_cast<double>(mn);
  return a > b ? a : b;
}

// Kept bits per value of a non-constant block, formula (4). With rT = T(radius) (the largest
// |v| of the block, v = x - base rounded in T), e its unbiased exponent (the subnormal
// exponent field 0 counts as 1) and pe = eb_exponent(eb_check):
//   m  = clamp(e - pe, 0, mantissa bits)   mantissa bits that must survive
//   R  = 1 + exponent bits + m             bits from the top of the IEEE pattern
// Dropping the mantissa bits below m moves any |v| <= rT by less than 2^pe <= eb_check.
// An infinite or NaN radius keeps every bit.
template <class T>
SCIZ_HD int required_bits(T radius_t, int pe) {
  using Tr = Traits<T>;
  const int E = static_cast<int>((to_bits(radius_t) >> Tr::kMantBits) & Tr::kExpMax);
  if (E == Tr::kExpMax) return 8 * Tr::kBytes;
  const int e = (E == 0 ? 1 : E) - Tr::kBias;
  int m = e - pe;
  m = m < 0 ? 0 : (m > Tr::kMantBits ? Tr::kMantBits : m);
  return 1 + Tr::kExpBits + m;
}

// Whole bytes holding R kept bits (formula (5)): nb = ceil(R / 8).
SCIZ_HD int bytes_of_bits(int R) { return (R + 7) >> 3; }
template <class T>
SCIZ_HD int required_bytes(T radius_t, int pe) {
  return bytes_of_bits(required_bits(radius_t, pe));
}

// Layout 2 moves the R kept bits down by pad = 8 nb - R (the right shift of formula (5)), so
// they end on a byte boundary and the top byte holds pad zero bits above the sign: the
// leading bytes of neighbours then agree far more often than when the top byte is the sign
// and seven exponent bits and the last one carries 8 - R % 8 bits below the bound. Layout 1
// keeps the top nb bytes in place (pad 0, and R = 8 nb: the bits below R are kept too).
SCIZ_HD int pad_bits(int R) { return 8 * bytes_of_bits(R) - R; }

// Mask of the top `bytes` bytes of a pattern (bytes in 0..width).
template <class T>
SCIZ_HD typename Traits<T>::U top_mask(int bytes) {
  using U = typename Traits<T>::U;
  return bytes == 0 ? U(0) : ~U(0) << (8 * (Traits<T>::kBytes - bytes));
}

// Mask of the top L bytes for a leading-byte count L <= 3 (a 2-bit code): never the full
// width, so no branch is needed.
template <class T>
SCIZ_HD typename Traits<T>::U lead_mask(int L) {
  using U = typename Traits<T>::U;
  return static_cast<U>(~(~U(0) >> (8 * L)));
}

// The kept pattern of a normalized value: its top R bits moved down by pad = 8 nb - R, held
// in the top nb bytes (keep_mask = top_mask(nb)), the rest zero.
template <class T>
SCIZ_HD typename Traits<T>::U kept_pattern(T v, int pad, typename Traits<T>::U keep_mask) {
  return (to_bits(v) >> pad) & keep_mask;
}
// The same bits in place (the pattern's top R bits, bits_mask(R)): the value reconstruct()
// adds to the base, so an encoder takes the kept pattern as kept_top(...) >> pad and adds
// from_bits(kept_top(...)), one operation a value fewer than shifting back.
template <class T>
SCIZ_HD typename Traits<T>::U bits_mask(int R) {
  using U = typename Traits<T>::U;
  return R == 0 ? U(0) : static_cast<U>(~U(0) << (8 * Traits<T>::kBytes - R));
}
template <class T>
SCIZ_HD typename Traits<T>::U kept_top(T v, typename Traits<T>::U mask) {
  return to_bits(v) & mask;
}

// Leading identical bytes of k and prev, capped at 3 (the 2-bit code) and at nb. The "| 1"
// makes k == prev count as width-1 identical bytes without a branch (>= 3 for both types).
template <class T>
SCIZ_HD int leading_bytes(typename Traits<T>::U k, typename Traits<T>::U prev, int lcap) {
  const int l = clz((k ^ prev) | 1u) >> 3;
  return l < lcap ? l : lcap;
}
SCIZ_HD int leading_cap(int nb) { return nb < 3 ? nb : 3; }
// The same count with the cap folded into the operand: clz(x | b) = min(clz(x), clz(b)), so a
// set bit at 8 lcap leading zeros caps the count without a min (one operation for the kernel's
// xor, or and count: the bit is the block's, computed once).
template <class T>
SCIZ_HD typename Traits<T>::U lead_cap_bit(int lcap) {
  using U = typename Traits<T>::U;
  return static_cast<U>(U(1) << (8 * Traits<T>::kBytes - 1 - 8 * lcap));
}
template <class T>
SCIZ_HD int leading_bytes_capped(typename Traits<T>::U k, typename Traits<T>::U prev, typename Traits<T>::U cap_bit) {
  return clz((k ^ prev) | cap_bit) >> 3;
}

// The mid-bytes of a value, nb - L of them, are the bytes of k after its L leading ones, most
// significant first. As a word: its first nb - L bytes in memory order are the mid-bytes and
// the rest are zero (a CPU twin may store the whole word and advance by nb - L).
template <class T>
SCIZ_HD typename Traits<T>::U mid_word(typename Traits<T>::U k, int L) {
  return bswap(static_cast<typename Traits<T>::U>(k << (8 * L)));
}

// Decoder side: `word` holds (at least) the value's mid-bytes as its first bytes in memory
// order (loaded little-endian); bytes past the value's nb - L are ignored. L <= 3 (its code).
// The shift leaves the top L bytes of `mid` zero, so only prev fills them.
template <class T>
SCIZ_HD typename Traits<T>::U merge_pattern(typename Traits<T>::U prev, typename Traits<T>::U word, int L,
                                            typename Traits<T>::U keep_mask) {
  using U = typename Traits<T>::U;
  const U mid = static_cast<U>(bswap(word) >> (8 * L));
  return (prev & lead_mask<T>(L)) | (mid & keep_mask);
}

// Reconstruction of one value of a non-constant block: x' = base + v' in T, one rounding,
// v' being the kept pattern moved back up.
template <class T>
SCIZ_HD T reconstruct(T base, typename Traits<T>::U k, int pad) {
  return base + from_bits<T>(static_cast<typename Traits<T>::U>(k << pad));
}

// ---- layout 2: block kinds and stored bases --------------------------------------------

// A block's kind byte: bits 0..5 hold R - 1 for a non-constant block (R kept bits, 2..8W;
// the encoder writes R >= 1 + exponent bits) and 0 for a constant one; bits 6..7 the base
// code c, the base being stored in base_bytes(c) bytes: the top bytes of its pattern.
SCIZ_HD uint8_t make_kind(int R, int code) { return static_cast<uint8_t>((R ? R - 1 : 0) | code << 6); }
SCIZ_HD int kind_bits(uint8_t kind) { return (kind & 63) ? (kind & 63) + 1 : 0; }  // R; 0 = constant
SCIZ_HD int kind_code(uint8_t kind) { return kind >> 6; }
template <class T>
SCIZ_HD int base_bytes(int code) {
  return code == 0 ? 0 : Traits<T>::kBytes >> (3 - code);  // 0, W/4, W/2, W
}
template <class T>
SCIZ_HD bool valid_kind(uint8_t kind) {
  return (kind & 63) < 8 * Traits<T>::kBytes;
}
// A layout-1 kind (nb kept bytes, 0 = constant) as the layout-2 kind of the same decoding,
// with base code 0: layout 1 keeps its means in a section of their own, not in the payload.
SCIZ_HD uint8_t kind_of_layout1(uint8_t nb) { return make_kind(8 * nb, 0); }

// v truncated to its top `bytes` bytes: the value a base stored in that many bytes decodes to.
template <class T>
SCIZ_HD T truncated(T v, int bytes) {
  return from_bits<T>(to_bits(v) & top_mask<T>(bytes));
}

// Base code c for a constant block (every finite x in [mn, mx], mu their mid-range, within
// ebc of mu): does some value stored in base_bytes(c) bytes stay within ebc of mn and mx
// (so of every x: the check is the one every point gets, and the differences are monotonic)?
// The candidates are the two patterns of that width around mu: mu truncated, and the next
// one away from zero. Code 3 (mu itself) always qualifies. On success, base is the first
// candidate that does.
template <class T>
SCIZ_HD bool constant_base(T mn, T mx, T mu, double ebc, int code, T& base) {
  using U = typename Traits<T>::U;
  const int w = base_bytes<T>(code);
  if (w == Traits<T>::kBytes) {
    base = mu;
    return true;
  }
  const U t = to_bits(mu) & top_mask<T>(w);
  for (int q = 0; q < (w ? 2 : 1); ++q) {
    const T c = from_bits<T>(q ? static_cast<U>(t + (U(1) << (8 * (Traits<T>::kBytes - w)))) : t);
    if (is_finite(c) && static_cast<double>(mx) - static_cast<double>(c) <= ebc &&
        static_cast<double>(c) - static_cast<double>(mn) <= ebc) {
      base = c;
      return true;
    }
  }
  return false;
}

// Base code c for a non-constant block that keeps R bits from mu (base receives the
// candidate, also when it does not qualify): mu truncated to base_bytes(c) bytes qualifies when the block's radius around it still needs R bits (and is
// finite), so the stored bytes per value do not grow; code 3 (mu itself) always qualifies.
// Cutting the base short moves the values' exponents off-centre, which makes their leading
// bytes agree more often on most fields as well as saving base bytes (docs/SZX.md).
// The radius is taken in T: T(max(double(mx) - double(c), double(c) - double(mn))) is the
// same value (a float difference is exact in double, so rounding it once is the float
// subtraction; rounding is monotonic, so it commutes with the max), without the conversions.
template <class T>
SCIZ_HD bool nonconstant_base(T mn, T mx, T mu, int R, int pe, int code, T& base) {
  const int w = base_bytes<T>(code);
  const T c = truncated(mu, w);  // mu itself for w = W
  const T a = mx - c, b = c - mn;
  const T rt = a > b ? a : b;
  base = c;  // written whatever the answer: straight-line code for the GPU's four lanes
  return w == Traits<T>::kBytes || (is_finite(rt) && required_bits(rt, pe) == R);
}

// Everything a block stores before its values, from its finite min and max (mn > mx, in
// order keys, when it has none): kind byte, base, kept bits R (0: constant), nb = ceil(R/8),
// pad and the base's stored bytes. Layout 1: kind nb, base mu (in its own section: 0 bytes
// here), R = 8 nb and pad 0. The CUDA warp kernel tries the four base codes in four lanes
// instead of in turn; the choice is the same, the first code that qualifies.
inline constexpr int kLayout1 = 1, kLayout2 = 2;
template <class T>
struct BlockPlan {  // trivial, so that a kernel can hold one in shared memory
  uint8_t kind;
  T base;
  int R, nb, pad, base_bytes;
};
template <class T>
SCIZ_HD BlockPlan<T> plan_block(T mn, T mx, bool any_finite, double ebc, int pe, int layout) {
  BlockPlan<T> p{};
  if (!any_finite) return p;  // every value exact: a constant block of base +0
  const T mu = block_mu(mn, mx);
  const double r = block_radius(mn, mx, mu);
  if (r <= ebc) {
    if (layout == kLayout1) {
      p.base = mu;
      return p;
    }
    int c = 0;
    while (!constant_base(mn, mx, mu, ebc, c, p.base)) ++c;
    p.kind = make_kind(0, c);
    p.base_bytes = base_bytes<T>(c);
    return p;
  }
  p.R = required_bits(static_cast<T>(r), pe);
  p.nb = bytes_of_bits(p.R);
  if (layout == kLayout1) {
    p.R = 8 * p.nb;
    p.kind = static_cast<uint8_t>(p.nb);
    p.base = mu;
    return p;
  }
  p.pad = pad_bits(p.R);
  int c = 0;
  while (!nonconstant_base(mn, mx, mu, p.R, pe, c, p.base)) ++c;
  p.kind = make_kind(p.R, c);
  p.base_bytes = base_bytes<T>(c);
  return p;
}

// A base's stored bytes, most significant first, as the low bytes of a word (the rest zero).
template <class T>
SCIZ_HD typename Traits<T>::U base_word(T base, int bytes) {
  return bswap(to_bits(base) & top_mask<T>(bytes));
}

// The bound check every point gets: |x - x'| <= eb_check in double. False for NaN/Inf x.
template <class T>
SCIZ_HD bool within(T x, T xr, double ebc) {
  return fabs(static_cast<double>(x) - static_cast<double>(xr)) <= ebc;
}

// Code byte helpers: value i of a block has its 2-bit code in byte i/4, bits 2(i%4)..2(i%4)+1.
SCIZ_HD int code_at(uint8_t byte, uint32_t i) { return (byte >> (2 * (i & 3))) & 3; }
SCIZ_HD uint32_t code_bytes(uint32_t len) { return (len + 3) / 4; }

}  // namespace sciz::szx
