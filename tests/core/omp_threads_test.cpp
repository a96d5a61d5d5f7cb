// CPU twins called from the caller's own OpenMP parallel region (nesting off, the default):
// their regions then run with one thread whatever they asked for, and every value must still
// be encoded and decoded. Before thread_share, szx and delta split the field by the count
// they asked for, so half of it was never encoded.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/omp_threads.hpp"
#include "support/test_data.hpp"

using namespace sciz;

TEST(OmpThreads, SharesTileTheItemsInThreadOrder) {
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{1000}}) {
    const Share all = thread_share(n);  // outside a region: one thread takes everything
    EXPECT_EQ(all.lo, 0u);
    EXPECT_EQ(all.hi, n);
    std::vector<Share> got(3, Share{1, 0});
    int team = 0;
#pragma omp parallel num_threads(3)
    {
      got[thread_id()] = thread_share(n);
#pragma omp single
      team = team_size();
    }
    uint64_t next = 0;
    for (int t = 0; t < team; ++t) {
      EXPECT_EQ(got[t].lo, next) << "n " << n << " thread " << t;
      next = got[t].hi;
    }
    EXPECT_EQ(next, n);
  }
}

TEST(OmpThreads, PipelinesWorkInsideTheCallersParallelRegion) {
  const Shape s{{40, 80, 70}};  // 224,000 values: several delta layers, many szx blocks and lorenzo tiles
  const auto x = test::smooth_field<float>(s, 3);
  for (const char* pipe : {"lorenzo", "szx", "delta"}) {
    SCOPED_TRACE(pipe);
    CompressOptions o;
    o.eb = {EbMode::rel, 1e-3};
    o.pipeline = pipe;
    o.device = Device::cpu;
    std::vector<float> y(x.size());
    double eb = 0;
    std::string err;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
      {
        try {
          const auto st = compress({x.data(), DType::f32, s}, o);
          eb = inspect(st).eb_abs;
          decompress(st, y.data(), y.size() * 4, Device::cpu);
        } catch (const std::exception& e) {
          err = e.what();
        }
      }
    }
    ASSERT_EQ(err, "");
    EXPECT_EQ(test::check_bound(x, y, eb), "");
  }
}

TEST(OmpThreads, SmallWorkGetsNoTeam) {
  // A team costs up to a scheduler slice on a busy host: below kBytesPerThread of input per
  // thread, work stays on the calling thread whatever the item count.
  EXPECT_EQ(thread_count(1000, 200000), 1);
  EXPECT_EQ(thread_count(1000, kBytesPerThread - 1), 1);
  EXPECT_EQ(thread_count(0, 0), 1);
  EXPECT_EQ(thread_count(1, uint64_t{1} << 40), 1);
#if defined(_OPENMP)
  const int nt = omp_get_max_threads();
  EXPECT_EQ(thread_count(1000, 2 * kBytesPerThread), std::min(nt, 2));
  EXPECT_EQ(thread_count(1000, uint64_t{1} << 40), std::min(nt, 1000));
  EXPECT_EQ(thread_count(1000), std::min(nt, 1000));  // the count alone, as before
#endif
}
