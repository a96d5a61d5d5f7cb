// Range of the finite values (NaN/Inf are carried apart and never poison the range: SZ3's
// NaN-first-value bug), on the CPU or on the device that holds the data.
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/cuda_fwd.hpp"
#include "core/hd.hpp"

namespace sciz {

struct ValueRange {
  double min = 0, max = 0;
  uint64_t nonfinite = 0;
  uint64_t finite = 0;
  double span() const { return finite ? max - min : 0.0; }
};

template <class T>
ValueRange value_range_cpu(const T* x, uint64_t n);
template <class T>
ValueRange value_range_cuda(const T* d_x, uint64_t n, cudaStream_t stream);

// The range folded on the device by kernels that read the field anyway. An absolute bound
// needs no range before any value is coded, only the stream header does, so its calls skip the
// separate pass (a whole read of the field) and its synchronization: the encoders fold what
// they read into these words with atomics. lo and hi are order keys of doubles (range_key),
// bad counts the non-finite values.
struct RangeKeys {
  unsigned long long lo, hi, bad;
};
// Order-preserving unsigned key of a double (-0 just below +0): min and max become atomicMin
// and atomicMax. Every float is a double exactly, so both types share the words.
SCIZ_HD unsigned long long range_key(double v) {
#if defined(__CUDA_ARCH__)
  const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(v));
#else
  unsigned long long b;
  std::memcpy(&b, &v, 8);
#endif
  return (b >> 63) ? ~b : (b | (1ull << 63));
}
inline double range_value(unsigned long long k) {
  const unsigned long long b = (k >> 63) ? (k & ~(1ull << 63)) : ~k;
  double v;
  std::memcpy(&v, &b, 8);
  return v;
}
// The words' starting values (no finite value met, nothing counted), and what n values folded
// into them give: the same ValueRange as value_range_cpu of those values.
inline RangeKeys range_keys_identity() { return {~0ull, 0ull, 0ull}; }
ValueRange range_from_keys(const RangeKeys& k, uint64_t n);
// False when an infinity reached lo or hi (the encoders' fast folds take infinities as values,
// RangeFold::add_fast): the caller then finds the range by a pass of its own.
inline bool range_keys_usable(const RangeKeys& k) {
  return k.lo != range_key(-std::numeric_limits<double>::infinity()) &&
         k.hi != range_key(std::numeric_limits<double>::infinity());
}
// d_keys (device) set to the identity, on s.
void reset_range_keys(RangeKeys* d_keys, cudaStream_t s);
// Folds n device values into d_keys on s, without synchronizing: for chunks whose encoder
// does not fold its input itself.
template <class T>
void value_range_fold_cuda(const T* d_x, uint64_t n, RangeKeys* d_keys, cudaStream_t s);

}  // namespace sciz
