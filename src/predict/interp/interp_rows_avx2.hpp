// AVX2 row loops of the interp CPU twin and its tuner: the points of a pass whose x indices
// step by 1 or 2 (every pass of level 1, 7/8 of a field's points, and level 2's passes that
// step by 2), and by 4 in the encoder and the tuner (level 2's other passes), eight floats or
// four doubles of a row at a time, edges included. Each lane performs predict_box's
// operations (interp_math.hpp) in their order, on the same values: the orders a boundary
// imposes are selected per lane from the lanes' coordinates (only x varies along a row), the
// sums of the cross stencil and of mean_of_best keep their order, and packed IEEE add, sub,
// mul, div and round-to-nearest-even round as the scalar ones do (no FMA: nothing here is
// contracted, the project builds with -ffp-contract=off). Whatever a lane cannot settle
// exactly (a non-finite prediction, a residual that leaves the bound or 2^24, a NaN or Inf
// value) sends the whole group of lanes to the scalar code, predict_point and quantize, so
// outliers and exact values keep the scalar semantics by construction
// (InterpRowsAvx2.* compares both paths on adversarial boxes).
//
// The loops read up to kRowPad elements before and after the grid (lanes past a row's end,
// neighbours of edge lanes that no lane picks, the second half of a stride-2 load), so the
// buffers they run on carry that padding on both sides; garbage there is loaded, never picked.
//
// GCC only: the region below is built for AVX2 by `#pragma GCC target`, which clang ignores;
// a clang build (the sanitizer and fuzz builds) runs the scalar loops.
#pragma once
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define SCIZ_INTERP_AVX2 1
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "predict/interp/interp_walk.hpp"

#include "core/cpu_features.hpp"

namespace sciz::interp {
inline constexpr int64_t kRowPad = 64;
// Whether the lanes run: where the CPU has AVX2, unless SCIZ_INTERP_BASELINE_ISA forces the
// scalar loops (ctest InterpBaselineIsa runs the twin and the tuner both ways).
inline bool lanes_enabled() {
  static const bool v = avx2_allowed("SCIZ_INTERP_BASELINE_ISA");
  return v;
}
}  // namespace sciz::interp

#pragma GCC push_options
#pragma GCC target("avx2")

namespace sciz::interp::avx2 {
namespace {  // internal linkage: these are built for AVX2, no other unit may pick them up

struct F8 {
  using T = float;
  using V = __m256;
  static constexpr int W = 8;
  static V set1(float a) { return _mm256_set1_ps(a); }
  static V zero() { return _mm256_setzero_ps(); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V div(V a, V b) { return _mm256_div_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V band(V a, V b) { return _mm256_and_ps(a, b); }
  static V bor(V a, V b) { return _mm256_or_ps(a, b); }
  static V sel(V m, V a, V b) { return _mm256_blendv_ps(b, a, m); }  // m ? a : b
  static V eq(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static V lt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static V ge(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
  static unsigned bits(V m) { return static_cast<unsigned>(_mm256_movemask_ps(m)); }
  static V abs(V a) { return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))); }
  static V finite(V a) { return lt(abs(a), set1(__builtin_inff())); }
  static V iota() { return _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7); }
  static V round_even(V a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  // Eight values at p, p + XS, ...: XS 2 as two loads whose even elements are gathered by
  // shuffles.
  template <int XS>
  static V load(const float* p) {
    if constexpr (XS == 1) return _mm256_loadu_ps(p);
    if constexpr (XS == 4) {  // four loads: elements 0 and 4 of each, interleaved back in order
      const V ab = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), 0x00);        // a0 a0 b0 b0 | a4 a4 b4 b4
      const V cd = _mm256_shuffle_ps(_mm256_loadu_ps(p + 16), _mm256_loadu_ps(p + 24), 0x00);  // c0 c0 d0 d0 | c4 c4 d4 d4
      return _mm256_permutevar8x32_ps(_mm256_shuffle_ps(ab, cd, 0x88), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    }
    const V t = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), 0x88);
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(t), 0xD8));
  }
  template <int XS>
  static V load_i32(const int32_t* p) { return _mm256_cvtepi32_ps(_mm256_castps_si256(load<XS>(reinterpret_cast<const float*>(p)))); }
  // Stores of all eight lanes at p, p + XS, ... for XS 1 or 2; with XS 2 the elements between
  // (and the one after the last) are read and written back unchanged.
  template <int XS>
  static void store(float* p, V r) {
    if constexpr (XS == 1) return _mm256_storeu_ps(p, r);
    if constexpr (XS == 4) {
      alignas(32) float a[8];
      _mm256_store_ps(a, r);
      for (int k = 0; k < 8; ++k) p[4 * k] = a[k];
      return;
    }
    const V a = _mm256_permutevar8x32_ps(r, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3));
    const V b = _mm256_permutevar8x32_ps(r, _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7));
    _mm256_storeu_ps(p, _mm256_blend_ps(_mm256_loadu_ps(p), a, 0x55));
    _mm256_storeu_ps(p + 8, _mm256_blend_ps(_mm256_loadu_ps(p + 8), b, 0x55));
  }
  template <int XS>
  static void store_i32(int32_t* p, __m256i q) { store<XS>(reinterpret_cast<float*>(p), _mm256_castsi256_ps(q)); }
  // Code bytes of eight residuals q (in [kMinQ, kMaxQ]: q + kCentre, else kOutlierCode).
  template <int XS>
  static void store_codes(uint8_t* p, __m256i q) {
    const __m256i in = _mm256_and_si256(_mm256_cmpgt_epi32(q, _mm256_set1_epi32(kMinQ - 1)),
                                        _mm256_cmpgt_epi32(_mm256_set1_epi32(kMaxQ + 1), q));
    const __m256i c = _mm256_blendv_epi8(_mm256_set1_epi32(kOutlierCode), _mm256_add_epi32(q, _mm256_set1_epi32(kCentre)), in);
    if constexpr (XS == 4) {
      alignas(32) int32_t a[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(a), c);
      for (int k = 0; k < 8; ++k) p[4 * k] = static_cast<uint8_t>(a[k]);
      return;
    }
    const __m128i w = _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(c, c), 0x08));  // 8 words
    if constexpr (XS == 1) return _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(w, w));
    const __m128i old = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_blendv_epi8(old, w, _mm_set1_epi16(0x00FF)));
  }
};

