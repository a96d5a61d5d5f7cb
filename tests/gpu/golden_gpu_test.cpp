// Every golden stream decodes on the GPU to the CPU's bits; the current interp goldens are
// what the GPU writes.
#include <gtest/gtest.h>

#include <string>

#include "gpu/gpu_util.hpp"
#include "support/goldens.hpp"
#include "support/test_data.hpp"

using namespace sciz;

TEST(GoldenGpu, EveryGoldenDecodesLikeTheCpu) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto dir = std::filesystem::path(SCIZ_FIXTURES_DIR).parent_path() / "golden";
  int seen = 0;
  for (const auto& ent : std::filesystem::directory_iterator(dir)) {
    if (ent.path().extension() != ".sciz") continue;
    const auto st = test::read_file(ent.path());
    const StreamInfo info = inspect(st);
    const uint64_t bytes = info.original_bytes();
    std::vector<uint8_t> cpu(bytes), gpu(bytes);
    decompress(st, cpu.data(), bytes, Device::cpu);
    decompress(st, gpu.data(), bytes, Device::cuda);
    EXPECT_EQ(cpu, gpu) << ent.path();
    ++seen;
  }
  EXPECT_GE(seen, 3);
}

// The interp goldens re-encoded on the device, from host and from device memory, are the
// goldens byte for byte: the GPU tunes, codes and picks each chunk's stage list as the CPU did.
TEST(GoldenGpu, InterpGoldensAreWhatTheGpuWrites) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  int seen = 0;
  for (const auto& g : test::kGoldens) {
    if (!g.current || std::string(g.pipeline).rfind("interp", 0) != 0) continue;
    SCOPED_TRACE(g.name);
    const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / g.fixture);
    const auto golden = test::read_file(test::kGoldenDir / (std::string(g.name) + ".sciz"));
    const Shape s = Shape::parse(g.dims);
    const CompressOptions o = test::golden_options(g, Device::cuda);
    EXPECT_TRUE(compress({raw.data(), g.dtype, s}, o) == golden) << "from host memory";
    auto d_raw = test::upload(raw);
    EXPECT_TRUE(compress({d_raw.get(), g.dtype, s, true}, o) == golden) << "from device memory";
    const uint64_t cap = max_compressed_size(g.dtype, s, g.pipeline, o.chunk_mb);
    dev::Buffer<uint8_t> d_stream(cap, nullptr);
    const uint64_t size = compress_into({d_raw.get(), g.dtype, s, true}, d_stream.get(), cap, true, o);
    EXPECT_TRUE(test::download(d_stream.get(), size) == golden) << "device-resident sections";
    ++seen;
  }
  EXPECT_GE(seen, 7);
}
