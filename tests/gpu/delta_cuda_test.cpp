// delta, CUDA twin: encode_cuda writes the CPU twin's bytes (all four sections and the stats),
// decode_cuda reproduces decode_cpu bit for bit, every point meets the bound, corrupt streams
// throw corrupt_stream on the GPU path too, and a 32M-value field round-trips (f32 and f64)
// with informational kernel times (SCIZ_DELTA_TIMING).
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>

#include "gpu/gpu_util.hpp"
#include "predict/delta/delta.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

template <class T>
std::vector<T> decode_gpu_vec(const delta::Sections& s, uint64_t n, double eb) {
  dev::Buffer<T> d(n, nullptr);
  delta::decode_cuda<T>(s, n, eb, d.get(), nullptr);
  return test::download(d.get(), n);
}

template <class T>
void check_twins(const std::vector<T>& x, double eb, uint64_t row = 0) {
  SCOPED_TRACE("n=" + std::to_string(x.size()) + " eb=" + std::to_string(eb) + " W=" + std::to_string(sizeof(T)) +
               " row=" + std::to_string(row));
  delta::Stats sc, sg;
  const delta::Encoded c = delta::encode_cpu<T>(x.data(), x.size(), eb, &sc, row);
  auto dx = test::upload(x);
  const delta::Encoded g = delta::encode_cuda<T>(dx.get(), x.size(), eb, nullptr, &sg, row);
  ASSERT_EQ(g.mode, c.mode);
  ASSERT_EQ(g.row, c.row);
  ASSERT_EQ(g.widths, c.widths);
  ASSERT_EQ(g.initial, c.initial);
  ASSERT_EQ(g.payload, c.payload);
  ASSERT_EQ(g.exact, c.exact);
  EXPECT_EQ(sg.layers, sc.layers);
  EXPECT_EQ(sg.groups, sc.groups);
  EXPECT_EQ(sg.zero_groups, sc.zero_groups);
  EXPECT_EQ(sg.exact_values, sc.exact_values);
  std::vector<T> yc(x.size());
  delta::decode_cpu<T>(delta::view(c), x.size(), eb, yc.data());
  const auto yg = decode_gpu_vec<T>(delta::view(c), x.size(), eb);
  ASSERT_TRUE(test::same_bits(yc, yg));
  EXPECT_EQ(test::check_bound(x, yg, eb), "");
}

template <class T>
void sizes_case() {
  for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(31), uint64_t(32), uint64_t(33), uint64_t(1023),
                     uint64_t(1024), uint64_t(1025), uint64_t(32767), uint64_t(32768), uint64_t(32769),
                     uint64_t(3 * 32768 + 1000 + 5)}) {
    const auto x = test::smooth_1d<T>(n, 7);
    for (double eb : {1e-1, 1e-3, 1e-6}) check_twins(x, eb);
  }
}

template <class T>
void random_case() {
  for (double scale : {1e-3, 1.0, 1e6}) {
    const auto x = test::random_field<T>(200011, 11, scale);
    for (double rel : {1e-1, 1e-3, 1e-5, 1e-9}) check_twins(x, rel * scale);
  }
}

