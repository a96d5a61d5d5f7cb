// The exact values a GPU encoder left on the device (ascending indices, their values), as the
// runs section both twins write (core/exact_runs.hpp).
#pragma once
#include <cstdint>
#include <utility>
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

// The same section left on the device for a device-resident stream. Usually there are no
// exact values (no copy at all: the 24-byte empty section goes up) or a few; the lists come
// down to build the runs only when there are some.
template <class T>
std::pair<dev::Buffer<uint8_t>, uint64_t> exact_runs_on_device(const uint64_t* d_idx, const T* d_val, uint64_t count,
                                                               cudaStream_t s) {
  if (count == 0) {  // the empty section is 24 zero bytes: no copy, so no wait for the stream
    dev::Buffer<uint8_t> d(24, s);
    dev::zero(d.get(), 24, s);
    return {std::move(d), 24};
  }
  const std::vector<uint8_t> h = download_exact_runs<T>(d_idx, d_val, count, s);
  dev::Buffer<uint8_t> d(h.size(), s);
  dev::copy_to_device(d.get(), h.data(), h.size(), s);  // pageable: staged before return
  return {std::move(d), h.size()};
}

}  // namespace sciz
