// An absolute bound needs the field's range for the stream header only, so its GPU calls skip
// the range pass before coding: the encoders fold what they read (lorenzo, delta, szx at its
// default block) or the engine folds a chunk by a pass of its own (every other pipeline). The
// header records the range, so each stream must be the CPU twin's byte for byte, through the
// device-resident, host (whole field on the GPU) and capped (chunk by chunk) paths, with NaN,
// +-Inf and signed zeros placed in different chunks and fields with nothing finite.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gpu/gpu_util.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

template <class T>
constexpr DType dtype_of() {
  return sizeof(T) == 4 ? DType::f32 : DType::f64;
}

CompressOptions abs_opts(const std::string& p, double eb, double chunk_mb, Device d) {
  CompressOptions o;
  o.eb = {EbMode::abs, eb};
  o.pipeline = p;
  o.device = d;
  o.chunk_mb = chunk_mb;
  return o;
}

struct Case {
  std::string name;
  Shape shape;
  double chunk_mb;
};

// The fields: smooth with specials in different chunks (extremes in the first and last rows),
// one chunk all NaN, zeros of both signs only, and nothing finite at all.
template <class T>
std::vector<std::pair<std::string, std::vector<T>>> fields(const Shape& s) {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const uint64_t n = s.count(), row = n / s.dims[0];
  std::vector<std::pair<std::string, std::vector<T>>> out;
  auto x = test::smooth_field<T>(s, 9);
  x[3] = nan;
  x[n / 2] = inf;
  x[n - 5] = -inf;
  x[1] = T(-4e4);       // the minimum, first chunk
  x[n - 1] = T(5e4);    // the maximum, last chunk
  x[row * 2 + 7] = T(-0.0);
  out.push_back({"smooth with specials", x});
  auto y = test::smooth_field<T>(s, 4);
  for (uint64_t i = row * 3; i < std::min(n, row * 11); ++i) y[i] = nan;  // a chunk or more, all NaN
  out.push_back({"a run of NaN rows", y});
  std::vector<T> z(n);
  for (uint64_t i = 0; i < n; ++i) z[i] = i % 3 ? T(0.0) : T(-0.0);
  out.push_back({"signed zeros", z});
  std::vector<T> w(n);
  for (uint64_t i = 0; i < n; ++i) w[i] = i % 5 == 0 ? -inf : i % 7 == 0 ? inf : nan;
  out.push_back({"nothing finite", w});
  return out;
}

template <class T>
void same_as_cpu(const Case& c) {
  for (const auto& [what, x] : fields<T>(c.shape)) {
    const uint64_t n = x.size(), bytes = n * sizeof(T);
    auto d_x = test::upload(x);
    for (std::string p : {"lorenzo", "delta", "szx", "szx64", "interp-tp", "interp", "raw"}) {
      SCOPED_TRACE(c.name + ", " + what + ", " + p);
      CompressOptions co = abs_opts(p == "szx64" ? "szx" : p, 0.05, c.chunk_mb, Device::cpu);
      if (p == "szx64") co.szx_block = 64;  // not folded by the encoder: the engine's own pass
      const auto cpu = compress({x.data(), dtype_of<T>(), c.shape}, co);
      const StreamInfo info = inspect(cpu);
      ASSERT_EQ(info.eb_abs, 0.05);
      CompressOptions go = co;
      go.device = Device::cuda;
      // Device in, device out.
      const uint64_t cap = max_compressed_size(dtype_of<T>(), c.shape, co.pipeline, c.chunk_mb);
      dev::Buffer<uint8_t> d_s(cap, nullptr);
      const uint64_t size = compress_into({d_x.get(), dtype_of<T>(), c.shape, true}, d_s.get(), cap, true, go);
      EXPECT_TRUE(test::download(d_s.get(), size) == cpu) << "device-resident stream differs from the CPU's";
      // Host memory, the whole field on the GPU.
      EXPECT_TRUE(compress({x.data(), dtype_of<T>(), c.shape}, go) == cpu) << "host-memory stream differs";
      // Host memory under a cap: chunk by chunk, each worker folding its chunks.
      CompressOptions capped = go;
      capped.gpu_memory = uint64_t(24) << 20;
      EXPECT_TRUE(compress({x.data(), dtype_of<T>(), c.shape}, capped) == cpu) << "capped stream differs";
      // And it decodes within the bound (NaN and Inf exactly).
      std::vector<T> y(n);
      decompress(cpu, y.data(), bytes, Device::cpu);
      EXPECT_EQ(test::check_bound(x, y, 0.05), "");
    }
  }
}

}  // namespace

TEST(RangeFoldGpu, AbsoluteBoundStreamsEqualTheCpuTwinF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const double row = 40.0 * 30 * 4 / 1048576.0;
  same_as_cpu<float>({"f32 37x40x30, 8 rows a chunk", Shape::parse("37x40x30"), row * 8});
  same_as_cpu<float>({"f32 1-D prime, one chunk", Shape::parse("100003"), 64});
}

TEST(RangeFoldGpu, AbsoluteBoundStreamsEqualTheCpuTwinF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const double row = 40.0 * 30 * 8 / 1048576.0;
  same_as_cpu<double>({"f64 23x40x30, 5 rows a chunk", Shape::parse("23x40x30"), row * 5});
}
