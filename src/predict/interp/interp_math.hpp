// The arithmetic of the `interp` predictor, once, for both twins: spline weights and the rule
// that lowers a spline's order where neighbours are missing or not finite, the quantizer and
// its inverse, the passes of a level, and where each point's code sits in the codes section.
// Everything that decides a code or a reconstructed value lives here; the CPU and CUDA twins
// differ only in how they loop (docs/INTERP.md, the layout in docs/FORMAT.md).
//
// Geometry. The effective extent (z, y, x; absent axes have extent 1) is covered by levels of
// interpolation: level l (1 = finest) holds the points whose coordinates are all multiples of
// its stride s = 2^(l-1) but not all multiples of 2s; the last level L holds the origin alone
// (its stride exceeds every extent) and is predicted as 0. Levels 1..4 (strides 1, 2, 4, 8)
// are *block levels*: the field is cut into blocks of 16 per axis, and a point of a block level
// is predicted from points of its block's 17^3 box only ([16b, 16b + 16] on each axis, cut at
// the field's end), so blocks are independent. Levels 5..L-1 (strides 16, 32, ...) are
// *anchor levels* over the grid of points whose coordinates are multiples of 16, predicted
// from the whole anchor grid; they run first and hand every block its corners.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/fp_rn.hpp"
#include "core/hd.hpp"

// The per-point functions of the hot loops: always inlined on the host too (GCC otherwise
// keeps some out of line, a call per point).
#if defined(__CUDACC__)
#define SCIZ_HD_HOT SCIZ_HD
#else
#define SCIZ_HD_HOT inline __attribute__((always_inline))
#endif

