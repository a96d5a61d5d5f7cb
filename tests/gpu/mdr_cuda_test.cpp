// mdr's CUDA twins against the CPU ones, bit for bit: decomposition, fill and recomposition on
// awkward grids in 1 to 4 D; digits, error tables, register-block planes, their decoding and
// the reconstructed coefficients, for f32 and f64 digit words; the whole refactoring (the
// file, byte for byte, from host, pinned and device memory) and retrieval into device memory.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <sciz/mdr.hpp>
#include <sciz/sciz.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

#include "core/device_streams.hpp"
#include "gpu/gpu_util.hpp"
#include "refactor/bitplanes/bitplanes.hpp"
#include "refactor/mdr_support.hpp"
#include "refactor/multilevel/multilevel.hpp"
#include "support/shared_fields.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

const std::vector<std::vector<uint64_t>> kShapes = {{1},          {17},        {4099},     {33, 65},
                                                    {7, 11, 13},  {2, 3, 5, 7}, {3, 17, 2, 19}, {64, 64, 64}};

}  // namespace

TEST(MdrCuda, DecompositionMatchesTheCpuTwin) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  uint32_t seed = 1;
  for (const auto& dims : kShapes) {
    SCOPED_TRACE(Shape{dims}.str());
    const multilevel::Layout l = multilevel::layout_of(multilevel::grid_of(dims));
    auto x = test::random_field<double>(l.grid.count(), ++seed, 5.0);
    std::mt19937 rng(seed);
    for (auto& v : x)
      if (rng() % 5 == 0) v = std::nan("");
    auto cx = x;
    multilevel::fill_cpu(l, cx.data(), 0.25);
    auto dx = test::upload(x);
    multilevel::fill_cuda(l, dx.get(), 0.25, nullptr);
    ASSERT_TRUE(test::same_bits(cx, test::download(dx.get(), x.size())));
    std::vector<double> cc(x.size());
    multilevel::decompose_cpu(l, cx.data(), cc.data());
    dev::Buffer<double> dc(x.size(), nullptr);
    multilevel::decompose_cuda(l, dx.get(), dc.get(), nullptr);
    ASSERT_TRUE(test::same_bits(cc, test::download(dc.get(), x.size())));
    std::vector<double> cr(x.size());
    multilevel::recompose_cpu(l, cc.data(), cr.data());
    dev::Buffer<double> dr(x.size(), nullptr);
    multilevel::recompose_cuda(l, dc.get(), dr.get(), nullptr);
    ASSERT_TRUE(test::same_bits(cr, test::download(dr.get(), x.size())));
  }
}

