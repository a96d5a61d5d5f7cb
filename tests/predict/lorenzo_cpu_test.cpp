// Lorenzo CPU twin: the vectorizable row loops of compress_cpu against the per-value
// reference over lorenzo_math.hpp (codes, outliers and exact values equal), on smooth, noisy,
// NaN/Inf-salted and huge-valued fields, 1-D/2-D/3-D with partial tiles, f32 and f64, small
// radii (many outliers); and their rounding against std::rint.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "predict/lorenzo/lorenzo_cpu_ref.hpp"

using namespace sciz;

namespace {

template <class T>
std::vector<T> field(uint64_t n, uint32_t seed, double noise, bool salt) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<T> v(n);
  double walk = 0;
  for (uint64_t i = 0; i < n; ++i) {
    walk += 0.01 * g(rng);
    v[i] = static_cast<T>(std::sin(0.001 * static_cast<double>(i)) * 50 + walk + noise * g(rng));
  }
  if (salt) {
    for (uint64_t k = 0; k < n / 50 + 3; ++k) {
      const uint64_t i = rng() % n;
      switch (rng() % 5) {
        case 0: v[i] = std::numeric_limits<T>::quiet_NaN(); break;
        case 1: v[i] = std::numeric_limits<T>::infinity(); break;
        case 2: v[i] = -std::numeric_limits<T>::infinity(); break;
        case 3: v[i] = static_cast<T>(1e30); break;
        default: v[i] = static_cast<T>(-3e9); break;
      }
    }
    for (uint64_t i = 0; i < std::min<uint64_t>(n, 40); ++i) v[i] = std::numeric_limits<T>::quiet_NaN();  // a filled row
  }
  return v;
}

template <class T>
void expect_same(const Extent& e, double eb, int32_t radius, double noise, bool salt, uint32_t seed) {
  const std::vector<T> x = field<T>(e.count(), seed, noise, salt);
  const TileShape c = lorenzo::default_tile(e.ndim);
  const auto p = lorenzo::make_params<T>(eb, radius);
  std::vector<uint16_t> a(e.count()), b(e.count());
  lorenzo::Sparse<T> sa, sb;
  lorenzo::compress_cpu<T>(x.data(), e, c, p, a.data(), sa);
  lorenzo::compress_cpu_reference<T>(x.data(), e, c, p, b.data(), sb);
  const std::string what = "ndim " + std::to_string(e.ndim) + " n " + std::to_string(e.count()) + " radius " +
                           std::to_string(radius) + " salt " + std::to_string(salt);
  ASSERT_EQ(a, b) << what;
  ASSERT_EQ(sa.outlier_idx, sb.outlier_idx) << what;
  ASSERT_EQ(sa.outlier_val, sb.outlier_val) << what;
  ASSERT_EQ(sa.exact_idx, sb.exact_idx) << what;
  ASSERT_EQ(sa.exact_val.size(), sb.exact_val.size()) << what;
  if (!sa.exact_val.empty())  // memcmp of null pointers is undefined even for 0 bytes
    ASSERT_EQ(0, std::memcmp(sa.exact_val.data(), sb.exact_val.data(), sa.exact_val.size() * sizeof(T))) << what;
}

template <class T>
void sweep() {
  const Extent shapes[] = {{1, 1, 5000, 1}, {1, 1, 2048, 1}, {1, 1, 1, 1}, {1, 37, 45, 2}, {1, 64, 64, 2},
                           {9, 17, 33, 3},  {8, 8, 32, 3},   {5, 3, 70, 3}, {2, 1, 1, 3}};
  uint32_t seed = 1;
  for (const Extent& e : shapes)
    for (int32_t radius : {512, 4, 1, 32768})
      for (bool salt : {false, true})
        for (double noise : {0.0, 0.5}) expect_same<T>(e, 0.01, radius, noise, salt, seed++);
  expect_same<T>({3, 20, 40, 3}, 1e-9, 512, 0.1, true, 99);  // values beyond the prequant range
  expect_same<T>({3, 20, 40, 3}, 1e3, 512, 0.1, false, 98);  // everything rounds to 0
}

// Values on the edges of prequantization, where the row loops' selects and checks decide:
// halfway between two multiples of 2 eb (ties of the rounding), magnitudes whose ulp exceeds
// the bound (kept exactly: the reconstruction misses them), the largest prequantizable
// multiples and just past them, signed zeros, subnormals, NaN and Inf, in rows of every length
// from 1 to 40 (the vector steps and their tails).
template <class T>
void edges() {
  const double eb = 0.01;
  const auto p = lorenzo::make_params<T>(eb, 512);
  std::vector<T> pool;
  for (int k = -40; k <= 40; ++k) pool.push_back(static_cast<T>((k + 0.5) * 2 * eb));
  for (double m : {1e5, 1e6, 3e6, 1e7, -1e6}) pool.push_back(static_cast<T>(m + 0.013));
  const double top = static_cast<double>(lorenzo::kMaxPrequant) * 2 * eb;
  for (double m : {top, -top, top * (1 + 1e-6), top * 2})
    pool.push_back(static_cast<T>(m));
  for (T v : {T(0), -T(0), std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::quiet_NaN(),
              std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity()})
    pool.push_back(v);
  std::mt19937 rng(17);
  for (uint64_t nx = 1; nx <= 40; ++nx) {
    const Extent e{1, 3, nx, 2};
    std::vector<T> x(e.count());
    for (T& v : x) v = pool[rng() % pool.size()];
    const TileShape c = lorenzo::default_tile(e.ndim);
    std::vector<uint16_t> a(e.count()), b(e.count());
    lorenzo::Sparse<T> sa, sb;
    lorenzo::compress_cpu<T>(x.data(), e, c, p, a.data(), sa);
    lorenzo::compress_cpu_reference<T>(x.data(), e, c, p, b.data(), sb);
    ASSERT_EQ(a, b) << "nx " << nx;
    ASSERT_EQ(sa.outlier_idx, sb.outlier_idx) << "nx " << nx;
    ASSERT_EQ(sa.outlier_val, sb.outlier_val) << "nx " << nx;
    ASSERT_EQ(sa.exact_idx, sb.exact_idx) << "nx " << nx;
    ASSERT_EQ(sa.exact_val.size(), sb.exact_val.size());
    if (!sa.exact_val.empty())
      ASSERT_EQ(0, std::memcmp(sa.exact_val.data(), sb.exact_val.data(), sa.exact_val.size() * sizeof(T)));
  }
}

}  // namespace

TEST(LorenzoCpu, RowLoopsMatchTheReferenceOnPrequantEdges) {
  edges<float>();
  edges<double>();
}

TEST(LorenzoCpu, RowLoopsMatchTheReferenceF32) { sweep<float>(); }
TEST(LorenzoCpu, RowLoopsMatchTheReferenceF64) { sweep<double>(); }

