// Many host threads using the library at once (docs/API.md, "Threads"): every call's result is
// checked against the same call made alone first, byte for byte, so a race that changes any
// output, or any shared state that leaks between calls, fails here (and the sanitizer build
// runs this under ASan).
#include <gtest/gtest.h>
#include <sciz/chunked.hpp>
#include <sciz/sciz.h>
#include <sciz/sciz.hpp>

#include <atomic>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "support/test_data.hpp"

using namespace sciz;

namespace {

constexpr int kThreads = 8;

struct Job {
  std::string pipeline;
  DType dtype;
  Shape shape;
  std::vector<uint8_t> field, stream, decoded;  // stream and decoded: made alone, beforehand
  CompressOptions opt;
};

// Every pipeline, both types, 1-3 dims, one and several chunks: enough distinct work that
// threads run different code at the same time.
std::vector<Job> jobs() {
  std::vector<Job> v;
  const std::vector<Shape> shapes = {Shape{{40000}}, Shape{{96, 300}}, Shape{{24, 40, 50}}};
  int k = 0;
  for (const std::string& p : pipelines())
    for (DType t : {DType::f32, DType::f64})
      for (const Shape& s : shapes) {
        Job j{p, t, s, {}, {}, {}, {}};
        j.field.resize(s.count() * dtype_size(t));
        if (t == DType::f32) {
          const auto x = test::special_values_1d<float>(s.count(), static_cast<uint32_t>(k));
          std::memcpy(j.field.data(), x.data(), j.field.size());
        } else {
          const auto x = test::special_values_1d<double>(s.count(), static_cast<uint32_t>(k));
          std::memcpy(j.field.data(), x.data(), j.field.size());
        }
        j.opt.pipeline = p;
        j.opt.device = Device::cpu;
        j.opt.eb = {k % 2 ? EbMode::abs : EbMode::rel, k % 2 ? 0.05 : 1e-4};
        j.opt.chunk_mb = k % 3 == 0 ? 0.05 : 0;  // several chunks every third job
        j.stream = compress({j.field.data(), t, s}, j.opt);
        j.decoded.resize(j.field.size());
        decompress(j.stream, j.decoded.data(), j.decoded.size(), Device::cpu);
        v.push_back(std::move(j));
        ++k;
      }
  return v;
}

// Runs f(thread) on kThreads threads at once; the failures they saw, joined.
std::string on_threads(const std::function<std::string(int)>& f) {
  std::vector<std::string> errs(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> th;
  for (int t = 0; t < kThreads; ++t)
    th.emplace_back([&, t] {
      ++ready;
      while (ready < kThreads) std::this_thread::yield();  // start together
      try {
        errs[t] = f(t);
      } catch (const std::exception& e) {
        errs[t] = std::string("thread threw: ") + e.what();
      }
    });
  for (auto& x : th) x.join();
  std::string all;
  for (const auto& e : errs) all += e;
  return all;
}

}  // namespace

TEST(Concurrency, ManyThreadsCompressAndDecompressAtOnce) {
  const std::vector<Job> js = jobs();
  const std::string errs = on_threads([&](int t) -> std::string {
    for (size_t r = 0; r < 3 * js.size(); ++r) {
      const Job& j = js[(r * 7 + static_cast<size_t>(t) * 5) % js.size()];  // threads on different jobs
      const std::string what = j.pipeline + " " + dtype_name(j.dtype) + " " + j.shape.str();
      if (compress({j.field.data(), j.dtype, j.shape}, j.opt) != j.stream) return what + ": stream differs; ";
      std::vector<uint8_t> out(j.field.size(), 0xa5);
      decompress(j.stream, out.data(), out.size(), Device::cpu);
      if (out != j.decoded) return what + ": decoded bytes differ; ";
      const uint64_t rows = j.shape.dims[0], row = out.size() / rows;
      std::vector<uint8_t> part((rows / 2) * row);
      decompress_rows(j.stream, rows / 4, rows / 4 + rows / 2, part.data(), part.size(), Device::cpu);
      if (std::memcmp(part.data(), j.decoded.data() + rows / 4 * row, part.size()) != 0) return what + ": slice differs; ";
      if (inspect(j.stream).shape.dims != j.shape.dims) return what + ": inspect differs; ";
    }
    return "";
  });
  EXPECT_EQ(errs, "");
}

// One ChunkedCompressor shared by the threads, each compressing its own chunks (the CLI's
// pattern), and one ChunkedDecompressor likewise: the bytes compress() writes.
TEST(Concurrency, ChunkedCoderSharedByThreads) {
  const Shape s{{512, 64, 32}};
  const auto x = test::smooth_field<float>(s, 11);
  CompressOptions o;
  o.device = Device::cpu;
  o.eb = {EbMode::abs, 0.01};
  o.chunk_mb = 0.1;  // 8 rows of 8 KiB a chunk: 64 chunks
  const auto whole = compress({x.data(), DType::f32, s}, o);
  ChunkedCompressor cc(DType::f32, s, o);
  ASSERT_GE(cc.chunk_count(), 2 * static_cast<uint64_t>(kThreads));
  std::vector<std::vector<uint8_t>> chunks(cc.chunk_count());
  EXPECT_EQ(on_threads([&](int t) -> std::string {
              for (uint64_t i = static_cast<uint64_t>(t); i < cc.chunk_count(); i += kThreads)
                chunks[i] = cc.compress_chunk(i, x.data() + cc.chunk_row0(i) * 64 * 32);
              return "";
            }),
            "");
  std::vector<uint8_t> joined = cc.header();
  for (const auto& c : chunks) joined.insert(joined.end(), c.begin(), c.end());
  EXPECT_TRUE(joined == whole) << "chunks compressed by several threads differ from compress()";

  ChunkedDecompressor cd(std::span<const uint8_t>(whole).first(cc.header_bytes()), whole.size());
  std::vector<float> y(x.size()), ref(x.size());
  decompress(whole, ref.data(), ref.size() * 4, Device::cpu);
  EXPECT_EQ(on_threads([&](int t) -> std::string {
              for (uint64_t i = static_cast<uint64_t>(t); i < cd.chunk_count(); i += kThreads) {
                const ChunkInfo c = cd.chunk(i);
                cd.decompress_chunk(i, std::span<const uint8_t>(whole).subspan(c.offset, c.length),
                                    y.data() + c.row0 * 64 * 32, c.rows * cd.row_bytes(), Device::cpu);
              }
              return "";
            }),
            "");
  EXPECT_EQ(0, std::memcmp(y.data(), ref.data(), y.size() * 4)) << "chunks decoded by several threads differ";
}

// The C API's last error is per thread: a thread's failure never shows in another's message.
TEST(Concurrency, CApiErrorsStayOnTheirThread) {
  const Shape s{{2000}};
  const auto x = test::smooth_1d<float>(2000, 4);
  CompressOptions o;
  o.device = Device::cpu;
  o.eb = {EbMode::abs, 0.01};
  const auto good = compress({x.data(), DType::f32, s}, o);
  EXPECT_EQ(on_threads([&](int t) -> std::string {
              std::vector<float> y(2000);
              for (int r = 0; r < 200; ++r) {
                if ((r + t) % 2) {
                  std::vector<uint8_t> bad = good;
                  bad[4] = static_cast<uint8_t>(90 + t);  // format version 90 + t: names this thread's value
                  if (sciz_decompress(bad.data(), bad.size(), y.data(), 8000, SCIZ_DEVICE_CPU) != SCIZ_UNSUPPORTED)
                    return "bad stream accepted; ";
                  if (std::string(sciz_last_error()).find("version " + std::to_string(90 + t)) == std::string::npos)
                    return std::string("another thread's message: ") + sciz_last_error() + "; ";
                } else if (sciz_decompress(good.data(), good.size(), y.data(), 8000, SCIZ_DEVICE_CPU) != SCIZ_OK) {
                  return std::string("good stream refused: ") + sciz_last_error() + "; ";
                }
              }
              return "";
            }),
            "");
}