namespace sciz::interp {

inline constexpr int kAnchorStride = 16;
inline constexpr int kBlockLevels = 4;    // strides 8, 4, 2, 1 inside a block
inline constexpr int kBox = 17;           // a block's box edge: 16 owned points and the far face
inline constexpr int kMaxLevels = 64;     // L <= 5 + 44 for extents below 2^48
inline constexpr uint8_t kExactCode = 0;    // the point's value is in the exact-values section
inline constexpr uint8_t kOutlierCode = 255;  // its residual is in the outliers section
inline constexpr int kCentre = 128;           // code of a zero quantized residual
inline constexpr int kMinQ = -127, kMaxQ = 126;   // codes 1..254 hold these residuals
inline constexpr int32_t kMaxOutlier = 1 << 24;   // |q| below this travels as an outlier

enum Spline : uint8_t { kLinear = 0, kCubic = 1 };
// kDimZYX / kDimXYZ: dimension by dimension, one pass per axis in that order (the later axes
// see the earlier ones' points); kMultiDim: section 5.1.2's scheme, points with one odd
// coordinate first, then two, then three, each the mean of its axes' highest-order splines.
// kCross: as kMultiDim, but a point with two or three odd coordinates takes the mean of the
// Lorenzo predictors of all the quadrants (octants) around it at distance s, which is exact for
// any sum of functions of fewer variables (what Lorenzo exploits, e.g. a persistent spatial
// pattern plus a time signal); where one of those neighbours is missing, the kMultiDim rule.
enum Scheme : uint8_t { kDimZYX = 0, kDimXYZ = 1, kMultiDim = 2, kCross = 3 };
inline constexpr int kSplines = 2, kSchemes = 4;

struct LevelConfig {
  uint8_t spline = kCubic;
  uint8_t scheme = kMultiDim;
};
SCIZ_HD uint8_t pack_config(LevelConfig c) { return static_cast<uint8_t>(c.spline | (c.scheme << 4)); }
SCIZ_HD LevelConfig unpack_config(uint8_t b) { return {static_cast<uint8_t>(b & 15), static_cast<uint8_t>(b >> 4)}; }
SCIZ_HD bool valid_config(uint8_t b) { return (b & 15) < kSplines && (b >> 4) < kSchemes; }

// ---- spline rule ----

#if defined(__CUDA_ARCH__)
SCIZ_HD bool finite(float v) { return isfinite(v); }
SCIZ_HD bool finite(double v) { return isfinite(v); }
SCIZ_HD float magnitude(float v) { return fabsf(v); }
SCIZ_HD double magnitude(double v) { return fabs(v); }
#else
SCIZ_HD_HOT bool finite(float v) { return std::isfinite(v); }
SCIZ_HD_HOT bool finite(double v) { return std::isfinite(v); }
SCIZ_HD_HOT float magnitude(float v) { return std::fabs(v); }
SCIZ_HD_HOT double magnitude(double v) { return std::fabs(v); }
#endif

// The four weightings of a, b, c, d (the values at i - 3s, i - s, i + s, i + 3s), each in
// its fixed order of operations: every route to a prediction calls these, so none can round
// differently.
template <class T>
SCIZ_HD_HOT T spline_cubic(T a, T b, T c, T d) {
  using namespace fp;
  return mul_rn(sub_rn(mul_rn(add_rn(b, c), T(9)), add_rn(a, d)), T(0.0625));
}
template <class T>
SCIZ_HD_HOT T spline_quad_a(T a, T b, T c) {  // through a, b, c
  using namespace fp;
  return mul_rn(sub_rn(add_rn(mul_rn(b, T(6)), mul_rn(c, T(3))), a), T(0.125));
}
template <class T>
SCIZ_HD_HOT T spline_quad_d(T b, T c, T d) {  // through b, c, d
  using namespace fp;
  return mul_rn(sub_rn(add_rn(mul_rn(b, T(3)), mul_rn(c, T(6))), d), T(0.125));
}
template <class T>
SCIZ_HD_HOT T spline_linear(T b, T c) {
  using namespace fp;
  return mul_rn(add_rn(b, c), T(0.5));
}

// One axis: a, b, c, d are the values at i - 3s, i - s, i + s, i + 3s, and ha..hd whether each
// lies in the box and is finite. The one boundary and NaN rule: the spline asked for when all
// its points are usable; cubic drops to the quadratic through the three usable points
// (a, b, c) or (b, c, d), then to linear (b, c); without both b and c, the nearest usable of b,
// c; without either, no prediction (order -1). order: 3 cubic, 2 quadratic, 1 linear, 0
// nearest. Weights: cubic (-1, 9, 9, -1) / 16, quadratic (-1, 6, 3) / 8 and (3, 6, -1) / 8,
// linear (1, 1) / 2, each evaluated in the fixed order of the spline_* weightings.
template <class T>
SCIZ_HD T spline_rule(int spline, T a, T b, T c, T d, bool ha, bool hb, bool hc, bool hd, int& order) {
  if (hb && hc) {
    if (spline == kCubic) {
      if (ha && hd) {
        order = 3;
        return spline_cubic(a, b, c, d);
      }
      if (ha) {
        order = 2;
        return spline_quad_a(a, b, c);
      }
      if (hd) {
        order = 2;
        return spline_quad_d(b, c, d);
      }
    }
    order = 1;
    return spline_linear(b, c);
  }
  if (hb || hc) {
    order = 0;
    return hb ? b : c;
  }
  order = -1;
  return T(0);
}

// The mean of the per-axis predictions p whose order o is the highest (best >= 0), summed in
// axis order z, y, x (section 5.1.2: a cubic is not averaged with a linear).
template <class T>
SCIZ_HD_HOT T mean_of_best(const T p[3], const int o[3], int best) {
  T sum = T(0);
  int cnt = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int ax = 0; ax < 3; ++ax)
    if (o[ax] == best) sum = cnt++ == 0 ? p[ax] : fp::add_rn(sum, p[ax]);
  if (cnt == 1) return sum;
  if (cnt == 2) return fp::mul_rn(sum, T(0.5));
  return fp::div_rn(sum, T(3));
}

// What a point of a pass reads: the axes it is interpolated along and their steps (s x pitch).
// I is the offset type: int64_t over a field, int32_t inside a block's box (the GPU's hot loop).
template <class I>
struct StencilT {
  int k = 0;           // axes in the mask, 1..3
  unsigned mask = 0;   // those axes as bits (bit a: axis a, 0 z, 1 y, 2 x)
  int ax[3] = {};      // those axes, in order z, y, x
  I step[3] = {};      // their steps, in that order
  I astep[3] = {};     // the step of each axis a (0 off the mask): readable at a fixed index
  int spline = kLinear;
  bool cross = false;  // k >= 2 and the cross scheme
};
using Stencil = StencilT<int64_t>;

template <class I>
SCIZ_HD StencilT<I> make_stencil(unsigned mask, I s, const I pitch[3], int spline, bool cross) {
  StencilT<I> st;
  st.mask = mask & 7u;
  for (int a = 0; a < 3; ++a)
    if (mask >> a & 1u) st.ax[st.k] = a, st.step[st.k] = s * pitch[a], st.astep[a] = s * pitch[a], ++st.k;
  st.spline = spline;
  st.cross = cross && st.k >= 2;
  return st;
}

