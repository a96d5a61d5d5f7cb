// Out of device memory: every allocation a call makes may fail, and each failure must come back
// as Status::cuda_error naming the size, with every byte the call had allocated given back and
// the device left usable. Failures are injected through the caller's-allocator hook (every
// device allocation of a call goes through it, the workers' included), then made real by
// holding most of the GPU, and the gpu_memory cap is taken below what one chunk needs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sciz/sciz.hpp>

#include <atomic>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/device.hpp"
#include "gpu/gpu_util.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

// Refuses allocation number `fail_at` (counting from 0) and every one after it; counts what is
// outstanding. Allocations come from sciz's own pool, with the hook turned off meanwhile.
struct FailingAllocator {
  std::atomic<int64_t> calls{0};
  int64_t fail_at = INT64_MAX;
  std::mutex mu;
  std::unordered_map<void*, uint64_t> live;
  std::atomic<uint64_t> bad_frees{0};

  static void* allocate(void* ctx, uint64_t bytes, CUstream_st* s) {
    auto* a = static_cast<FailingAllocator*>(ctx);
    if (a->calls++ >= a->fail_at) return nullptr;
    dev::AllocatorScope pool(nullptr);
    void* p = dev::alloc(bytes, s);
    std::lock_guard<std::mutex> l(a->mu);
    a->live[p] = bytes;
    return p;
  }
  static void deallocate(void* ctx, void* p, uint64_t bytes, CUstream_st* s) {
    auto* a = static_cast<FailingAllocator*>(ctx);
    {
      std::lock_guard<std::mutex> l(a->mu);
      auto it = a->live.find(p);
      if (it == a->live.end() || it->second != bytes) ++a->bad_frees;  // unknown pointer or wrong size
      if (it != a->live.end()) a->live.erase(it);
    }
    dev::release(p, bytes, s, nullptr);
  }
  DeviceAllocator hook() { return {&allocate, &deallocate, this}; }
  uint64_t outstanding() {
    std::lock_guard<std::mutex> l(mu);
    return live.size();
  }
};

// "out of GPU memory" and a byte count: what every refusal must say.
bool names_size(const Error& e) {
  const std::string m = e.what();
  return m.find("out of GPU memory") != std::string::npos && m.find("bytes") != std::string::npos;
}

// Calls f with allocation k failing, k = 0, 1, ... until it succeeds: each failure a cuda_error
// that names the size, nothing left allocated after any of them. Returns the allocations a
// successful call made.
int64_t sweep(const std::string& what, const std::function<void(const DeviceAllocator*)>& f) {
  for (int64_t k = 0; k < 2000; ++k) {
    FailingAllocator a;
    a.fail_at = k;
    const DeviceAllocator h = a.hook();
    bool ok = true;
    try {
      f(&h);
    } catch (const Error& e) {
      ok = false;
      EXPECT_EQ(e.status(), Status::cuda_error) << what << ", allocation " << k << ": " << e.what();
      EXPECT_TRUE(names_size(e)) << what << ", allocation " << k << ": " << e.what();
    }
    dev::sync(nullptr);
    EXPECT_EQ(a.outstanding(), 0u) << what << ": allocation " << k << " failing left memory allocated";
    EXPECT_EQ(a.bad_frees.load(), 0u) << what << ": freed what it had not allocated";
    if (ok) return k;
  }
  ADD_FAILURE() << what << ": still failing after 2000 allocations";
  return -1;
}

}  // namespace

TEST(OutOfMemoryGpu, EveryAllocationFailureIsReportedAndReleased) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Shape s{{64, 96, 80}};  // 1.9 MB in 0.5 MiB chunks: the multi-chunk paths
  const auto x = test::special_values_1d<float>(s.count(), 21);
  const uint64_t bytes = x.size() * 4;
  for (const std::string& p : pipelines()) {
    SCOPED_TRACE(p);
    CompressOptions o;
    o.pipeline = p;
    o.eb = {EbMode::rel, 1e-3};
    o.chunk_mb = 0.5;
    o.device = Device::cpu;
    const auto cpu = compress({x.data(), DType::f32, s}, o);
    o.device = Device::cuda;
    std::vector<float> y(x.size());
    const auto d_x = test::upload(x);
    const auto d_stream = test::upload(cpu);
    dev::Buffer<float> d_y(x.size(), nullptr);
    const int64_t n1 = sweep(p + " compress from host", [&](const DeviceAllocator* a) {
      CompressOptions c = o;
      c.allocator = a;
      EXPECT_TRUE(compress({x.data(), DType::f32, s}, c) == cpu);
    });
    const int64_t n2 = sweep(p + " compress device to device", [&](const DeviceAllocator* a) {
      CompressOptions c = o;
      c.allocator = a;
      DeviceBuffer b = compress_to_device({d_x.get(), DType::f32, s, true}, c);
      EXPECT_TRUE(test::download(static_cast<const uint8_t*>(b.data()), b.size()) == cpu);
    });
    const int64_t n3 = sweep(p + " decompress to host", [&](const DeviceAllocator* a) {
      DecompressOptions d;
      d.device = Device::cuda;
      d.allocator = a;
      decompress(StreamView(cpu), y.data(), bytes, d);
    });
    const int64_t n4 = sweep(p + " decompress device to device", [&](const DeviceAllocator* a) {
      DecompressOptions d;
      d.device = Device::cuda;
      d.out_on_device = true;
      d.allocator = a;
      decompress(StreamView(d_stream.get(), cpu.size(), true), d_y.get(), bytes, d);
    });
    std::printf("%s: allocations per call: compress %lld / %lld, decompress %lld / %lld\n", p.c_str(),
                static_cast<long long>(n1), static_cast<long long>(n2), static_cast<long long>(n3),
                static_cast<long long>(n4));
    // Still usable, and still right, after all those failures.
    std::vector<float> ref(x.size());
    decompress(cpu, ref.data(), bytes, Device::cpu);
    decompress(cpu, y.data(), bytes, Device::cuda);
    EXPECT_TRUE(test::same_bits(y, ref));
  }
}

