// The device-resident API: a field in device memory compressed into device memory and decoded
// from there into device memory gives the CPU twin's stream and values bit for bit, for every
// pipeline and chunking; damage is refused before the output is touched; a short buffer names
// the size it needs; a host pointer said to be device memory is refused; a caller's allocator
// is used; a capped GPU writes the same stream chunk by chunk.
#include <gtest/gtest.h>
#include <sciz/sciz.h>
#include <sciz/sciz.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

#include <cuda_runtime.h>

#include "gpu/gpu_util.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

#define REQUIRE_GPU() \
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device"

template <class T>
constexpr DType dtype_of() {
  return sizeof(T) == 4 ? DType::f32 : DType::f64;
}

template <class T>
std::vector<T> field_of(const Shape& s, uint32_t seed) {
  std::vector<T> x = test::smooth_field<T>(s, seed);
  if (x.size() > 100) {
    x[5] = std::numeric_limits<T>::quiet_NaN();
    x[x.size() / 3] = std::numeric_limits<T>::infinity();
    x[x.size() - 2] = T(-3e5);
  }
  return x;
}

CompressOptions opts(const std::string& p, double chunk_mb, Device d) {
  CompressOptions o;
  o.eb = {EbMode::rel, 1e-3};
  o.pipeline = p;
  o.device = d;
  o.chunk_mb = chunk_mb;
  return o;
}

DecompressOptions dev_out() {
  DecompressOptions d;
  d.device = Device::cuda;
  d.out_on_device = true;
  return d;
}

template <class T>
void device_round_trip(const Shape& s, double chunk_mb) {
  const auto x = field_of<T>(s, 21);
  const uint64_t n = x.size(), bytes = n * sizeof(T);
  auto d_x = test::upload(x);
  for (const char* p : {"lorenzo", "delta", "szx"}) {
    SCOPED_TRACE(std::string(p) + " " + s.str() + " chunk_mb " + std::to_string(chunk_mb));
    const auto cpu = compress({x.data(), dtype_of<T>(), s}, opts(p, chunk_mb, Device::cpu));
    const uint64_t cap = max_compressed_size(dtype_of<T>(), s, p, chunk_mb);
    dev::Buffer<uint8_t> d_s(cap, nullptr);
    const uint64_t size = compress_into({d_x.get(), dtype_of<T>(), s, true}, d_s.get(), cap, true,
                                        opts(p, chunk_mb, Device::cuda));
    const auto gpu = test::download(d_s.get(), size);
    ASSERT_TRUE(gpu == cpu) << "device stream differs from the CPU stream";
    std::vector<T> ref(n);
    decompress(cpu, ref.data(), bytes, Device::cpu);
    EXPECT_EQ(test::check_bound(x, ref, inspect(cpu).eb_abs), "");
    dev::Buffer<T> d_y(n, nullptr);
    decompress(StreamView(d_s.get(), size, true), d_y.get(), bytes, dev_out());
    EXPECT_TRUE(test::same_bits(ref, test::download(d_y.get(), n))) << "device decode differs";
    // Host stream into host memory through the GPU.
    std::vector<T> y(n);
    DecompressOptions h;
    h.device = Device::cuda;
    decompress(StreamView(cpu), y.data(), bytes, h);
    EXPECT_TRUE(test::same_bits(ref, y)) << "GPU decode into host memory differs";
    // inspect() of the device stream agrees with the host's.
    const StreamInfo a = inspect(StreamView(d_s.get(), size, true)), b = inspect(cpu);
    EXPECT_EQ(a.chunks.size(), b.chunks.size());
    EXPECT_EQ(a.eb_abs, b.eb_abs);
  }
}

}  // namespace

