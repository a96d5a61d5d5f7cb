// Shared helpers for tests: synthetic fields, fixture loading, the every-point bound check.
#pragma once
#include <sciz/sciz.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace sciz::test {

template <class T>
std::vector<T> smooth_field(const Shape& s, uint32_t seed) {
  std::vector<T> v(s.count());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> ph(0, 6.28);
  const double a = ph(rng), b = ph(rng), c = ph(rng);
  const auto& d = s.dims;
  for (uint64_t i = 0; i < v.size(); ++i) {
    uint64_t r = i;
    double acc = 0;
    for (size_t k = d.size(); k-- > 0;) {
      const double t = static_cast<double>(r % d[k]) / (double)std::max<uint64_t>(d[k], 2);
      r /= d[k];
      acc += std::sin(6.0 * t + a + k) * std::cos(3.0 * t + b) + 0.3 * t * c;
    }
    v[i] = static_cast<T>(100.0 * acc + 7.0);
  }
  return v;
}

// A smooth 1-D field of exactly n values.
template <class T>
std::vector<T> smooth_1d(uint64_t n, uint32_t seed) {
  auto v = smooth_field<T>(Shape::parse(std::to_string(std::max<uint64_t>(n, 1))), seed);
  v.resize(n);
  return v;
}

// A negative NaN with a payload (neither the default quiet NaN nor a signalling one): what a
// codec must carry bit for bit.
template <class T>
T nan_with_payload() {
  T payload;
  if constexpr (sizeof(T) == 4) {
    const uint32_t b = 0xffc12345u;
    std::memcpy(&payload, &b, 4);
  } else {
    const uint64_t b = 0xfff0000000abcdefull;
    std::memcpy(&payload, &b, 8);
  }
  return payload;
}

// Status of the Error f throws (ok when it throws none).
template <class F>
Status status_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.status();
  }
  return Status::ok;
}

// smooth_1d salted with what a codec must carry exactly: NaN (one with a payload) and +-Inf
// at periodic places, a 128-value stretch with no finite value (at 1024), a constant stretch
// with NaNs (at 2048) and a 4096-value NaN run (at 8192), each where n has room for it.
template <class T>
std::vector<T> special_values_1d(uint64_t n, uint32_t seed) {
  auto x = smooth_1d<T>(n, seed);
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const T payload = nan_with_payload<T>();
  for (size_t i = 0; i < x.size(); i += 37) x[i] = nan;
  for (size_t i = 5; i < x.size(); i += 101) x[i] = inf;
  for (size_t i = 9; i < x.size(); i += 103) x[i] = -inf;
  if (n > 1) x[1] = payload;
  if (n > 0) x[0] = nan;
  for (size_t i = 1024; i < std::min<size_t>(1152, n); ++i) x[i] = (i & 1) ? nan : inf;
  for (size_t i = 2048; i < std::min<size_t>(2176, n); ++i) x[i] = (i & 1) ? nan : T(4.25);
  for (size_t i = 8192; i < std::min<size_t>(8192 + 4096, n); ++i) x[i] = nan;
  return x;
}

// Row lengths and counts for chains over rows (delta's serpentine chain): rows shorter than a
// group of 32, around a group, around a layer of 32768 and longer, and counts that make rows
// cross groups and layers at many offsets.
inline const std::vector<std::pair<uint64_t, uint64_t>>& row_shapes() {  // (rows, row)
  static const std::vector<std::pair<uint64_t, uint64_t>> v = {
      {20011, 2}, {9000, 3}, {2000, 31}, {1500, 32}, {1400, 33}, {700, 100}, {333, 500}, {5, 32767}, {3, 32768},
      {3, 40000}};
  return v;
}

// A smooth rows x row field with NaN and Inf at row, group and layer edges (0, row - 1, row,
// 2 row - 1, 31, 32, 32767, 32768, the last value) and 1e30 every 997 values from 7.
template <class T>
std::vector<T> row_edge_field(uint64_t rows, uint64_t row, uint32_t seed) {
  const uint64_t n = rows * row;
  auto x = smooth_field<T>(Shape{{rows, row}}, seed);
  for (uint64_t i : {uint64_t(0), row - 1, row, 2 * row - 1, uint64_t(31), uint64_t(32), uint64_t(32767),
                     uint64_t(32768), n - 1})
    if (i < n) x[i] = i % 3 ? std::numeric_limits<T>::quiet_NaN() : std::numeric_limits<T>::infinity();
  for (uint64_t i = 7; i < n; i += 997) x[i] = static_cast<T>(1e30);
  return x;
}

template <class T>
std::vector<T> random_field(uint64_t n, uint32_t seed, double scale = 1.0) {
  std::vector<T> v(n);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd(0, scale);
  for (auto& x : v) x = static_cast<T>(nd(rng));
  return v;
}

// Every point within eb (checked in double, and in T's own arithmetic), and every non-finite
// value back bit for bit. Returns an empty string when all is well, else the first failure.
template <class T>
std::string check_bound(const std::vector<T>& orig, const std::vector<T>& dec, double eb) {
  if (orig.size() != dec.size()) return "size mismatch";
  for (size_t i = 0; i < orig.size(); ++i) {
    const T a = orig[i], b = dec[i];
    if (!std::isfinite(a)) {
      if (std::memcmp(&a, &b, sizeof(T)) != 0) return "non-finite value at " + std::to_string(i) + " not exact";
      continue;
    }
    const double err = std::fabs(static_cast<double>(a) - static_cast<double>(b));
    const T err_t = static_cast<T>(std::fabs(a - b));
    if (!(err <= eb) || !(err_t <= static_cast<T>(eb)) || !std::isfinite(b))
      return "point " + std::to_string(i) + ": |" + std::to_string(a) + " - " + std::to_string(b) +
             "| = " + std::to_string(err) + " > eb " + std::to_string(eb);
  }
  return "";
}

inline std::optional<std::filesystem::path> shared_data_dir() {
  std::filesystem::path p = SCIZ_SHARED_DATA_DIR;
  if (std::filesystem::is_directory(p)) return p;
  return std::nullopt;
}

inline std::vector<uint8_t> read_file(const std::filesystem::path& p) {
  std::vector<uint8_t> b(std::filesystem::file_size(p));
  FILE* f = std::fopen(p.c_str(), "rb");
  if (!f) return {};
  const size_t got = std::fread(b.data(), 1, b.size(), f);
  std::fclose(f);
  b.resize(got);
  return b;
}

}  // namespace sciz::test
