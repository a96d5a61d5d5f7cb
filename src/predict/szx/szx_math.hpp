// The arithmetic of SZx (Yu et al., HPDC'22, Alg. 1 with the byte-aligned truncation of
// section 5.1), once, for both twins. Everything that decides a stored bit lives here: the
// block mean and radius, the kept bytes per value, the leading-identical-byte code, the
// reconstruction and the bound check. The CPU and CUDA twins differ only in how they loop.
// docs/SZX.md is the normative description of what these functions compute.
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

// Kept bytes per value of a non-constant block, formulas (4) and (5). With rT = T(radius)
// (the largest |v| of the block, v = x - mu rounded in T), e its unbiased exponent (the
// subnormal exponent field 0 counts as 1) and pe = eb_exponent(eb_check):
//   m  = clamp(e - pe, 0, mantissa bits)   mantissa bits that must survive
//   R  = 1 + exponent bits + m             bits from the top of the IEEE pattern
//   nb = ceil(R / 8)                       whole bytes (the right shift of formula (5))
// Dropping the mantissa bits below m moves any |v| <= rT by less than 2^pe <= eb_check.
// An infinite or NaN radius keeps every byte.
template <class T>
SCIZ_HD int required_bytes(T radius_t, int pe) {
  using Tr = Traits<T>;
  const int E = static_cast<int>((to_bits(radius_t) >> Tr::kMantBits) & Tr::kExpMax);
  if (E == Tr::kExpMax) return Tr::kBytes;
  const int e = (E == 0 ? 1 : E) - Tr::kBias;
  int m = e - pe;
  m = m < 0 ? 0 : (m > Tr::kMantBits ? Tr::kMantBits : m);
  return (1 + Tr::kExpBits + m + 7) / 8;
}

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

// The kept pattern of a normalized value: its top nb bytes, the rest zero.
template <class T>
SCIZ_HD typename Traits<T>::U kept_pattern(T v, typename Traits<T>::U keep_mask) {
  return to_bits(v) & keep_mask;
}

// Leading identical bytes of k and prev, capped at 3 (the 2-bit code) and at nb. The "| 1"
// makes k == prev count as width-1 identical bytes without a branch (>= 3 for both types).
template <class T>
SCIZ_HD int leading_bytes(typename Traits<T>::U k, typename Traits<T>::U prev, int lcap) {
  const int l = clz((k ^ prev) | 1u) >> 3;
  return l < lcap ? l : lcap;
}
SCIZ_HD int leading_cap(int nb) { return nb < 3 ? nb : 3; }

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

// Reconstruction of one value of a non-constant block: x' = mu + v' in T, one rounding.
template <class T>
SCIZ_HD T reconstruct(T mu, typename Traits<T>::U k) {
  return mu + from_bits<T>(k);
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
