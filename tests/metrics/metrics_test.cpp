#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/device.hpp"
#include "metrics/metrics.hpp"
#include "metrics/metrics_math.hpp"
#include "support/test_data.hpp"

using namespace sciz;
using metrics::Quality;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Values on a 1/4 grid in [-128, 128): adding 0.5 is exact in float, so the expected errors
// of an offset are exact too.
template <class T>
std::vector<T> grid_field(uint64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> k(-512, 511);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(k(rng) * 0.25);
  return v;
}

// Independent SSIM for a 2-D field (no NaN): two-pass window statistics, same windows.
double reference_ssim_2d(const std::vector<double>& a, const std::vector<double>& b, uint64_t ny, uint64_t nx) {
  double lo = a[0], hi = a[0];
  for (double v : a) lo = std::min(lo, v), hi = std::max(hi, v);
  const double L = hi - lo, c1 = 0.01 * L * 0.01 * L, c2 = 0.03 * L * 0.03 * L;
  const uint64_t wy = std::min<uint64_t>(7, ny), wx = std::min<uint64_t>(7, nx);
  double sum = 0;
  int count = 0;
  for (uint64_t y0 = 0; y0 + wy <= ny; y0 += 2) {
    for (uint64_t x0 = 0; x0 + wx <= nx; x0 += 2) {
      const double m = static_cast<double>(wy * wx);
      double ma = 0, mb = 0;
      for (uint64_t y = y0; y < y0 + wy; ++y)
        for (uint64_t x = x0; x < x0 + wx; ++x) ma += a[y * nx + x] / m, mb += b[y * nx + x] / m;
      double va = 0, vb = 0, cov = 0;
      for (uint64_t y = y0; y < y0 + wy; ++y)
        for (uint64_t x = x0; x < x0 + wx; ++x) {
          const double da = a[y * nx + x] - ma, db = b[y * nx + x] - mb;
          va += da * da / m, vb += db * db / m, cov += da * db / m;
        }
      sum += (2 * ma * mb + c1) / (ma * ma + mb * mb + c1) * (2 * cov + c2) / (va + vb + c2);
      ++count;
    }
  }
  return sum / count;
}

}  // namespace

TEST(Metrics, IdenticalArrays) {
  for (const Shape& s : {Shape{{1000}}, Shape{{40, 50}}, Shape{{10, 20, 30}}, Shape{{3, 4, 10, 12}}}) {
    const auto x = test::smooth_field<float>(s, 3);
    const Quality q = metrics::compare_cpu(x.data(), x.data(), s);
    EXPECT_EQ(q.n, s.count());
    EXPECT_EQ(q.n_compared, s.count());
    EXPECT_EQ(q.max_abs_err, 0.0);
    EXPECT_EQ(q.rmse, 0.0);
    EXPECT_EQ(q.psnr_db, kInf);
    EXPECT_EQ(q.nrmse, 0.0);
    EXPECT_DOUBLE_EQ(q.ssim, 1.0) << s.str();
    EXPECT_EQ(q.nonfinite_mismatch, 0u);
    EXPECT_GT(q.value_range, 0.0);
  }
}

TEST(Metrics, KnownOffsetEveryShape) {
  const double c = 0.5;
  for (const Shape& s : {Shape{{1000}}, Shape{{40, 50}}, Shape{{10, 20, 30}}, Shape{{3, 4, 10, 12}}, Shape{{1, 50, 1, 40}}}) {
    for (int typed = 0; typed < 2; ++typed) {
      Quality q;
      double lo = kInf, hi = -kInf;
      if (typed == 0) {
        auto x = grid_field<float>(s.count(), 5);
        auto y = x;
        for (auto& v : y) v += static_cast<float>(c);
        for (float v : x) lo = std::min<double>(lo, v), hi = std::max<double>(hi, v);
        q = metrics::compare_cpu(x.data(), y.data(), s);
      } else {
        auto x = grid_field<double>(s.count(), 5);
        auto y = x;
        for (auto& v : y) v -= c;
        for (double v : x) lo = std::min(lo, v), hi = std::max(hi, v);
        q = metrics::compare_cpu(x.data(), y.data(), s);
      }
      EXPECT_EQ(q.max_abs_err, c) << s.str();
      EXPECT_DOUBLE_EQ(q.rmse, c);
      EXPECT_EQ(q.value_range, hi - lo);
      EXPECT_NEAR(q.psnr_db, 20 * std::log10((hi - lo) / c), 1e-9);
      EXPECT_NEAR(q.nrmse, c / (hi - lo), 1e-12);
      EXPECT_LT(q.ssim, 1.0);
      EXPECT_GT(q.ssim, 0.0);
    }
  }
}