template <class W>
void bitplanes_match(int scale, int digits) {
  uint32_t seed = 40;
  for (uint64_t n : {uint64_t(1), uint64_t(31), uint64_t(1025), uint64_t(3001), uint64_t(200000)}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const auto c = test::random_field<double>(n, ++seed, 1e3);
    const auto lc = bitplanes::quantize_cpu<W>(c.data(), n, scale, digits);
    auto dc = test::upload(c);
    dev::Buffer<W> dnb(n, nullptr);
    const auto lg = bitplanes::quantize_cuda<W>(dc.get(), n, scale, digits, dnb.get(), nullptr);
    ASSERT_EQ(lg.exponent, lc.exponent);
    ASSERT_EQ(lg.top, lc.top);
    ASSERT_EQ(lg.max_abs, lc.max_abs);
    ASSERT_TRUE(test::same_bits(lc.nb, test::download(dnb.get(), n)));
    for (int g : {1, 4}) {
      const auto ec = bitplanes::level_errors_cpu<W>(c.data(), lc, scale, digits, g);
      ASSERT_TRUE(test::same_bits(ec, bitplanes::level_errors_cuda<W>(dc.get(), dnb.get(), n, lg, scale, digits, g, nullptr)));
    }
    const auto wc = bitplanes::encode_planes_cpu<W>(lc.nb.data(), n, lc.top);
    dev::Buffer<uint32_t> dw(wc.size(), nullptr);
    bitplanes::encode_planes_cuda<W>(dnb.get(), n, lc.top, dw.get(), nullptr);
    ASSERT_TRUE(test::same_bits(wc, test::download(dw.get(), wc.size())));
    // The top 5 planes ORed into zeroed accumulators, then the coefficients they give.
    const int planes = std::min(5, lc.top);
    std::vector<W> acc(n, 0);
    bitplanes::decode_planes_cpu<W>(wc.data(), n, lc.top - 1, planes, acc.data());
    dev::Buffer<W> dacc(n, nullptr);
    dev::zero(dacc.get(), n * sizeof(W), nullptr);
    bitplanes::decode_planes_cuda<W>(dw.get(), n, lc.top - 1, planes, dacc.get(), nullptr);
    ASSERT_TRUE(test::same_bits(acc, test::download(dacc.get(), n)));
    std::vector<double> rc(n);
    bitplanes::reconstruct_cpu<W>(acc.data(), n, lc.top - planes, digits, lc.exponent, scale, true, rc.data());
    dev::Buffer<double> drc(n, nullptr);
    bitplanes::reconstruct_cuda<W>(dacc.get(), n, lc.top - planes, digits, lc.exponent, scale, true, drc.get(), nullptr);
    ASSERT_TRUE(test::same_bits(rc, test::download(drc.get(), n)));
  }
}
TEST(MdrCuda, BitplanesMatchTheCpuTwinF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  bitplanes_match<uint32_t>(30, 32);
}
TEST(MdrCuda, BitplanesMatchTheCpuTwinF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  bitplanes_match<uint64_t>(50, 52);
}

// ---- the whole refactoring and retrieval ----

namespace {

template <class T>
constexpr DType dtype_of() {
  return sizeof(T) == 4 ? DType::f32 : DType::f64;
}

// One non-blocking stream for the tests that order work on a stream of their own (streams from
// make_stream live as long as the process).
cudaStream_t side_stream() {
  static const cudaStream_t s = dev::make_stream(dev::current_device());
  return s;
}

// "" when the files are equal, else where they first differ (inside the header or not).
std::string file_difference(const std::vector<uint8_t>& cpu, const std::vector<uint8_t>& gpu) {
  if (cpu == gpu) return "";
  size_t k = 0;
  while (k < cpu.size() && k < gpu.size() && cpu[k] == gpu[k]) ++k;
  const uint64_t header = mdr::Retriever(mdr::memory_source(cpu)).info().header_bytes;
  return "CPU file " + std::to_string(cpu.size()) + " bytes, GPU file " + std::to_string(gpu.size()) +
         "; first difference at byte " + std::to_string(k) + (k < header ? " (in the header of " : " (after the header of ") +
         std::to_string(header) + " bytes)";
}

// What a codec must carry or treat exactly, salted into x: NaN (one with a payload), +-Inf,
// -0 and +0 side by side.
template <class T>
void salt(std::vector<T>& x) {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  for (size_t i = 0; i < x.size(); i += 37) x[i] = nan;
  for (size_t i = 5; i < x.size(); i += 101) x[i] = inf;
  for (size_t i = 9; i < x.size(); i += 103) x[i] = -inf;
  for (size_t i = 11; i + 1 < x.size(); i += 53) x[i] = T(-0.0), x[i + 1] = T(0.0);
  if (x.size() > 2) x[2] = test::nan_with_payload<T>();
}

// The GPU twin's file from pageable host memory, from device memory (flagged, found by the
// pointer check, and chosen by auto) and, with `pinned`, from page-locked memory on a stream of its
// own, and the CPU twin's from device memory: each must be the CPU twin's from host memory,
// byte for byte.
template <class T>
void expect_cpu_file(const std::vector<T>& x, const std::vector<uint64_t>& dims, const std::string& what,
                     mdr::RefactorOptions o = {}, bool pinned = false) {
  SCOPED_TRACE(what + " " + Shape{dims}.str());
  ASSERT_EQ(x.size(), Shape{dims}.count());
  o.device = Device::cpu;
  const auto cpu = test::refactor_vec(x, dims, o);
  o.device = Device::cuda;
  ASSERT_EQ(file_difference(cpu, test::refactor_vec(x, dims, o)), "") << "from host memory";
  auto d = test::upload(x);
  const FieldView dv{d.get(), dtype_of<T>(), Shape{dims}, true};
  ASSERT_EQ(file_difference(cpu, mdr::refactor(dv, o)), "") << "from device memory";
  const FieldView found{d.get(), dtype_of<T>(), Shape{dims}, false};
  ASSERT_EQ(file_difference(cpu, mdr::refactor(found, o)), "") << "from device memory, not flagged";
  mdr::RefactorOptions a = o;
  a.device = Device::auto_select;
  ASSERT_EQ(file_difference(cpu, mdr::refactor(dv, a)), "") << "from device memory, auto";
  a.device = Device::cpu;
  ASSERT_EQ(file_difference(cpu, mdr::refactor(dv, a)), "") << "from device memory by the CPU twin";
  if (!pinned) return;
  T* h = nullptr;
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&h), x.size() * sizeof(T), cudaHostAllocDefault), cudaSuccess);
  std::memcpy(h, x.data(), x.size() * sizeof(T));
  mdr::RefactorOptions p = o;
  p.stream = side_stream();
  const auto got = mdr::refactor({h, dtype_of<T>(), Shape{dims}}, p);
  cudaFreeHost(h);
  ASSERT_EQ(file_difference(cpu, got), "") << "from pinned memory on a stream of its own";
}

