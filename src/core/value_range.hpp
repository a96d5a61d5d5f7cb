// Range of the finite values (NaN/Inf are carried apart and never poison the range: SZ3's
// NaN-first-value bug), on the CPU or on the device that holds the data.
#pragma once
#include <cstdint>

#include "core/cuda_fwd.hpp"

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

}  // namespace sciz
