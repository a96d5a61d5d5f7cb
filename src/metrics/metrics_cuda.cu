// CUDA twin of the quality metrics: grid-stride kernels, one cub::BlockReduce per block, and
// the per-block partials merged on the host in block order (all sums in double), so the
// result does not depend on which block finishes first.
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>

#include <sciz/error.hpp>

#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "metrics/metrics.hpp"
#include "metrics/metrics_math.hpp"

namespace sciz::metrics {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;  // enough resident warps to hide latency; more only adds partials

template <class T>
__global__ void point_kernel(const T* orig, const T* dec, uint64_t n, PointStats* partial) {
  PointStats s = point_identity();
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    accumulate_point(s, orig[i], dec[i]);
  using Reduce = cub::BlockReduce<PointStats, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const PointStats r = Reduce(tmp).Reduce(s, CombinePoints{});
  if (threadIdx.x == 0) partial[blockIdx.x] = r;
}

template <class T>
__global__ void window_kernel(const T* orig, const T* dec, SsimGeom g, double c1, double c2, WindowStats* partial) {
  WindowStats s = window_identity();
  const uint64_t nw = g.count();
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t w = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; w < nw; w += step)
    accumulate_window(s, orig, dec, g, w, c1, c2);
  using Reduce = cub::BlockReduce<WindowStats, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const WindowStats r = Reduce(tmp).Reduce(s, CombineWindows{});
  if (threadIdx.x == 0) partial[blockIdx.x] = r;
}

unsigned grid_for(uint64_t work) {
  int device = 0, sms = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&device));
  SCIZ_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const uint64_t cap = static_cast<uint64_t>(sms > 0 ? sms : 1) * kBlocksPerSm;
  const uint64_t need = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(need < 1 ? 1 : (need < cap ? need : cap));
}

// Copies the per-block partials back (synchronising s) and merges them in block order.
template <class P, class Op>
P merge_partials(const dev::Buffer<P>& d_partial, unsigned blocks, P init, Op op, cudaStream_t s) {
  std::vector<P> h(blocks);
  dev::copy_to_host(h.data(), d_partial.get(), blocks * sizeof(P), s);
  dev::sync(s);
  for (const P& p : h) init = op(init, p);
  return init;
}

}  // namespace

template <class T>
Quality compare_cuda(const T* d_orig, const T* d_dec, const Shape& shape, cudaStream_t s) {
  shape.validate();
  SCIZ_REQUIRE(d_orig != nullptr && d_dec != nullptr, Status::invalid_argument, "metrics: null device array");
  dev::require_available();
  const uint64_t n = shape.count();

  const unsigned pb = grid_for(n);
  dev::Buffer<PointStats> d_pp(pb, s);
  point_kernel<T><<<pb, kThreads, 0, s>>>(d_orig, d_dec, n, d_pp.get());
  SCIZ_CUDA_CHECK_LAUNCH("metrics point_kernel");
  const PointStats p = merge_partials(d_pp, pb, point_identity(), CombinePoints{}, s);

  // The SSIM constants need the range of pass 1, hence two passes rather than one fused one.
  double c1, c2;
  ssim_constants(finite_range(p), c1, c2);
  const SsimGeom g = ssim_geometry(effective_extent(shape));
  const unsigned wb = grid_for(g.count());
  dev::Buffer<WindowStats> d_wp(wb, s);
  window_kernel<T><<<wb, kThreads, 0, s>>>(d_orig, d_dec, g, c1, c2, d_wp.get());
  SCIZ_CUDA_CHECK_LAUNCH("metrics window_kernel");
  const WindowStats w = merge_partials(d_wp, wb, window_identity(), CombineWindows{}, s);
  return finish(p, w, n);
}

template Quality compare_cuda<float>(const float*, const float*, const Shape&, cudaStream_t);
template Quality compare_cuda<double>(const double*, const double*, const Shape&, cudaStream_t);

}  // namespace sciz::metrics
