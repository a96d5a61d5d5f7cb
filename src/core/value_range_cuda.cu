// Range of the finite values of a device array: one grid-stride pass leaves a partial per
// block, the host folds the few hundred partials (same semantics as value_range_cpu.cpp).
#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/value_range.hpp"

namespace sciz {
namespace {

constexpr int kThreads = 256;
constexpr uint64_t kMaxBlocks = 1024;

template <class T>
struct Partial {
  T lo, hi;
  unsigned long long bad;
};

template <class T>
struct Combine {
  __device__ Partial<T> operator()(const Partial<T>& a, const Partial<T>& b) const {
    return {b.lo < a.lo ? b.lo : a.lo, b.hi > a.hi ? b.hi : a.hi, a.bad + b.bad};
  }
};

template <class T>
__global__ void __launch_bounds__(kThreads) range_kernel(const T* __restrict__ x, uint64_t n, Partial<T>* out) {
  Partial<T> acc{std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(), 0};
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * kThreads;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride) {
    const T v = x[i];
    if (isfinite(v)) {
      acc.lo = v < acc.lo ? v : acc.lo;
      acc.hi = v > acc.hi ? v : acc.hi;
    } else {
      ++acc.bad;
    }
  }
  using Reduce = cub::BlockReduce<Partial<T>, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const Partial<T> r = Reduce(tmp).Reduce(acc, Combine<T>{});
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

}  // namespace

template <class T>
ValueRange value_range_cuda(const T* d_x, uint64_t n, cudaStream_t stream) {
  ValueRange r;
  if (n == 0) return r;
  // A few blocks per SM already saturate bandwidth; more would only grow the host fold.
  const uint64_t blocks = std::min<uint64_t>(kMaxBlocks, (n + kThreads * 8 - 1) / (kThreads * 8));
  dev::Buffer<Partial<T>> part(blocks, stream);
  range_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(d_x, n, part.get());
  SCIZ_CUDA_CHECK_LAUNCH("range_kernel");
  std::vector<Partial<T>> host(blocks);
  dev::copy_to_host(host.data(), part.get(), blocks * sizeof(Partial<T>), stream);
  dev::sync(stream);
  T lo = std::numeric_limits<T>::infinity(), hi = -lo;
  uint64_t bad = 0;
  for (const auto& p : host) {
    lo = p.lo < lo ? p.lo : lo;
    hi = p.hi > hi ? p.hi : hi;
    bad += p.bad;
  }
  r.nonfinite = bad;
  r.finite = n - bad;
  if (r.finite) {  // + 0.0 turns -0 into +0: which zero a reduction keeps depends on its order
    r.min = static_cast<double>(lo) + 0.0;
    r.max = static_cast<double>(hi) + 0.0;
  }
  return r;
}

template ValueRange value_range_cuda<float>(const float*, uint64_t, cudaStream_t);
template ValueRange value_range_cuda<double>(const double*, uint64_t, cudaStream_t);

}  // namespace sciz