struct D4 {
  using T = double;
  using V = __m256d;
  static constexpr int W = 4;
  static V set1(double a) { return _mm256_set1_pd(a); }
  static V zero() { return _mm256_setzero_pd(); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V sub(V a, V b) { return _mm256_sub_pd(a, b); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V div(V a, V b) { return _mm256_div_pd(a, b); }
  static V max(V a, V b) { return _mm256_max_pd(a, b); }
  static V band(V a, V b) { return _mm256_and_pd(a, b); }
  static V bor(V a, V b) { return _mm256_or_pd(a, b); }
  static V sel(V m, V a, V b) { return _mm256_blendv_pd(b, a, m); }
  static V eq(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
  static V lt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
  static V ge(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
  static unsigned bits(V m) { return static_cast<unsigned>(_mm256_movemask_pd(m)); }
  static V abs(V a) { return _mm256_and_pd(a, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL))); }
  static V finite(V a) { return lt(abs(a), set1(__builtin_inf())); }
  static V iota() { return _mm256_setr_pd(0, 1, 2, 3); }
  static V round_even(V a) { return _mm256_round_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  template <int XS>
  static V load(const double* p) {
    if constexpr (XS == 1) return _mm256_loadu_pd(p);
    if constexpr (XS == 4) {  // p0 p4 p2 p6 and p8 p12 p10 p14, their low halves
      const V lo = _mm256_unpacklo_pd(_mm256_loadu_pd(p), _mm256_loadu_pd(p + 4));
      const V hi = _mm256_unpacklo_pd(_mm256_loadu_pd(p + 8), _mm256_loadu_pd(p + 12));
      return _mm256_permute2f128_pd(lo, hi, 0x20);
    }
    const V t = _mm256_unpacklo_pd(_mm256_loadu_pd(p), _mm256_loadu_pd(p + 4));  // p0 p4 p2 p6
    return _mm256_permute4x64_pd(t, 0xD8);
  }
  template <int XS>
  static __m128i load_i32x4(const int32_t* p) {
    if constexpr (XS == 1) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
  }
  template <int XS>
  static V load_i32(const int32_t* p) { return _mm256_cvtepi32_pd(load_i32x4<XS>(p)); }
  template <int XS>
  static void store(double* p, V r) {
    if constexpr (XS == 1) return _mm256_storeu_pd(p, r);
    if constexpr (XS == 4) {
      alignas(32) double a[4];
      _mm256_store_pd(a, r);
      for (int k = 0; k < 4; ++k) p[4 * k] = a[k];
      return;
    }
    _mm256_storeu_pd(p, _mm256_blend_pd(_mm256_loadu_pd(p), _mm256_permute4x64_pd(r, 0x50), 0x5));
    _mm256_storeu_pd(p + 4, _mm256_blend_pd(_mm256_loadu_pd(p + 4), _mm256_permute4x64_pd(r, 0xFA), 0x5));
  }
  template <int XS>
  static void store_i32(int32_t* p, __m128i q) {
    if constexpr (XS == 1) return _mm_storeu_si128(reinterpret_cast<__m128i*>(p), q);
    if constexpr (XS == 4) {
      alignas(16) int32_t a[4];
      _mm_store_si128(reinterpret_cast<__m128i*>(a), q);
      for (int k = 0; k < 4; ++k) p[4 * k] = a[k];
      return;
    }
    const __m256i w = _mm256_permutevar8x32_epi32(_mm256_castsi128_si256(q), _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3));
    const __m256i old = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_blend_epi32(old, w, 0x55));
  }
  template <int XS>
  static void store_codes(uint8_t* p, __m128i q) {
    const __m128i in = _mm_and_si128(_mm_cmpgt_epi32(q, _mm_set1_epi32(kMinQ - 1)), _mm_cmpgt_epi32(_mm_set1_epi32(kMaxQ + 1), q));
    const __m128i c = _mm_blendv_epi8(_mm_set1_epi32(kOutlierCode), _mm_add_epi32(q, _mm_set1_epi32(kCentre)), in);
    if constexpr (XS == 4) {
      alignas(16) int32_t a[4];
      _mm_store_si128(reinterpret_cast<__m128i*>(a), c);
      for (int k = 0; k < 4; ++k) p[4 * k] = static_cast<uint8_t>(a[k]);
      return;
    }
    const __m128i w = _mm_packus_epi32(c, c);  // 4 words, twice
    if constexpr (XS == 1) return _mm_storeu_si32(p, _mm_packus_epi16(w, w));
    const __m128i old = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_blendv_epi8(old, w, _mm_set1_epi16(0x00FF)));
  }
};

