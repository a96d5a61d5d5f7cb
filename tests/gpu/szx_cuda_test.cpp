// SZx, CUDA twin: encode_cuda writes the CPU twin's bytes (every section of layout 2 and the
// stats), decode_cuda reproduces decode_cpu bit for bit in both layouts, corrupt streams throw
// corrupt_stream on the GPU path too, and a 32M-value field round-trips (f32 and f64), with
// informational throughput lines: whole calls (CUDA events around encode_cuda/decode_cuda)
// and kernels alone.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

#include "core/exact_runs.hpp"
#include "gpu/gpu_util.hpp"
#include "predict/szx/szx.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

using test::smooth_1d;

template <class T>
std::vector<T> decode_cpu_vec(const szx::Sections& s, uint64_t n) {
  std::vector<T> y(n);
  szx::decode_cpu<T>(s, n, y.data());
  return y;
}

template <class T>
std::vector<T> decode_gpu_vec(const szx::Sections& s, uint64_t n) {
  dev::Buffer<T> d(n, nullptr);
  szx::decode_cuda<T>(s, n, d.get(), nullptr);
  return test::download(d.get(), n);
}

// encode_cuda == encode_cpu byte for byte; decode_cuda of the stream == decode_cpu bit for bit.
template <class T>
void check_twins(const std::vector<T>& x, double eb, uint32_t block) {
  SCOPED_TRACE("n=" + std::to_string(x.size()) + " eb=" + std::to_string(eb) + " block=" + std::to_string(block) +
               " W=" + std::to_string(sizeof(T)));
  szx::Stats sc, sg;
  const szx::Encoded c = szx::encode_cpu<T>(x.data(), x.size(), eb, block, &sc);
  auto dx = test::upload(x);
  const szx::Encoded g = szx::encode_cuda<T>(dx.get(), x.size(), eb, block, nullptr, &sg);
  ASSERT_EQ(g.block, c.block);
  ASSERT_EQ(g.layout, c.layout);
  ASSERT_EQ(g.kinds, c.kinds);
  ASSERT_EQ(g.mus, c.mus);
  ASSERT_EQ(g.mid_counts, c.mid_counts);
  ASSERT_EQ(g.codes, c.codes);
  ASSERT_EQ(g.mid, c.mid);
  ASSERT_EQ(g.exact, c.exact);
  EXPECT_EQ(sg.blocks, sc.blocks);
  EXPECT_EQ(sg.constant_blocks, sc.constant_blocks);
  EXPECT_EQ(sg.exact_values, sc.exact_values);
  const auto yc = decode_cpu_vec<T>(szx::view(c), x.size());
  const auto yg = decode_gpu_vec<T>(szx::view(c), x.size());
  ASSERT_TRUE(test::same_bits(yc, yg));
  EXPECT_EQ(test::check_bound(x, yg, eb), "");
  // Layout 1 (earlier format versions) decodes alike on both devices.
  const szx::Encoded c1 = szx::encode_cpu<T>(x.data(), x.size(), eb, block, nullptr, szx::kLayout1);
  const auto yc1 = decode_cpu_vec<T>(szx::view(c1), x.size());
  const auto yg1 = decode_gpu_vec<T>(szx::view(c1), x.size());
  ASSERT_TRUE(test::same_bits(yc1, yg1));
  EXPECT_EQ(test::check_bound(x, yg1, eb), "");
}

template <class T>
void sizes_case() {
  for (uint32_t block : {32u, 64u, 96u, 128u, 160u, 544u, 1024u, 4096u})
    for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(block - 1), uint64_t(block),
                       uint64_t(block + 1), uint64_t(997), uint64_t(10007), uint64_t(3 * block + 5)}) {
      const auto x = smooth_1d<T>(n, 7);
      for (double eb : {1e-1, 1e-3, 1e-6}) check_twins(x, eb, block);
    }
}

template <class T>
void random_case() {
  for (double scale : {1e-3, 1.0, 1e6}) {
    const auto x = test::random_field<T>(200011, 11, scale);
    for (double rel : {1e-1, 1e-3, 1e-5, 1e-9})
      for (uint32_t block : {32u, 128u, 4096u}) check_twins(x, rel * scale, block);
  }
}

