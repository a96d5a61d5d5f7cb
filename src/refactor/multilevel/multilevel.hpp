// Multilevel decomposition in the hierarchical basis (docs/MDR.md section 1): levels of any
// grid, 1 to 4 axes, coefficients stored level by level and class by class. The CPU twin is
// multilevel_cpu.cpp; both call multilevel_math.hpp for every value they compute.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "refactor/multilevel/multilevel_math.hpp"

namespace sciz::multilevel {

// Size-1 axes dropped, the rest padded with leading 1s to four axes; J the smallest level
// count that leaves the origin alone in G(2^J).
Grid grid_of(const std::vector<uint64_t>& dims);
int active_axes(const Grid& g);  // axes of extent > 1: the depth of a nested mean

// Where every class of every level sits in the flat coefficient array: level 0 first, then
// level 1's classes in increasing mask order, and so on. Empty classes are left out.
struct Layout {
  Grid grid;
  std::vector<Class> classes;
  std::vector<int> class_level;
  std::vector<uint64_t> class_offset;  // into the flat array
  std::vector<uint64_t> level_offset;  // levels + 1 entries: level j is [off[j], off[j+1])
  uint64_t level_count(int j) const { return level_offset[j + 1] - level_offset[j]; }
  int levels() const { return grid.levels(); }
};
Layout layout_of(const Grid& g);

// x holds NaN at the special points; each becomes, coarse to fine, the prediction of its
// node from the already filled coarser grid (level 0: `level0_fill`), so its coefficient is
// exactly 0. Other points are left as they are.
void fill_cpu(const Layout& l, double* x, double level0_fill);
// coeff[level_offset...]: c = x - P(x) (level 0: c = x), P on the original values.
void decompose_cpu(const Layout& l, const double* x, double* coeff);
// x = P(x) + c level by level, coarse to fine: the inverse of decompose_cpu up to rounding.
void recompose_cpu(const Layout& l, const double* coeff, double* x);
// The same with the coefficients made as they are needed: fill(ctx, ci, k, count, dst) writes
// those of nodes k .. k + count - 1 of class ci (k in the class's storage order) to dst, at
// most kRecomposeRun at a time, from any thread. Retrieval reconstructs them from their
// digits there instead of making an array of every coefficient first.
inline constexpr uint64_t kRecomposeRun = 512;
struct CoeffSource {
  void (*fill)(const void* ctx, size_t ci, uint64_t k, uint64_t count, double* dst);
  const void* ctx;
};
void recompose_cpu(const Layout& l, CoeffSource coeff, double* x);
// The same values cast to T (round to nearest), written to out: only the even points are kept
// in double on the way (the finest level's nodes are no other's corners), an eighth of the
// field's doubles in 3-D. T = float.
template <class T>
void recompose_cpu(const Layout& l, CoeffSource coeff, T* out);

// CUDA twin (multilevel_cuda.cu): the same values bit for bit, device pointers, one kernel per
// class queued on s, no synchronization.
void fill_cuda(const Layout& l, double* d_x, double level0_fill, cudaStream_t s);
void decompose_cuda(const Layout& l, const double* d_x, double* d_coeff, cudaStream_t s);
void recompose_cuda(const Layout& l, const double* d_coeff, double* d_x, cudaStream_t s);

}  // namespace sciz::multilevel
