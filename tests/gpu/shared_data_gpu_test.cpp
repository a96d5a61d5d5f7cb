// Cross-device acceptance on real fields: for every field at rel 1e-2, 1e-3, 1e-4 the GPU
// stream equals the CPU stream byte for byte, each device decodes each stream to identical
// bits, and every point is within the bound. Fields come from $SCIZ_DATA_DIR (the GPU check
// carries them in batches), else ../shared/data; skipped without a GPU or without data.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "support/shared_fields.hpp"

using namespace sciz;

namespace {
template <class T>
void cross_check(const test::RealField& f, const std::vector<T>& x) {
  const uint64_t bytes = x.size() * sizeof(T);
  for (double rel : {1e-2, 1e-3, 1e-4}) {
    CompressOptions o;
    o.eb = {EbMode::rel, rel};
    o.device = Device::cpu;
    const auto s_cpu = compress({x.data(), f.dtype, f.shape}, o);
    o.device = Device::cuda;
    const auto s_gpu = compress({x.data(), f.dtype, f.shape}, o);
    const double eb = inspect(s_cpu).eb_abs;
    std::vector<T> cc(x.size()), cg(x.size()), gc(x.size()), gg(x.size());
    decompress(s_cpu, cc.data(), cc.size() * sizeof(T), Device::cpu);
    decompress(s_cpu, cg.data(), cg.size() * sizeof(T), Device::cuda);
    decompress(s_gpu, gc.data(), gc.size() * sizeof(T), Device::cpu);
    decompress(s_gpu, gg.data(), gg.size() * sizeof(T), Device::cuda);
    const bool same_stream = s_cpu == s_gpu;
    const bool same_bits = std::memcmp(cc.data(), cg.data(), bytes) == 0 && std::memcmp(cc.data(), gc.data(), bytes) == 0 &&
                           std::memcmp(cc.data(), gg.data(), bytes) == 0;
    const std::string bound = test::check_bound(x, gg, eb);
    double maxerr = 0;
    for (size_t i = 0; i < x.size(); ++i)
      if (std::isfinite(x[i])) maxerr = std::max(maxerr, std::fabs(static_cast<double>(x[i]) - static_cast<double>(gg[i])));
    std::printf("| %-48s | %-6g | %8.2f | %7.5f | %-4s | %-4s | %-4s |\n", f.name.c_str(), rel,
                static_cast<double>(bytes) / s_gpu.size(), maxerr / eb, bound.empty() ? "yes" : "NO",
                same_stream ? "yes" : "NO", same_bits ? "yes" : "NO");
    EXPECT_TRUE(same_stream) << f.name << " rel " << rel;
    EXPECT_TRUE(same_bits) << f.name << " rel " << rel;
    EXPECT_EQ(bound, "") << f.name << " rel " << rel;
  }
}
}  // namespace

TEST(SharedDataGpu, CrossDeviceEveryFieldEveryBound) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::optional<std::filesystem::path> dir;
  if (const char* env = std::getenv("SCIZ_DATA_DIR")) dir = std::filesystem::path(env);
  if (!dir) dir = test::shared_data_dir();
  if (!dir || !std::filesystem::is_directory(*dir)) GTEST_SKIP() << "no real fields to test";
  std::printf("| %-48s | %-6s | %8s | %7s | %-4s | %-4s | %-4s |\n", "field", "rel", "ratio", "err/eb", "bnd",
              "strm", "bits");
  test::for_each_real_field(*dir, [](const test::RealField& f, const auto& x) { cross_check(f, x); });
}