template <class T>
void special_case() {
  auto x = test::special_values_1d<T>(50000, 3);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (double eb : {1e-1, 1e-3, 1e-6})
    for (uint32_t block : {32u, 128u, 4096u}) check_twins(x, eb, block);
  std::vector<T> all_nan(1000, nan);
  check_twins(all_nan, 1e-2, 128);
  // More exact values than the one-pass encoder first makes room for (n/32 + 4096): it counts
  // them, then encodes again with room for all; the bytes must not change.
  std::vector<T> many(300000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = (i % 3) ? nan : static_cast<T>(0.5 * static_cast<double>(i));
  check_twins(many, 1e-2, 128);
  check_twins(many, 1e-2, 64);
}

template <class T>
void denormal_case() {
  const T dmin = std::numeric_limits<T>::denorm_min();
  std::vector<T> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = dmin * static_cast<T>(static_cast<int>(i % 37) - 18);
  x[500] = std::numeric_limits<T>::min();
  x[501] = -std::numeric_limits<T>::min();
  for (double eb : {static_cast<double>(dmin), static_cast<double>(dmin) * 3, 1e-30, 1.0})
    for (uint32_t block : {32u, 128u}) check_twins(x, eb, block);
  if constexpr (sizeof(T) == 4) check_twins(x, static_cast<double>(dmin) / 4, 128);
}

template <class T>
void huge_range_case() {
  std::vector<T> x(3000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(std::cos(i * 0.1));
  x[10] = static_cast<T>(1e30);
  x[11] = static_cast<T>(-1e30);
  x[200] = std::numeric_limits<T>::max();
  x[201] = -std::numeric_limits<T>::max();
  x[202] = std::numeric_limits<T>::max();
  x[1500] = std::numeric_limits<T>::lowest();
  for (double eb : {1e-3, 1.0, 1e25})
    for (uint32_t block : {32u, 128u, 1024u}) check_twins(x, eb, block);
  std::vector<T> y(128, std::numeric_limits<T>::max());
  y[5] = std::numeric_limits<T>::lowest();
  check_twins(y, 1.0, 128);
}

template <class T>
void zeros_and_constants_case() {
  std::vector<T> x(40000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(std::sin(i * 0.01) * 1e-2);
  for (size_t i = 100; i < 400; ++i) x[i] = (i & 1) ? T(0) : -T(0);
  for (size_t i = 5000; i < 15000; ++i) x[i] = T(3.5);
  for (double eb : {1e-2, 1e-4, 1e-7}) check_twins(x, eb, 128);
  std::vector<T> c(100000, T(3.5));
  check_twins(c, 1e-4, 128);
  std::vector<T> z(256);
  for (size_t i = 0; i < z.size(); ++i) z[i] = (i % 3) ? -T(0) : T(0);
  check_twins(z, 1e-3, 32);
}

template <class T>
void ulp_case() {
  std::vector<T> x(100000);
  if constexpr (sizeof(T) == 4) {
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(1e6 + 300 * std::sin(i * 0.003) + (i % 7) * 0.01);
    for (double eb : {0.06, 0.0625, 0.07, 0.2}) check_twins(x, eb, 128);
  } else {
    for (size_t i = 0; i < x.size(); ++i) x[i] = 1e15 + 3e3 * std::sin(i * 0.003) + (i % 7) * 0.125;
    for (double eb : {0.1, 0.125, 0.13, 1.0}) check_twins(x, eb, 128);
  }
}

Status gpu_decode_status(const szx::Encoded& e, uint64_t n) {
  try {
    dev::Buffer<float> d(n + 1, nullptr);
    szx::decode_cuda<float>(szx::view(e), n, d.get(), nullptr);
  } catch (const Error& err) {
    return err.status();
  }
  return Status::ok;
}

szx::Encoded mixed_stream(std::vector<float>& x, int layout) {
  x = smooth_1d<float>(1000, 2);  // 8 blocks, the last partial (104 values)
  for (size_t i = 0; i < 128; ++i) x[i] = 1.0f;
  x[300] = std::numeric_limits<float>::quiet_NaN();
  return szx::encode_cpu<float>(x.data(), x.size(), 1e-3, 128, nullptr, layout);
}

// The sections in the order docs/SZX.md numbers them (layout 2 has no section 2).
std::vector<std::vector<uint8_t>*> sections_of(szx::Encoded& c) {
  if (c.layout == szx::kLayout1) return {&c.kinds, &c.mus, &c.mid_counts, &c.codes, &c.mid, &c.exact};
  return {&c.kinds, &c.mid_counts, &c.codes, &c.mid, &c.exact};
}

// The test field: tiled from the Isabel field when present (SCIZ_DATA_DIR or the shared
// data), else synthetic, to n values.
std::vector<float> big_field(uint64_t n, std::string& what) {
  std::vector<std::filesystem::path> cands;
  if (const char* env = std::getenv("SCIZ_DATA_DIR")) cands.emplace_back(env);
  cands.emplace_back(".devdata/b");
  if (auto d = test::shared_data_dir()) cands.push_back(*d);
  for (const auto& dir : cands) {
    const auto path = dir / "isabel_TCf25_downsampled5xy_100x100x100.f32";
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    const auto raw = test::read_file(path);
    const uint64_t m = raw.size() / 4;
    if (m == 0) continue;
    std::vector<float> x(n);
    for (uint64_t i = 0; i < n; i += m) std::memcpy(x.data() + i, raw.data(), std::min(m, n - i) * 4);
    what = path.string() + " tiled";
    return x;
  }
  what = "synthetic smooth field";
  return test::smooth_field<float>(Shape::parse("512x256x256"), 5);
}

}  // namespace

TEST(SzxCuda, SizesAndBlocksF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  sizes_case<float>();
}
TEST(SzxCuda, SizesAndBlocksF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  sizes_case<double>();
}
TEST(SzxCuda, RandomF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  random_case<float>();
}
TEST(SzxCuda, RandomF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  random_case<double>();
}
TEST(SzxCuda, NanInfF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  special_case<float>();
}
TEST(SzxCuda, NanInfF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  special_case<double>();
}
TEST(SzxCuda, DenormalsF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  denormal_case<float>();
}
TEST(SzxCuda, DenormalsF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  denormal_case<double>();
}
TEST(SzxCuda, HugeRangeF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  huge_range_case<float>();
}
TEST(SzxCuda, HugeRangeF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  huge_range_case<double>();
}
TEST(SzxCuda, ZerosAndConstantsF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  zeros_and_constants_case<float>();
}
TEST(SzxCuda, ZerosAndConstantsF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  zeros_and_constants_case<double>();
}
TEST(SzxCuda, EbNearUlpF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  ulp_case<float>();
}
TEST(SzxCuda, EbNearUlpF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  ulp_case<double>();
}

TEST(SzxCuda, RejectsBadArguments) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::vector<float> x(10, 1.0f);
  auto dx = test::upload(x);
  for (auto [eb, block] : {std::pair{0.0, 128u}, std::pair{-1.0, 128u}, std::pair{1e-3, 100u}, std::pair{1e-3, 8192u},
                           std::pair{std::numeric_limits<double>::infinity(), 128u}}) {
    try {
      szx::encode_cuda<float>(dx.get(), x.size(), eb, block, nullptr);
      ADD_FAILURE() << "accepted eb " << eb << " block " << block;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::invalid_argument);
    }
  }
}

