// CUDA twin of the multilevel decomposition: one thread per node of a class, one launch per
// class (the nodes of a class depend only on coarser levels). Every value comes from
// multilevel_math.hpp, so the twins agree bit for bit (--fmad=false keeps the halvings and
// sums unfused, as on the host).
#include <algorithm>
#include <cmath>

#include "core/cuda_check.cuh"
#include "core/launch_grid.hpp"
#include "refactor/multilevel/multilevel.hpp"

namespace sciz::multilevel {
namespace {

constexpr int kThreads = 256;

enum class Op { fill, decompose, recompose };

__device__ void node_of(const Class& c, uint64_t k, uint64_t i[kAxes]) {
  uint64_t r = k;
  for (int a = kAxes - 1; a >= 0; --a) {
    i[a] = coord(c, a, r % c.m[a]);
    r /= c.m[a];
  }
}

template <Op op>
__global__ void __launch_bounds__(kThreads)
    class_kernel(Grid g, Class c, bool level0, double level0_fill, const double* __restrict__ coeff_in,
                 double* __restrict__ coeff_out, double* x) {
  const uint64_t count = c.count();
  for (uint64_t k = blockIdx.x * uint64_t(kThreads) + threadIdx.x; k < count; k += uint64_t(gridDim.x) * kThreads) {
    uint64_t i[kAxes];
    node_of(c, k, i);
    const uint64_t at = field_index(g, i);
    auto load = [x](uint64_t p) { return x[p]; };
    if constexpr (op == Op::fill) {
      if (isnan(x[at])) x[at] = level0 ? level0_fill : predict(g, c, i, at, load);
    } else if constexpr (op == Op::decompose) {
      coeff_out[k] = level0 ? x[at] : x[at] - predict(g, c, i, at, load);
    } else {
      x[at] = level0 ? coeff_in[k] : predict(g, c, i, at, load) + coeff_in[k];
    }
  }
}

template <Op op>
void run(const Layout& l, double level0_fill, const double* coeff_in, double* coeff_out, double* x, cudaStream_t s) {
  for (size_t ci = 0; ci < l.classes.size(); ++ci) {
    const Class& c = l.classes[ci];
    const unsigned grid = gpu::grid_for(c.count(), kThreads);
    const uint64_t off = l.class_offset[ci];
    class_kernel<op><<<grid, kThreads, 0, s>>>(l.grid, c, l.class_level[ci] == 0, level0_fill,
                                               coeff_in ? coeff_in + off : nullptr, coeff_out ? coeff_out + off : nullptr, x);
    SCIZ_CUDA_CHECK_LAUNCH("multilevel class_kernel");
  }
}

}  // namespace

void fill_cuda(const Layout& l, double* d_x, double level0_fill, cudaStream_t s) {
  run<Op::fill>(l, level0_fill, nullptr, nullptr, d_x, s);
}
void decompose_cuda(const Layout& l, const double* d_x, double* d_coeff, cudaStream_t s) {
  run<Op::decompose>(l, 0, nullptr, d_coeff, const_cast<double*>(d_x), s);  // x is only read
}
void recompose_cuda(const Layout& l, const double* d_coeff, double* d_x, cudaStream_t s) {
  run<Op::recompose>(l, 0, d_coeff, nullptr, d_x, s);
}

}  // namespace sciz::multilevel