// How far a point of this stencil reaches along each of its axes: s for linear splines and the
// cross stencil, 3s for cubic splines.
template <class I>
SCIZ_HD I stencil_reach(const StencilT<I>& st, I s) {
  return st.cross || st.spline == kLinear ? s : 3 * s;
}

// The orthant neighbours of a cross stencil over K axes, grouped by how many of those axes
// they move along (MOVED: 1 faces, 2 edges, 3 corners), in one fixed order: cell i of the 3^K
// cube around the point moves d = (i % 3 - 1, i / 3 % 3 - 1, i / 9 - 1) steps along the
// stencil's axes. The order fixes the rounding of the sums; the moves are compile-time
// constants, so a neighbour's offset is a sum of the stencil's steps, no table.
template <int K, int MOVED>
struct CrossCells {
  static constexpr int count = MOVED == 1 ? 2 * K : MOVED == 2 ? (K == 2 ? 4 : 12) : 8;
  int d[count][3];
};
template <int K, int MOVED>
constexpr CrossCells<K, MOVED> cross_cells() {
  CrossCells<K, MOVED> out{};
  int m = 0;
  for (int i = 0; i < (K == 2 ? 9 : 27); ++i) {
    const int d[3] = {i % 3 - 1, (i / 3) % 3 - 1, i / 9 - 1};
    int moved = 0;
    for (int j = 0; j < K; ++j) moved += d[j] != 0;
    if (moved == MOVED) {
      for (int j = 0; j < 3; ++j) out.d[m][j] = j < K ? d[j] : 0;
      ++m;
    }
  }
  return out;
}

// The sum of the values at the cells of one group, in their order.
template <class T, int K, int MOVED, class I>
SCIZ_HD_HOT T cross_sum(const T* v, I off, const I step[3]) {
  constexpr CrossCells<K, MOVED> cells = cross_cells<K, MOVED>();
  auto at = [&](int i) {
    I o = 0;
    for (int j = 0; j < K; ++j) o += cells.d[i][j] * step[j];
    return v[off + o];
  };
  T acc = at(0);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 1; i < cells.count; ++i) acc = fp::add_rn(acc, at(i));
  return acc;
}

// The mean of the orthant Lorenzo predictors: faces / 2 - edges / 4 (+ corners / 8), over the
// K axes of a cross stencil (2K faces, 4 or 12 edges, 8 corners in 3-D). The lengths are known
// at compile time, so the hot loops carry no loop over the offsets.
template <class T, int K, class I>
SCIZ_HD_HOT T cross_stencil_k(const T* v, I off, const StencilT<I>& st) {
  using namespace fp;
  static_assert(K == 2 || K == 3);
  const T p = sub_rn(mul_rn(cross_sum<T, K, 1>(v, off, st.step), T(0.5)),
                     mul_rn(cross_sum<T, K, 2>(v, off, st.step), T(0.25)));
  if constexpr (K == 2) return p;
  else return add_rn(p, mul_rn(cross_sum<T, K, 3>(v, off, st.step), T(0.125)));
}
template <class T, class I>
SCIZ_HD_HOT T cross_stencil(const T* v, I off, const StencilT<I>& st) {
  return st.k == 2 ? cross_stencil_k<T, 2>(v, off, st) : cross_stencil_k<T, 3>(v, off, st);
}

// Prediction of a point whose every neighbour in the stencil lies in the box (the caller
// checked, with stencil_reach). When a neighbour is not finite the result is not finite
// either, and the caller takes predict_point instead, which then returns the same value
// whenever all neighbours are finite: the two agree bit for bit wherever this one is used.
// K, SPLINE and CROSS are the stencil's k, spline and cross, fixed at compile time so that the
// hot loops carry no branches on them.
template <class T, int K, int SPLINE, bool CROSS, class I>
SCIZ_HD_HOT T predict_interior(const T* v, I off, const StencilT<I>& st) {
  using namespace fp;
  if constexpr (CROSS) {
    return cross_stencil_k<T, K>(v, off, st);
  } else {
    T p[K];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int j = 0; j < K; ++j) {
      const I d = st.step[j];
      const T b = v[off - d], c = v[off + d];
      if constexpr (SPLINE == kCubic)
        p[j] = spline_cubic(v[off - 3 * d], b, c, v[off + 3 * d]);
      else
        p[j] = spline_linear(b, c);
    }
    if constexpr (K == 1) return p[0];
    if constexpr (K == 2) return mul_rn(add_rn(p[0], p[1]), T(0.5));
    if constexpr (K == 3) return div_rn(add_rn(add_rn(p[0], p[1]), p[2]), T(3));
  }
}

