// The host-side launch rules the CUDA families share (core/launch_grid.hpp), held to their
// definitions on the CPU, where CI runs them: a wrong split would send a kernel's vector
// loads past an array's end or off a 16-byte boundary.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/launch_grid.hpp"

using sciz::gpu::vector_split;

TEST(LaunchGrid, GridCoversTheItemsWithinItsLimits) {
  EXPECT_EQ(sciz::gpu::grid_for(0, 256), 1u);
  EXPECT_EQ(sciz::gpu::grid_for(256, 256), 1u);
  EXPECT_EQ(sciz::gpu::grid_for(257, 256), 2u);
  EXPECT_EQ(sciz::gpu::grid_for(uint64_t{1} << 40, 1), sciz::gpu::kMaxGrid);
}

TEST(LaunchGrid, VectorSplitMatchesItsDefinition) {
  for (uint64_t elem : {4u, 8u}) {
    const uint64_t per = 16 / elem;
    for (uintptr_t off = 0; off < 48; ++off) {
      const uintptr_t address = 4096 + off;
      for (uint64_t n = 0; n <= 40; ++n) {
        SCOPED_TRACE(testing::Message() << "elem " << elem << " offset " << off << " n " << n);
        const auto sp = vector_split(address, n, elem);
        uint64_t first = 0;  // elements before the first 16-byte boundary
        while ((address + first * elem) % 16 != 0 && first < 16) ++first;
        if (address % elem != 0 || first >= n) {
          EXPECT_EQ(sp.head, n);
          EXPECT_EQ(sp.vecs, 0u);
          continue;
        }
        EXPECT_EQ(sp.head, first);
        EXPECT_EQ((address + sp.head * elem) % 16, 0u);
        EXPECT_LE(sp.head + sp.vecs * per, n);  // the vectors stay inside the array
        EXPECT_LT(n - sp.head - sp.vecs * per, per);  // and leave less than a vector
      }
    }
  }
}