template <class T>
void special_case() {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  auto x = test::special_values_1d<T>(70000, 3);
  for (double eb : {1e-1, 1e-3, 1e-6}) check_twins(x, eb);
  // Fills at the start of a layer, of an iteration, of a group, whole fill groups and lanes,
  // values beyond the chain's 2^30 limit and just inside it.
  std::vector<T> y = test::smooth_1d<T>(3 * 32768 + 77, 5);
  for (size_t i = 0; i < 40; ++i) y[i] = nan;
  for (size_t i = 32768; i < 32768 + 1100; ++i) y[i] = (i % 5) ? inf : nan;
  for (size_t i = 2 * 32768 + 1024; i < 2 * 32768 + 1024 + 33; ++i) y[i] = -inf;
  y[500] = static_cast<T>(1e30);
  y[501] = static_cast<T>(-1e30);
  y[502] = static_cast<T>(0.999 * 2 * 1e-3 * 1073741824.0);  // |q| just under 2^30 at eb 1e-3
  y[503] = static_cast<T>(1.001 * 2 * 1e-3 * 1073741824.0);  // just over: stored exactly
  check_twins(y, 1e-3);
  std::vector<T> all_nan(40000, nan);
  check_twins(all_nan, 1e-2);
  // More exact values than the encoder first makes room for (n/32 + 4096): it counts them,
  // then encodes again with room for all; the bytes must not change.
  std::vector<T> many(300000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = (i % 3) ? nan : static_cast<T>(0.5 * static_cast<double>(i));
  check_twins(many, 1e-2);
}

template <class T>
void edge_case() {
  const T dmin = std::numeric_limits<T>::denorm_min();
  std::vector<T> x(5000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = dmin * static_cast<T>(static_cast<int>(i % 37) - 18);
  for (double eb : {static_cast<double>(dmin), 1e-30, 1.0}) check_twins(x, eb);
  std::vector<T> c(100000, T(3.5));
  check_twins(c, 1e-4);
  std::vector<T> z(2048);
  for (size_t i = 0; i < z.size(); ++i) z[i] = (i % 3) ? -T(0) : T(0);
  check_twins(z, 1e-3);
  // eb near the ulp of the values: many values miss by rounding (kept, q stays in the chain).
  std::vector<T> u(100000);
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<T>(1e6 + 300 * std::sin(i * 0.003) + (i % 7) * 0.01);
  for (double eb : {0.03, 0.0625, 0.07}) check_twins(u, eb);
}

}  // namespace

TEST(DeltaCuda, SizesF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  sizes_case<float>();
}
TEST(DeltaCuda, SizesF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  sizes_case<double>();
}
TEST(DeltaCuda, RandomF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  random_case<float>();
}
TEST(DeltaCuda, RandomF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  random_case<double>();
}
TEST(DeltaCuda, SpecialValuesF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  special_case<float>();
}
TEST(DeltaCuda, SpecialValuesF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  special_case<double>();
}
TEST(DeltaCuda, EdgesF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  edge_case<float>();
}
TEST(DeltaCuda, EdgesF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  edge_case<double>();
}

TEST(DeltaCuda, CorruptStreamsThrow) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  auto x = test::smooth_1d<float>(32768 + 1000 + 5, 2);
  x[300] = std::numeric_limits<float>::quiet_NaN();
  const auto e = delta::encode_cpu<float>(x.data(), x.size(), 1e-3);
  auto status = [&](const delta::Encoded& c, uint64_t n) {
    try {
      dev::Buffer<float> d(n + 1, nullptr);
      delta::decode_cuda<float>(delta::view(c), n, 1e-3, d.get(), nullptr);
    } catch (const Error& err) {
      return err.status();
    }
    return Status::ok;
  };
  ASSERT_EQ(status(e, x.size()), Status::ok);
  for (int s = 0; s < 4; ++s)
    for (int d : {-1, +1, -16, +16}) {
      auto c = e;
      std::vector<uint8_t>* secs[] = {&c.widths, &c.initial, &c.payload, &c.exact};
      if (d < 0 && secs[s]->size() < static_cast<size_t>(-d)) continue;
      secs[s]->resize(secs[s]->size() + d, 0);
      EXPECT_EQ(status(c, x.size()), Status::corrupt_stream) << "section " << s + 1 << " delta " << d;
    }
  for (uint8_t w : {32, 200}) {
    auto c = e;
    c.widths[40] = w;
    EXPECT_EQ(status(c, x.size()), Status::corrupt_stream);
  }
  EXPECT_EQ(status(e, x.size() + 32), Status::corrupt_stream);
}

