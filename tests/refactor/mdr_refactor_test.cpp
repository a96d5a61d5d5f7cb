// Refactoring itself: the file depends on the field and the options only (not on the thread
// count, not on which of -0 and +0 a reduction met first), and the device choice is refused
// clearly where it cannot be served.
#include <gtest/gtest.h>
#include <sciz/mdr.hpp>

#include <cmath>
#include <limits>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "refactor/mdr_support.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

#if defined(_OPENMP)
struct ThreadsScope {
  int saved = omp_get_max_threads();
  explicit ThreadsScope(int n) { omp_set_num_threads(n); }
  ~ThreadsScope() { omp_set_num_threads(saved); }
};
#endif

}  // namespace

// A field whose finite maximum (or minimum) is a zero met as -0 in one thread's share and as
// +0 in another's, with a NaN so that the fill's range counts too: every thread count writes
// the same file, and the header says +0. (Without the canonical zero, one thread recorded -0
// and more threads whichever zero their partials met first.)
TEST(MdrRefactor, ZeroExtremesDoNotDependOnThreads) {
#if !defined(_OPENMP)
  GTEST_SKIP() << "built without OpenMP";
#else
  const uint64_t n = uint64_t(1) << 19;  // 4 MiB of f64: up to four threads (core/omp_threads.hpp)
  for (const double sign : {-1.0, 1.0}) {
    SCOPED_TRACE(sign < 0 ? "zero maximum" : "zero minimum");
    auto x = test::smooth_1d<double>(n, 21);
    for (auto& v : x) v = sign * (std::fabs(v) + 1.0);
    // A single thread meets -0 first, the later threads' shares +0 first.
    for (uint64_t i = 5; i + 3 < n; i += n / 8) x[i] = i == 5 ? -0.0 : 0.0, x[i + 3] = i == 5 ? 0.0 : -0.0;
    x[n / 3] = std::numeric_limits<double>::quiet_NaN();
    std::vector<uint8_t> one;
    {
      ThreadsScope t(1);
      one = test::refactor_vec(x, {n});
    }
    const mdr::Retriever r(mdr::memory_source(one));
    const double zero = sign < 0 ? r.info().value_max : r.info().value_min;
    EXPECT_EQ(zero, 0.0);
    EXPECT_FALSE(std::signbit(zero)) << "the header's zero extreme is -0";
    for (int threads : {2, 3, 4}) {
      ThreadsScope t(threads);
      EXPECT_TRUE(test::refactor_vec(x, {n}) == one) << threads << " threads wrote another file";
    }
  }
#endif
}

// The finest level of this field holds more than 2^20 coefficients, so each of its groups is
// split in pieces (split_planes' kSplitPieceWords) and its candidates sized as tasks of their
// own: every thread count writes the file one thread writes, with NaN and +-Inf set apart,
// with one plane a group and four.
TEST(MdrRefactor, GroupsCodedAsTasksDoNotDependOnThreads) {
#if !defined(_OPENMP)
  GTEST_SKIP() << "built without OpenMP";
#else
  const uint64_t n = (uint64_t(1) << 21) + 333;
  const auto x = test::special_values_1d<float>(n, 7);
  for (const uint32_t planes : {1u, 4u}) {
    mdr::RefactorOptions opt;
    opt.planes_per_group = planes;
    std::vector<uint8_t> one;
    {
      ThreadsScope t(1);
      one = test::refactor_vec(x, {n}, opt);
    }
    // Read back in full: a piece's bits lost or misplaced in the joined streams would break the
    // split's walk or the bound, whatever the thread count.
    std::vector<float> y(n);
    mdr::Retriever r(mdr::memory_source(one));
    const mdr::Retrieval got = r.retrieve({EbMode::rel, 1e-6}, y.data(), n * sizeof(float));
    const auto [err, exact] = test::max_error(x, y);
    EXPECT_TRUE(exact) << "a NaN/Inf did not come back exactly";
    EXPECT_LE(err, got.bound);
    EXPECT_TRUE(got.met);
    for (int threads : {2, 3, 5}) {
      ThreadsScope t(threads);
      EXPECT_TRUE(test::refactor_vec(x, {n}, opt) == one) << threads << " threads wrote another file, " << planes
                                                          << " planes a group";
    }
  }
#endif
}

TEST(MdrRefactor, DeviceChoiceIsRefusedClearly) {
  const auto x = test::smooth_field<float>(Shape{{20, 30}}, 3);
  mdr::RefactorOptions o;
  // Host memory said to be device memory is refused, not read as device memory.
  const FieldView on_dev{x.data(), DType::f32, Shape{{20, 30}}, true};
  o.device = Device::cpu;
  EXPECT_EQ(test::status_of([&] { mdr::refactor(on_dev, o); }), Status::invalid_argument);
  if (cuda_available()) return;  // the GPU tests cover the rest
  o.device = Device::cuda;
  EXPECT_EQ(test::status_of([&] { test::refactor_vec(x, {20, 30}, o); }), Status::no_device);
  o.device = Device::auto_select;  // a host field: the CPU twin
  EXPECT_TRUE(test::refactor_vec(x, {20, 30}, o) == test::refactor_vec(x, {20, 30}));
  const auto file = test::refactor_vec(x, {20, 30});
  mdr::Retriever r(mdr::memory_source(file));
  std::vector<float> y(x.size());
  EXPECT_EQ(test::status_of([&] { r.retrieve_to_device({EbMode::rel, 1e-3}, y.data(), y.size() * 4); }), Status::no_device);
  EXPECT_EQ(r.held_bytes(), r.info().header_bytes) << "a refused retrieval read segments";
}
