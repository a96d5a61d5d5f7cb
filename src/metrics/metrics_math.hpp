// The arithmetic of the quality metrics, once, for both twins: what one point adds to the
// error statistics, what one SSIM window scores, and how two partial results merge. The CPU
// and CUDA twins differ only in how they loop and in the order partials are merged.
// Definitions are documented in metrics.hpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/geometry.hpp"
#include "core/hd.hpp"
#include "metrics/metrics.hpp"

namespace sciz::metrics {

inline constexpr uint32_t kSsimWindow = 7;  // points per effective axis (axis length if shorter)
inline constexpr uint32_t kSsimStride = 2;  // distance between window origins along each axis
inline constexpr double kSsimK1 = 0.01;     // c1 = (k1 L)^2
inline constexpr double kSsimK2 = 0.03;     // c2 = (k2 L)^2

// Bit patterns decide finiteness and the exact-match test, so host and device classify every
// value identically whatever their math libraries do with NaN payloads.
SCIZ_HD uint32_t bits_of(float v) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(v);
#else
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
#endif
}
SCIZ_HD uint64_t bits_of(double v) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(v));
#else
  uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
#endif
}
SCIZ_HD bool is_finite(float v) { return (bits_of(v) & 0x7f800000u) != 0x7f800000u; }
SCIZ_HD bool is_finite(double v) { return (bits_of(v) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull; }

SCIZ_HD double pos_inf() {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(0x7ff0000000000000ll);
#else
  return std::numeric_limits<double>::infinity();
#endif
}

SCIZ_HD double max_d(double a, double b) { return a > b ? a : b; }
SCIZ_HD double min_d(double a, double b) { return a < b ? a : b; }

// ---- pass 1: per-point error statistics and the value range of finite originals ----------

struct PointStats {
  double sum_sq;    // sum of squared errors over compared points (inf once any decodes non-finite)
  double max_err;
  double vmin, vmax;  // over finite originals
  uint64_t compared;
  uint64_t mismatch;
};

SCIZ_HD PointStats point_identity() { return {0.0, 0.0, pos_inf(), -pos_inf(), 0, 0}; }

SCIZ_HD PointStats combine(const PointStats& a, const PointStats& b) {
  return {a.sum_sq + b.sum_sq, max_d(a.max_err, b.max_err), min_d(a.vmin, b.vmin), max_d(a.vmax, b.vmax),
          a.compared + b.compared, a.mismatch + b.mismatch};
}

template <class T>
SCIZ_HD void accumulate_point(PointStats& s, T orig, T dec) {
  if (!is_finite(orig)) {
    if (bits_of(orig) != bits_of(dec)) ++s.mismatch;
    return;
  }
  const double o = static_cast<double>(orig);
  ++s.compared;
  s.vmin = min_d(s.vmin, o);
  s.vmax = max_d(s.vmax, o);
  if (!is_finite(dec)) {
    // Set explicitly: |o - NaN| would be NaN, which every max() would then silently drop.
    ++s.mismatch;
    s.max_err = pos_inf();
    s.sum_sq = pos_inf();
    return;
  }
  const double e = o - static_cast<double>(dec);
  const double ae = e < 0 ? -e : e;
  s.max_err = max_d(s.max_err, ae);
  s.sum_sq += ae * ae;
}

struct CombinePoints {
  SCIZ_HD PointStats operator()(const PointStats& a, const PointStats& b) const { return combine(a, b); }
};

// ---- pass 2: SSIM windows ------------------------------------------------------------------

struct SsimGeom {
  Extent e;
  uint32_t wz, wy, wx;  // window size along each effective axis
  uint64_t cz, cy, cx;  // window origins along each axis
  SCIZ_HD uint64_t count() const { return cz * cy * cx; }
};

SCIZ_HD uint32_t window_len(uint64_t axis) { return axis < kSsimWindow ? static_cast<uint32_t>(axis) : kSsimWindow; }
SCIZ_HD uint64_t window_origins(uint64_t axis, uint32_t w) { return (axis - w) / kSsimStride + 1; }

SCIZ_HD SsimGeom ssim_geometry(const Extent& e) {
  SsimGeom g;
  g.e = e;
  g.wz = window_len(e.nz);
  g.wy = window_len(e.ny);
  g.wx = window_len(e.nx);
  g.cz = window_origins(e.nz, g.wz);
  g.cy = window_origins(e.ny, g.wy);
  g.cx = window_origins(e.nx, g.wx);
  return g;
}

struct WindowStats {
  double sum;        // sum of per-window SSIM
  uint64_t windows;  // windows scored (not skipped)
};

SCIZ_HD WindowStats window_identity() { return {0.0, 0}; }
SCIZ_HD WindowStats combine(const WindowStats& a, const WindowStats& b) { return {a.sum + b.sum, a.windows + b.windows}; }

struct CombineWindows {
  SCIZ_HD WindowStats operator()(const WindowStats& a, const WindowStats& b) const { return combine(a, b); }
};

// 0/0 arises only when L = 0 and both windows are flat (or both means are 0): identical
// in that respect, so the factor is 1 rather than NaN.
SCIZ_HD double ssim_factor(double num, double den) { return den == 0.0 ? (num == 0.0 ? 1.0 : 0.0) : num / den; }

// Scores window w (linear over cz x cy x cx origins) into s. c1, c2 from the value range.
template <class T>
SCIZ_HD void accumulate_window(WindowStats& s, const T* orig, const T* dec, const SsimGeom& g, uint64_t w, double c1,
                               double c2) {
  const uint64_t ix = w % g.cx;
  const uint64_t iy = (w / g.cx) % g.cy;
  const uint64_t iz = w / (g.cx * g.cy);
  const uint64_t z0 = iz * kSsimStride, y0 = iy * kSsimStride, x0 = ix * kSsimStride;
  const uint64_t nx = g.e.nx, ny = g.e.ny;
  // Sums are taken about the window's first original value: a single pass then keeps the
  // variance exact enough even when the field's offset dwarfs its local variation.
  const double shift = static_cast<double>(orig[(z0 * ny + y0) * nx + x0]);
  double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
  bool dec_bad = false;
  for (uint32_t z = 0; z < g.wz; ++z) {
    for (uint32_t y = 0; y < g.wy; ++y) {
      const uint64_t row = ((z0 + z) * ny + (y0 + y)) * nx + x0;
      for (uint32_t x = 0; x < g.wx; ++x) {
        const T o = orig[row + x], d = dec[row + x];
        if (!is_finite(o)) return;  // skipped: a window with holes has no meaningful structure
        if (!is_finite(d)) dec_bad = true;
        if (dec_bad) continue;  // keep scanning: a later non-finite original still skips it
        const double a = static_cast<double>(o) - shift, b = static_cast<double>(d) - shift;
        sa += a;
        sb += b;
        saa += a * a;
        sbb += b * b;
        sab += a * b;
      }
    }
  }
  ++s.windows;
  if (dec_bad) return;  // scores 0
  const double m = static_cast<double>(g.wz) * g.wy * g.wx;
  const double ma = sa / m, mb = sb / m;
  const double va = max_d(saa / m - ma * ma, 0.0), vb = max_d(sbb / m - mb * mb, 0.0);
  const double cov = sab / m - ma * mb;
  const double mx = ma + shift, my = mb + shift;
  const double lum = ssim_factor(2.0 * mx * my + c1, mx * mx + my * my + c1);
  const double cs = ssim_factor(2.0 * cov + c2, va + vb + c2);
  s.sum += lum * cs;
}

// ---- host-side finish: both twins turn merged partials into a Quality the same way --------

inline void ssim_constants(double value_range, double& c1, double& c2) {
  c1 = (kSsimK1 * value_range) * (kSsimK1 * value_range);
  c2 = (kSsimK2 * value_range) * (kSsimK2 * value_range);
}

inline double finite_range(const PointStats& p) { return p.compared ? p.vmax - p.vmin : 0.0; }

inline Quality finish(const PointStats& p, const WindowStats& w, uint64_t n) {
  Quality q;
  q.n = n;
  q.n_compared = p.compared;
  q.nonfinite_mismatch = p.mismatch;
  q.value_range = finite_range(p);
  q.max_abs_err = p.max_err;
  q.rmse = p.compared ? std::sqrt(p.sum_sq / static_cast<double>(p.compared)) : 0.0;
  const double inf = std::numeric_limits<double>::infinity();
  if (q.rmse == 0) {
    q.psnr_db = inf;
    q.nrmse = 0;
  } else if (q.value_range == 0) {
    q.psnr_db = -inf;
    q.nrmse = inf;
  } else {
    q.psnr_db = 20.0 * std::log10(q.value_range / q.rmse);
    q.nrmse = q.rmse / q.value_range;
  }
  q.ssim = w.windows ? w.sum / static_cast<double>(w.windows) : 1.0;
  return q;
}

}  // namespace sciz::metrics