// Calls f.template operator()<K, SPLINE, CROSS>() for the stencil's shape.
template <class F, class I>
SCIZ_HD void with_stencil_shape(const StencilT<I>& st, F&& f) {
  if (st.cross) {
    if (st.k == 2) f.template operator()<2, kLinear, true>();
    else f.template operator()<3, kLinear, true>();
    return;
  }
  if (st.spline == kCubic) {
    if (st.k == 1) f.template operator()<1, kCubic, false>();
    else if (st.k == 2) f.template operator()<2, kCubic, false>();
    else f.template operator()<3, kCubic, false>();
  } else {
    if (st.k == 1) f.template operator()<1, kLinear, false>();
    else if (st.k == 2) f.template operator()<2, kLinear, false>();
    else f.template operator()<3, kLinear, false>();
  }
}

// Whether every orthant neighbour of a cross stencil at coordinates c (distance s along each of
// its axes) lies in the box of extents n.
template <class I>
SCIZ_HD_HOT bool cross_inside(const I c[3], const I n[3], I s, const StencilT<I>& st) {
  bool inside = true;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int ax = 0; ax < 3; ++ax)
    if (st.mask >> ax & 1u) inside = inside && c[ax] >= s && c[ax] + s < n[ax];
  return inside;
}

// Prediction of any point of a pass, at coordinates c in a box of extents n: the cross
// stencil where the scheme asks for it and all its neighbours lie in the box and are finite;
// otherwise each axis' spline_rule, and the mean of those of highest order (section 5.1.2: a
// cubic is not averaged with a linear), taken in axis order z, y, x; 0 when no axis has a
// usable neighbour. A 1-D pass has one axis. The axes are visited by a fixed index (0, 1, 2,
// skipping those off the mask), so a GPU thread keeps c, n and the steps in registers.
template <class T, class I>
SCIZ_HD T predict_point(const T* v, std::type_identity_t<I> off, const I c[3], const I n[3], std::type_identity_t<I> s,
                        const StencilT<I>& st) {
  if (st.cross && cross_inside(c, n, s, st)) {
    const T p = cross_stencil(v, off, st);
    if (finite(p)) return p;
  }
  T p[3] = {T(0), T(0), T(0)};
  int o[3] = {-1, -1, -1};
  int best = -1;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int a = 0; a < 3; ++a) {
    if (!(st.mask >> a & 1u)) continue;
    const I d = st.astep[a], ci = c[a], ni = n[a];
    const bool ia = ci >= 3 * s, ib = ci >= s, ic = ci + s < ni, id = ci + 3 * s < ni;
    const T x0 = ia ? v[off - 3 * d] : T(0);
    const T x1 = ib ? v[off - d] : T(0);
    const T x2 = ic ? v[off + d] : T(0);
    const T x3 = id ? v[off + 3 * d] : T(0);
    p[a] = spline_rule<T>(st.spline, x0, x1, x2, x3, ia && finite(x0), ib && finite(x1), ic && finite(x2),
                          id && finite(x3), o[a]);
    best = o[a] > best ? o[a] : best;
  }
  return best < 0 ? T(0) : mean_of_best(p, o, best);
}

