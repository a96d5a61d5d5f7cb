#include <cmath>
#include <limits>

#include "core/omp_threads.hpp"
#include "core/value_range.hpp"

namespace sciz {

template <class T>
ValueRange value_range_cpu(const T* x, uint64_t n) {
  T lo = std::numeric_limits<T>::infinity(), hi = -lo;
  uint64_t bad = 0;
  const int nt = thread_count(n, n * sizeof(T));
#pragma omp parallel for reduction(min : lo) reduction(max : hi) reduction(+ : bad) schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
    const T v = x[i];
    if (std::isfinite(v)) {
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    } else {
      ++bad;
    }
  }
  ValueRange r;
  r.nonfinite = bad;
  r.finite = n - bad;
  if (r.finite) {
    r.min = static_cast<double>(lo) + 0.0;  // -0 -> +0: the header must not depend on scan order
    r.max = static_cast<double>(hi) + 0.0;
  }
  return r;
}

template ValueRange value_range_cpu<float>(const float*, uint64_t);
template ValueRange value_range_cpu<double>(const double*, uint64_t);

}  // namespace sciz
