// The GPU suite's environment: availability, and the memory sciz keeps between calls.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <sciz/sciz.h>
#include <sciz/sciz.hpp>

#include <cmath>
#include <vector>

namespace {

// At the end of the run every cache is handed back, so that compute-sanitizer's leak check
// (scripts/gpu_sanitize.sh) reports only memory nobody can reach any more, not the staging
// and read-back blocks kept on purpose.
class ReleaseCachesAtExit : public testing::Environment {
 public:
  void TearDown() override {
    if (sciz::cuda_available()) sciz::release_cached_memory();
  }
};
[[maybe_unused]] testing::Environment* const kReleaseAtExit =
    testing::AddGlobalTestEnvironment(new ReleaseCachesAtExit);

// The device pool's memory: reserved from the driver, and in use by live allocations.
struct PoolBytes {
  uint64_t reserved = 0, used = 0;
};
PoolBytes pool_bytes() {
  int d = 0;
  cudaMemPool_t pool;
  PoolBytes b;
  EXPECT_EQ(cudaGetDevice(&d), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(&pool, d), cudaSuccess);
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &b.reserved), cudaSuccess);
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &b.used), cudaSuccess);
  return b;
}

}  // namespace

TEST(GpuEnv, ReportsAvailability) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  EXPECT_GE(sciz::cuda_device_count(), 1);
}

// A pageable 48 MiB field goes through the pinned staging; after the release the pool holds
// less reserved, and the next calls pin and pool afresh and write the same stream.
TEST(GpuEnv, ReleasedCachesAreRebuiltByTheNextCall) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const uint64_t nx = 3 << 20, ny = 4;
  std::vector<float> field(nx * ny);
  for (size_t i = 0; i < field.size(); ++i) field[i] = std::sin(0.001f * static_cast<float>(i));
  sciz::CompressOptions o;
  o.device = sciz::Device::cuda;
  o.eb = {sciz::EbMode::abs, 1e-3};
  const sciz::FieldView view{field.data(), sciz::DType::f32, sciz::Shape{{ny, nx}}};
  const auto first = sciz::compress(view, o);
  const PoolBytes before = pool_bytes();
  ASSERT_GT(before.reserved, before.used) << "the call should have left idle blocks in the pool";
  sciz::release_cached_memory();
  const PoolBytes after = pool_bytes();
  // Trimming frees whole driver allocations: what stays reserved is what live blocks pin.
  EXPECT_LT(after.reserved, before.reserved);
  EXPECT_LE(after.used, before.used);
  EXPECT_EQ(sciz_release_cached_memory(), SCIZ_OK);
  const auto again = sciz::compress(view, o);
  EXPECT_EQ(again, first);
  std::vector<float> back(field.size());
  sciz::decompress(again, back.data(), back.size() * sizeof(float), sciz::Device::cuda);
  for (size_t i = 0; i < field.size(); ++i) ASSERT_LE(std::fabs(back[i] - field[i]), 1e-3f) << i;
  sciz::release_cached_memory();
}