const std::vector<std::vector<uint64_t>> kFileShapes = {{1},       {2},          {17},         {4099},   {33, 65},
                                                        {1, 97},   {7, 11, 13},  {17, 2, 19},  {2, 3, 5, 7},
                                                        {3, 17, 2, 19}, {2, 1, 17, 9}, {64, 64, 64}};

template <class T>
void refactor_matches(uint32_t seed) {
  test::for_each_real_field(SCIZ_FIXTURES_DIR, [&](const test::RealField& f, const auto& x) {
    if constexpr (std::is_same_v<typename std::decay_t<decltype(x)>::value_type, T>)
      expect_cpu_file(x, f.shape.dims, f.name, {}, f.name.rfind("isabel", 0) == 0);
  });
  for (const auto& dims : kFileShapes) {
    const Shape s{dims};
    auto x = test::smooth_field<T>(s, ++seed);
    expect_cpu_file(x, dims, "smooth");
    salt(x);
    expect_cpu_file(x, dims, "smooth with NaN, Inf, -0");
    expect_cpu_file(test::random_field<T>(s.count(), ++seed, 3.0), dims, "noise");
  }
  expect_cpu_file(test::special_values_1d<T>(20000, ++seed), {20000}, "special values");
  // Group sizes and coder thresholds.
  const auto iso = test::smooth_field<T>(Shape{{20, 50, 50}}, ++seed);
  for (uint32_t g : {2u, 4u, 32u}) {
    mdr::RefactorOptions o;
    o.planes_per_group = g;
    expect_cpu_file(iso, {20, 50, 50}, "planes per group " + std::to_string(g), o);
  }
  mdr::RefactorOptions o;
  o.copy_below = 0;
  o.min_ratio = 1.5;
  expect_cpu_file(iso, {20, 50, 50}, "copy_below 0, min_ratio 1.5", o);
  // Zero extremes met as -0 and +0 in different blocks, a constant field, zeros only (every
  // level all zero: no planes), no finite value at all.
  for (const T sign : {T(-1), T(1)}) {
    auto z = test::smooth_1d<T>(300001, ++seed);
    for (auto& v : z) v = sign * (std::fabs(v) + T(1));
    for (size_t i = 5; i + 3 < z.size(); i += z.size() / 7) z[i] = T(-0.0), z[i + 3] = T(0.0);
    z[1000] = std::numeric_limits<T>::quiet_NaN();
    expect_cpu_file(z, {300001}, sign < 0 ? "zero maximum" : "zero minimum");
  }
  expect_cpu_file(std::vector<T>(3001, T(2.5)), {3001}, "constant");
  std::vector<T> zeros(999, T(0.0));
  for (size_t i = 0; i < zeros.size(); i += 3) zeros[i] = T(-0.0);
  expect_cpu_file(zeros, {27, 37}, "zeros");
  std::vector<T> none(500, std::numeric_limits<T>::quiet_NaN());
  none[7] = -std::numeric_limits<T>::infinity();
  expect_cpu_file(none, {500}, "no finite value");
}

}  // namespace