// Lanes of |a - b| <= eb (quantize's check in double) as bits.
inline unsigned within(__m256d a, __m256d b, __m256d eb) {
  const __m256d absd = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  return static_cast<unsigned>(_mm256_movemask_pd(_mm256_cmp_pd(_mm256_and_pd(_mm256_sub_pd(a, b), absd), eb, _CMP_LE_OQ)));
}

// err_cost of four lanes (x and pred in double, inv the level's 1 / (2 eb_l)): the same
// operations in the same order, truncated below the cap as int32 (the cap, 2^20, fits).
[[gnu::always_inline]] inline __m128i err_cost4(__m256d x, __m256d pred, __m256d inv) {
  const __m256d absd = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  const __m256d cap = _mm256_set1_pd(static_cast<double>(kErrCap));
  const __m256d e = _mm256_mul_pd(_mm256_mul_pd(_mm256_and_pd(_mm256_sub_pd(x, pred), absd), inv), _mm256_set1_pd(16.0));
  return _mm256_cvttpd_epi32(_mm256_blendv_pd(cap, e, _mm256_cmp_pd(e, cap, _CMP_LT_OQ)));
}

template <class T>
using VecOf = std::conditional_t<std::is_same_v<T, float>, F8, D4>;

// The spline_* weightings, lane-wise, in their order of operations. Everything below is
// forced inline: out of line, GCC passed the vectors through memory, a call per axis and lane group.
template <class VT>
[[gnu::always_inline]] inline typename VT::V cubic(typename VT::V a, typename VT::V b, typename VT::V c, typename VT::V d) {
  using T = typename VT::T;
  return VT::mul(VT::sub(VT::mul(VT::add(b, c), VT::set1(T(9))), VT::add(a, d)), VT::set1(T(0.0625)));
}
template <class VT>
[[gnu::always_inline]] inline typename VT::V quad_a(typename VT::V a, typename VT::V b, typename VT::V c) {
  using T = typename VT::T;
  return VT::mul(VT::sub(VT::add(VT::mul(b, VT::set1(T(6))), VT::mul(c, VT::set1(T(3)))), a), VT::set1(T(0.125)));
}
template <class VT>
[[gnu::always_inline]] inline typename VT::V quad_d(typename VT::V b, typename VT::V c, typename VT::V d) {
  using T = typename VT::T;
  return VT::mul(VT::sub(VT::add(VT::mul(b, VT::set1(T(3))), VT::mul(c, VT::set1(T(6)))), d), VT::set1(T(0.125)));
}
template <class VT>
[[gnu::always_inline]] inline typename VT::V linear(typename VT::V b, typename VT::V c) {
  using T = typename VT::T;
  return VT::mul(VT::add(b, c), VT::set1(T(0.5)));
}

// What a row fixes: per axis z and y whether the neighbours at -3s, -s, +s, +3s lie in the grid.
struct RowHas {
  bool a[2], b[2], c[2], d[2];
};

