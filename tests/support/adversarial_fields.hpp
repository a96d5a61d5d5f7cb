// Fields made of the values that break float codecs: NaN with payloads and either sign, +-Inf,
// subnormals, signed zeros, the largest finite values, neighbours of powers of two, huge next
// to tiny, constants, single values, all NaN, and random bit patterns (every class at once).
// The CPU suite's adversarial-values test and its GPU twin iterate over the same matrix.
#pragma once
#include <sciz/sciz.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace sciz::test {

template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <class T>
T from_bits(Bits<T> b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

template <class T>
Bits<T> bits_of(T v) {
  Bits<T> b;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

// NaNs of both signs, quiet and signalling, with payloads in the low and high mantissa bits.
template <class T>
std::vector<T> nan_kinds() {
  constexpr int mant = std::numeric_limits<T>::digits - 1;
  const Bits<T> exp = ((Bits<T>(1) << (sizeof(T) * 8 - 1 - mant)) - 1) << mant, sign = Bits<T>(1) << (sizeof(T) * 8 - 1);
  const Bits<T> quiet = Bits<T>(1) << (mant - 1);
  std::vector<T> v;
  for (Bits<T> payload : {Bits<T>(0), Bits<T>(1), Bits<T>(0x2345), quiet - 1})
    for (Bits<T> q : {quiet, Bits<T>(0)})
      for (Bits<T> s : {Bits<T>(0), sign})
        if (payload | q) v.push_back(from_bits<T>(s | exp | q | payload));  // payload 0 and not quiet is Inf
  return v;
}

struct Pattern {
  const char* name;
  bool single;  // a field of one value (shape 1, 1x1, ...)
};

inline const std::vector<Pattern>& adversarial_patterns() {
  static const std::vector<Pattern> v = {
      {"nan_payloads", false}, {"infinities", false},  {"subnormals", false}, {"signed_zeros", false},
      {"extremes", false},     {"powers_of_two", false}, {"huge_tiny", false}, {"constant", false},
      {"all_nan", false},      {"random_bits", false},   {"single", true},    {"single_nan", true},
  };
  return v;
}

// n values of pattern `name`, over a smooth ramp where the pattern leaves room.
template <class T>
std::vector<T> adversarial_field(const std::string& name, uint64_t n, uint32_t seed) {
  using L = std::numeric_limits<T>;
  std::mt19937_64 rng(seed);
  std::vector<T> x(n);
  for (uint64_t i = 0; i < n; ++i) x[i] = static_cast<T>(std::sin(0.05 * static_cast<double>(i)) * 10.0);
  auto every = [&](uint64_t step, uint64_t from, auto value) {
    for (uint64_t i = from; i < n; i += step) x[i] = value(i);
  };
  if (name == "nan_payloads") {
    const auto k = nan_kinds<T>();
    every(3, 0, [&](uint64_t i) { return k[(i / 3) % k.size()]; });
  } else if (name == "infinities") {
    every(4, 1, [&](uint64_t i) { return (i / 4) % 2 ? L::infinity() : -L::infinity(); });
    every(7, 2, [&](uint64_t) { return L::quiet_NaN(); });
  } else if (name == "subnormals") {
    // Multiples of the smallest subnormal, the largest subnormal, the smallest normal.
    every(1, 0, [&](uint64_t i) {
      switch (i % 5) {
        case 0: return L::denorm_min() * static_cast<T>(i % 97);
        case 1: return -L::denorm_min();
        case 2: return L::min() - L::denorm_min();
        case 3: return L::min();
        default: return static_cast<T>(-(static_cast<T>(i % 13)) * L::denorm_min());
      }
    });
  } else if (name == "signed_zeros") {
    every(1, 0, [&](uint64_t i) { return i % 3 == 0 ? T(0) : i % 3 == 1 ? -T(0) : static_cast<T>(i % 7) * T(0.25); });
  } else if (name == "extremes") {
    every(1, 0, [&](uint64_t i) {
      switch (i % 6) {
        case 0: return L::max();
        case 1: return L::lowest();
        case 2: return std::nextafter(L::max(), T(0));
        case 3: return -std::nextafter(L::max(), T(0));
        case 4: return T(0);
        default: return static_cast<T>(i % 11);
      }
    });
  } else if (name == "powers_of_two") {
    // 2^k and its two neighbours, k over the whole exponent range, either sign.
    every(1, 0, [&](uint64_t i) {
      const int k = static_cast<int>(i / 6 % (L::max_exponent - L::min_exponent)) + L::min_exponent;
      const T p = std::ldexp(T(1), k);
      const T v = i % 3 == 0 ? p : i % 3 == 1 ? std::nextafter(p, T(0)) : std::nextafter(p, L::infinity());
      return (i / 3) % 2 ? -v : v;
    });
  } else if (name == "huge_tiny") {
    const T huge = sizeof(T) == 4 ? T(1e30) : T(1e300), tiny = sizeof(T) == 4 ? T(1e-30) : T(1e-300);
    every(1, 0, [&](uint64_t i) { return i % 2 ? (i % 4 == 1 ? huge : -huge) : (i % 4 == 0 ? tiny : -tiny); });
  } else if (name == "constant") {
    every(1, 0, [](uint64_t) { return T(3.14159265358979); });
  } else if (name == "all_nan" || name == "single_nan") {
    const auto k = nan_kinds<T>();
    every(1, 0, [&](uint64_t i) { return name == "all_nan" ? k[i % k.size()] : L::quiet_NaN(); });
  } else if (name == "random_bits") {
    every(1, 0, [&](uint64_t) { return from_bits<T>(static_cast<Bits<T>>(rng())); });
  } else if (name == "single") {
    every(1, 0, [](uint64_t) { return T(-7.25e3); });
  }
  return x;
}

// Shapes of 1 to 4 dims (odd sizes, tiles cut at the edges), or of one value.
inline std::vector<Shape> adversarial_shapes(bool single) {
  if (single) return {Shape{{1}}, Shape{{1, 1}}, Shape{{1, 1, 1}}, Shape{{1, 1, 1, 1}}};
  return {Shape{{1037}}, Shape{{33, 31}}, Shape{{9, 10, 11}}, Shape{{3, 4, 5, 6}}};
}

// Bounds from below any value's ulp to above any finite value: absolute, and relative to the
// finite range (which overflows double on the extreme fields).
inline std::vector<ErrorBound> adversarial_bounds() {
  return {{EbMode::abs, 1e-30}, {EbMode::abs, 1e-7}, {EbMode::abs, 0.5},  {EbMode::abs, 1e10},
          {EbMode::abs, 1e30},  {EbMode::rel, 1e-3}, {EbMode::rel, 1e-12}};
}

}  // namespace sciz::test