TEST(MdrCuda, RefactorOnTheGpuWritesTheCpuFileF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  refactor_matches<float>(500);
}

TEST(MdrCuda, RefactorOnTheGpuWritesTheCpuFileF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  refactor_matches<double>(600);
  // Values the f32 fields never reach: beyond 2^1000 (carried exactly), 2^1000 itself (not),
  // subnormals, and a field of subnormals only (a level exponent near -1074).
  auto d = test::random_field<double>(5000, 8, 1e-300);
  d[10] = 1e305, d[11] = -1e307, d[12] = std::numeric_limits<double>::denorm_min();
  d[13] = 0x1p1000, d[14] = -0x1p1000, d[15] = std::nextafter(0x1p1000, INFINITY);
  expect_cpu_file(d, {5000}, "huge and tiny");
  expect_cpu_file(d, {50, 100}, "huge and tiny 2-D");
  auto sub = test::random_field<double>(4097, 9, 1.0);
  for (auto& v : sub) v *= 0x1p-1060;
  expect_cpu_file(sub, {4097}, "subnormals only");
  auto big = test::smooth_field<double>(Shape{{1000003}}, 10);
  for (size_t i = 0; i < big.size(); i += 7) big[i] += 1e-9 * static_cast<double>(i % 13);
  expect_cpu_file(big, {1000003}, "a million values, 1-D", {}, true);
}

