// Placeholder so the gpu suite always has a source; real GPU tests live beside it.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

TEST(GpuEnv, ReportsAvailability) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  SUCCEED();
}