TEST(SzxCuda, CorruptStreamsThrow) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (int layout : {szx::kLayout1, szx::kLayout2}) {
    SCOPED_TRACE(layout);
    const bool l1 = layout == szx::kLayout1;
    std::vector<float> x;
    const auto e = mixed_stream(x, layout);
    ASSERT_EQ(gpu_decode_status(e, x.size()), Status::ok);
    auto e0 = e;
    const size_t nsec = sections_of(e0).size();
    for (size_t s = 0; s < nsec; ++s) {
      for (int delta : {-1, +1}) {
        auto c = e;
        auto secs = sections_of(c);
        if (delta < 0)
          secs[s]->pop_back();
        else
          secs[s]->push_back(0);
        EXPECT_EQ(gpu_decode_status(c, x.size()), Status::corrupt_stream) << "section " << s << " delta " << delta;
      }
    }
    EXPECT_EQ(gpu_decode_status(e, x.size() + 128), Status::corrupt_stream);
    auto bad_block = e;
    bad_block.block = 96;
    EXPECT_EQ(gpu_decode_status(bad_block, x.size()), Status::corrupt_stream);
    const int R1 = l1 ? 8 * e.kinds[1] : szx::kind_bits(e.kinds[1]), code1 = l1 ? 0 : szx::kind_code(e.kinds[1]);
    auto with_kind = [&](int R, int code) {
      auto c = e;
      c.kinds[1] = l1 ? static_cast<uint8_t>(R / 8) : szx::make_kind(R, code);
      return gpu_decode_status(c, x.size());
    };
    EXPECT_EQ(with_kind(40, code1), Status::corrupt_stream);
    // One kept byte more or fewer: caught by the device-side code check.
    EXPECT_EQ(with_kind(R1 > 24 ? R1 - 8 : R1 + 8, code1), Status::corrupt_stream);
    if (!l1)
      for (int code = 0; code < 4; ++code)
        if (szx::base_bytes<float>(code) != szx::base_bytes<float>(code1))
          EXPECT_EQ(with_kind(R1, code), Status::corrupt_stream) << "base code " << code;
    {
      auto c = e;  // mid counts moved between blocks: sums intact, codes not
      uint16_t a, b;
      std::memcpy(&a, &c.mid_counts[0], 2);
      std::memcpy(&b, &c.mid_counts[2], 2);
      ++a, --b;
      std::memcpy(&c.mid_counts[0], &a, 2);
      std::memcpy(&c.mid_counts[2], &b, 2);
      EXPECT_EQ(gpu_decode_status(c, x.size()), Status::corrupt_stream);
    }
    {
      auto c = e;
      for (size_t q = 0; q < 32; ++q) c.codes[q] = 0xff;
      EXPECT_EQ(gpu_decode_status(c, x.size()), Status::corrupt_stream);
    }
    {
      std::vector<float> x2 = x;
      x2.push_back(0.5f);
      auto e2 = szx::encode_cpu<float>(x2.data(), x2.size(), 1e-3, 128, nullptr, layout);
      ASSERT_EQ(gpu_decode_status(e2, x2.size()), Status::ok);
      e2.codes.back() |= 0xc0;  // nonzero padding codes
      EXPECT_EQ(gpu_decode_status(e2, x2.size()), Status::corrupt_stream);
    }
    {
      auto c = e;
      std::vector<uint64_t> idx = {5, 2000};
      std::vector<float> val = {1.0f, 2.0f};
      c.exact = write_runs<float>(idx, val);
      EXPECT_EQ(gpu_decode_status(c, x.size()), Status::corrupt_stream);
    }
  }
}

