// The arithmetic of dual-quantization Lorenzo (cuSZ+ Alg. 1), once, for both twins.
// Everything that decides a code or a reconstructed value lives here so the CPU and CUDA
// paths cannot drift: they differ only in how they loop.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/geometry.hpp"
#include "core/hd.hpp"

namespace sciz::lorenzo {

// Prequantized integers are kept within +-2^27 so a 3-D Lorenzo delta (8 terms) and every
// partial sum of the decoder (at most 4 terms of a difference) stay inside int32.
inline constexpr int32_t kMaxPrequant = 1 << 27;
inline constexpr int32_t kDefaultRadius = 512;
inline constexpr int32_t kMaxRadius = 32768;

template <class T>
struct QuantParams {
  T inv_ebx2;        // T(1 / (2 eb)), rounded once on the host
  T ebx2;            // T(2 eb)
  double eb_check;   // the bound every reconstructed value is checked against
  int32_t radius;
};

// Exactly-rounded multiply that the compiler may not fuse into an FMA with a neighbour.
SCIZ_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
SCIZ_HD double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

SCIZ_HD float round_even(float v) { return rintf(v); }
SCIZ_HD double round_even(double v) { return rint(v); }

template <class T>
SCIZ_HD T reconstruct(int32_t d, T ebx2) {
  return mul_rn(static_cast<T>(d), ebx2);
}

// What prequantization decided for one value.
enum class Prequant : int {
  kQuantized = 0,  // d reconstructs x within the bound
  kExactKeep = 1,  // d is right but its reconstruction misses the bound by rounding: store x
                   // exactly and keep d, which still predicts the neighbours well
  kExactFill = 2,  // non-finite or beyond the integer range: store x exactly; d is a
                   // placeholder the twins replace by the row fill (see fill rule below)
};

// Prequantize x to d = round(x / 2eb), then check the reconstruction in the real arithmetic
// of T (never trust the algebra alone).
template <class T>
SCIZ_HD Prequant prequantize(T x, const QuantParams<T>& p, int32_t& d) {
  const T r = round_even(mul_rn(x, p.inv_ebx2));
  if (!(fabs(r) <= static_cast<T>(kMaxPrequant))) {  // also catches NaN and Inf
    d = 0;
    return Prequant::kExactFill;
  }
  d = static_cast<int32_t>(r);
  const T rec = reconstruct(d, p.ebx2);
  return fabs(static_cast<double>(x) - static_cast<double>(rec)) <= p.eb_check ? Prequant::kQuantized : Prequant::kExactKeep;
}

// Fill rule for Prequant::kExactFill points (NaN land masks, huge values): inside each tile row (the
// x-extent of a tile at fixed z,y), such a point takes the d of the nearest quantized-or-kept
// point before it in the row, or, when there is none, of the first such point after it, or 0
// when the whole row is filled. The decoder never needs the fill (the exact value overrides
// the reconstruction), but the residuals around a mask edge stay small instead of jumping to
// and from 0. Both twins implement exactly this rule.

// First-order Lorenzo residual inside a tile; at(z,y,x) returns 0 for any negative index,
// so the tile's first row/plane is predicted from zeros exactly as the decoder assumes.
template <class Get>
SCIZ_HD int32_t delta(const Get& at, int z, int y, int x, int ndim) {
  if (ndim == 1) return at(0, 0, x) - at(0, 0, x - 1);
  if (ndim == 2) return at(0, y, x) - at(0, y, x - 1) - at(0, y - 1, x) + at(0, y - 1, x - 1);
  return at(z, y, x) - at(z, y, x - 1) - at(z, y - 1, x) - at(z - 1, y, x) + at(z, y - 1, x - 1) +
         at(z - 1, y, x - 1) + at(z - 1, y - 1, x) - at(z - 1, y - 1, x - 1);
}

// A twin may evaluate delta() in factored form (Dz Dy Dx of d): the integers are exact and no
// partial exceeds 2^30, so the result is the same number (the CUDA twin does, for rows of 32).

// Quant code around the radius; out-of-range residuals keep the zero code as placeholder
// and travel as outliers that the decoder adds back before the partial sums.
SCIZ_HD bool to_code(int32_t delta, int32_t radius, uint16_t& code) {
  if (delta >= -radius && delta < radius) {
    code = static_cast<uint16_t>(delta + radius);
    return true;
  }
  code = static_cast<uint16_t>(radius);
  return false;
}

SCIZ_HD int32_t from_code(uint16_t code, int32_t radius) { return static_cast<int32_t>(code) - radius; }

// Wrapping add: a crafted stream may overflow a partial sum; wrap instead of undefined behaviour.
SCIZ_HD int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// Tile shapes per effective dimensionality. Recorded in the stream's params, so a decoder
// reads the shape and never assumes it.
SCIZ_HD TileShape default_tile(int ndim) {
  if (ndim == 1) return {1, 1, 2048};
  if (ndim == 2) return {1, 32, 32};
  return {8, 8, 32};
}

// Outliers are addressed tile-major: tile id * tile volume + offset inside the tile, so
// each tile's outliers are one contiguous run of the sorted list (a GPU block finds its run
// by binary search).
SCIZ_HD uint64_t tile_major_index(uint64_t tile_id, const TileShape& c, uint32_t z, uint32_t y, uint32_t x) {
  return tile_id * c.volume() + (static_cast<uint64_t>(z) * c.cy + y) * c.cx + x;
}

}  // namespace sciz::lorenzo
