// The CPU value range against a plain definition (std::isfinite, double compares) on inputs
// built to trip an integer-key scan: NaN payloads and signs, +-Inf, -0 and +0, subnormals,
// the largest finite values, runs shorter and longer than a vector, every offset of a lone
// extreme. The loop has a baseline and an AVX2 build picked at run time: ctest runs these
// tests again with SCIZ_RANGE_BASELINE_ISA=1 (RangeBaselineIsa), so both are held to it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/value_range.hpp"

using namespace sciz;

namespace {

template <class T>
ValueRange by_definition(const std::vector<T>& x) {
  ValueRange r;
  for (T v : x) {
    if (!std::isfinite(v)) {
      ++r.nonfinite;
      continue;
    }
    const double d = static_cast<double>(v) + 0.0;
    r.min = r.finite ? std::min(r.min, d) : d;
    r.max = r.finite ? std::max(r.max, d) : d;
    ++r.finite;
  }
  return r;
}

template <class T>
void expect_same(const std::vector<T>& x, const std::string& what) {
  SCOPED_TRACE(what + ", n=" + std::to_string(x.size()));
  const ValueRange want = by_definition(x), got = value_range_cpu(x.data(), x.size());
  ASSERT_EQ(got.finite, want.finite);
  ASSERT_EQ(got.nonfinite, want.nonfinite);
  if (want.finite) {
    ASSERT_EQ(got.min, want.min);
    ASSERT_EQ(got.max, want.max);
    ASSERT_FALSE(std::signbit(got.min) && got.min == 0) << "-0 must come back as +0";
    ASSERT_FALSE(std::signbit(got.max) && got.max == 0) << "-0 must come back as +0";
  }
}

template <class T>
T with_bits(uint64_t b) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const uint32_t w = static_cast<uint32_t>(b);
    std::memcpy(&v, &w, 4);
  } else {
    std::memcpy(&v, &b, 8);
  }
  return v;
}

template <class T>
void adversarial() {
  using L = std::numeric_limits<T>;
  const T nan_neg = with_bits<T>(sizeof(T) == 4 ? 0xffc00001ull : 0xfff8000000000001ull);
  const std::vector<T> specials = {L::quiet_NaN(), nan_neg, L::infinity(), -L::infinity(), T(-0.0), T(0.0),
                                   L::denorm_min(), -L::denorm_min(), L::min(), -L::min(), L::max(), L::lowest(),
                                   T(1), T(-1)};
  // Every special alone, then each at every offset of runs around the vector widths.
  for (T s : specials) expect_same<T>({s}, "one special");
  for (size_t n : {1u, 3u, 7u, 8u, 9u, 15u, 16u, 17u, 33u, 65u, 1000u})
    for (T s : specials)
      for (size_t at : {size_t{0}, n / 2, n - 1}) {
        std::vector<T> x(n, T(0.5));
        x[at] = s;
        expect_same(x, "one special in halves");
        std::vector<T> y(n, L::quiet_NaN());
        y[at] = s;
        expect_same(y, "one special among NaN");
      }
  expect_same<T>({T(-0.0), T(-0.0)}, "only -0");
  expect_same<T>(std::vector<T>(40, L::infinity()), "only Inf");
  // Random mixtures, large enough for several threads' shares.
  std::mt19937_64 rng(sizeof(T));
  for (size_t n : {100000u, 3000001u}) {
    std::vector<T> x(n);
    std::uniform_real_distribution<double> u(-1e6, 1e6);
    for (auto& v : x) v = static_cast<T>(u(rng));
    for (int k = 0; k < 50; ++k) x[rng() % n] = specials[rng() % specials.size()];
    expect_same(x, "random with specials");
  }
}

}  // namespace

TEST(ValueRangeCpu, F32EqualsTheDefinitionOnAdversarialInputs) { adversarial<float>(); }
TEST(ValueRangeCpu, F64EqualsTheDefinitionOnAdversarialInputs) { adversarial<double>(); }

// The device fold's words: range_key orders doubles as < does (-0 just below +0), range_value
// inverts it, and range_from_keys reads the words as value_range_cpu reports a range.
TEST(RangeKeys, KeysOrderDoublesAndReadBack) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v{-inf, std::numeric_limits<double>::lowest(), -1e300, -2.5, -1.0,
                              -std::numeric_limits<double>::min(), -std::numeric_limits<double>::denorm_min(), -0.0,
                              0.0, std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
                              1.0, 3.0, 1e300, std::numeric_limits<double>::max(), inf};
  for (size_t i = 0; i < v.size(); ++i) {
    const double back = range_value(range_key(v[i]));
    EXPECT_EQ(std::memcmp(&back, &v[i], 8), 0) << v[i];
    if (i) EXPECT_LT(range_key(v[i - 1]), range_key(v[i])) << v[i - 1] << " < " << v[i];
  }
  // Identity words: nothing finite.
  const ValueRange none = range_from_keys(range_keys_identity(), 0);
  EXPECT_EQ(none.finite, 0u);
  RangeKeys k{range_key(-0.0), range_key(-0.0), 3};
  const ValueRange z = range_from_keys(k, 10);
  EXPECT_EQ(z.finite, 7u);
  EXPECT_EQ(z.nonfinite, 3u);
  EXPECT_FALSE(std::signbit(z.min)) << "-0 reads as +0, as value_range_cpu reports it";
  EXPECT_FALSE(std::signbit(z.max));
  const std::vector<float> f{-0.0f, 2.5f, -7.25f, std::numeric_limits<float>::quiet_NaN()};
  const ValueRange want = value_range_cpu(f.data(), f.size());
  RangeKeys fk{range_key(-7.25), range_key(2.5), 1};
  const ValueRange got = range_from_keys(fk, f.size());
  EXPECT_EQ(got.min, want.min);
  EXPECT_EQ(got.max, want.max);
  EXPECT_EQ(got.finite, want.finite);
  EXPECT_EQ(got.nonfinite, want.nonfinite);
}
