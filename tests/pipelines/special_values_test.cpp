// NaN, Inf, denormals, constants, huge magnitudes and extreme bounds: the bound holds on every
// finite point and every non-finite value returns bit for bit.
#include <gtest/gtest.h>

#include <limits>

#include "support/test_data.hpp"

using namespace sciz;

namespace {
template <class T>
std::vector<T> roundtrip(const std::vector<T>& x, const Shape& s, ErrorBound eb, double* eb_abs = nullptr) {
  CompressOptions o;
  o.eb = eb;
  o.device = Device::cpu;
  auto st = compress({x.data(), sizeof(T) == 4 ? DType::f32 : DType::f64, s}, o);
  if (eb_abs) *eb_abs = inspect(st).eb_abs;
  std::vector<T> y(x.size());
  decompress(st, y.data(), y.size() * sizeof(T), Device::cpu);
  return y;
}

template <class T>
void nan_inf_case() {
  const Shape s = Shape::parse("9x13x40");
  auto x = test::smooth_field<T>(s, 3);
  const T qnan = std::numeric_limits<T>::quiet_NaN();
  T payload_nan;
  if constexpr (sizeof(T) == 4) {
    uint32_t bits = 0x7fc12345u;
    std::memcpy(&payload_nan, &bits, 4);
  } else {
    uint64_t bits = 0xfff0000000abcdefull;  // negative NaN with a payload
    std::memcpy(&payload_nan, &bits, 8);
  }
  for (size_t i = 0; i < x.size(); i += 37) x[i] = qnan;
  for (size_t i = 5; i < x.size(); i += 101) x[i] = std::numeric_limits<T>::infinity();
  for (size_t i = 9; i < x.size(); i += 103) x[i] = -std::numeric_limits<T>::infinity();
  x[1] = payload_nan;
  x[0] = qnan;  // a NaN first value must not poison the value range (SZ3's bug)
  double eb_abs = 0;
  auto y = roundtrip(x, s, {EbMode::rel, 1e-3}, &eb_abs);
  // The range comes from finite values only: rel 1e-3 of it, not NaN and not all-exact.
  const auto vr_ok = std::isfinite(eb_abs) && eb_abs > 0 && eb_abs < 1.0;
  EXPECT_TRUE(vr_ok) << eb_abs;
  EXPECT_EQ(test::check_bound(x, y, eb_abs), "");
}
}  // namespace

TEST(SpecialValues, NanAndInfComeBackExactlyF32) { nan_inf_case<float>(); }
TEST(SpecialValues, NanAndInfComeBackExactlyF64) { nan_inf_case<double>(); }

TEST(SpecialValues, AllNanField) {
  const Shape s = Shape::parse("100");
  std::vector<float> x(100, std::numeric_limits<float>::quiet_NaN());
  auto y = roundtrip(x, s, {EbMode::rel, 1e-2});
  EXPECT_EQ(test::check_bound(x, y, 1.0), "");
}

TEST(SpecialValues, ConstantFieldRelativeBound) {
  for (float c : {0.0f, 3.25f, -1e20f}) {
    const Shape s = Shape::parse("33x65");
    std::vector<float> x(s.count(), c);
    double eb = 0;
    auto y = roundtrip(x, s, {EbMode::rel, 1e-3}, &eb);
    EXPECT_GT(eb, 0);
    EXPECT_EQ(test::check_bound(x, y, eb), "") << c;
  }
}

TEST(SpecialValues, DenormalsAndSignedZeros) {
  const Shape s = Shape::parse("4096");
  std::vector<float> x(s.count());
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = (i % 3 == 0 ? -1.0f : 1.0f) * std::numeric_limits<float>::denorm_min() * static_cast<float>(i % 1000);
  x[7] = -0.0f;
  for (double eb : {1e-45, 1e-42, 1e-40, 1e-3}) {
    auto y = roundtrip(x, s, {EbMode::abs, eb});
    EXPECT_EQ(test::check_bound(x, y, eb), "") << eb;
  }
}

TEST(SpecialValues, HugeMagnitudesAndTightBounds) {
  // Values whose quotient by 2eb leaves the integer range are stored exactly, never wrapped.
  const Shape s = Shape::parse("50x50");
  auto x = test::random_field<float>(s.count(), 9, 1e30);
  x[10] = std::numeric_limits<float>::max();
  x[11] = -std::numeric_limits<float>::max();
  for (double eb : {1e-6, 1.0, 1e25, 1e37}) {
    auto y = roundtrip(x, s, {EbMode::abs, eb});
    EXPECT_EQ(test::check_bound(x, y, eb), "") << eb;
  }
  auto d = test::random_field<double>(s.count(), 9, 1e200);
  for (double eb : {1e-300, 1e-10, 1e190}) {
    auto y = roundtrip(d, s, {EbMode::abs, eb});
    EXPECT_EQ(test::check_bound(d, y, eb), "") << eb;
  }
}

TEST(SpecialValues, BoundNearTheUlp) {
  // eb close to the spacing of the values: prequantization alone misses by an ulp here.
  const Shape s = Shape::parse("20000");
  std::vector<float> x(s.count());
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1000.0f + static_cast<float>(i) * 0.000977f;
  for (double eb : {3e-5, 6.1e-5, 1.2e-4, 2.5e-4}) {
    auto y = roundtrip(x, s, {EbMode::abs, eb});
    EXPECT_EQ(test::check_bound(x, y, eb), "") << eb;
  }
}

TEST(SpecialValues, InvalidBoundsRejected) {
  const Shape s = Shape::parse("10");
  std::vector<float> x(10, 1.0f);
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    CompressOptions o;
    o.eb = {EbMode::abs, bad};
    o.device = Device::cpu;
    try {
      compress({x.data(), DType::f32, s}, o);
      ADD_FAILURE() << "accepted eb " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::invalid_argument);
    }
  }
  CompressOptions o;
  o.device = Device::cpu;
  EXPECT_THROW(compress({nullptr, DType::f32, s}, o), Error);
  EXPECT_THROW(compress({x.data(), DType::f32, Shape{}}, o), Error);
  EXPECT_THROW(compress({x.data(), DType::f32, Shape{{0}}}, o), Error);
  o.pipeline = "nope";
  EXPECT_THROW(compress({x.data(), DType::f32, s}, o), Error);
}
