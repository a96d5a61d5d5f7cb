// Range of the finite values of a device array, by one block reduction (same semantics as
// value_range_cpu.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/block_reduce.cuh"
#include "core/launch_grid.hpp"
#include "core/range_fold.cuh"
#include "core/value_range.hpp"

namespace sciz {
namespace {

template <class T>
struct Partial {
  T lo, hi;
  unsigned long long bad;
};

template <class T>
struct Combine {
  __host__ __device__ Partial<T> operator()(const Partial<T>& a, const Partial<T>& b) const {
    return {b.lo < a.lo ? b.lo : a.lo, b.hi > a.hi ? b.hi : a.hi, a.bad + b.bad};
  }
};

template <class T>
struct Visit {
  const T* x;
  __device__ void operator()(Partial<T>& acc, uint64_t i) const {
    const T v = x[i];
    if (isfinite(v)) {
      acc.lo = v < acc.lo ? v : acc.lo;
      acc.hi = v > acc.hi ? v : acc.hi;
    } else {
      ++acc.bad;
    }
  }
};

// The bulk of the field through 16-byte loads, four in flight per thread: one element per
// load kept too few bytes in flight to reach the memory's bandwidth (0.8 ms for 500 MB on an
// H100 against 0.17 ms for a read). Elements before the first 16-byte boundary and after the
// last whole vector go through the scalar visit.
template <class T>
struct VisitVec {
  const T* x;        // first element on a 16-byte boundary
  uint64_t head;     // elements before it
  uint64_t vecs;     // whole 16-byte vectors from it
  uint64_t n;
  static constexpr int kPer = 16 / sizeof(T);
  __device__ void fold(Partial<T>& acc, T v) const {
    if (isfinite(v)) {
      acc.lo = v < acc.lo ? v : acc.lo;
      acc.hi = v > acc.hi ? v : acc.hi;
    } else {
      ++acc.bad;
    }
  }
  // Item i < vecs / 4 (rounded up): four vectors at stride; then the scalar ends.
  __device__ void operator()(Partial<T>& acc, uint64_t i) const {
    const uint64_t groups = (vecs + 3) / 4;
    if (i < groups) {
      const uint4* v = reinterpret_cast<const uint4*>(x);
      uint4 w[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const uint64_t j = i + k * groups;
        w[k] = j < vecs ? __ldg(v + j) : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if (i + k * groups >= vecs) continue;
        const T* e = reinterpret_cast<const T*>(&w[k]);
#pragma unroll
        for (int q = 0; q < kPer; ++q) fold(acc, e[q]);
      }
      return;
    }
    const uint64_t j = i - groups;  // scalar: the head, then the tail
    const uint64_t tail0 = head + vecs * kPer;
    if (j < head) fold(acc, x[static_cast<int64_t>(j) - static_cast<int64_t>(head)]);
    else if (tail0 + (j - head) < n) fold(acc, x[static_cast<int64_t>(tail0 + (j - head)) - static_cast<int64_t>(head)]);
  }
};

}  // namespace

template <class T>
ValueRange value_range_cuda(const T* d_x, uint64_t n, cudaStream_t stream) {
  ValueRange r;
  if (n == 0) return r;
  const Partial<T> identity{std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(), 0};
  constexpr int kPer = 16 / sizeof(T);
  const gpu::VectorSplit sp = gpu::vector_split(reinterpret_cast<uintptr_t>(d_x), n, sizeof(T));
  Partial<T> p;
  if (sp.head == n) {  // not even element-aligned, or too short: scalar
    p = block_reduce::reduce(n, identity, Visit<T>{d_x}, Combine<T>{}, stream, "launch of the value-range reduction");
  } else {  // the vectors' groups, then the head and tail elements
    const VisitVec<T> v{d_x + sp.head, sp.head, sp.vecs, n};
    p = block_reduce::reduce((sp.vecs + 3) / 4 + (n - sp.vecs * kPer), identity, v, Combine<T>{}, stream,
                             "launch of the value-range reduction");
  }
  r.nonfinite = p.bad;
  r.finite = n - p.bad;
  if (r.finite) {  // + 0.0 turns -0 into +0: which zero a reduction keeps depends on its order
    r.min = static_cast<double>(p.lo) + 0.0;
    r.max = static_cast<double>(p.hi) + 0.0;
  }
  return r;
}

namespace {

// Grid-stride over 16-byte vectors (the scalar head and tail by the first threads), a warp's
// fold merged by one set of atomics: the chunk of a pipeline whose encoder does not fold.
template <class T>
__global__ void __launch_bounds__(256) fold_kernel(const T* __restrict__ x, uint64_t head, uint64_t vecs, uint64_t n,
                                                   RangeKeys* keys) {
  constexpr int kPer = 16 / sizeof(T);
  RangeFold<T> f;
  const uint64_t tid = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  const uint4* v = reinterpret_cast<const uint4*>(x + head);
  for (uint64_t i = tid; i < vecs; i += step) {
    const uint4 w = __ldg(v + i);
    const T* e = reinterpret_cast<const T*>(&w);
#pragma unroll
    for (int q = 0; q < kPer; ++q) f.add(e[q]);
  }
  const uint64_t tail0 = head + vecs * kPer, rest = head + (n - tail0);
  for (uint64_t i = tid; i < rest; i += step) f.add(x[i < head ? i : tail0 + (i - head)]);
  f.flush(keys);
}

}  // namespace

void reset_range_keys(RangeKeys* d_keys, cudaStream_t s) {
  // range_keys_identity() by two memsets (lo all ones, hi and bad zero): no host copy of the
  // words must outlive the asynchronous call.
  SCIZ_CUDA_CHECK(cudaMemsetAsync(&d_keys->lo, 0xff, sizeof(d_keys->lo), s));
  SCIZ_CUDA_CHECK(cudaMemsetAsync(&d_keys->hi, 0, sizeof(d_keys->hi) + sizeof(d_keys->bad), s));
}

template <class T>
void value_range_fold_cuda(const T* d_x, uint64_t n, RangeKeys* d_keys, cudaStream_t s) {
  if (n == 0) return;
  constexpr int kPer = 16 / sizeof(T);
  const gpu::VectorSplit sp = gpu::vector_split(reinterpret_cast<uintptr_t>(d_x), n, sizeof(T));
  const uint64_t scalars = n - sp.vecs * kPer;
  const uint64_t want = std::max<uint64_t>((sp.vecs + 3) / 4, scalars);
  // At most 2,048 CTAs: a few waves on any current GPU; more would only add atomics.
  const unsigned blocks = static_cast<unsigned>(std::clamp<uint64_t>((want + 255) / 256, 1, 2048));
  fold_kernel<T><<<blocks, 256, 0, s>>>(d_x, sp.head, sp.vecs, n, d_keys);
  SCIZ_CUDA_CHECK(cudaGetLastError());
}

template void value_range_fold_cuda<float>(const float*, uint64_t, RangeKeys*, cudaStream_t);
template void value_range_fold_cuda<double>(const double*, uint64_t, RangeKeys*, cudaStream_t);

template ValueRange value_range_cuda<float>(const float*, uint64_t, cudaStream_t);
template ValueRange value_range_cuda<double>(const double*, uint64_t, cudaStream_t);

}  // namespace sciz
