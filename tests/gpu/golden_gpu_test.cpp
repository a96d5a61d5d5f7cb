// Every golden stream decodes on the GPU to the CPU's bits.
#include <gtest/gtest.h>

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