// spline_rule over one axis for a group of lanes at q (lane k at q + k XS), without the
// finiteness tests (predict_coord's rule: a non-finite neighbour makes the pick non-finite or
// is not picked, and a non-finite prediction goes to the scalar path). Axes z and y: the row's
// flags decide for every lane and only what they pick is loaded. Axis x: flags per lane from
// the lanes' coordinates xv, every formula evaluated and the rule's pick selected.
template <class VT, int XS>
[[gnu::always_inline]] inline void axis_rule(const typename VT::T* q, int a, int64_t d, int spline, const RowHas& h,
                      typename VT::V xv, typename VT::T s, typename VT::T nx, typename VT::V& r, typename VT::V& o) {
  using T = typename VT::T;
  using V = typename VT::V;
  if (a < 2) {
    const bool ha = h.a[a], hb = h.b[a], hc = h.c[a], hd = h.d[a];
    if (hb && hc) {
      const V B = VT::template load<XS>(q - d), C = VT::template load<XS>(q + d);
      if (spline == kCubic && ha && hd) {
        r = cubic<VT>(VT::template load<XS>(q - 3 * d), B, C, VT::template load<XS>(q + 3 * d)), o = VT::set1(T(3));
      } else if (spline == kCubic && ha) {
        r = quad_a<VT>(VT::template load<XS>(q - 3 * d), B, C), o = VT::set1(T(2));
      } else if (spline == kCubic && hd) {
        r = quad_d<VT>(B, C, VT::template load<XS>(q + 3 * d)), o = VT::set1(T(2));
      } else {
        r = linear<VT>(B, C), o = VT::set1(T(1));
      }
    } else if (hb || hc) {
      r = VT::template load<XS>(hb ? q - d : q + d), o = VT::zero();
    } else {
      r = VT::zero(), o = VT::set1(T(-1));
    }
    return;
  }
  const V mb = VT::ge(xv, VT::set1(s)), mc = VT::lt(xv, VT::set1(nx - s));
  const V B = VT::template load<XS>(q - d), C = VT::template load<XS>(q + d);
  r = linear<VT>(B, C), o = VT::set1(T(1));
  if (spline == kCubic) {
    const V ma = VT::ge(xv, VT::set1(3 * s)), md = VT::lt(xv, VT::set1(nx - 3 * s));
    const unsigned all = (1u << VT::W) - 1;
    const unsigned ba = VT::bits(ma), bd = VT::bits(md);
    if ((ba & bd) == all) {
      r = cubic<VT>(VT::template load<XS>(q - 3 * d), B, C, VT::template load<XS>(q + 3 * d)), o = VT::set1(T(3));
    } else if (ba | bd) {
      const V A = VT::template load<XS>(q - 3 * d), D = VT::template load<XS>(q + 3 * d);
      const V both = VT::band(ma, md);
      r = VT::sel(both, cubic<VT>(A, B, C, D), VT::sel(ma, quad_a<VT>(A, B, C), VT::sel(md, quad_d<VT>(B, C, D), r)));
      o = VT::sel(both, VT::set1(T(3)), VT::sel(VT::bor(ma, md), VT::set1(T(2)), o));
    }
  }
  const V both = VT::band(mb, mc);
  if (VT::bits(both) != (1u << VT::W) - 1) {
    r = VT::sel(both, r, VT::sel(mb, B, VT::sel(mc, C, VT::zero())));
    o = VT::sel(both, o, VT::sel(VT::bor(mb, mc), VT::zero(), VT::set1(T(-1))));
  }
}

// The cross stencil's sum over the cells of one group, in cross_sum's order.
template <class VT, int XS, int K, int MOVED>
[[gnu::always_inline]] inline typename VT::V cross_sum_lanes(const typename VT::T* q, const int64_t step[3]) {
  constexpr CrossCells<K, MOVED> cells = cross_cells<K, MOVED>();
  auto at = [&](int i) {
    int64_t o = 0;
    for (int j = 0; j < K; ++j) o += cells.d[i][j] * step[j];
    return VT::template load<XS>(q + o);
  };
  typename VT::V acc = at(0);
  for (int i = 1; i < cells.count; ++i) acc = VT::add(acc, at(i));
  return acc;
}

template <class VT, int XS, int K>
[[gnu::always_inline]] inline typename VT::V cross_lanes(const typename VT::T* q, const Stencil& st) {
  using T = typename VT::T;
  const typename VT::V p = VT::sub(VT::mul(cross_sum_lanes<VT, XS, K, 1>(q, st.step), VT::set1(T(0.5))),
                                   VT::mul(cross_sum_lanes<VT, XS, K, 2>(q, st.step), VT::set1(T(0.25))));
  if constexpr (K == 2) return p;
  else return VT::add(p, VT::mul(cross_sum_lanes<VT, XS, K, 3>(q, st.step), VT::set1(T(0.125))));
}

