// The public API across devices: a stream compressed on the GPU is byte for byte the one the
// CPU writes, and either device decodes any stream to the same bits, within the bound.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <limits>

#include "gpu/gpu_util.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

template <class T>
constexpr DType dtype_of() {
  return sizeof(T) == 4 ? DType::f32 : DType::f64;
}

template <class T>
std::vector<T> decode(const std::vector<uint8_t>& st, uint64_t n, Device d) {
  std::vector<T> out(n);
  decompress(st, out.data(), n * sizeof(T), d);
  return out;
}

template <class T>
void expect_cross_device(const Shape& s, const std::vector<T>& x, ErrorBound eb, const std::string& what,
                         Lossless lossless = Lossless::auto_select, const std::string& pipeline = "lorenzo") {
  SCOPED_TRACE(what + " shape " + s.str() + " eb " + std::to_string(eb.value) + (eb.mode == EbMode::rel ? " rel" : " abs") +
               " " + pipeline + " lossless " + lossless_name(lossless));
  const uint64_t n = s.count(), bytes = n * sizeof(T);
  CompressOptions o;
  o.eb = eb;
  o.lossless = lossless;
  o.pipeline = pipeline;
  o.device = Device::cpu;
  const auto st_cpu = compress({x.data(), dtype_of<T>(), s}, o);
  o.device = Device::cuda;
  const auto st_gpu = compress({x.data(), dtype_of<T>(), s}, o);
  ASSERT_EQ(st_cpu.size(), st_gpu.size());
  ASSERT_TRUE(st_cpu == st_gpu) << "GPU stream differs from the CPU stream";

  const double eb_abs = inspect(st_cpu).eb_abs;
  const auto ref = decode<T>(st_cpu, n, Device::cpu);
  EXPECT_EQ(test::check_bound(x, ref, eb_abs), "");
  EXPECT_TRUE(test::same_bits(ref, decode<T>(st_cpu, n, Device::cuda))) << "GPU decode differs";

  // Device pointers in and out.
  auto d_x = test::upload(x);
  const auto st_dev = compress({d_x.get(), dtype_of<T>(), s, true}, o);
  EXPECT_TRUE(st_dev == st_cpu) << "stream from a device pointer differs";
  o.device = Device::cpu;
  EXPECT_TRUE(compress({d_x.get(), dtype_of<T>(), s, true}, o) == st_cpu) << "device input, CPU compute differs";
  dev::Buffer<T> d_out(n, nullptr);
  for (Device d : {Device::cuda, Device::cpu}) {
    decompress(st_cpu, d_out.get(), bytes, d, true);
    EXPECT_TRUE(test::same_bits(ref, test::download(d_out.get(), n))) << "device output via " << device_name(d);
  }
}

constexpr Lossless kStages[] = {Lossless::auto_select, Lossless::huffman, Lossless::rle, Lossless::rle_huffman,
                                 Lossless::zrle_huffman, Lossless::bitpack};

}  // namespace

TEST(CrossDevice, SmoothAndRandomFields) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* str : {"10007", "101x103", "17x13x67", "3x5x7x33", "64x64x64"}) {
    const Shape s = Shape::parse(str);
    for (ErrorBound eb : {ErrorBound{EbMode::rel, 1e-2}, ErrorBound{EbMode::rel, 1e-4}, ErrorBound{EbMode::abs, 1e-3}})
      for (Lossless l : kStages) {
        expect_cross_device<float>(s, test::smooth_field<float>(s, 1), eb, "smooth f32", l);
        expect_cross_device<double>(s, test::smooth_field<double>(s, 2), eb, "smooth f64", l);
        expect_cross_device<float>(s, test::random_field<float>(s.count(), 3, 5.0), eb, "random f32", l);
      }
  }
}

TEST(CrossDevice, SpecialValues) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Shape s = Shape::parse("20x33x47");
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto x = test::smooth_field<float>(s, 9);
  for (uint64_t i = 0; i < x.size(); ++i) {
    if ((i / 47) % 6 == 2) x[i] = nan;  // land-mask rows
    if (i % 101 == 0) x[i] = inf;
    if (i % 103 == 1) x[i] = -inf;
    if (i % 107 == 2) x[i] = std::numeric_limits<float>::denorm_min();
  }
  for (Lossless l : kStages) expect_cross_device<float>(s, x, {EbMode::rel, 1e-3}, "NaN/Inf/denormal", l);
  expect_cross_device<float>(s, std::vector<float>(s.count(), nan), {EbMode::rel, 1e-3}, "all NaN");
  expect_cross_device<float>(s, std::vector<float>(s.count(), -4.25f), {EbMode::rel, 1e-3}, "constant");
  expect_cross_device<float>(s, std::vector<float>(s.count(), std::numeric_limits<float>::denorm_min()),
                             {EbMode::abs, 1e-3}, "denormal constant");
  std::vector<double> huge(s.count());
  for (uint64_t i = 0; i < huge.size(); ++i) huge[i] = (i % 2 ? 1e300 : -1e300) * (1.0 + 1e-3 * (i % 13));
  expect_cross_device<double>(s, huge, {EbMode::abs, 1e-3}, "beyond the prequant range");
}