// predict_point's spline part as if every neighbour inside the box were finite: the rule's
// order per axis comes from the coordinates alone and every formula is evaluated, the rule's
// pick selected, so a warp's lanes never diverge on where their points lie. Whenever the
// result is finite it equals predict_point's (a non-finite neighbour that the pick uses makes
// the pick non-finite; one it does not use lowers no order that decides the mean), so callers
// take predict_point only for a non-finite result. Not for the cross stencil's first try.
template <class T, class I>
SCIZ_HD_HOT T predict_coord(const T* v, I off, const I c[3], const I n[3], I s, const StencilT<I>& st) {
  using namespace fp;
  T p[3] = {T(0), T(0), T(0)};
  int o[3] = {-1, -1, -1};
  int best = -1;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int ax = 0; ax < 3; ++ax) {
    if (!(st.mask >> ax & 1u)) continue;
    const I d = st.astep[ax], ci = c[ax], ni = n[ax];
    const bool ia = ci >= 3 * s, ib = ci >= s, ic = ci + s < ni, id = ci + 3 * s < ni;
    // Neighbours outside the box read the point itself: loaded, never picked.
    const T a = v[ia ? off - 3 * d : off], b = v[ib ? off - d : off], cc = v[ic ? off + d : off],
            dd = v[id ? off + 3 * d : off];
    T r = spline_linear(b, cc);
    int ord = 1;
    if (st.spline == kCubic) {
      const T cub = spline_cubic(a, b, cc, dd), qa = spline_quad_a(a, b, cc), qd = spline_quad_d(b, cc, dd);
      r = ia && id ? cub : ia ? qa : id ? qd : r;
      ord = ia && id ? 3 : ia || id ? 2 : 1;
    }
    if (!(ib && ic)) {
      r = ib ? b : ic ? cc : T(0);
      ord = ib || ic ? 0 : -1;
    }
    p[ax] = r, o[ax] = ord;
    best = ord > best ? ord : best;
  }
  return best < 0 ? T(0) : mean_of_best(p, o, best);
}

// predict_point's value by the cheapest route for a GPU thread: the cross stencil where it
// lies inside and is finite, else predict_coord, and predict_point itself only when that is not
// finite. K and CROSS are the stencil's k and cross, fixed at compile time.
template <class T, int K, bool CROSS, class I>
SCIZ_HD_HOT T predict_box(const T* v, I off, const I c[3], const I n[3], I s, const StencilT<I>& st) {
  if constexpr (CROSS) {
    if (cross_inside(c, n, s, st)) {
      const T p = cross_stencil_k<T, K>(v, off, st);
      if (finite(p)) return p;
    }
  }
  const T p = predict_coord<T, I>(v, off, c, n, s, st);
  return finite(p) ? p : predict_point<T, I>(v, off, c, n, s, st);
}

// Either path, chosen by where the point lies (the row runner of the CPU twin picks the same
// per row; the CUDA twin's anchor passes call this per point): equal to predict_point
// everywhere.
template <class T, class I>
SCIZ_HD T predict_any(const T* v, std::type_identity_t<I> off, const I c[3], const I n[3], std::type_identity_t<I> s,
                      const StencilT<I>& st) {
  const I reach = stencil_reach(st, s);
  bool inside = true;
  for (int j = 0; j < st.k; ++j) {
    const I ci = c[st.ax[j]];
    inside = inside && ci >= reach && ci + reach < n[st.ax[j]];
  }
  if (inside) {
    T p;
    if (st.cross)
      p = cross_stencil(v, off, st);
    else if (st.spline == kCubic)
      p = st.k == 1   ? predict_interior<T, 1, kCubic, false>(v, off, st)
          : st.k == 2 ? predict_interior<T, 2, kCubic, false>(v, off, st)
                      : predict_interior<T, 3, kCubic, false>(v, off, st);
    else
      p = st.k == 1   ? predict_interior<T, 1, kLinear, false>(v, off, st)
          : st.k == 2 ? predict_interior<T, 2, kLinear, false>(v, off, st)
                      : predict_interior<T, 3, kLinear, false>(v, off, st);
    if (finite(p)) return p;
  }
  return predict_point<T, I>(v, off, c, n, s, st);
}

// ---- quantizer ----

template <class T>
struct LevelQuant {
  T ebx2;  // T(2 eb_l)
  T inv;   // T(1 / (2 eb_l))
};

// Round half to even. On the host: (|v| + 2^(p-1)) - 2^(p-1) with the sign put back, which is
// rint in round-to-nearest-even (the proof is in core/round_cpu.hpp, whose rint_ne does the
// same; it cannot be inlined here, as it carries its own optimization attributes).
SCIZ_HD_HOT float round_even(float v) {
#if defined(__CUDA_ARCH__)
  return rintf(v);
#else
  const float a = __builtin_fabsf(v);
  const float t = __builtin_copysignf((a + 0x1p23f) - 0x1p23f, v);
  return a < 0x1p23f ? t : v;
#endif
}
SCIZ_HD_HOT double round_even(double v) {
#if defined(__CUDA_ARCH__)
  return rint(v);
#else
  const double a = __builtin_fabs(v);
  const double t = __builtin_copysign((a + 0x1p52) - 0x1p52, v);
  return a < 0x1p52 ? t : v;
#endif
}