namespace {

template <class T>
struct DeviceOut {
  dev::Buffer<T> buf;
  explicit DeviceOut(size_t n) : buf(n, nullptr) {}
  std::vector<T> host() const { return test::download(buf.get(), buf.size()); }
};

void expect_same_retrieval(const mdr::Retrieval& a, const mdr::Retrieval& b) {
  EXPECT_EQ(a.requested, b.requested);
  EXPECT_EQ(a.bound, b.bound);
  EXPECT_EQ(a.met, b.met);
  EXPECT_EQ(a.segments, b.segments);
  EXPECT_EQ(a.bytes_read, b.bytes_read);
  EXPECT_EQ(a.total_bytes_read, b.total_bytes_read);
}

// Progressive retrieval through falling bounds (the last below the finest: everything), into
// host memory by one retriever and into device memory by another: the same report and bits at
// every step; then a retriever resumed from a state, and one that starts at the finest.
template <class T>
void expect_device_retrieval(const std::vector<T>& x, const std::vector<uint64_t>& dims, const std::string& what) {
  SCOPED_TRACE(what + " " + Shape{dims}.str());
  const auto file = test::refactor_vec(x, dims);
  const uint64_t bytes = x.size() * sizeof(T);
  mdr::Retriever host(mdr::memory_source(file)), gpu(mdr::memory_source(file));
  std::vector<T> y(x.size());
  DeviceOut<T> d(x.size());
  for (double rel : {1e-1, 1e-2, 1e-3, 1e-4, 1e-6, 1e-12}) {
    SCOPED_TRACE("rel " + std::to_string(rel));
    const mdr::Retrieval a = host.retrieve({EbMode::rel, rel}, y.data(), bytes);
    const mdr::Retrieval b = gpu.retrieve_to_device({EbMode::rel, rel}, d.buf.get(), bytes);
    expect_same_retrieval(a, b);
    ASSERT_TRUE(test::same_bits(y, d.host())) << "device retrieval differs from the host's";
  }
  // Resumed from a state at 1e-2, on a stream of its own, then one step further.
  mdr::Retriever first(mdr::memory_source(file));
  first.retrieve({EbMode::rel, 1e-2}, y.data(), bytes);
  mdr::Retriever resumed(mdr::memory_source(file), first.state());
  mdr::Retriever fresh(mdr::memory_source(file));
  const cudaStream_t s = side_stream();
  for (double rel : {1e-2, 1e-5}) {
    const mdr::Retrieval a = fresh.retrieve({EbMode::rel, rel}, y.data(), bytes);
    const mdr::Retrieval b = resumed.retrieve_to_device({EbMode::rel, rel}, d.buf.get(), bytes, s);
    dev::sync(s);
    EXPECT_EQ(a.bound, b.bound);
    EXPECT_EQ(a.segments, b.segments);
    ASSERT_TRUE(test::same_bits(y, d.host())) << "resumed at rel " << rel;
  }
}

template <class T>
void retrieval_matches(uint32_t seed) {
  test::for_each_real_field(SCIZ_FIXTURES_DIR, [&](const test::RealField& f, const auto& x) {
    if constexpr (std::is_same_v<typename std::decay_t<decltype(x)>::value_type, T>)
      expect_device_retrieval(x, f.shape.dims, f.name);
  });
  for (const auto& dims : {std::vector<uint64_t>{1}, std::vector<uint64_t>{4099}, std::vector<uint64_t>{7, 11, 13},
                           std::vector<uint64_t>{3, 17, 2, 19}}) {
    auto x = test::smooth_field<T>(Shape{dims}, ++seed);
    salt(x);
    expect_device_retrieval(x, dims, "smooth with NaN, Inf, -0");
  }
  expect_device_retrieval(test::special_values_1d<T>(20000, ++seed), {20000}, "special values");
  std::vector<T> none(300, std::numeric_limits<T>::quiet_NaN());
  expect_device_retrieval(none, {300}, "no finite value");
}

}  // namespace

TEST(MdrCuda, RetrievalIntoDeviceMemoryEqualsTheHostsF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  retrieval_matches<float>(700);
}

TEST(MdrCuda, RetrievalIntoDeviceMemoryEqualsTheHostsF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  retrieval_matches<double>(800);
  auto d = test::random_field<double>(5000, 8, 1e-300);
  d[10] = 1e305, d[11] = -1e307, d[12] = std::numeric_limits<double>::denorm_min();
  expect_device_retrieval(d, {5000}, "huge and tiny");
}

// Misuse is refused by name, before anything is read or queued.
TEST(MdrCuda, DevicePointersAreChecked) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto x = test::smooth_field<float>(Shape{{30, 40}}, 3);
  mdr::RefactorOptions o;
  o.device = Device::cuda;
  const FieldView lie{x.data(), DType::f32, Shape{{30, 40}}, true};  // host memory said to be device memory
  try {
    mdr::refactor(lie, o);
    ADD_FAILURE() << "a host pointer flagged on_device was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::invalid_argument) << e.what();
  }
  const auto file = test::refactor_vec(x, {30, 40});
  mdr::Retriever r(mdr::memory_source(file));
  std::vector<float> y(x.size());
  try {
    r.retrieve_to_device({EbMode::rel, 1e-3}, y.data(), y.size() * 4);
    ADD_FAILURE() << "a host output was accepted as device memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::invalid_argument) << e.what();
  }
  DeviceOut<float> d(x.size());
  try {
    r.retrieve_to_device({EbMode::rel, 1e-3}, d.buf.get(), y.size() * 4 - 4);
    ADD_FAILURE() << "a short output was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::invalid_argument) << e.what();
  }
  EXPECT_EQ(r.held_bytes(), r.info().header_bytes) << "a refused retrieval read segments";
}