// The device really full: what is left is far below the field. The call streams the field
// through what is free or says it is out of memory, naming the sizes; either way the device is
// usable again once the memory is given back, although sciz's pool still holds it (it used to
// count pool memory held idle as taken, and refused every later call as if capped).
TEST(OutOfMemoryGpu, NearlyFullDeviceFailsCleanlyOrStreams) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  // It fills the device, so GPU tests running beside it would fail for want of memory: ctest
  // runs it alone (OutOfMemoryGpuAlone, RUN_SERIAL), which sets this variable.
  if (!std::getenv("SCIZ_GPU_ALONE")) GTEST_SKIP() << "runs alone as ctest's OutOfMemoryGpuAlone";
  const Shape s{{512, 512, 64}};  // 64 MiB of f32
  const auto x = test::smooth_field<float>(s, 5);
  CompressOptions o;
  o.pipeline = "lorenzo";
  o.eb = {EbMode::rel, 1e-3};
  o.chunk_mb = 8;
  o.device = Device::cpu;
  const auto cpu = compress({x.data(), DType::f32, s}, o);
  o.device = Device::cuda;
  {
    const uint64_t free_now = dev::free_memory();
    ASSERT_GT(free_now, uint64_t(64) << 20);
    dev::Buffer<uint8_t> hog(free_now - (uint64_t(16) << 20), nullptr);  // leave 16 MiB
    dev::sync(nullptr);
    try {
      EXPECT_TRUE(compress({x.data(), DType::f32, s}, o) == cpu) << "streamed through 16 MiB: wrong stream";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::cuda_error) << e.what();
      EXPECT_TRUE(names_size(e)) << e.what();
    }
    std::vector<float> y(x.size());
    try {
      decompress(cpu, y.data(), y.size() * 4, Device::cuda);
      EXPECT_EQ(test::check_bound(x, y, inspect(cpu).eb_abs), "");
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::cuda_error) << e.what();
      EXPECT_TRUE(names_size(e)) << e.what();
    }
  }
  EXPECT_TRUE(compress({x.data(), DType::f32, s}, o) == cpu) << "device unusable after running out of memory";
}

// gpu_memory, the cap on what sciz holds per device, below what one chunk needs: refused with a
// message that names the cap, for compress and decompress alike; above it, the CPU's stream.
TEST(OutOfMemoryGpu, CapBelowOneChunkIsRefusedByName) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Shape s{{256, 128, 128}};  // 16 MiB in 4 MiB chunks
  const auto x = test::smooth_field<float>(s, 8);
  for (const std::string& p : pipelines()) {
    SCOPED_TRACE(p);
    CompressOptions o;
    o.pipeline = p;
    o.eb = {EbMode::abs, 0.01};
    o.chunk_mb = 4;
    o.device = Device::cpu;
    const auto cpu = compress({x.data(), DType::f32, s}, o);
    o.device = Device::cuda;
    o.gpu_memory = uint64_t(1) << 20;
    try {
      compress({x.data(), DType::f32, s}, o);
      ADD_FAILURE() << "a 1 MiB cap took 4 MiB chunks";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::to_string(o.gpu_memory)), std::string::npos) << e.what();
    }
    DecompressOptions d;
    d.device = Device::cuda;
    d.gpu_memory = o.gpu_memory;
    std::vector<float> y(x.size());
    try {
      decompress(StreamView(cpu), y.data(), y.size() * 4, d);
      ADD_FAILURE() << "a 1 MiB cap decoded 4 MiB chunks";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(d.gpu_memory)), std::string::npos) << e.what();
    }
    o.gpu_memory = uint64_t(64) << 20;  // a chunk's work is 40 MiB
    EXPECT_TRUE(compress({x.data(), DType::f32, s}, o) == cpu);
  }
}