// The serpentine chain: rows shorter than a group, around a group, around a layer and longer;
// fills and exact values at row, group and layer edges (the CPU tests tie these streams to the
// linear ones of the field in chain order).
template <class T>
void serpentine_case() {
  for (auto [rows, row] : test::row_shapes())
    for (double eb : {1e-1, 1e-4}) check_twins(test::row_edge_field<T>(rows, row, 5), eb, row);
  // Unaligned device pointer: every group takes the value-by-value path.
  const auto x = test::smooth_field<T>(Shape{{401, 100}}, 9);
  auto dx = test::upload(x);
  const uint64_t n = x.size() - 100;
  const delta::Encoded c = delta::encode_cpu<T>(x.data() + 1, n, 1e-3, nullptr, 100);
  const delta::Encoded g = delta::encode_cuda<T>(dx.get() + 1, n, 1e-3, nullptr, nullptr, 100);
  ASSERT_EQ(g.payload, c.payload);
  ASSERT_EQ(g.exact, c.exact);
}

TEST(DeltaCuda, SerpentineF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  serpentine_case<float>();
}
TEST(DeltaCuda, SerpentineF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  serpentine_case<double>();
}

TEST(DeltaCuda, LargeFieldRoundTrip) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const uint64_t n = uint64_t(32) << 20;
  const auto x = test::smooth_field<float>(Shape::parse("512x256x256"), 5);
  ASSERT_EQ(x.size(), n);
  float mn = std::numeric_limits<float>::infinity(), mx = -mn;
  for (float v : x) mn = std::min(mn, v), mx = std::max(mx, v);
  const double eb = 1e-3 * (static_cast<double>(mx) - mn);
  auto dx = test::upload(x);
  const auto c = delta::encode_cpu<float>(x.data(), n, eb);
  const auto g = delta::encode_cuda<float>(dx.get(), n, eb, nullptr);
  ASSERT_EQ(g.widths, c.widths);
  ASSERT_EQ(g.initial, c.initial);
  ASSERT_EQ(g.payload, c.payload);
  ASSERT_EQ(g.exact, c.exact);
  const auto yg = decode_gpu_vec<float>(delta::view(g), n, eb);
  EXPECT_EQ(test::check_bound(x, yg, eb), "");
  // Kernel times, informational only (printed by the library when SCIZ_DELTA_TIMING is set).
  setenv("SCIZ_DELTA_TIMING", "1", 1);
  for (int r = 0; r < 3; ++r) {
    (void)delta::encode_cuda<float>(dx.get(), n, eb, nullptr);
    (void)decode_gpu_vec<float>(delta::view(g), n, eb);
  }
  // The same field with the serpentine chain over its rows of 256.
  const auto cs = delta::encode_cpu<float>(x.data(), n, eb, nullptr, 256);
  const auto gs = delta::encode_cuda<float>(dx.get(), n, eb, nullptr, nullptr, 256);
  ASSERT_TRUE(gs.payload == cs.payload && gs.widths == cs.widths && gs.initial == cs.initial && gs.exact == cs.exact);
  const auto ys = decode_gpu_vec<float>(delta::view(gs), n, eb);
  EXPECT_EQ(test::check_bound(x, ys, eb), "");
  for (int r = 0; r < 3; ++r) {
    (void)delta::encode_cuda<float>(dx.get(), n, eb, nullptr, nullptr, 256);
    (void)decode_gpu_vec<float>(delta::view(gs), n, eb);
  }
  std::vector<double> xd(x.begin(), x.end());
  auto dxd = test::upload(xd);
  const auto gd = delta::encode_cuda<double>(dxd.get(), n, eb, nullptr);
  const auto yd = decode_gpu_vec<double>(delta::view(gd), n, eb);
  unsetenv("SCIZ_DELTA_TIMING");
  const auto cd = delta::encode_cpu<double>(xd.data(), n, eb);
  EXPECT_TRUE(gd.payload == cd.payload && gd.widths == cd.widths && gd.exact == cd.exact);
  EXPECT_EQ(test::check_bound(xd, yd, eb), "");
  std::printf("[delta cuda, informational] n=%llu, ratio f32 %.2f linear, %.2f serpentine\n",
              static_cast<unsigned long long>(n), static_cast<double>(n * 4) / static_cast<double>(g.payload_bytes()),
              static_cast<double>(n * 4) / static_cast<double>(gs.payload_bytes()));
}
