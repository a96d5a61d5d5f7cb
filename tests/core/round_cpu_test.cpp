// core/round_cpu.hpp: rint_ne, the inline round-half-even of the delta and lorenzo CPU loops,
// must equal std::rint bit for bit on every input (signed zeros, NaN-ness, infinities included).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/round_cpu.hpp"

namespace {

template <class T, class U>
void portable_rint_case() {
  auto same = [](T v) {
    const T a = sciz::rint_ne(v), b = std::rint(v);
    if (std::isnan(b)) return std::isnan(a);
    U ua, ub;
    std::memcpy(&ua, &a, sizeof a);
    std::memcpy(&ub, &b, sizeof b);
    return ua == ub;
  };
  constexpr int p = std::numeric_limits<T>::digits;  // 24 or 53
  std::vector<T> edge = {T(0), T(-0.0), T(0.5), T(-0.5), T(1.5), T(-1.5), T(2.5), T(-2.5), T(0.49999997),
                         std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
                         std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), -std::numeric_limits<T>::max(),
                         std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                         std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::quiet_NaN(),
                         std::numeric_limits<T>::signaling_NaN(), T(1 << 30), -T(1 << 30)};
  for (int e = -3; e <= p + 2; ++e)
    for (T c : {std::ldexp(T(1), e), std::ldexp(T(1.5), e), std::ldexp(T(1.75), e)})
      for (T v : {c, std::nextafter(c, T(0)), std::nextafter(c, T(1e30)), c + T(0.5), c - T(0.5)}) {
        edge.push_back(v);
        edge.push_back(-v);
      }
  for (T v : edge) EXPECT_TRUE(same(v)) << v;
  // Every value of the binades around 2^(p-1) (the magic constant) for f32, a dense sample for
  // f64, and random bit patterns.
  int bad = 0;
  const U lo = [] { T v = std::ldexp(T(1), p - 3); U u; std::memcpy(&u, &v, sizeof v); return u; }();
  const U hi = [] { T v = std::ldexp(T(1), p + 1); U u; std::memcpy(&u, &v, sizeof v); return u; }();
  const U step = sizeof(T) == 4 ? U(1) : U(1) << 26;
  for (U u = lo; u < hi; u += step)
    for (U s : {U(0), U(1) << (8 * sizeof(T) - 1)}) {
      T v;
      const U w = u | s;
      std::memcpy(&v, &w, sizeof v);
      bad += !same(v);
    }
  std::mt19937_64 rng(11);
  for (int i = 0; i < 4000000; ++i) {
    const U w = static_cast<U>(rng());
    T v;
    std::memcpy(&v, &w, sizeof v);
    bad += !same(v);
  }
  EXPECT_EQ(bad, 0);
}
}  // namespace

TEST(RoundCpu, RintNeMatchesStdRintF32) { portable_rint_case<float, uint32_t>(); }
TEST(RoundCpu, RintNeMatchesStdRintF64) { portable_rint_case<double, uint64_t>(); }

TEST(RoundCpu, RintNeMatchesStdRintSampled) {
  std::mt19937 rng(5);
  auto check_f = [](float v) {
    const float a = sciz::rint_ne(v), b = std::rint(v);
    if (std::isnan(b)) return std::isnan(a);
    return std::memcmp(&a, &b, 4) == 0;
  };
  auto check_d = [](double v) {
    const double a = sciz::rint_ne(v), b = std::rint(v);
    if (std::isnan(b)) return std::isnan(a);
    return std::memcmp(&a, &b, 8) == 0;
  };
  for (float v : {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 0x1p23f, 0x1p23f - 0.5f, 0x1p23f + 1, -0x1p23f + 0.5f,
                  0x1p22f + 0.5f, 0x1p22f + 1.5f, 1e30f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::denorm_min()})
    EXPECT_TRUE(check_f(v)) << v;
  for (int k = 0; k < 2000000; ++k) {
    uint32_t u = rng();
    float v;
    std::memcpy(&v, &u, 4);
    ASSERT_TRUE(check_f(v)) << u;
    const float w = static_cast<float>(static_cast<int32_t>(rng() % (1u << 25)) - (1 << 24)) * 0.25f;
    ASSERT_TRUE(check_f(w)) << w;
  }
  for (double v : {0.0, -0.0, 0.5, -0.5, 2.5, -3.5, 0x1p52, 0x1p52 - 0.5, 0x1p51 + 0.5, 1e300,
                   std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()})
    EXPECT_TRUE(check_d(v)) << v;
  for (int k = 0; k < 1000000; ++k) {
    const uint64_t u = (uint64_t{rng()} << 32) | rng();
    double v;
    std::memcpy(&v, &u, 8);
    ASSERT_TRUE(check_d(v)) << u;
    ASSERT_TRUE(check_d(static_cast<double>(static_cast<int64_t>(rng()) - (1ll << 31)) * 0.25)) << k;
  }
}
