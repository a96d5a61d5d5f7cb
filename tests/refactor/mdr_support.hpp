// What the mdr tests share: refactor a vector, retrieve through a Source that records what was
// read, and the every-point check against a reported bound.
#pragma once
#include <gtest/gtest.h>
#include <sciz/mdr.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace sciz::test {

template <class T>
std::vector<uint8_t> refactor_vec(const std::vector<T>& x, const std::vector<uint64_t>& dims,
                                  const mdr::RefactorOptions& opt = {}) {
  return mdr::refactor({x.data(), sizeof(T) == 4 ? DType::f32 : DType::f64, Shape{dims}}, opt);
}

// A memory Source that logs every (offset, size) it serves.
struct LoggedSource {
  std::vector<std::pair<uint64_t, uint64_t>> reads;
  mdr::Source source(const std::vector<uint8_t>& file) {
    mdr::Source s = mdr::memory_source(file);
    auto inner = s.read;
    s.read = [this, inner](uint64_t off, uint64_t n, void* dst) {
      reads.emplace_back(off, n);
      inner(off, n, dst);
    };
    return s;
  }
  uint64_t bytes() const {
    uint64_t b = 0;
    for (const auto& r : reads) b += r.second;
    return b;
  }
};

// Max |x - y| over the finite points, and whether every non-finite point came back bit for bit.
template <class T>
std::pair<double, bool> max_error(const std::vector<T>& x, const std::vector<T>& y) {
  double m = 0;
  bool exact = true;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      exact = exact && std::memcmp(&x[i], &y[i], sizeof(T)) == 0;
      continue;
    }
    const double e = std::fabs(static_cast<double>(x[i]) - static_cast<double>(y[i]));
    m = std::isfinite(static_cast<double>(y[i])) ? std::max(m, e) : INFINITY;
  }
  return {m, exact};
}

}  // namespace sciz::test
