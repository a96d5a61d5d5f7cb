#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/cpu_features.hpp"
#include "core/omp_threads.hpp"
#include "core/value_range.hpp"

namespace sciz {

namespace {

template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
template <class T>
using Key = std::make_signed_t<Bits<T>>;

// Order-preserving integer key of a finite value (-0 just below +0), so that the scan is an
// integer min/max, which vectorizes (a float min with a NaN test per value does not).
template <class T>
Key<T> key_of(Bits<T> b) {
  return static_cast<Key<T>>(b ^ (static_cast<Bits<T>>(static_cast<Key<T>>(b) >> (8 * sizeof(T) - 1)) >> 1));
}
template <class T>
T value_of(Key<T> k) {
  const Bits<T> b = static_cast<Bits<T>>(k) ^ (static_cast<Bits<T>>(static_cast<Key<T>>(k) >> (8 * sizeof(T) - 1)) >> 1);
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

// Min and max keys of the finite values of x[a, b) and the count of the others; written with
// locals only, so that the loop vectorizes.
template <class T>
struct Scan {
  Key<T> lo = std::numeric_limits<Key<T>>::max(), hi = std::numeric_limits<Key<T>>::min();
  uint64_t bad = 0;
};

// The loop once, built for the baseline ISA and for AVX2 (whose 32-bit integer min/max and
// 64-bit compares SSE2 lacks), as lorenzo's and szx's loops are: the body is inlined into each.
template <class T>
[[gnu::always_inline]] inline Scan<T> scan_body(const T* x, uint64_t a, uint64_t b) {
  using B = Bits<T>;
  using K = Key<T>;
  constexpr B kExp = static_cast<B>(sizeof(T) == 4 ? 0x7f800000ull : 0x7ff0000000000000ull);
  K lo = std::numeric_limits<K>::max(), hi = std::numeric_limits<K>::min();
  B bad = 0;
  for (uint64_t i = a; i < b; ++i) {
    B v;
    std::memcpy(&v, x + i, sizeof(T));
    const B nonfinite = (v & kExp) == kExp;
    const K k = key_of<T>(v);
    const K m = -static_cast<K>(nonfinite);  // all ones when not finite
    const K p = (k & ~m) | (std::numeric_limits<K>::max() & m), q = (k & ~m) | (std::numeric_limits<K>::min() & m);
    lo = p < lo ? p : lo;
    hi = q > hi ? q : hi;
    bad += nonfinite;
  }
  return {lo, hi, bad};
}

template <class T>
Scan<T> scan_base(const T* x, uint64_t a, uint64_t b) {
  return scan_body(x, a, b);
}

#if defined(__x86_64__) && defined(__GNUC__)
template <class T>
__attribute__((target("avx2"))) Scan<T> scan_avx2(const T* x, uint64_t a, uint64_t b) {
  return scan_body(x, a, b);
}
#endif

// One core, 256 MB of smooth f32 / 128M f64 (a 2-core AVX-512 VM, five runs each): baseline
// 9.7-10.3 / 4.9 GB/s, AVX2 25.5-27.9 / 18.0-24.3 GB/s. It is the first pass of every
// host-memory call under a GPU memory cap and of every CPU compression with a relative bound.
template <class T>
Scan<T> scan(const T* x, uint64_t a, uint64_t b) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = avx2_allowed("SCIZ_RANGE_BASELINE_ISA");
  if (avx2) return scan_avx2(x, a, b);
#endif
  return scan_base(x, a, b);
}

}  // namespace

template <class T>
ValueRange value_range_cpu(const T* x, uint64_t n) {
  Scan<T> all;
  const int nt = thread_count(n, n * sizeof(T));
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const Share sh = thread_share(n);
    const Scan<T> mine = scan(x, sh.lo, sh.hi);
#pragma omp critical
    {
      all.lo = mine.lo < all.lo ? mine.lo : all.lo;
      all.hi = mine.hi > all.hi ? mine.hi : all.hi;
      all.bad += mine.bad;
    }
  }
  ValueRange r;
  r.nonfinite = all.bad;
  r.finite = n - all.bad;
  if (r.finite) {
    r.min = static_cast<double>(value_of<T>(all.lo)) + 0.0;  // -0 -> +0: the header must not depend on scan order
    r.max = static_cast<double>(value_of<T>(all.hi)) + 0.0;
  }
  return r;
}

template ValueRange value_range_cpu<float>(const float*, uint64_t);
template ValueRange value_range_cpu<double>(const double*, uint64_t);

ValueRange range_from_keys(const RangeKeys& k, uint64_t n) {
  ValueRange r;
  r.nonfinite = k.bad;
  r.finite = n - k.bad;
  if (r.finite) {  // + 0.0 turns -0 into +0, as value_range_cuda does
    r.min = range_value(k.lo) + 0.0;
    r.max = range_value(k.hi) + 0.0;
  }
  return r;
}

}  // namespace sciz