// The value the decoder computes from a residual q (a code's, or an outlier's).
template <class T>
SCIZ_HD_HOT T reconstruct(int32_t q, T pred, const LevelQuant<T>& lq) {
  return fp::add_rn(pred, fp::mul_rn(static_cast<T>(q), lq.ebx2));
}

SCIZ_HD int32_t code_residual(uint8_t code) { return static_cast<int32_t>(code) - kCentre; }

// The code of x given its prediction: q = round((x - pred) / (2 eb_l)); code q + 128 when
// kMinQ <= q <= kMaxQ, kOutlierCode (q kept in `big`) when |q| < kMaxOutlier, provided the
// value the decoder will compute (reconstruct(), the same operations) lies within eb_check
// of x in double; otherwise kExactCode, and x itself is the reconstruction. NaN and Inf (in x,
// the prediction or on the way) fail a comparison and land in the exact branch before any
// conversion to an integer.
template <class T>
SCIZ_HD_HOT uint8_t quantize(T x, T pred, const LevelQuant<T>& lq, double eb_check, T& rec, int32_t& big) {
  const T qf = round_even(fp::mul_rn(fp::sub_rn(x, pred), lq.inv));
  if (magnitude(qf) < static_cast<T>(kMaxOutlier)) {
    const int32_t q = static_cast<int32_t>(qf);
    const T r = reconstruct<T>(q, pred, lq);
    if (magnitude(static_cast<double>(x) - static_cast<double>(r)) <= eb_check) {
      rec = r;
      big = q;
      return q >= kMinQ && q <= kMaxQ ? static_cast<uint8_t>(q + kCentre) : kOutlierCode;
    }
  }
  rec = x;
  return kExactCode;
}

// Outliers travel as LEB128 words: zigzag of q - 127 for q > kMaxQ, of q + 127 for q < kMinQ,
// so the nearest ones take a byte.
SCIZ_HD uint32_t outlier_word(int32_t q) {
  const int32_t r = q > kMaxQ ? q - (kMaxQ + 1) : q - kMinQ;
  return r >= 0 ? 2u * static_cast<uint32_t>(r) : 2u * static_cast<uint32_t>(-r) - 1u;
}
SCIZ_HD int32_t outlier_of_word(uint32_t w) {
  return (w & 1u) ? kMinQ - static_cast<int32_t>((w + 1) / 2) : static_cast<int32_t>(w / 2) + kMaxQ + 1;
}

// The tuner's cost of a prediction: |x - pred| in units of eb_l / 8, capped at kErrCap (an
// exactly stored point); non-finite = the cap. In double, on either device.
inline constexpr uint64_t kErrCap = uint64_t{1} << 20;
template <class T>
SCIZ_HD uint64_t err_cost(T x, T pred, const LevelQuant<T>& q) {
  const double e = magnitude(static_cast<double>(x) - static_cast<double>(pred)) * static_cast<double>(q.inv) * 16.0;
  return e < static_cast<double>(kErrCap) ? static_cast<uint64_t>(e) : kErrCap;
}

SCIZ_HD uint64_t leb128_bytes(uint32_t w) {
  uint64_t n = 1;
  while (w > 127) w >>= 7, ++n;
  return n;
}

// ---- passes of a level ----

// A pass is a set of points predicted together (independent of one another). On each axis its
// points' coordinates are: odd multiples of s (axes in `odd`), any multiples of s (`any`), or
// multiples of 2s (the others). They are interpolated along the axes of `pred`.
struct Pass {
  uint8_t odd, any, pred;
};

// The passes of a level in order; returns their count (<= 7). Axis k is bit k (0 z, 1 y, 2 x).
SCIZ_HD int level_passes(int scheme, Pass out[7]) {
  if (scheme == kMultiDim || scheme == kCross) {
    const uint8_t masks[7] = {1, 2, 4, 3, 5, 6, 7};  // one odd coordinate, then two, then three
    for (int i = 0; i < 7; ++i) out[i] = {masks[i], 0, masks[i]};
    return 7;
  }
  const int order[2][3] = {{0, 1, 2}, {2, 1, 0}};
  uint8_t done = 0;
  for (int k = 0; k < 3; ++k) {
    const uint8_t a = static_cast<uint8_t>(1u << order[scheme][k]);
    out[k] = {a, done, a};
    done = static_cast<uint8_t>(done | a);
  }
  return 3;
}

