// Streams whose checksums are right but whose section contents are not (crafted, or written by
// a buggy encoder): the GPU decoders, checking everything on the device, refuse exactly what the
// CPU decoders refuse, and where both accept they agree bit for bit. Delta and lorenzo find every
// problem before writing; szx checks each block's codes as it decodes it, so its refusal may
// come after other blocks were written.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "core/container.hpp"
#include "gpu/gpu_util.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

// The stream with byte `at` of section `id` of chunk 0 replaced, re-checksummed.
std::vector<uint8_t> mutate(const std::vector<uint8_t>& good, uint32_t id, uint64_t at, uint8_t value) {
  const ParsedStream ps = read_stream(good);
  std::vector<ChunkOut> chunks;
  for (const auto& c : ps.chunks) {
    ChunkOut o;
    o.pipeline = c.header.pipeline;
    o.params = c.header.params;
    for (const auto& s : c.sections) o.sections.push_back({s.id, std::vector<uint8_t>(s.bytes.begin(), s.bytes.end())});
    chunks.push_back(std::move(o));
  }
  for (auto& s : chunks[0].sections)
    if (s.id == id && at < s.bytes.size()) s.bytes[at] = value;
  Header h = ps.header;
  return write_stream(h, ps.plan, chunks);
}

}  // namespace

TEST(DeviceSections, GpuRefusesWhatTheCpuRefuses) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Shape s = Shape::parse("24x40x50");
  auto x = test::smooth_field<float>(s, 12);
  x[100] = std::numeric_limits<float>::quiet_NaN();  // an exact-values section with a run
  x[101] = std::numeric_limits<float>::quiet_NaN();
  std::mt19937_64 rng(7);
  for (const char* p : {"delta", "szx", "lorenzo"}) {
    CompressOptions o;
    o.eb = {EbMode::rel, 1e-3};
    o.pipeline = p;
    o.device = Device::cpu;
    o.chunk_mb = 0;
    const auto good = compress({x.data(), DType::f32, s}, o);
    const ParsedStream ps = read_stream(good);
    int refused = 0, accepted = 0;
    for (const auto& sec : ps.chunks[0].sections) {
      if (sec.bytes.empty()) continue;
      for (int trial = 0; trial < 40; ++trial) {
        const uint64_t at = trial < 8 ? static_cast<uint64_t>(trial) : rng() % sec.bytes.size();
        const uint8_t v = static_cast<uint8_t>(trial % 3 == 0 ? 0xff : rng());
        const auto bad = mutate(good, sec.id, at, v);
        SCOPED_TRACE(std::string(p) + " section " + std::to_string(sec.id) + " byte " + std::to_string(at));
        std::vector<float> cpu(x.size(), -5.0f), gpu(x.size(), -5.0f);
        bool cpu_ok = true, gpu_ok = true;
        try {
          decompress(bad, cpu.data(), cpu.size() * 4, Device::cpu);
        } catch (const Error& e) {
          cpu_ok = false;
          EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
        }
        auto d_s = test::upload(bad);
        auto d_y = test::upload(gpu);
        DecompressOptions d;
        d.device = Device::cuda;
        d.out_on_device = true;
        try {
          decompress(StreamView(d_s.get(), bad.size(), true), d_y.get(), gpu.size() * 4, d);
        } catch (const Error& e) {
          gpu_ok = false;
          EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
        }
        const auto got = test::download(d_y.get(), gpu.size());
        ASSERT_EQ(cpu_ok, gpu_ok) << "the devices disagree on this stream";
        if (cpu_ok) {
          ++accepted;
          // Garbage that decodes makes NaNs, whose payloads the GPU's arithmetic canonicalizes:
          // equal bits, or NaN on both sides.
          size_t differ = 0;
          for (size_t i = 0; i < cpu.size(); ++i)
            if (std::memcmp(&cpu[i], &got[i], 4) != 0 && !(std::isnan(cpu[i]) && std::isnan(got[i]))) ++differ;
          EXPECT_EQ(differ, 0u) << "both accepted, different values";
        } else {
          ++refused;
          if (std::string(p) != "szx") EXPECT_TRUE(test::same_bits(gpu, got)) << "refused but written";
        }
      }
    }
    std::printf("[ note ] %s: %d mutated streams refused by both, %d accepted by both\n", p, refused, accepted);
    EXPECT_GT(refused, 10) << p;
  }
}

TEST(DeviceSections, SzxGoldensOfBothLayoutsDecodeFromDeviceMemory) {
  // Layout 1 (formats 2 to 4) and layout 2 streams, in device memory, decode to the CPU's bits;
  // damaged copies of a layout-1 stream (rewritten, so with layout-1 params in the current
  // container) are refused exactly where the CPU refuses them.
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto dir = std::filesystem::path(SCIZ_FIXTURES_DIR).parent_path() / "golden";
  int seen = 0;
  for (const auto& ent : std::filesystem::directory_iterator(dir)) {
    const std::string name = ent.path().filename().string();
    if (ent.path().extension() != ".sciz" || name.rfind("szx_v", 0) != 0) continue;
    SCOPED_TRACE(name);
    const auto st = test::read_file(ent.path());
    const uint64_t bytes = inspect(st).original_bytes();
    auto run = [&](const std::vector<uint8_t>& s, std::vector<uint8_t>& cpu, std::vector<uint8_t>& gpu, bool& cpu_ok,
                   bool& gpu_ok) {
      cpu.assign(bytes, 0);
      cpu_ok = gpu_ok = true;
      try {
        decompress(s, cpu.data(), bytes, Device::cpu);
      } catch (const Error& e) {
        cpu_ok = false;
      }
      auto d_s = test::upload(s);
      dev::Buffer<uint8_t> d_y(bytes, nullptr);
      DecompressOptions d;
      d.device = Device::cuda;
      d.out_on_device = true;
      try {
        decompress(StreamView(d_s.get(), s.size(), true), d_y.get(), bytes, d);
      } catch (const Error& e) {
        gpu_ok = false;
        EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
      }
      gpu = test::download(d_y.get(), bytes);
    };
    std::vector<uint8_t> cpu, gpu;
    bool cpu_ok, gpu_ok;
    run(st, cpu, gpu, cpu_ok, gpu_ok);
    ASSERT_TRUE(cpu_ok && gpu_ok);
    EXPECT_EQ(cpu, gpu);
    ++seen;
    if (name.rfind("szx_v4_isabel", 0) != 0) continue;
    const ParsedStream ps = read_stream(st);
    std::mt19937_64 rng(11);
    for (const auto& sec : ps.chunks[0].sections) {
      if (sec.bytes.empty()) continue;
      for (int trial = 0; trial < 12; ++trial) {
        const auto bad = mutate(st, sec.id, rng() % sec.bytes.size(), static_cast<uint8_t>(rng()));
        run(bad, cpu, gpu, cpu_ok, gpu_ok);
        ASSERT_EQ(cpu_ok, gpu_ok) << "section " << sec.id << " trial " << trial;
      }
    }
  }
  EXPECT_GE(seen, 8);
}
