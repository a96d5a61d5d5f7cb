// CPU twin of the quality metrics (OpenMP). Partials are merged in thread order, not in the
// order threads finish, so a run is reproducible for a given thread count.
#include <omp.h>

#include <sciz/error.hpp>

#include <limits>
#include <vector>

#include "metrics/metrics.hpp"
#include "metrics/metrics_math.hpp"

namespace sciz::metrics {

template <class T>
Quality compare_cpu(const T* orig, const T* dec, const Shape& shape) {
  shape.validate();
  SCIZ_REQUIRE(orig != nullptr && dec != nullptr, Status::invalid_argument, "metrics: null array");
  const uint64_t n = shape.count();
  const int nt = omp_get_max_threads();

  std::vector<PointStats> pparts(nt, point_identity());
#pragma omp parallel num_threads(nt)
  {
    PointStats local = point_identity();
#pragma omp for schedule(static)
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) accumulate_point(local, orig[i], dec[i]);
    pparts[omp_get_thread_num()] = local;
  }
  PointStats p = point_identity();
  for (const auto& part : pparts) p = combine(p, part);

  double c1, c2;
  ssim_constants(finite_range(p), c1, c2);
  const SsimGeom g = ssim_geometry(effective_extent(shape));
  const uint64_t nw = g.count();
  std::vector<WindowStats> wparts(nt, window_identity());
#pragma omp parallel num_threads(nt)
  {
    WindowStats local = window_identity();
#pragma omp for schedule(static)
    for (int64_t w = 0; w < static_cast<int64_t>(nw); ++w) accumulate_window(local, orig, dec, g, w, c1, c2);
    wparts[omp_get_thread_num()] = local;
  }
  WindowStats ws = window_identity();
  for (const auto& part : wparts) ws = combine(ws, part);
  return finish(p, ws, n);
}

template Quality compare_cpu<float>(const float*, const float*, const Shape&);
template Quality compare_cpu<double>(const double*, const double*, const Shape&);

double ratio(uint64_t original_bytes, uint64_t compressed_bytes) {
  if (compressed_bytes == 0) return std::numeric_limits<double>::infinity();
  return static_cast<double>(original_bytes) / static_cast<double>(compressed_bytes);
}

double bit_rate(uint64_t compressed_bytes, uint64_t n_values) {
  if (n_values == 0) return 0.0;
  return 8.0 * static_cast<double>(compressed_bytes) / static_cast<double>(n_values);
}

}  // namespace sciz::metrics