// predict_box for a group of lanes: exact wherever it is finite (the callers send every lane
// whose result they use and is not finite to predict_point).
template <class VT, int XS, int K, int SPLINE, bool CROSS>
[[gnu::always_inline]] inline typename VT::V predict_lanes(const typename VT::T* q, const Stencil& st, const RowHas& h,
                                    bool cross_row_in, typename VT::V xv, int64_t s, int64_t nx, unsigned valid) {
  using T = typename VT::T;
  using V = typename VT::V;
  const bool alongx = st.mask & 4u;
  V use_cross = VT::zero(), cr = VT::zero();
  if constexpr (CROSS) {
    if (cross_row_in) {
      cr = cross_lanes<VT, XS, K>(q, st);
      use_cross = VT::finite(cr);
      if (alongx) use_cross = VT::band(use_cross, VT::band(VT::ge(xv, VT::set1(T(s))), VT::lt(xv, VT::set1(T(nx - s)))));
      if ((VT::bits(use_cross) & valid) == valid) return cr;
    }
  }
  const int spline = CROSS ? st.spline : SPLINE;
  V p[K], o[K];
  for (int j = 0; j < K; ++j) axis_rule<VT, XS>(q, st.ax[j], st.step[j], spline, h, xv, T(s), T(nx), p[j], o[j]);
  V res;
  if constexpr (K == 1) {
    res = VT::sel(VT::lt(o[0], VT::zero()), VT::zero(), p[0]);
  } else {
    V best = o[0];
    for (int j = 1; j < K; ++j) best = VT::max(best, o[j]);
    // mean_of_best: the first axis of the best order starts the sum, the later ones add to it.
    V sum = VT::zero(), started = VT::zero(), cnt = VT::zero();
    const V one = VT::set1(T(1));
    for (int j = 0; j < K; ++j) {
      const V m = VT::eq(o[j], best);
      sum = VT::sel(m, VT::sel(started, VT::add(sum, p[j]), p[j]), sum);
      started = VT::bor(started, m);
      cnt = VT::add(cnt, VT::band(m, one));
    }
    res = VT::sel(VT::eq(cnt, one), sum,
                  VT::sel(VT::eq(cnt, VT::set1(T(2))), VT::mul(sum, VT::set1(T(0.5))), VT::div(sum, VT::set1(T(3)))));
    res = VT::sel(VT::lt(best, VT::zero()), VT::zero(), res);
  }
  if constexpr (CROSS) {
    if (cross_row_in) res = VT::sel(use_cross, cr, res);
  }
  return res;
}

}  // namespace
}  // namespace sciz::interp::avx2
#pragma GCC pop_options

// The policies, the row loops and run_level_lanes are built for the baseline ISA, with only
// the lane functions marked AVX2: their scalar paths (quantize, reconstruct, the coarser
// levels' run_rows) are then inlined where they are called, not called across targets.
#define SCIZ_AVX2_FN __attribute__((target("avx2")))
namespace sciz::interp::avx2 {
namespace {

// The encoder's per-point work: quantize's operations per lane; lanes(...) returns false when
// some lane of the m first would store its value exactly (or its prediction is not finite),
// and the caller then runs the scalar path for all of them.
template <class T>
struct QuantizeRows {
  static constexpr int64_t kStepMax = 4;
  T* v;
  uint8_t* code;
  int32_t* q;
  LevelQuant<T> ql;
  double ebc;
  static bool skip(int64_t) { return false; }
  [[gnu::always_inline]] void scalar(int64_t off, T pred) const { code[off] = quantize<T>(v[off], pred, ql, ebc, v[off], q[off]); }
  template <int XS>
  [[gnu::always_inline]] SCIZ_AVX2_FN bool lanes(int64_t off0, typename VecOf<T>::V pred, int m) const {
    constexpr int64_t xs = XS;
    using VT = VecOf<T>;
    using V = typename VT::V;
    constexpr int W = VT::W;
    const unsigned valid = (1u << m) - 1;
    const V x = VT::template load<XS>(v + off0);
    const V qf = VT::round_even(VT::mul(VT::sub(x, pred), VT::set1(ql.inv)));
    unsigned ok = VT::bits(VT::lt(VT::abs(qf), VT::set1(static_cast<T>(kMaxOutlier))));
    if ((ok & valid) != valid) return false;
    alignas(32) int32_t qq[8];
    alignas(32) T rr[W];
    const __m256d ebc4 = _mm256_set1_pd(ebc);
    if constexpr (std::is_same_v<T, float>) {
      const __m256i qi = _mm256_cvttps_epi32(qf);
      const V r = VT::add(pred, VT::mul(_mm256_cvtepi32_ps(qi), VT::set1(ql.ebx2)));
      ok &= within(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), _mm256_cvtps_pd(_mm256_castps256_ps128(r)), ebc4) |
            within(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(r, 1)), ebc4) << 4;
      if ((ok & valid) != valid) return false;
      if (m == W) {
        VT::template store<XS>(v + off0, r), VT::template store_i32<XS>(q + off0, qi), VT::template store_codes<XS>(code + off0, qi);
        return true;
      }
      _mm256_store_si256(reinterpret_cast<__m256i*>(qq), qi);
      _mm256_store_ps(rr, r);
    } else {
      const __m128i qi = _mm256_cvttpd_epi32(qf);
      const V r = VT::add(pred, VT::mul(_mm256_cvtepi32_pd(qi), VT::set1(ql.ebx2)));
      ok &= within(x, r, ebc4);
      if ((ok & valid) != valid) return false;
      if (m == W) {
        VT::template store<XS>(v + off0, r), VT::template store_i32<XS>(q + off0, qi), VT::template store_codes<XS>(code + off0, qi);
        return true;
      }
      _mm_store_si128(reinterpret_cast<__m128i*>(qq), qi);
      _mm256_store_pd(rr, r);
    }
    for (int k = 0; k < m; ++k) {
      const int64_t o = off0 + k * xs;
      const int32_t qk = qq[k];
      v[o] = rr[k];
      q[o] = qk;
      code[o] = qk >= kMinQ && qk <= kMaxQ ? static_cast<uint8_t>(qk + kCentre) : kOutlierCode;
    }
    return true;
  }
};

