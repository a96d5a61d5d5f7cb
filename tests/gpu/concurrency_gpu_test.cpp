// Several host threads driving the GPU at once, each on its own CUDA stream (and some on the
// default stream): from host and device memory, both ways, every pipeline. Each result must be
// the CPU twin's stream, byte for byte, and decode to the CPU's bits.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <atomic>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/device_streams.hpp"
#include "gpu/gpu_util.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

constexpr int kThreads = 6;

struct Job {
  std::string pipeline;
  Shape shape;
  std::vector<float> field, decoded;
  std::vector<uint8_t> stream;  // the CPU's
  CompressOptions opt;
};

std::vector<Job> jobs() {
  std::vector<Job> v;
  int k = 0;
  for (const std::string& p : pipelines())
    for (const Shape& s : {Shape{{300000}}, Shape{{64, 100, 50}}}) {
      Job j{p, s, test::special_values_1d<float>(s.count(), static_cast<uint32_t>(k)), {}, {}, {}};
      j.opt.pipeline = p;
      j.opt.eb = {EbMode::rel, 1e-3};
      j.opt.chunk_mb = k % 2 ? 0.25 : 0;  // several chunks: the workers' streams join in
      j.opt.device = Device::cpu;
      j.stream = compress({j.field.data(), DType::f32, s}, j.opt);
      j.decoded.resize(j.field.size());
      decompress(j.stream, j.decoded.data(), j.decoded.size() * 4, Device::cpu);
      v.push_back(std::move(j));
      ++k;
    }
  return v;
}

std::string on_threads(const std::function<std::string(int)>& f) {
  std::vector<std::string> errs(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> th;
  for (int t = 0; t < kThreads; ++t)
    th.emplace_back([&, t] {
      ++ready;
      while (ready < kThreads) std::this_thread::yield();
      try {
        errs[t] = f(t);
      } catch (const std::exception& e) {
        errs[t] = std::string("thread threw: ") + e.what() + "; ";
      }
    });
  for (auto& x : th) x.join();
  std::string all;
  for (const auto& e : errs) all += e;
  return all;
}

}  // namespace

TEST(ConcurrencyGpu, ThreadsOnTheirOwnStreams) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<Job> js = jobs();
  std::vector<Stream> streams(kThreads);
  for (int t = 0; t < kThreads; ++t) streams[t] = t == 0 ? nullptr : dev::make_stream(dev::current_device());
  const std::string errs = on_threads([&](int t) -> std::string {
    const Stream s = streams[t];  // thread 0 on the default stream
    for (size_t r = 0; r < 2 * js.size(); ++r) {
      const Job& j = js[(r + static_cast<size_t>(t) * 3) % js.size()];
      const std::string what = j.pipeline + " " + j.shape.str() + " thread " + std::to_string(t);
      CompressOptions o = j.opt;
      o.device = Device::cuda;
      o.stream = s;
      const uint64_t bytes = j.field.size() * 4;
      if (compress({j.field.data(), DType::f32, j.shape}, o) != j.stream) return what + ": host-field stream differs; ";
      // Device in, device out, all on this thread's stream.
      dev::Buffer<float> d_x(j.field.size(), s);
      dev::copy_to_device(d_x.get(), j.field.data(), bytes, s);
      DeviceBuffer d_stream = compress_to_device({d_x.get(), DType::f32, j.shape, true}, o);
      std::vector<uint8_t> back(d_stream.size());
      dev::copy_to_host(back.data(), d_stream.data(), back.size(), s);
      dev::sync(s);
      if (back != j.stream) return what + ": device-field stream differs; ";
      DecompressOptions d;
      d.device = Device::cuda;
      d.out_on_device = true;
      d.stream = s;
      dev::Buffer<float> d_y(j.field.size(), s);
      decompress(d_stream.view(), d_y.get(), bytes, d);
      std::vector<float> y(j.field.size());
      dev::copy_to_host(y.data(), d_y.get(), bytes, s);
      dev::sync(s);
      if (!test::same_bits(y, j.decoded)) return what + ": device decode differs; ";
      d.out_on_device = false;
      std::fill(y.begin(), y.end(), 0.0f);
      decompress(StreamView(j.stream), y.data(), bytes, d);
      if (!test::same_bits(y, j.decoded)) return what + ": host decode differs; ";
    }
    return "";
  });
  EXPECT_EQ(errs, "");
}
