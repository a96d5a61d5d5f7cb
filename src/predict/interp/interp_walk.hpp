// Host loops of the interp twin and its tuner: a block's 17^3 box, and the walk over the
// points of one pass of a level. The per-point decisions are interp_math.hpp's.
#pragma once
#include <cstdint>

#include "predict/interp/interp_math.hpp"

namespace sciz::interp {

// Runs rows [r0, r1) of a pass (a row: fixed z and y indices, row r = iz * cnt[1] + iy), and
// in each the points of x indices [j0, j1), over a grid of values v with extents n: for every
// point whose skip(off, c) is false, op(off, c, pred). Points whose stencil lies inside the grid
// take predict_interior (no range checks), the others, and any non-finite result,
// predict_point: the same values, faster.
template <class T, int K, int SPLINE, bool CROSS, class Skip, class Op>
inline void run_rows_shaped(const T* v, const int64_t pitch[3], const int64_t n[3], const PassGrid& g, const Stencil& st,
                            int64_t s, int64_t r0, int64_t r1, int64_t j0, int64_t j1, Skip&& skip, Op&& op) {
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
      if (!skip(off, c)) op(off, c, predict_point<T>(v, off, c, n, s, st));
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

// Runs every pass of a level (stride s, configuration cfg) over a grid, in order.
template <class T, class Skip, class Op>
inline void run_level(const T* v, const int64_t pitch[3], const int64_t n[3], int64_t s, LevelConfig cfg, Skip&& skip,
                      Op&& op) {
  Pass passes[7];
  const int np = level_passes(cfg.scheme, passes);
  for (int pi = 0; pi < np; ++pi) {
    const PassGrid g = pass_grid(passes[pi], s, n);
    if (g.points() == 0) continue;
    const Stencil st = make_stencil(passes[pi].pred, s, pitch, cfg.spline, cfg.scheme == kCross);
    run_rows(v, pitch, n, g, st, s, 0, g.cnt[0] * g.cnt[1], 0, g.cnt[2], skip, op);
  }
}

inline constexpr int64_t kBoxPitch[3] = {kBoxPlane, kBox, 1};

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