// The decoder's: reconstruct per lane, exactly stored points left as they are.
template <class T>
struct ReconstructRows {
  static constexpr int64_t kStepMax = 2;
  T* v;
  const uint8_t* code;
  const int32_t* q;
  LevelQuant<T> ql;
  bool any_exact;  // whether the grid holds exactly stored points at all (else no lane is skipped)
  bool skip(int64_t off) const { return any_exact && code[off] == kExactCode; }
  [[gnu::always_inline]] void scalar(int64_t off, T pred) const { v[off] = reconstruct<T>(q[off], pred, ql); }
  template <int XS>
  [[gnu::always_inline]] SCIZ_AVX2_FN bool lanes(int64_t off0, typename VecOf<T>::V pred, int m) const {
    constexpr int64_t xs = XS;
    using VT = VecOf<T>;
    unsigned need = (1u << m) - 1;
    if (any_exact) {
      need = 0;
      for (int k = 0; k < m; ++k) need |= (code[off0 + k * xs] != kExactCode ? 1u : 0u) << k;
    }
    if ((VT::bits(VT::finite(pred)) & need) != need) return false;
    alignas(32) T rr[VT::W];
    const typename VT::V r = VT::add(pred, VT::mul(VT::template load_i32<XS>(q + off0), VT::set1(ql.ebx2)));
    if (m == VT::W && need == (1u << m) - 1) {
      VT::template store<XS>(v + off0, r);
      return true;
    }
    if constexpr (std::is_same_v<T, float>) _mm256_store_ps(rr, r);
    else _mm256_store_pd(rr, r);
    if (need == (1u << m) - 1) {
      for (int k = 0; k < m; ++k) v[off0 + k * xs] = rr[k];
    } else {
      for (int k = 0; k < m; ++k)
        if (need >> k & 1u) v[off0 + k * xs] = rr[k];
    }
    return true;
  }
};