TEST(CrossDevice, SzxPipeline) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* str : {"1", "127", "129", "101x103", "17x13x67", "64x64x64"}) {
    const Shape s = Shape::parse(str);
    for (ErrorBound eb : {ErrorBound{EbMode::rel, 1e-2}, ErrorBound{EbMode::rel, 1e-4}, ErrorBound{EbMode::abs, 1e-3}}) {
      expect_cross_device<float>(s, test::smooth_field<float>(s, 1), eb, "smooth f32", Lossless::auto_select, "szx");
      expect_cross_device<double>(s, test::smooth_field<double>(s, 2), eb, "smooth f64", Lossless::auto_select, "szx");
      expect_cross_device<float>(s, test::random_field<float>(s.count(), 3, 5.0), eb, "random f32",
                                 Lossless::auto_select, "szx");
    }
  }
  const Shape s = Shape::parse("20x33x47");
  auto x = test::smooth_field<float>(s, 9);
  for (uint64_t i = 0; i < x.size(); ++i) {
    if ((i / 47) % 6 == 2) x[i] = std::numeric_limits<float>::quiet_NaN();
    if (i % 101 == 0) x[i] = std::numeric_limits<float>::infinity();
    if (i % 107 == 2) x[i] = std::numeric_limits<float>::denorm_min();
  }
  expect_cross_device<float>(s, x, {EbMode::rel, 1e-3}, "NaN/Inf/denormal", Lossless::auto_select, "szx");
}

TEST(CrossDevice, DeltaPipeline) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* str : {"1", "33", "1025", "101x103", "17x13x67", "64x64x64", "2x40000"}) {
    const Shape s = Shape::parse(str);
    for (ErrorBound eb : {ErrorBound{EbMode::rel, 1e-2}, ErrorBound{EbMode::rel, 1e-4}, ErrorBound{EbMode::abs, 1e-3}}) {
      expect_cross_device<float>(s, test::smooth_field<float>(s, 1), eb, "smooth f32", Lossless::auto_select, "delta");
      expect_cross_device<double>(s, test::smooth_field<double>(s, 2), eb, "smooth f64", Lossless::auto_select, "delta");
      expect_cross_device<float>(s, test::random_field<float>(s.count(), 3, 5.0), eb, "random f32",
                                 Lossless::auto_select, "delta");
    }
  }
  const Shape s = Shape::parse("20x33x47");
  auto x = test::smooth_field<float>(s, 9);
  for (uint64_t i = 0; i < x.size(); ++i) {
    if ((i / 47) % 6 == 2) x[i] = std::numeric_limits<float>::quiet_NaN();
    if (i % 101 == 0) x[i] = std::numeric_limits<float>::infinity();
    if (i % 107 == 2) x[i] = std::numeric_limits<float>::denorm_min();
  }
  expect_cross_device<float>(s, x, {EbMode::rel, 1e-3}, "NaN/Inf/denormal", Lossless::auto_select, "delta");
}

// Real fields: tests/gpu/shared_data_gpu_test.cpp (all fields, three bounds, from a carried folder).

TEST(CrossDevice, DamagedStreamRejectedOnGpu) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Shape s = Shape::parse("6x7x40");
  auto x = test::smooth_field<float>(s, 2);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[100] = 1e30f;
  for (Lossless l : kStages) {
  SCOPED_TRACE(lossless_name(l));
  CompressOptions o;
  o.eb = {EbMode::rel, 1e-3};
  o.device = Device::cuda;
  o.lossless = l;
  const auto st = compress({x.data(), DType::f32, s}, o);
  std::vector<float> out(s.count());
  auto status_of = [&](const std::vector<uint8_t>& bad) {
    try {
      decompress(bad, out.data(), out.size() * 4, Device::cuda);
    } catch (const Error& e) {
      return e.status();
    }
    return Status::ok;
  };
  EXPECT_EQ(status_of(st), Status::ok);
  for (size_t byte = 0; byte < st.size(); byte += 3) {
    auto bad = st;
    bad[byte] ^= 0x10;
    ASSERT_NE(status_of(bad), Status::ok) << "flip at byte " << byte << " went unnoticed";
  }
  for (size_t len : {size_t(0), size_t(10), st.size() / 2, st.size() - 1}) {
    const std::vector<uint8_t> cut(st.begin(), st.begin() + len);
    ASSERT_EQ(status_of(cut), Status::corrupt_stream) << "truncated to " << len;
  }
  }
}

TEST(CrossDevice, ReportsAllocationFailureAsCudaError) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  try {
    dev::Buffer<uint8_t> huge(uint64_t(1) << 50, nullptr);  // a petabyte
    ADD_FAILURE() << "a 1 PiB allocation succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::cuda_error);
    EXPECT_NE(std::string(e.what()).find("out of GPU memory"), std::string::npos) << e.what();
  }
  // The failure must not poison later work.
  const std::vector<float> x(1000, 1.0f);
  CompressOptions o;
  o.device = Device::cuda;
  EXPECT_NO_THROW(compress({x.data(), DType::f32, Shape{{1000}}}, o));
}
