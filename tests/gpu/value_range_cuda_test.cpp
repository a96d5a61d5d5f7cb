// value_range_cuda: the finite range and the non-finite count, exactly as the CPU twin; and
// value_range_fold_cuda, the words an absolute bound's encoders fold into, the same again, also
// when a field is folded in pieces.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "core/value_range.hpp"
#include "gpu/gpu_util.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

// The fold of pieces [0, cut) and [cut, n) of d into one set of words, as two chunks' encoders
// would fold them (cut == n: one piece).
template <class T>
ValueRange folded(const T* d, uint64_t n, uint64_t cut) {
  dev::Buffer<RangeKeys> k(1, nullptr);
  reset_range_keys(k.get(), nullptr);
  value_range_fold_cuda(d, cut, k.get(), nullptr);
  value_range_fold_cuda(d + cut, n - cut, k.get(), nullptr);
  RangeKeys h;
  dev::copy_to_host(&h, k.get(), sizeof h, nullptr);
  dev::sync(nullptr);
  return range_from_keys(h, n);
}

void expect_equal(const ValueRange& c, const ValueRange& g, const std::string& what) {
  EXPECT_EQ(c.finite, g.finite) << what;
  EXPECT_EQ(c.nonfinite, g.nonfinite) << what;
  EXPECT_EQ(c.min, g.min) << what;
  EXPECT_EQ(c.max, g.max) << what;
  EXPECT_FALSE(std::signbit(g.min) && g.min == 0) << what << ": -0 must read as +0";
  EXPECT_FALSE(std::signbit(g.max) && g.max == 0) << what << ": -0 must read as +0";
}

template <class T>
void expect_twins(const std::vector<T>& x) {
  const ValueRange c = value_range_cpu(x.data(), x.size());
  auto d = test::upload(x);
  const std::string n = "n = " + std::to_string(x.size());
  expect_equal(c, value_range_cuda<T>(d.get(), x.size(), nullptr), n);
  expect_equal(c, folded(d.get(), x.size(), x.size()), n + ", folded");
  expect_equal(c, folded(d.get(), x.size(), x.size() / 3), n + ", folded in two pieces");
}

template <class T>
void run_all() {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  for (uint64_t n : {1ull, 2ull, 255ull, 257ull, 100003ull, 3000017ull}) {
    auto x = test::random_field<T>(n, static_cast<uint32_t>(n), 50.0);
    expect_twins(x);
    x[0] = nan;  // SZ3's bug: a NaN first value must not poison the range
    if (n > 2) x[n / 2] = inf;
    if (n > 3) x[n - 1] = -inf;
    expect_twins(x);
  }
  expect_twins(std::vector<T>(1000, nan));                 // no finite value at all
  expect_twins(std::vector<T>(77, T(3.5)));                // constant
  expect_twins(std::vector<T>{std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(), nan});
  expect_twins(std::vector<T>{std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest(), inf});
  expect_twins(std::vector<T>{T(-0.0), T(0.0), T(-0.0)});  // zeros of both signs only
  expect_twins(std::vector<T>{T(-0.0), nan, -inf});
}

}  // namespace

TEST(ValueRangeCuda, MatchesCpuF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  run_all<float>();
}

TEST(ValueRangeCuda, MatchesCpuF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  run_all<double>();
}

namespace {
// Every start offset against the 16-byte vectors and every short length: the head and tail
// that go through the scalar path, extremes placed in each of them.
template <class T>
void offsets_and_tails() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  auto base = test::random_field<T>(4096 + 64, 5, 10.0);
  auto d = test::upload(base);
  for (uint64_t off = 0; off < 16 / sizeof(T) + 1; ++off) {
    for (uint64_t n : {1ull, 2ull, 3ull, 5ull, 9ull, 17ull, 33ull, 63ull, 64ull, 65ull, 1000ull, 4095ull}) {
      for (uint64_t spike : {uint64_t(0), n / 2, n - 1}) {
        std::vector<T> x(base.begin() + off, base.begin() + off + n);
        x[spike] = T(1e6);
        if (n > 2) x[(spike + 1) % n] = nan;
        dev::copy_to_device(d.get() + off, x.data(), n * sizeof(T), nullptr);
        const ValueRange c = value_range_cpu(x.data(), n);
        const ValueRange g = value_range_cuda<T>(d.get() + off, n, nullptr);
        ASSERT_EQ(c.max, g.max) << "offset " << off << " n " << n << " spike " << spike;
        ASSERT_EQ(c.min, g.min) << "offset " << off << " n " << n;
        ASSERT_EQ(c.nonfinite, g.nonfinite) << "offset " << off << " n " << n;
        const ValueRange f = folded(d.get() + off, n, n / 2);
        ASSERT_EQ(c.max, f.max) << "folded, offset " << off << " n " << n << " spike " << spike;
        ASSERT_EQ(c.min, f.min) << "folded, offset " << off << " n " << n;
        ASSERT_EQ(c.nonfinite, f.nonfinite) << "folded, offset " << off << " n " << n;
      }
    }
  }
}
}  // namespace

TEST(ValueRangeCuda, EveryOffsetAndTail) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  offsets_and_tails<float>();
  offsets_and_tails<double>();
}