TEST(SzxCuda, RandomByteFlipsMatchCpu) {
  // Any single-byte change: the GPU decoder throws corrupt_stream exactly when the CPU one
  // does, and otherwise decodes the same bits.
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (int layout : {szx::kLayout1, szx::kLayout2}) {
    std::vector<float> x;
    const auto e = mixed_stream(x, layout);
    std::mt19937 rng(23);
    for (int t = 0; t < 600; ++t) {
      auto c = e;
      auto secs = sections_of(c);
      auto* s = secs[t % secs.size()];
      (*s)[rng() % s->size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      std::vector<float> yc(x.size());
      Status sc = Status::ok, sg = Status::ok;
      try {
        szx::decode_cpu<float>(szx::view(c), x.size(), yc.data());
      } catch (const Error& err) {
        sc = err.status();
      }
      std::vector<float> yg;
      try {
        yg = decode_gpu_vec<float>(szx::view(c), x.size());
      } catch (const Error& err) {
        sg = err.status();
      }
      ASSERT_EQ(sc, sg) << "layout " << layout << " trial " << t;
      ASSERT_TRUE(sc == Status::ok || sc == Status::corrupt_stream);
      // A corrupt base or mid-byte can make x' NaN, whose payload the two devices may differ in.
      if (sc == Status::ok)
        for (size_t i = 0; i < yc.size(); ++i)
          ASSERT_TRUE(std::memcmp(&yc[i], &yg[i], 4) == 0 || (std::isnan(yc[i]) && std::isnan(yg[i])))
              << "layout " << layout << " trial " << t << " value " << i;
    }
  }
}

TEST(SzxCuda, LargeFieldRoundTrip) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const uint64_t n = uint64_t(32) << 20;
  std::string what;
  const auto x = big_field(n, what);
  ASSERT_EQ(x.size(), n);
  float mn = std::numeric_limits<float>::infinity(), mx = -mn;
  for (float v : x)
    if (std::isfinite(v)) mn = std::min(mn, v), mx = std::max(mx, v);
  const double eb = 1e-3 * (static_cast<double>(mx) - mn);
  auto dx = test::upload(x);
  szx::Stats sc, sg;
  const auto c = szx::encode_cpu<float>(x.data(), n, eb, 128, &sc);
  const auto g = szx::encode_cuda<float>(dx.get(), n, eb, 128, nullptr, &sg);
  ASSERT_EQ(g.kinds, c.kinds);
  ASSERT_EQ(g.mus, c.mus);
  ASSERT_EQ(g.mid_counts, c.mid_counts);
  ASSERT_EQ(g.codes, c.codes);
  ASSERT_EQ(g.mid, c.mid);
  ASSERT_EQ(g.exact, c.exact);
  EXPECT_EQ(sg.exact_values, sc.exact_values);
  dev::Buffer<float> dy(n, nullptr);
  szx::decode_cuda<float>(szx::view(g), n, dy.get(), nullptr);
  const auto yg = test::download(dy.get(), n);
  EXPECT_EQ(test::check_bound(x, yg, eb), "");
  const auto yc = decode_cpu_vec<float>(szx::view(c), n);
  EXPECT_TRUE(test::same_bits(yc, yg));

  // Informational only (not asserted): whole-call throughput, host transfers and host-side
  // offsets/validation included, timed with CUDA events on the default stream.
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  auto time_ms = [&](auto&& fn) {
    fn();  // warm-up
    cudaEventRecord(t0, nullptr);
    const int reps = 3;
    for (int r = 0; r < reps; ++r) fn();
    cudaEventRecord(t1, nullptr);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    return ms / reps;
  };
  const float enc_ms = time_ms([&] { (void)szx::encode_cuda<float>(dx.get(), n, eb, 128, nullptr); });
  const float dec_ms = time_ms([&] { szx::decode_cuda<float>(szx::view(g), n, dy.get(), nullptr); });
  const double gb = static_cast<double>(n) * sizeof(float) / 1e9;
  std::printf("[szx cuda, informational] %s, n=%llu f32, eb=%.3g, ratio %.2f, exact %llu: encode_cuda %.2f ms "
              "(%.1f GB/s), decode_cuda %.2f ms (%.1f GB/s), whole calls incl. PCIe\n",
              what.c_str(), static_cast<unsigned long long>(n), eb,
              static_cast<double>(n * 4) / static_cast<double>(g.payload_bytes()),
              static_cast<unsigned long long>(sg.exact_values), enc_ms, gb / (enc_ms / 1e3), dec_ms,
              gb / (dec_ms / 1e3));
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  // Kernel times alone (the library prints them when SCIZ_SZX_TIMING is set).
  setenv("SCIZ_SZX_TIMING", "1", 1);
  (void)szx::encode_cuda<float>(dx.get(), n, eb, 128, nullptr);
  szx::decode_cuda<float>(szx::view(g), n, dy.get(), nullptr);
  std::vector<double> xd(x.begin(), x.end());
  auto dxd = test::upload(xd);
  const auto gd = szx::encode_cuda<double>(dxd.get(), n, eb, 128, nullptr);
  dev::Buffer<double> dyd(n, nullptr);
  szx::decode_cuda<double>(szx::view(gd), n, dyd.get(), nullptr);
  unsetenv("SCIZ_SZX_TIMING");
  const auto cd = szx::encode_cpu<double>(xd.data(), n, eb, 128);
  EXPECT_TRUE(gd.mid == cd.mid && gd.codes == cd.codes && gd.exact == cd.exact && gd.mus == cd.mus);
  EXPECT_TRUE(test::same_bits(test::download(dyd.get(), n), decode_cpu_vec<double>(szx::view(cd), n)));
}