TEST(DeviceApi, RoundTripsEqualTheCpuTwinF32) {
  REQUIRE_GPU();
  const double row = 40.0 * 30 * 4 / 1048576.0;
  device_round_trip<float>(Shape::parse("64x40x30"), 64);          // one chunk
  device_round_trip<float>(Shape::parse("13x40x30"), row);         // a row per chunk
  device_round_trip<float>(Shape::parse("33x40x30"), row * 8);     // last chunk of one row
  device_round_trip<float>(Shape::parse("31x40x30"), row * 8);     // last chunk one row short
  device_round_trip<float>(Shape::parse("29x40x30"), row * 7.5);   // 7 rows (prime)
  device_round_trip<float>(Shape::parse("5x7x40x30"), row * 7);    // 4-D
  device_round_trip<float>(Shape::parse("100003"), 8192.0 * 4 / 1048576.0);  // 1-D, prime length
}

TEST(DeviceApi, RoundTripsEqualTheCpuTwinF64) {
  REQUIRE_GPU();
  const double row = 40.0 * 30 * 8 / 1048576.0;
  device_round_trip<double>(Shape::parse("21x40x30"), row * 8);
  device_round_trip<double>(Shape::parse("61x1009"), 1009.0 * 8 * 8 / 1048576.0);
}

TEST(DeviceApi, SlicesOnTheDeviceEqualTheSliceOfAFullDecode) {
  REQUIRE_GPU();
  const Shape s = Shape::parse("47x20x30");
  const auto x = field_of<float>(s, 3);
  const uint64_t row = 600;
  for (const char* p : {"lorenzo", "delta", "szx"}) {
    SCOPED_TRACE(p);
    const auto st = compress({x.data(), DType::f32, s}, opts(p, 0.02, Device::cpu));
    std::vector<float> full(x.size());
    decompress(st, full.data(), full.size() * 4, Device::cpu);
    auto d_s = test::upload(st);
    const uint64_t per = inspect(st).rows_per_chunk;
    for (auto [a, b] : std::vector<std::pair<uint64_t, uint64_t>>{{0, 47}, {0, 1}, {46, 47}, {per - 1, per + 1}, {5, 40}}) {
      dev::Buffer<float> d_y((b - a) * row, nullptr);
      decompress_rows(StreamView(d_s.get(), st.size(), true), a, b, d_y.get(), (b - a) * row * 4, dev_out());
      const auto got = test::download(d_y.get(), (b - a) * row);
      EXPECT_EQ(std::memcmp(got.data(), full.data() + a * row, got.size() * 4), 0) << a << ":" << b;
    }
  }
}

TEST(DeviceApi, DamagedChunkIsRefusedBeforeTheOutputIsTouched) {
  REQUIRE_GPU();
  const Shape s = Shape::parse("40x50x20");
  const auto x = field_of<float>(s, 8);
  for (const char* p : {"lorenzo", "delta", "szx"}) {
    SCOPED_TRACE(p);
    auto st = compress({x.data(), DType::f32, s}, opts(p, 0.02, Device::cpu));
    const StreamInfo info = inspect(st);
    ASSERT_GT(info.chunks.size(), 3u);
    const ChunkInfo last = info.chunks.back();
    const ChunkInfo mid = info.chunks[1];
    for (uint64_t at : {last.offset + last.length - 1, mid.offset + 3, mid.offset + mid.length / 2}) {
      auto bad = st;
      bad[at] ^= 0x40;
      auto d_s = test::upload(bad);
      std::vector<float> poison(x.size(), -9.0f);
      auto d_y = test::upload(poison);
      try {
        decompress(StreamView(d_s.get(), bad.size(), true), d_y.get(), x.size() * 4, dev_out());
        ADD_FAILURE() << "damaged stream decoded (byte " << at << ")";
      } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
        EXPECT_NE(std::string(e.what()).find("chunk"), std::string::npos) << e.what();
        // Inside a section, the decoders (which start before the checksums are known) read
        // garbage; the error still names the checksum.
        if (at == mid.offset + mid.length / 2)
          EXPECT_NE(std::string(e.what()).find("checksum mismatch"), std::string::npos) << e.what();
      }
      EXPECT_TRUE(test::same_bits(poison, test::download(d_y.get(), x.size()))) << "output touched (byte " << at << ")";
      // Host output through the GPU, from a host stream and from a device stream: the caller's
      // buffer is untouched too (chunks once went down before a later chunk's verdict).
      for (bool stream_on_device : {false, true}) {
        std::vector<float> host(x.size(), -9.0f);
        DecompressOptions o;
        o.device = Device::cuda;
        const StreamView sv = stream_on_device ? StreamView(d_s.get(), bad.size(), true) : StreamView(bad);
        EXPECT_THROW(decompress(sv, host.data(), x.size() * 4, o), Error) << "byte " << at;
        EXPECT_TRUE(test::same_bits(poison, host)) << "host output touched (byte " << at << ", stream on device "
                                                    << stream_on_device << ")";
      }
    }
  }
}

