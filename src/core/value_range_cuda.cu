// Range of the finite values of a device array, by one block reduction (same semantics as
// value_range_cpu.cpp).
#include <cmath>
#include <limits>

#include "core/block_reduce.cuh"
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

}  // namespace

template <class T>
ValueRange value_range_cuda(const T* d_x, uint64_t n, cudaStream_t stream) {
  ValueRange r;
  if (n == 0) return r;
  const Partial<T> identity{std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(), 0};
  const Partial<T> p =
      block_reduce::reduce(n, identity, Visit<T>{d_x}, Combine<T>{}, stream, "launch of the value-range reduction");
  r.nonfinite = p.bad;
  r.finite = n - p.bad;
  if (r.finite) {  // + 0.0 turns -0 into +0: which zero a reduction keeps depends on its order
    r.min = static_cast<double>(p.lo) + 0.0;
    r.max = static_cast<double>(p.hi) + 0.0;
  }
  return r;
}

template ValueRange value_range_cuda<float>(const float*, uint64_t, cudaStream_t);
template ValueRange value_range_cuda<double>(const double*, uint64_t, cudaStream_t);

}  // namespace sciz
