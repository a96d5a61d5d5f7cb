// The exact values a GPU encoder left on the device (ascending indices, their values), as the
// runs section both twins write (core/exact_runs.hpp).
#pragma once
#include <cstdint>
#include <vector>

#include "core/device.hpp"
#include "core/exact_runs.hpp"

namespace sciz {

template <class T>
std::vector<uint8_t> download_exact_runs(const uint64_t* d_idx, const T* d_val, uint64_t count, cudaStream_t s) {
  std::vector<uint64_t> idx(count);
  std::vector<T> val(count);
  if (count) {
    dev::copy_to_host(idx.data(), d_idx, count * 8, s);
    dev::copy_to_host(val.data(), d_val, count * sizeof(T), s);
    dev::sync(s);
  }
  return write_runs<T>(idx, val);
}

}  // namespace sciz
