// CUDA twin of the quality metrics: two block reductions (core/block_reduce.cuh), all sums in
// double, partials merged in block order so the result does not depend on block timing.
#include <sciz/error.hpp>

#include "core/block_reduce.cuh"
#include "metrics/metrics.hpp"
#include "metrics/metrics_math.hpp"

namespace sciz::metrics {
namespace {

template <class T>
struct PointVisit {
  const T *orig, *dec;
  __device__ void operator()(PointStats& s, uint64_t i) const { accumulate_point(s, orig[i], dec[i]); }
};

template <class T>
struct WindowVisit {
  const T *orig, *dec;
  SsimGeom g;
  double c1, c2;
  __device__ void operator()(WindowStats& s, uint64_t w) const { accumulate_window(s, orig, dec, g, w, c1, c2); }
};

}  // namespace

template <class T>
Quality compare_cuda(const T* d_orig, const T* d_dec, const Shape& shape, cudaStream_t s) {
  shape.validate();
  SCIZ_REQUIRE(d_orig != nullptr && d_dec != nullptr, Status::invalid_argument, "metrics: null device array");
  dev::require_available();
  const uint64_t n = shape.count();

  const PointStats p = block_reduce::reduce(n, point_identity(), PointVisit<T>{d_orig, d_dec}, CombinePoints{}, s,
                                            "launch of the metrics point reduction");

  // The SSIM constants need the range of pass 1, hence two passes rather than one fused one.
  double c1, c2;
  ssim_constants(finite_range(p), c1, c2);
  const SsimGeom g = ssim_geometry(effective_extent(shape));
  const WindowStats w = block_reduce::reduce(g.count(), window_identity(), WindowVisit<T>{d_orig, d_dec, g, c1, c2},
                                             CombineWindows{}, s, "launch of the metrics SSIM reduction");
  return finish(p, w, n);
}

template Quality compare_cuda<float>(const float*, const float*, const Shape&, cudaStream_t);
template Quality compare_cuda<double>(const double*, const double*, const Shape&, cudaStream_t);

}  // namespace sciz::metrics
