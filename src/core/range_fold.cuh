// A thread's share of the finite range of what a kernel reads, folded into the call's
// RangeKeys (core/value_range.hpp) once per warp: the encoders of an absolute bound fold the
// values they load anyway, so no separate pass over the field is needed for the header.
#pragma once
#include <cuda_runtime.h>

#include <cmath>
#include <limits>

#include "core/value_range.hpp"

namespace sciz {

template <class T>
struct RangeFold {
  T lo = std::numeric_limits<T>::infinity(), hi = -std::numeric_limits<T>::infinity();
  uint32_t bad = 0;

  // What the words count as bad: NaN and both infinities.
  static __device__ __forceinline__ bool nonfinite(T v) { return !(fabs(v) < std::numeric_limits<T>::infinity()); }
  // fmin/fmax ignore a NaN operand, so a non-finite value folds as NaN and changes nothing.
  __device__ __forceinline__ void add(T v, bool valid = true) {
    const bool fin = !nonfinite(v);
    const T a = valid && fin ? v : std::numeric_limits<T>::quiet_NaN();
    lo = fmin(lo, a);
    hi = fmax(hi, a);
    bad += valid && !fin;
  }
  // The hot loops' fold: two min/max instructions, no test. NaN is skipped; an infinity is
  // folded like any value and leaves the words unusable (range_keys_usable), and the caller
  // counts the non-finite values where its encoder meets them as exceptions (rare, unlike a
  // test per value). A call whose words come back unusable finds its range by a pass.
  __device__ __forceinline__ void add_fast(T v) { add_extremes(v, v); }
  // Finite extremes found otherwise (lo > hi: none), and non-finite values counted otherwise.
  __device__ __forceinline__ void add_extremes(T mn, T mx) {
    lo = fmin(lo, mn);
    hi = fmax(hi, mx);
  }
  // Every lane of the warp calls it (the shuffles take the full mask); every lane ends with the
  // warp's fold.
  __device__ __forceinline__ void warp_reduce() {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
      lo = fmin(lo, __shfl_xor_sync(0xffffffffu, lo, d));
      hi = fmax(hi, __shfl_xor_sync(0xffffffffu, hi, d));
      bad += __shfl_xor_sync(0xffffffffu, bad, d);
    }
  }
  // One thread's atomics. read_first: only those that can change the words (a read through L2
  // first: the words only move towards their final values, so a stale read costs a needless
  // atomic). Without it, fire-and-forget reductions, for a thread that must not wait (once a
  // tile: few enough that the same-address atomics do not queue).
  __device__ __forceinline__ void commit(RangeKeys* k, bool read_first = true) const {
    if (lo <= hi) {
      const unsigned long long kl = range_key(static_cast<double>(lo)), kh = range_key(static_cast<double>(hi));
      if (!read_first || kl < __ldcg(&k->lo)) atomicMin(&k->lo, kl);
      if (!read_first || kh > __ldcg(&k->hi)) atomicMax(&k->hi, kh);
    }
    if (bad) atomicAdd(&k->bad, static_cast<unsigned long long>(bad));
  }
  // warp_reduce, then lane 0 commits.
  __device__ __forceinline__ void flush(RangeKeys* k) {
    warp_reduce();
    if ((threadIdx.x & 31) == 0) commit(k);
  }
};

}  // namespace sciz