// The tuner's per-point work (TuneSink, interp_walk.hpp) per lane: quantize's operations as
// QuantizeRows does them, err_cost's in double (|x - pred| * inv * 16, truncated below the cap:
// the same IEEE operations, so the same integers), the codes appended in the order of the
// lanes (which is the scalar walk's order along a row). A group that a lane would store exactly
// goes whole to the scalar path, as in the encoder: every lane the vector path keeps has a
// finite value and prediction, so each appends its code, and only outliers (rare) need their
// LEB128 size counted one by one. The codes buffer takes up to 8 bytes past the run's last code.
template <class T>
struct TuneRows {
  static constexpr int64_t kStepMax = 4;
  TuneSink<T> sink;
  static bool skip(int64_t) { return false; }
  bool stop() const { return sink.stop(); }
  [[gnu::always_inline]] void scalar(int64_t off, T pred) { sink(off, nullptr, pred); }
  template <int XS>
  [[gnu::always_inline]] SCIZ_AVX2_FN bool lanes(int64_t off0, typename VecOf<T>::V pred, int m) {
    using VT = VecOf<T>;
    using V = typename VT::V;
    constexpr int W = VT::W;
    constexpr int64_t xs = XS;
    T* v = sink.p;
    const LevelQuant<T>& ql = sink.lq;
    const unsigned valid = (1u << m) - 1;
    const V x = VT::template load<XS>(v + off0);
    const V qf = VT::round_even(VT::mul(VT::sub(x, pred), VT::set1(ql.inv)));
    unsigned ok = VT::bits(VT::lt(VT::abs(qf), VT::set1(static_cast<T>(kMaxOutlier))));
    if ((ok & valid) != valid) return false;
    const __m256d ebc4 = _mm256_set1_pd(sink.ebc);
    const __m256d inv = _mm256_set1_pd(static_cast<double>(ql.inv));
    alignas(32) int32_t qq[8];
    alignas(32) int32_t ee[8];
    alignas(32) T rr[W];
    __m256i qv;  // the residuals, as int32 (the upper half unused for doubles)
    if constexpr (std::is_same_v<T, float>) {
      const __m256i qi = _mm256_cvttps_epi32(qf);
      const V r = VT::add(pred, VT::mul(_mm256_cvtepi32_ps(qi), VT::set1(ql.ebx2)));
      const __m256d xlo = _mm256_cvtps_pd(_mm256_castps256_ps128(x)), xhi = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
      ok &= within(xlo, _mm256_cvtps_pd(_mm256_castps256_ps128(r)), ebc4) |
            within(xhi, _mm256_cvtps_pd(_mm256_extractf128_ps(r, 1)), ebc4) << 4;
      if ((ok & valid) != valid) return false;
      const __m128i clo = err_cost4(xlo, _mm256_cvtps_pd(_mm256_castps256_ps128(pred)), inv);
      const __m128i chi = err_cost4(xhi, _mm256_cvtps_pd(_mm256_extractf128_ps(pred, 1)), inv);
      _mm256_store_si256(reinterpret_cast<__m256i*>(ee), _mm256_set_m128i(chi, clo));
      VT::template store_codes<1>(sink.cp, qi);
      if (m == W) VT::template store<XS>(v + off0, r);
      else _mm256_store_ps(rr, r);
      qv = qi;
    } else {
      const __m128i qi = _mm256_cvttpd_epi32(qf);
      const V r = VT::add(pred, VT::mul(_mm256_cvtepi32_pd(qi), VT::set1(ql.ebx2)));
      ok &= within(x, r, ebc4);
      if ((ok & valid) != valid) return false;
      _mm_store_si128(reinterpret_cast<__m128i*>(ee), err_cost4(x, pred, inv));
      VT::template store_codes<1>(sink.cp, qi);
      if (m == W) VT::template store<XS>(v + off0, r);
      else _mm256_store_pd(rr, r);
      qv = _mm256_castsi128_si256(qi);
    }
    if (m < W)
      for (int k = 0; k < m; ++k) v[off0 + k * xs] = rr[k];
    uint64_t cost = 0;
    for (int k = 0; k < m; ++k) cost += static_cast<uint64_t>(ee[k]);
    sink.cost += cost;
    sink.cp += m;
    // Lanes outside [kMinQ, kMaxQ] are outliers: their words' LEB128 sizes.
    const __m256i out = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(kMinQ), qv),
                                        _mm256_cmpgt_epi32(qv, _mm256_set1_epi32(kMaxQ)));
    if (static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(out))) & valid) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(qq), qv);
      for (int k = 0; k < m; ++k)
        if (qq[k] < kMinQ || qq[k] > kMaxQ) sink.ob += leb128_bytes(outlier_word(qq[k]));
    }
    return true;
  }
};

// A policy with state of its own (the tuner's, non-const) is run on a local copy, which the
// loops keep in registers instead of reading it again after every store of a code byte (which
// may alias it), and handed back at the end; one with a stop() ends the pass at a row's start
// once it returns true, as run_rows does.
template <class T, int XS, int K, int SPLINE, bool CROSS, class P>
SCIZ_AVX2_FN void rows_lanes(T* v, const int64_t pitch[3], const int64_t n[3], const PassGrid& g, const Stencil& st, int64_t s,
                       P& p_io) {
  using VT = VecOf<T>;
  constexpr int W = VT::W;
  constexpr int64_t xs = XS;  // g.step[2]; pitch[2] == 1
  using Local = std::conditional_t<std::is_const_v<P>, P&, std::remove_const_t<P>>;
  Local p = p_io;
  const typename VT::V iota_x = VT::mul(VT::iota(), VT::set1(T(xs)));
  bool stopped = false;
  for (int64_t iz = 0; iz < g.cnt[0] && !stopped; ++iz)
    for (int64_t iy = 0; iy < g.cnt[1]; ++iy) {
      if constexpr (requires { p.stop(); }) {
        if (p.stop()) {
          stopped = true;
          break;
        }
      }
      int64_t c[3] = {g.start[0] + iz * g.step[0], g.start[1] + iy * g.step[1], 0};
      RowHas h{};
      bool cross_in = true;
      for (int a = 0; a < 2; ++a) {
        h.a[a] = c[a] >= 3 * s, h.b[a] = c[a] >= s, h.c[a] = c[a] + s < n[a], h.d[a] = c[a] + 3 * s < n[a];
        if (st.mask >> a & 1u) cross_in = cross_in && h.b[a] && h.c[a];
      }
      const int64_t row = c[0] * pitch[0] + c[1] * pitch[1];
      for (int64_t j = 0; j < g.cnt[2]; j += W) {
        const int m = static_cast<int>(std::min<int64_t>(W, g.cnt[2] - j));
        const int64_t x0 = g.start[2] + j * g.step[2];
        const int64_t off0 = row + x0;
        if (m == 1) {  // a row's last point alone (rows of 9 at level 1): cheaper in scalar
          c[2] = x0;
          if (!p.skip(off0)) p.scalar(off0, predict_edge<T, K, SPLINE, CROSS>(v, off0, c, n, s, st));
          continue;
        }
        const typename VT::V xv = VT::add(VT::set1(T(x0)), iota_x);
        const typename VT::V pred =
            predict_lanes<VT, XS, K, SPLINE, CROSS>(v + off0, st, h, cross_in, xv, s, n[2], (1u << m) - 1);
        if (p.template lanes<XS>(off0, pred, m)) continue;
        for (int k = 0; k < m; ++k) {
          const int64_t off = off0 + k * xs;
          if (p.skip(off)) continue;
          c[2] = x0 + k * xs;
          p.scalar(off, predict_point<T>(v, off, c, n, s, st));
        }
      }
    }
  if constexpr (!std::is_const_v<P>) p_io = p;
}