TEST(DeviceApi, ShortBufferNamesTheSizeAndHostPointersAreRefused) {
  REQUIRE_GPU();
  const Shape s = Shape::parse("30x40x50");
  const auto x = field_of<float>(s, 2);
  auto d_x = test::upload(x);
  const auto cpu = compress({x.data(), DType::f32, s}, opts("delta", 0.05, Device::cpu));
  dev::Buffer<uint8_t> d_s(100, nullptr);
  try {
    compress_into({d_x.get(), DType::f32, s, true}, d_s.get(), 100, true, opts("delta", 0.05, Device::cuda));
    ADD_FAILURE() << "a 100-byte buffer took the stream";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::buffer_too_small);
    EXPECT_EQ(e.needed_bytes(), cpu.size());
    EXPECT_NE(std::string(e.what()).find(std::to_string(cpu.size())), std::string::npos) << e.what();
  }
  // A host pointer said to be device memory: a clear error, not a crash.
  EXPECT_THROW(compress_into({x.data(), DType::f32, s, true}, d_s.get(), 100, true, opts("delta", 0.05, Device::cuda)),
               Error);
  std::vector<float> host_out(x.size());
  auto d_cpu = test::upload(cpu);
  try {
    decompress(StreamView(d_cpu.get(), cpu.size(), true), host_out.data(), x.size() * 4, dev_out());
    ADD_FAILURE() << "host output taken for device memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("not device memory"), std::string::npos) << e.what();
  }
  // C API: the size needed comes back with SCIZ_BUFFER_TOO_SMALL.
  uint64_t need = 0;
  EXPECT_EQ(sciz_compress_device(d_x.get(), SCIZ_F32, s.dims.data(), 3, SCIZ_EB_REL, 1e-3, "delta", 0.05, d_s.get(), 100,
                                 &need, nullptr, nullptr),
            SCIZ_BUFFER_TOO_SMALL);
  EXPECT_EQ(need, cpu.size());
}

namespace {
// A caller's allocator (as CuPy's or PyTorch's would be): counts what it hands out.
struct Counting {
  std::atomic<int64_t> live{0}, calls{0};
};
void* count_alloc(void* ctx, uint64_t bytes, CUstream_st* s) {
  auto* c = static_cast<Counting*>(ctx);
  void* p = nullptr;
  if (cudaMallocAsync(&p, bytes, s) != cudaSuccess) return nullptr;
  ++c->calls;
  ++c->live;
  return p;
}
void count_free(void* ctx, void* p, uint64_t, CUstream_st* s) {
  --static_cast<Counting*>(ctx)->live;
  cudaFreeAsync(p, s);
}
}  // namespace

TEST(DeviceApi, CallersAllocatorIsUsedAndEverythingIsReturned) {
  REQUIRE_GPU();
  const Shape s = Shape::parse("40x40x40");
  const auto x = field_of<float>(s, 4);
  auto d_x = test::upload(x);
  Counting c;
  const DeviceAllocator a{count_alloc, count_free, &c};
  for (const char* p : {"lorenzo", "delta", "szx"}) {
    CompressOptions o = opts(p, 0.05, Device::cuda);
    o.allocator = &a;
    {
      DeviceBuffer buf = compress_to_device({d_x.get(), DType::f32, s, true}, o);
      EXPECT_GT(c.live.load(), 0);
      DecompressOptions d = dev_out();
      d.allocator = &a;
      dev::Buffer<float> d_y(x.size(), nullptr);
      decompress(buf.view(), d_y.get(), x.size() * 4, d);
      const auto cpu = compress({x.data(), DType::f32, s}, opts(p, 0.05, Device::cpu));
      EXPECT_TRUE(test::download(static_cast<const uint8_t*>(buf.data()), buf.size()) == cpu) << p;
    }
    cudaDeviceSynchronize();
    EXPECT_EQ(c.live.load(), 0) << p << ": allocations not returned";
  }
  EXPECT_GT(c.calls.load(), 3);
}

