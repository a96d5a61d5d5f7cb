// Host loops of the interp twin and its tuner: a block's 17^3 box, and the walk over the
// points of one pass of a level. The per-point decisions are interp_math.hpp's.
#pragma once
#include <cstdint>
#include <type_traits>

#include "predict/interp/interp_math.hpp"

namespace sciz::interp {

// predict_point with the stencil's shape fixed at compile time (K, SPLINE and CROSS are st's k,
// spline and cross, as with_stencil_shape passes them; a cross stencil's fallback spline is
// st.spline), inlined into the row loops: the same operations in the same order (the axes of
// the mask in order z, y, x), so the same value bit for bit
// (InterpMath.EdgePathEqualsGuardedPrediction). predict_point itself loops over all three axes
// and both splines and is called out of line: on the edge points that dominate thin boxes and
// coarse levels (every point of block levels 3 and 4 with cubic splines), this one costs less.
template <class T, int K, int SPLINE, bool CROSS, class I>
SCIZ_HD_HOT T predict_edge(const T* v, I off, const I c[3], const I n[3], I s, const StencilT<I>& st) {
  if constexpr (CROSS) {
    if (cross_inside(c, n, s, st)) {
      const T p = cross_stencil_k<T, K>(v, off, st);
      if (finite(p)) return p;
    }
  }
  const int spline = CROSS ? st.spline : SPLINE;
  T p[3] = {T(0), T(0), T(0)};  // slots past K stay at order -1: mean_of_best skips them
  int o[3] = {-1, -1, -1};
  int best = -1;
  for (int j = 0; j < K; ++j) {
    const int a = st.ax[j];
    const I d = st.step[j], ci = c[a], ni = n[a];
    const bool ia = ci >= 3 * s, ib = ci >= s, ic = ci + s < ni, id = ci + 3 * s < ni;
    const T x0 = ia ? v[off - 3 * d] : T(0);
    const T x1 = ib ? v[off - d] : T(0);
    const T x2 = ic ? v[off + d] : T(0);
    const T x3 = id ? v[off + 3 * d] : T(0);
    p[j] = spline_rule<T>(spline, x0, x1, x2, x3, ia && finite(x0), ib && finite(x1), ic && finite(x2),
                          id && finite(x3), o[j]);
    best = o[j] > best ? o[j] : best;
  }
  return best < 0 ? T(0) : mean_of_best(p, o, best);
}

// Runs rows [r0, r1) of a pass (a row: fixed z and y indices, row r = iz * cnt[1] + iy), and
// in each the points of x indices [j0, j1), over a grid of values v with extents n: for every
// point whose skip(off, c) is false, op(off, c, pred). Points whose stencil lies inside the grid
// take predict_interior (no range checks), the others predict_point, or predict_edge (the same
// value) when the op asks for it (O::kInlineEdge), and any non-finite result predict_point: the
// same values, faster. Inlining predict_edge pays in the tuner's runs (most of their points on
// thin boxes and coarse levels take this path) but slowed the decoder's reconstruction loop
// (sciz_small_bench interp-tp decompress 0.33 -> 0.31 GB/s), whose ops keep the call.
template <class T, int K, int SPLINE, bool CROSS, class Skip, class Op>
inline void run_rows_shaped(const T* v, const int64_t pitch[3], const int64_t n[3], const PassGrid& g, const Stencil& st,
                            int64_t s, int64_t r0, int64_t r1, int64_t j0, int64_t j1, Skip&& skip, Op&& op_in) {
  // The loops call a local copy of op: what it captures by value (a pointer, a bound, a running
  // sum) then lives in registers instead of behind a reference that every store of a code byte
  // (which may alias anything) forces to be read again. An op whose state must come back (a
  // copy-assignable functor, e.g. the tuner's sink) is assigned back at the end; a lambda's
  // captures by reference reach the caller's objects from the copy as from the original.
  using O = std::remove_cvref_t<Op>;
  O op(op_in);
  const int64_t reach = stencil_reach(st, s);
  bool along[3] = {false, false, false};
  for (int j = 0; j < st.k; ++j) along[st.ax[j]] = true;
  int64_t jlo = 0, jhi = g.cnt[2];  // x indices whose stencil lies inside along x
  if (along[2]) {
    jlo = g.start[2] >= reach ? 0 : (reach - g.start[2] + g.step[2] - 1) / g.step[2];
    const int64_t lim = n[2] - reach;  // c + reach < n  <=>  c < lim
    jhi = lim <= g.start[2] ? 0 : (lim - g.start[2] + g.step[2] - 1) / g.step[2];
    jhi = jhi < g.cnt[2] ? jhi : g.cnt[2];
  }
  jlo = jlo > j0 ? jlo : j0;
  jhi = jhi < j1 ? jhi : j1;
  for (int64_t r = r0; r < r1; ++r) {
    if constexpr (requires { op.stop(); })
      if (op.stop()) break;  // a sink that has seen enough (the tuner's bound) stops at a row's start
    int64_t c[3];
    c[0] = g.start[0] + (r / g.cnt[1]) * g.step[0];
    c[1] = g.start[1] + (r % g.cnt[1]) * g.step[1];
    bool row_in = true;
    for (int k = 0; k < 2; ++k)
      if (along[k]) row_in = row_in && c[k] >= reach && c[k] + reach < n[k];
    const int64_t row = c[0] * pitch[0] + c[1] * pitch[1];
    auto edge = [&](int64_t j) {
      c[2] = g.start[2] + j * g.step[2];
      const int64_t off = row + c[2] * pitch[2];
      if (skip(off, c)) return;
      if constexpr (requires { O::kInlineEdge; }) op(off, c, predict_edge<T, K, SPLINE, CROSS>(v, off, c, n, s, st));
      else op(off, c, predict_point<T>(v, off, c, n, s, st));
    };
    if (!row_in || jlo >= jhi) {
      for (int64_t j = j0; j < j1; ++j) edge(j);
      continue;
    }
    for (int64_t j = j0; j < jlo; ++j) edge(j);
    const int64_t dx = g.step[2] * pitch[2];
    int64_t off = row + (g.start[2] + jlo * g.step[2]) * pitch[2];
    for (int64_t j = jlo; j < jhi; ++j, off += dx) {
      c[2] = g.start[2] + j * g.step[2];
      if (skip(off, c)) continue;
      T pred = predict_interior<T, K, SPLINE, CROSS>(v, off, st);
      if (!finite(pred)) pred = predict_point<T>(v, off, c, n, s, st);
      op(off, c, pred);
    }
    for (int64_t j = jhi; j < j1; ++j) edge(j);
  }
  if constexpr (std::is_copy_assignable_v<O>) op_in = op;
}

template <class T, class Skip, class Op>
inline void run_rows(const T* v, const int64_t pitch[3], const int64_t n[3], const PassGrid& g, const Stencil& st,
                     int64_t s, int64_t r0, int64_t r1, int64_t j0, int64_t j1, Skip&& skip, Op&& op) {
  with_stencil_shape(st, [&]<int K, int SPLINE, bool CROSS>() {
    run_rows_shaped<T, K, SPLINE, CROSS>(v, pitch, n, g, st, s, r0, r1, j0, j1, skip, op);
  });
}

struct NoSkip {
  bool operator()(int64_t, const int64_t*) const { return false; }
};

// Calls f(grid, stencil) for every pass of a level (stride s, configuration cfg) that has
// points, in order; f returning false ends the level.
template <class F>
inline void for_each_pass(const int64_t pitch[3], const int64_t n[3], int64_t s, LevelConfig cfg, F&& f) {
  Pass passes[7];
  const int np = level_passes(cfg.scheme, passes);
  for (int pi = 0; pi < np; ++pi) {
    const PassGrid g = pass_grid(passes[pi], s, n);
    if (g.points() == 0) continue;
    if (!f(g, make_stencil(passes[pi].pred, s, pitch, cfg.spline, cfg.scheme == kCross))) return;
  }
}

// Runs every pass of a level over a grid, in order. An op with a stop() ends the level once it
// returns true (asked at the start of each row).
template <class T, class Skip, class Op>
inline void run_level(const T* v, const int64_t pitch[3], const int64_t n[3], int64_t s, LevelConfig cfg, Skip&& skip,
                      Op&& op) {
  for_each_pass(pitch, n, s, cfg, [&](const PassGrid& g, const Stencil& st) {
    run_rows(v, pitch, n, g, st, s, 0, g.cnt[0] * g.cnt[1], 0, g.cnt[2], skip, op);
    if constexpr (requires { op.stop(); }) return !op.stop();
    return true;
  });
}

inline constexpr int64_t kBoxPitch[3] = {kBoxPlane, kBox, 1};

// What a tuning run (interp_tune_cpu.cpp) does with each point: quantize it in place, sum its
// error cost, keep the code of a finite point and its outlier's bytes. A functor with its state
// by value, which the row loops keep in registers and hand back at the end. The AVX2 rows
// (interp_rows_avx2.hpp, TuneRows) do the same per lane and this per point where they cannot.
template <class T>
struct TuneSink {
  T* p;
  LevelQuant<T> lq;
  double ebc;
  uint8_t* cp;
  uint64_t limit;  // the run may stop once its cost reaches this (it can no longer win)
  uint64_t cost = 0, ob = 0;
  bool stop() const { return cost >= limit; }
  static constexpr bool kInlineEdge = true;  // the row loops inline predict_edge for this op
  SCIZ_HD_HOT void operator()(int64_t off, const int64_t*, T pred) {
    const T xv = p[off];
    int32_t big = 0;
    const uint8_t code = quantize<T>(xv, pred, lq, ebc, p[off], big);
    cost += err_cost(xv, pred, lq);
    if (!finite(xv)) return;  // NaN and Inf cost any predictor the same runs
    *cp++ = code;
    if (code == kOutlierCode) ob += leb128_bytes(outlier_word(big));
  }
};

// Calls f(off, u) for the owned points of block level with stride s in the order of the codes
// section (lexicographic, points of coarser levels skipped).
template <class F>
inline void walk_owned(const BoxGeom& g, int64_t s, F&& f) {
  for (int64_t z = 0; z < g.own[0]; z += s)
    for (int64_t y = 0; y < g.own[1]; y += s) {
      const bool zy_coarse = ((z | y) & s) == 0;
      for (int64_t x = zy_coarse ? s : 0; x < g.own[2]; x += zy_coarse ? 2 * s : s) {
        const int64_t u[3] = {z, y, x};
        f(z * kBoxPitch[0] + y * kBoxPitch[1] + x, u);
      }
    }
}

// Calls f(off, u) for the box points of block levels outside the owned range (the far faces),
// whose codes belong to the neighbouring blocks.
template <class F>
inline void walk_far(const BoxGeom& g, F&& f) {
  for (int64_t z = 0; z < g.w[0]; ++z)
    for (int64_t y = 0; y < g.w[1]; ++y) {
      const bool zy_far = z == kAnchorStride || y == kAnchorStride;
      for (int64_t x = zy_far ? 0 : kAnchorStride; x < g.w[2]; ++x) {
        if (((z | y | x) & (kAnchorStride - 1)) == 0) continue;  // an anchor
        const int64_t u[3] = {z, y, x};
        f(z * kBoxPitch[0] + y * kBoxPitch[1] + x, u);
      }
    }
}

}  // namespace sciz::interp