// Every pass of a level over a grid (x pitch 1, padded by kRowPad on both sides), as
// run_level does: the passes whose x indices step by at most the policy's kStepMax in lanes,
// the coarser levels' rows (at most 5 points in a box) scalar, their edge points, most of them,
// through predict_edge inlined. Steps of 4 (block level 2) in lanes, by four loads and
// shuffles, took 7 % off TREFHT's prediction (38.0 -> 35.5 ms, one thread) and 12 % off the
// Isabel cut's (0.200 -> 0.177 ms), and the tuner's level-2 runs 6 %; the decoder's were 2 %
// slower on TREFHT (gathers had been: level 2 13.3 -> 20.6 Mcycles) and stay scalar.
template <class T, class P>
struct ScalarOp {
  static constexpr bool kInlineEdge = true;
  const P* p;
  [[gnu::always_inline]] void operator()(int64_t off, const int64_t*, T pred) const { p->scalar(off, pred); }
};

template <class T, class P>
void run_level_lanes(T* v, const int64_t pitch[3], const int64_t n[3], int64_t s, LevelConfig cfg,
                                               const P& p) {
  for_each_pass(pitch, n, s, cfg, [&](const PassGrid& g, const Stencil& st) {
    if (g.step[2] <= P::kStepMax) {
      with_stencil_shape(st, [&]<int K, int SPLINE, bool CROSS>() {
        if (g.step[2] == 1) rows_lanes<T, 1, K, SPLINE, CROSS>(v, pitch, n, g, st, s, p);
        else if (g.step[2] == 2) rows_lanes<T, 2, K, SPLINE, CROSS>(v, pitch, n, g, st, s, p);
        else if constexpr (P::kStepMax >= 4) rows_lanes<T, 4, K, SPLINE, CROSS>(v, pitch, n, g, st, s, p);
      });
    } else {
      run_rows(v, pitch, n, g, st, s, 0, g.cnt[0] * g.cnt[1], 0, g.cnt[2], [&](int64_t off, const int64_t*) { return p.skip(off); },
               ScalarOp<T, P>{&p});
    }
    return true;
  });
}

// A tuning run of one level (run_level with a TuneSink): the passes whose x indices step by 1,
// 2 or 4 in lanes, the others through run_rows, the sink's state carried from pass to pass and
// the level ended where run_level would end it (sink.stop(), at a row's start).
template <class T>
void run_level_tune_lanes(T* v, const int64_t pitch[3], const int64_t n[3], int64_t s, LevelConfig cfg,
                          TuneSink<T>& sink) {
  for_each_pass(pitch, n, s, cfg, [&](const PassGrid& g, const Stencil& st) {
    if (g.step[2] <= TuneRows<T>::kStepMax) {
      TuneRows<T> p{sink};
      with_stencil_shape(st, [&]<int K, int SPLINE, bool CROSS>() {
        if (g.step[2] == 1) rows_lanes<T, 1, K, SPLINE, CROSS>(v, pitch, n, g, st, s, p);
        else if (g.step[2] == 2) rows_lanes<T, 2, K, SPLINE, CROSS>(v, pitch, n, g, st, s, p);
        else rows_lanes<T, 4, K, SPLINE, CROSS>(v, pitch, n, g, st, s, p);
      });
      sink = p.sink;
    } else {
      run_rows(v, pitch, n, g, st, s, 0, g.cnt[0] * g.cnt[1], 0, g.cnt[2], NoSkip{}, sink);
    }
    return !sink.stop();
  });
}

}  // namespace
}  // namespace sciz::interp::avx2
#undef SCIZ_AVX2_FN
#endif