TEST(Metrics, RmseOfMixedErrors) {
  const Shape s{{4}};
  const double x[4] = {0, 1, 2, 3};
  const double y[4] = {0, 1.5, 2, 2};  // errors 0, .5, 0, 1
  const Quality q = metrics::compare_cpu(x, y, s);
  EXPECT_EQ(q.max_abs_err, 1.0);
  EXPECT_DOUBLE_EQ(q.rmse, std::sqrt((0.25 + 1.0) / 4));
  EXPECT_EQ(q.value_range, 3.0);
}

TEST(Metrics, NonFiniteOriginalsMustComeBackExactly) {
  const Shape s{{8, 9}};
  auto x = test::smooth_field<float>(s, 7);
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  x[3] = qnan;
  x[40] = std::numeric_limits<float>::infinity();
  x[41] = -std::numeric_limits<float>::infinity();
  auto y = x;
  Quality q = metrics::compare_cpu(x.data(), y.data(), s);
  EXPECT_EQ(q.n, 72u);
  EXPECT_EQ(q.n_compared, 69u);
  EXPECT_EQ(q.nonfinite_mismatch, 0u);
  EXPECT_EQ(q.max_abs_err, 0.0);
  EXPECT_DOUBLE_EQ(q.ssim, 1.0);  // windows with holes are skipped, the rest are identical
  EXPECT_TRUE(std::isfinite(q.value_range));

  // A different NaN payload is a mismatch: the stream promises the bits back.
  uint32_t bits;
  std::memcpy(&bits, &y[3], 4);
  bits ^= 1u;
  std::memcpy(&y[3], &bits, 4);
  EXPECT_EQ(metrics::compare_cpu(x.data(), y.data(), s).nonfinite_mismatch, 1u);
  y[3] = qnan;
  y[40] = 1.0f;
  y[41] = std::numeric_limits<float>::infinity();  // sign flipped
  q = metrics::compare_cpu(x.data(), y.data(), s);
  EXPECT_EQ(q.nonfinite_mismatch, 2u);
  EXPECT_EQ(q.max_abs_err, 0.0);  // non-finite originals are never "compared"
}

TEST(Metrics, FiniteDecodedAsNonFiniteIsInfiniteError) {
  const Shape s{{10, 10}};
  auto x = test::smooth_field<double>(s, 2);
  auto y = x;
  y[55] = std::numeric_limits<double>::quiet_NaN();
  const Quality q = metrics::compare_cpu(x.data(), y.data(), s);
  EXPECT_EQ(q.nonfinite_mismatch, 1u);
  EXPECT_EQ(q.max_abs_err, kInf);
  EXPECT_EQ(q.rmse, kInf);
  EXPECT_EQ(q.psnr_db, -kInf);
  EXPECT_FALSE(std::isnan(q.ssim));
  EXPECT_LT(q.ssim, 1.0);
}

TEST(Metrics, AllNonFinite) {
  const Shape s{{5}};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float x[5] = {nan, nan, nan, nan, nan};
  const Quality q = metrics::compare_cpu(x, x, s);
  EXPECT_EQ(q.n_compared, 0u);
  EXPECT_EQ(q.nonfinite_mismatch, 0u);
  EXPECT_EQ(q.value_range, 0.0);
  EXPECT_EQ(q.rmse, 0.0);
  EXPECT_EQ(q.ssim, 1.0);
}

TEST(Metrics, ConstantFieldHasNoNaN) {
  const Shape s{{20, 20}};
  std::vector<float> x(400, 3.0f), y(400, 3.0f);
  Quality q = metrics::compare_cpu(x.data(), y.data(), s);
  EXPECT_EQ(q.ssim, 1.0);
  EXPECT_EQ(q.psnr_db, kInf);
  y[7] = 3.5f;
  q = metrics::compare_cpu(x.data(), y.data(), s);
  EXPECT_EQ(q.value_range, 0.0);
  EXPECT_EQ(q.psnr_db, -kInf);
  EXPECT_EQ(q.nrmse, kInf);
  EXPECT_FALSE(std::isnan(q.ssim));
  EXPECT_LT(q.ssim, 1.0);
}