TEST(DeviceApi, CappedGpuWritesTheSameStreamChunkByChunk) {
  REQUIRE_GPU();
  // 16 MB of f32 in 1 MiB chunks under a 40 MiB cap: field, stream and work do not fit at once.
  const Shape s = Shape::parse("256x128x128");
  const auto x = field_of<float>(s, 6);
  for (const char* p : {"lorenzo", "delta", "szx"}) {
    SCOPED_TRACE(p);
    CompressOptions o = opts(p, 1, Device::cuda);
    const auto free_run = compress({x.data(), DType::f32, s}, o);
    o.gpu_memory = uint64_t(40) << 20;
    const auto capped = compress({x.data(), DType::f32, s}, o);
    EXPECT_TRUE(capped == free_run) << "capped stream differs";
    EXPECT_TRUE(capped == compress({x.data(), DType::f32, s}, opts(p, 1, Device::cpu))) << "differs from the CPU";
    std::vector<float> y(x.size());
    DecompressOptions d;
    d.device = Device::cuda;
    d.gpu_memory = o.gpu_memory;
    decompress(StreamView(capped), y.data(), y.size() * 4, d);
    EXPECT_EQ(test::check_bound(x, y, inspect(capped).eb_abs), "");
    // The chunks spread over a device list (the same GPU twice here: the multi-device path on
    // a one-GPU machine) give the same stream, and decode back through it.
    CompressOptions m = opts(p, 1, Device::cuda);
    m.devices = {0, 0};
    EXPECT_TRUE(compress({x.data(), DType::f32, s}, m) == free_run) << "stream over a device list differs";
    DecompressOptions md;
    md.device = Device::cuda;
    md.devices = {0, 0};
    std::vector<float> ym(x.size());
    decompress(StreamView(capped), ym.data(), ym.size() * 4, md);
    EXPECT_TRUE(test::same_bits(y, ym)) << "decode over a device list differs";
    m.devices = {0, 7};
    EXPECT_THROW(compress({x.data(), DType::f32, s}, m), Error);
    // Too small for even one chunk: said so, naming the cap.
    o.gpu_memory = uint64_t(4) << 20;
    EXPECT_THROW(compress({x.data(), DType::f32, s}, o), Error);
  }
}

TEST(DeviceApi, TwoGpusWriteTheOneGpuStream) {
  REQUIRE_GPU();
  if (cuda_device_count() < 2) GTEST_SKIP() << "one CUDA device (the multi-device path runs on a device list of 0,0 above)";
  const Shape s = Shape::parse("300x128x128");  // 19.7 MB in 1 MiB chunks: both GPUs busy
  const auto x = field_of<float>(s, 13);
  for (const char* p : {"lorenzo", "delta", "szx"}) {
    SCOPED_TRACE(p);
    CompressOptions o = opts(p, 1, Device::cuda);
    const auto one = compress({x.data(), DType::f32, s}, o);
    o.devices = {0, 1};
    EXPECT_TRUE(compress({x.data(), DType::f32, s}, o) == one) << "two GPUs wrote another stream";
    o.gpu_memory = uint64_t(40) << 20;  // each GPU too small for its share: chunks stream through both
    EXPECT_TRUE(compress({x.data(), DType::f32, s}, o) == one) << "two capped GPUs wrote another stream";
    DecompressOptions d;
    d.device = Device::cuda;
    d.devices = {0, 1};
    std::vector<float> y(x.size()), ref(x.size());
    decompress(StreamView(one), y.data(), y.size() * 4, d);
    decompress(one, ref.data(), ref.size() * 4, Device::cpu);
    EXPECT_TRUE(test::same_bits(ref, y)) << "two GPUs decoded other values";
  }
}