// First coordinate and step of a pass on axis k at stride s.
template <class I>
SCIZ_HD void pass_range(const Pass& p, int k, I s, I& start, I& step) {
  if (p.odd >> k & 1u) {
    start = s, step = 2 * s;
  } else if (p.any >> k & 1u) {
    start = 0, step = s;
  } else {
    start = 0, step = 2 * s;
  }
}

// The points of a pass on a grid of extents n: on axis k, cnt[k] coordinates start[k] +
// j step[k]. I: int64_t over a field, int inside a block's box.
template <class I>
struct PassGridT {
  I start[3], step[3], cnt[3];
  SCIZ_HD I points() const { return cnt[0] * cnt[1] * cnt[2]; }
};
using PassGrid = PassGridT<int64_t>;

template <class I>
SCIZ_HD PassGridT<I> pass_grid(const Pass& p, std::type_identity_t<I> s, const I n[3]) {
  PassGridT<I> g;
  for (int k = 0; k < 3; ++k) {
    pass_range<I>(p, k, s, g.start[k], g.step[k]);
    g.cnt[k] = g.start[k] < n[k] ? (n[k] - 1 - g.start[k]) / g.step[k] + 1 : 0;
  }
  return g;
}

// ---- where a point's code sits ----

SCIZ_HD uint64_t grid_count(const uint64_t n[3], uint64_t s) {
  return ((n[0] - 1) / s + 1) * ((n[1] - 1) / s + 1) * ((n[2] - 1) / s + 1);
}

// Rank of the point of indices i (coordinates / s) among the level's points of a box whose
// axes hold m multiples of s, in z-y-x lexicographic order: points with every index even belong
// to coarser levels and are skipped (the paper's Eq. 3 inside a box).
// U: uint64_t over a field, uint32_t inside a block's box (a block holds 4096 points).
template <class U>
SCIZ_HD U level_rank(const U m[3], const U i[3]) {
  const U my = m[1], mx = m[2];
  const U ey = (my + 1) / 2, ex = (mx + 1) / 2;
  U coarser = (i[0] + 1) / 2 * ey * ex;
  if (i[0] % 2 == 0) {
    coarser += (i[1] + 1) / 2 * ex;
    if (i[1] % 2 == 0) coarser += (i[2] + 1) / 2;
  }
  return (i[0] * my + i[1]) * mx + i[2] - coarser;
}

// Codes are ordered level by level, coarsest first (root, anchor levels, then block levels
// 4..1). Inside an anchor level: lexicographic over the whole field. Inside a block level:
// block by block (z-y-x order of blocks), and inside a block lexicographic over the points it
// owns ([16b, 16b + 16) on each axis, cut at the field's end). Every offset is closed form, so
// a GPU block writes its codes without a scan.
struct Layout {
  uint64_t n[3] = {1, 1, 1};  // effective extent z, y, x
  uint64_t g[3] = {1, 1, 1};  // blocks per axis
  int levels = 5;             // L; the root is level L
  uint64_t base[kMaxLevels + 2] = {};  // first code of level l, l = 1..L
  uint64_t count[kMaxLevels + 2] = {};
  uint64_t total = 1;
};

SCIZ_HD Layout make_layout(uint64_t nz, uint64_t ny, uint64_t nx) {
  Layout L;
  L.n[0] = nz, L.n[1] = ny, L.n[2] = nx;
  uint64_t amax = 1;
  for (int k = 0; k < 3; ++k) {
    L.g[k] = (L.n[k] + kAnchorStride - 1) / kAnchorStride;
    const uint64_t a = (L.n[k] - 1) / kAnchorStride + 1;
    amax = a > amax ? a : amax;
  }
  int K = 0;
  while ((uint64_t{1} << K) < amax) ++K;
  L.levels = 5 + K;
  L.count[L.levels] = 1;
  for (int l = 1; l < L.levels; ++l) {
    const uint64_t s = uint64_t{1} << (l - 1);
    L.count[l] = grid_count(L.n, s) - grid_count(L.n, 2 * s);
  }
  uint64_t at = 0;
  for (int l = L.levels; l >= 1; --l) {
    L.base[l] = at;
    at += L.count[l];
  }
  L.total = at;
  return L;
}