TEST(Metrics, SsimDropsWithNoise) {
  const Shape s{{64, 64}};
  const auto x = test::smooth_field<double>(s, 11);
  double prev = 1.0;
  for (double sigma : {0.1, 1.0, 10.0, 50.0}) {
    auto y = x;
    const auto noise = test::random_field<double>(y.size(), 99, sigma);
    for (size_t i = 0; i < y.size(); ++i) y[i] += noise[i];
    const double ssim = metrics::compare_cpu(x.data(), y.data(), s).ssim;
    EXPECT_LT(ssim, prev) << "sigma " << sigma;
    prev = ssim;
  }
  EXPECT_LT(prev, 0.5);
}

TEST(Metrics, SsimMatchesReferenceAndHandlesShortAxes) {
  for (const Shape& s : {Shape{{64, 64}}, Shape{{10, 9}}, Shape{{3, 100}}, Shape{{1, 3, 1, 100}}}) {
    const auto x = test::smooth_field<double>(s, 4);
    auto y = x;
    const auto noise = test::random_field<double>(y.size(), 8, 5.0);
    for (size_t i = 0; i < y.size(); ++i) y[i] += noise[i];
    const Extent e = effective_extent(s);
    const double ref = reference_ssim_2d(x, y, e.ny, e.nx);
    EXPECT_NEAR(metrics::compare_cpu(x.data(), y.data(), s).ssim, ref, 1e-9) << s.str();
  }
}

TEST(Metrics, SsimUsesTheEffectiveGeometry) {
  // 4-D folds to a stack of 3-D volumes and size-1 axes vanish: same windows, same score.
  const Shape s4{{3, 4, 10, 12}}, s3{{12, 10, 12}}, s5{{12, 1, 10, 12}};
  const auto x = test::smooth_field<float>(s4, 21);
  auto y = x;
  const auto noise = test::random_field<float>(y.size(), 3, 2.0);
  for (size_t i = 0; i < y.size(); ++i) y[i] += noise[i];
  const double a = metrics::compare_cpu(x.data(), y.data(), s4).ssim;
  EXPECT_DOUBLE_EQ(a, metrics::compare_cpu(x.data(), y.data(), s3).ssim);
  EXPECT_DOUBLE_EQ(a, metrics::compare_cpu(x.data(), y.data(), s5).ssim);
  const metrics::SsimGeom g = metrics::ssim_geometry(effective_extent(s4));
  EXPECT_EQ(g.count(), 3u * 2u * 3u);  // (12-7)/2+1 x (10-7)/2+1 x (12-7)/2+1
}

TEST(Metrics, RatioAndBitRate) {
  EXPECT_DOUBLE_EQ(metrics::ratio(4000, 100), 40.0);
  EXPECT_EQ(metrics::ratio(4000, 0), kInf);
  EXPECT_DOUBLE_EQ(metrics::bit_rate(100, 1000), 0.8);
  EXPECT_EQ(metrics::bit_rate(100, 0), 0.0);
}

TEST(Metrics, CudaTwinAgreesOrSaysWhyNot) {
  const Shape s{{17, 33, 29}};
  auto x = test::smooth_field<float>(s, 13);
  x[100] = std::numeric_limits<float>::quiet_NaN();
  auto y = x;
  const auto noise = test::random_field<float>(y.size(), 1, 0.5);
  for (size_t i = 0; i < y.size(); ++i) y[i] += noise[i];
  if (!cuda_available()) {
    try {
      metrics::compare_cuda<float>(nullptr, nullptr, s, nullptr);
      FAIL() << "compare_cuda ran without a device";
    } catch (const Error& e) {
      EXPECT_TRUE(e.status() == Status::no_device || e.status() == Status::invalid_argument) << e.what();
    }
    GTEST_SKIP() << "no CUDA device";
  }
  const size_t bytes = x.size() * sizeof(float);
  dev::Buffer<float> dx(x.size(), nullptr), dy(y.size(), nullptr);
  dev::copy_to_device(dx.get(), x.data(), bytes, nullptr);
  dev::copy_to_device(dy.get(), y.data(), bytes, nullptr);
  const Quality c = metrics::compare_cpu(x.data(), y.data(), s);
  const Quality g = metrics::compare_cuda(dx.get(), dy.get(), s, nullptr);
  EXPECT_EQ(g.max_abs_err, c.max_abs_err);
  EXPECT_EQ(g.value_range, c.value_range);
  EXPECT_EQ(g.n_compared, c.n_compared);
  EXPECT_EQ(g.nonfinite_mismatch, c.nonfinite_mismatch);
  EXPECT_NEAR(g.rmse, c.rmse, 1e-12 * c.rmse);
  EXPECT_NEAR(g.ssim, c.ssim, 1e-12);
}
