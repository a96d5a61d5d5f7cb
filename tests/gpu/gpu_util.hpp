// Helpers for the GPU tests: device copies of host vectors and back, on the default stream.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/device.hpp"

namespace sciz::test {

template <class T>
dev::Buffer<T> upload(const std::vector<T>& h) {
  dev::Buffer<T> d(h.size(), nullptr);
  dev::copy_to_device(d.get(), h.data(), h.size() * sizeof(T), nullptr);
  return d;
}

template <class T>
std::vector<T> download(const T* d, size_t n) {
  std::vector<T> h(n);
  dev::copy_to_host(h.data(), d, n * sizeof(T), nullptr);
  dev::sync(nullptr);
  return h;
}

// Bit-for-bit equality (NaN payloads and signed zeros included).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// A test case's size, a tenth of it (at least `floor`) when SCIZ_TEST_SMALL is set: racecheck
// (scripts/gpu_sanitize.sh) makes multi-million-value cases run for hours. Use it only where a
// tenth still spans many tiles/windows of the kernel under test.
inline uint64_t scaled(uint64_t n, uint64_t floor = 1000) {
  static const bool small = std::getenv("SCIZ_TEST_SMALL") != nullptr;
  return small ? (n / 10 > floor ? n / 10 : (n < floor ? n : floor)) : n;
}

}  // namespace sciz::test