// Points of a block's owned range on axis k (b its block index there).
SCIZ_HD uint64_t owned(const Layout& L, int k, uint64_t b) {
  const uint64_t left = L.n[k] - b * kAnchorStride;
  return left < kAnchorStride ? left : kAnchorStride;
}

// log2 of a power of two (the strides): a shift replaces each division by a stride, which
// for a runtime 64-bit divisor is a long instruction sequence on the GPU.
SCIZ_HD int log2_pow2(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(v)) - 1;
#else
  return __builtin_ctzll(v);
#endif
}

// Codes of blocks before block b (z-y-x order) on the grid of multiples of s (s | 16): with
// every block but the last full along each axis, the sum of products splits per axis.
SCIZ_HD uint64_t blocks_prefix(const Layout& L, const uint64_t b[3], uint64_t s) {
  const int sh = log2_pow2(s);
  uint64_t m[3], before[3], all[3];
  for (int k = 0; k < 3; ++k) {
    m[k] = (owned(L, k, b[k]) + s - 1) >> sh;
    before[k] = b[k] * (kAnchorStride >> sh);
    all[k] = ((L.n[k] - 1) >> sh) + 1;
  }
  return before[0] * all[1] * all[2] + m[0] * before[1] * all[2] + m[0] * m[1] * before[2];
}

// First code of block b in block level l (1..4).
SCIZ_HD uint64_t block_level_start(const Layout& L, int l, const uint64_t b[3]) {
  const uint64_t s = uint64_t{1} << (l - 1);
  return L.base[l] + blocks_prefix(L, b, s) - blocks_prefix(L, b, 2 * s);
}

// Code position of an owned point of block b at local coordinates u (multiples of the level's
// stride, not all of twice it) in block level l.
SCIZ_HD uint64_t block_code_index(const Layout& L, int l, const uint64_t b[3], const uint64_t u[3]) {
  const int sh = l - 1;
  const uint64_t s = uint64_t{1} << sh;
  uint64_t m[3], i[3];
  for (int k = 0; k < 3; ++k) {
    m[k] = (owned(L, k, b[k]) + s - 1) >> sh;
    i[k] = u[k] >> sh;
  }
  return block_level_start(L, l, b) + level_rank(m, i);
}

// Level of the point at field coordinates c.
SCIZ_HD int level_of(const Layout& L, const uint64_t c[3]) {
  const uint64_t any = c[0] | c[1] | c[2];
  if (any == 0) return L.levels;
  return log2_pow2(any & (~any + 1)) + 1;
}

// Code position of any point of the field.
SCIZ_HD uint64_t code_index(const Layout& L, const uint64_t c[3]) {
  const int l = level_of(L, c);
  if (l == L.levels) return L.base[l];
  const int sh = l - 1;
  if (l > kBlockLevels) {
    uint64_t m[3], i[3];
    for (int k = 0; k < 3; ++k) m[k] = ((L.n[k] - 1) >> sh) + 1, i[k] = c[k] >> sh;
    return L.base[l] + level_rank(m, i);
  }
  uint64_t b[3], u[3];
  for (int k = 0; k < 3; ++k) b[k] = c[k] / kAnchorStride, u[k] = c[k] % kAnchorStride;
  return block_code_index(L, l, b, u);
}

// A block's box: 16 owned points per axis and the far face (the next block's first plane),
// cut at the field's end; values at pitches (kBoxPlane, kBox, 1).
inline constexpr int kBoxPlane = kBox * kBox;
inline constexpr int kBoxVolume = kBox * kBox * kBox;

struct BoxGeom {
  uint64_t b[3];   // block indices
  uint64_t o[3];   // origin in the field (16 b)
  int64_t w[3];    // extent of the box (<= 17)
  int64_t own[3];  // owned extent (<= 16)
};

SCIZ_HD BoxGeom box_geom(const Layout& L, uint64_t id) {
  BoxGeom g;
  g.b[2] = id % L.g[2];
  g.b[1] = (id / L.g[2]) % L.g[1];
  g.b[0] = id / (L.g[2] * L.g[1]);
  for (int k = 0; k < 3; ++k) {
    g.o[k] = g.b[k] * kAnchorStride;
    const uint64_t left = L.n[k] - g.o[k];
    g.w[k] = static_cast<int64_t>(left < kBox ? left : kBox);
    g.own[k] = static_cast<int64_t>(left < kAnchorStride ? left : kAnchorStride);
  }
  return g;
}

}  // namespace sciz::interp
