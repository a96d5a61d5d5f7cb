// Retrieval: every point within the reported bound at every requested bound, on random and
// real fields, f32 and f64, 1 to 4 dims, awkward sizes; progressive retrieval equal to
// one-shot retrieval bit for bit (in memory and through a saved state); only the needed bytes
// read; NaN/Inf back exactly.
#include <gtest/gtest.h>

#include <limits>

#include "refactor/mdr_support.hpp"
#include "support/shared_fields.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

const std::vector<double> kRel = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};

const std::vector<std::vector<uint64_t>> kShapes = {
    {1}, {2}, {3}, {17}, {1009}, {4099}, {2, 3}, {31, 37}, {1, 97}, {7, 11, 13}, {17, 2, 19}, {3, 5, 7, 11}, {2, 1, 17, 9},
};

// Retrieves x's file at every bound in kRel (fresh Retrievers) and checks every point.
template <class T>
void check_all_bounds(const std::vector<T>& x, const std::vector<uint64_t>& dims, const std::string& what,
                      const mdr::RefactorOptions& opt = {}) {
  const auto file = test::refactor_vec(x, dims, opt);
  std::vector<T> y(x.size());
  for (double rel : kRel) {
    mdr::Retriever r(mdr::memory_source(file));
    const mdr::Retrieval got = r.retrieve({EbMode::rel, rel}, y.data(), y.size() * sizeof(T));
    const auto [err, exact] = test::max_error(x, y);
    ASSERT_TRUE(exact) << what << " rel " << rel << ": a NaN/Inf did not come back exactly";
    ASSERT_LE(err, got.bound) << what << " rel " << rel;
    ASSERT_TRUE(got.met) << what << " rel " << rel << ": bound " << got.bound << " > " << got.requested;
    ASSERT_LE(got.bound, got.requested) << what;
  }
}

}  // namespace

TEST(MdrRetrieve, BoundHeldOnRandomFields) {
  uint32_t seed = 100;
  for (const auto& dims : kShapes) {
    const Shape s{dims};
    check_all_bounds(test::smooth_field<float>(s, ++seed), dims, "smooth f32 " + s.str());
    check_all_bounds(test::random_field<float>(s.count(), ++seed, 3.0), dims, "noise f32 " + s.str());
    check_all_bounds(test::smooth_field<double>(s, ++seed), dims, "smooth f64 " + s.str());
    check_all_bounds(test::random_field<double>(s.count(), ++seed, 1e-7), dims, "noise f64 " + s.str());
  }
}

TEST(MdrRetrieve, BoundHeldWithOtherGroupSizes) {
  const Shape s{{33, 47}};
  for (uint32_t g : {1u, 2u, 7u, 32u}) {
    mdr::RefactorOptions o;
    o.planes_per_group = g;
    check_all_bounds(test::smooth_field<float>(s, g), s.dims, "planes per group " + std::to_string(g), o);
  }
  mdr::RefactorOptions o;
  o.planes_per_group = 52;
  check_all_bounds(test::smooth_field<double>(s, 3), s.dims, "f64, 52 planes per group", o);
  o.planes_per_group = 33;
  EXPECT_THROW(test::refactor_vec(test::smooth_field<float>(s, 3), s.dims, o), Error);
}

TEST(MdrRetrieve, BoundHeldOnFixtures) {
  for (const auto& f : test::real_fields(SCIZ_FIXTURES_DIR)) {
    const auto raw = test::read_file(f.path);
    ASSERT_EQ(raw.size(), f.shape.count() * dtype_size(f.dtype)) << f.name;
    if (f.dtype == DType::f32) {
      std::vector<float> x(f.shape.count());
      std::memcpy(x.data(), raw.data(), raw.size());
      check_all_bounds(x, f.shape.dims, f.name);
    } else {
      std::vector<double> x(f.shape.count());
      std::memcpy(x.data(), raw.data(), raw.size());
      check_all_bounds(x, f.shape.dims, f.name);
    }
  }
}

TEST(MdrRetrieve, AbsoluteBoundsAndValueExtremes) {
  // Large offsets (the f32 cast dominates), tiny values, huge f64 values carried exactly.
  auto x = test::smooth_field<float>(Shape{{40, 40}}, 5);
  for (auto& v : x) v += 1e5f;
  for (double abs : {10.0, 0.1, 0.01, 0.004}) {
    const auto file = test::refactor_vec(x, {40, 40});
    std::vector<float> y(x.size());
    mdr::Retriever r(mdr::memory_source(file));
    const auto got = r.retrieve({EbMode::abs, abs}, y.data(), y.size() * 4);
    EXPECT_LE(test::max_error(x, y).first, got.bound) << abs;
    EXPECT_EQ(got.met, got.bound <= abs);
  }
  auto d = test::random_field<double>(5000, 8, 1e-300);
  d[10] = 1e305, d[11] = -1e307, d[12] = std::numeric_limits<double>::denorm_min();
  const auto file = test::refactor_vec(d, {5000});
  std::vector<double> y(d.size());
  mdr::Retriever r(mdr::memory_source(file));
  EXPECT_EQ(r.info().special, 2u);
  const auto got = r.retrieve({EbMode::abs, 1e-302}, y.data(), y.size() * 8);
  EXPECT_EQ(y[10], 1e305);
  EXPECT_EQ(y[11], -1e307);
  EXPECT_LE(test::max_error(d, y).first, got.bound);
}

TEST(MdrRetrieve, SpecialValuesComeBackExactly) {
  for (uint64_t n : {uint64_t(1), uint64_t(40), uint64_t(20000)}) {
    check_all_bounds(test::special_values_1d<float>(n, 3), {n}, "specials f32 " + std::to_string(n));
    check_all_bounds(test::special_values_1d<double>(n, 4), {n}, "specials f64 " + std::to_string(n));
  }
  auto x = test::special_values_1d<float>(100 * 130, 5);
  check_all_bounds(x, {100, 130}, "specials 2-D");
  std::vector<float> all_nan(300, std::numeric_limits<float>::quiet_NaN());
  all_nan[7] = -std::numeric_limits<float>::infinity();
  check_all_bounds(all_nan, {300}, "no finite value");
}

TEST(MdrRetrieve, ConstantAndTinyFields) {
  check_all_bounds(std::vector<float>(1000, 3.5f), {10, 100}, "constant");
  check_all_bounds(std::vector<double>(77, 0.0), {77}, "zeros");
  check_all_bounds(std::vector<float>{-2.0f}, {1}, "one value");
  check_all_bounds(std::vector<double>{1.0, -1.0}, {1, 2}, "two values");
}

TEST(MdrRetrieve, ProgressiveEqualsOneShot) {
  const Shape s{{23, 29, 31}};
  const auto x = test::smooth_field<float>(s, 9);
  const auto file = test::refactor_vec(x, s.dims);
  mdr::Retriever prog(mdr::memory_source(file));
  std::vector<float> a(x.size()), b(x.size());
  std::vector<uint8_t> state;
  for (double rel : kRel) {
    const auto pa = prog.retrieve({EbMode::rel, rel}, a.data(), a.size() * 4);
    mdr::Retriever once(mdr::memory_source(file));
    const auto pb = once.retrieve({EbMode::rel, rel}, b.data(), b.size() * 4);
    ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0) << rel;
    ASSERT_EQ(pa.bound, pb.bound);
    ASSERT_EQ(pa.segments, pb.segments);
    ASSERT_EQ(pa.total_bytes_read, pb.total_bytes_read);
    // And through a saved state: resume, then refine to the same bound.
    if (!state.empty()) {
      mdr::Retriever resumed(mdr::memory_source(file), state);
      std::vector<float> c(x.size());
      const auto pc = resumed.retrieve({EbMode::rel, rel}, c.data(), c.size() * 4);
      ASSERT_EQ(std::memcmp(a.data(), c.data(), a.size() * 4), 0) << rel;
      ASSERT_EQ(pc.bound, pa.bound);
    }
    state = prog.state();
  }
  // A looser request after a tight one keeps what is held: no read, the tighter result.
  const auto again = prog.retrieve({EbMode::rel, 1e-1}, b.data(), b.size() * 4);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0);
  EXPECT_EQ(again.bytes_read, 0u);
  EXPECT_LE(again.bound, prog.resolve({EbMode::rel, 1e-6}));
}

TEST(MdrRetrieve, ReadsOnlyThePrefixItNeeds) {
  const Shape s{{40, 60, 50}};
  const auto x = test::smooth_field<float>(s, 12);
  const auto file = test::refactor_vec(x, s.dims);
  test::LoggedSource log;
  mdr::Retriever r(log.source(file));
  const uint64_t header = r.info().header_bytes;
  EXPECT_EQ(log.bytes(), header);  // opening reads the header and nothing else
  std::vector<float> y(x.size());
  uint64_t held = header, prev_bytes = 0;
  double prev_bound = INFINITY;
  for (double rel : kRel) {
    const size_t before = log.reads.size();
    const uint64_t logged = log.bytes();
    const auto got = r.retrieve({EbMode::rel, rel}, y.data(), y.size() * 4);
    EXPECT_EQ(got.bytes_read, log.bytes() - logged + (rel == kRel.front() ? header : 0)) << rel;
    if (log.reads.size() > before) {
      ASSERT_EQ(log.reads.size(), before + 1) << "one contiguous read per refinement";
      EXPECT_EQ(log.reads.back().first, held) << "continues where the previous read ended";
      held += log.reads.back().second;
    }
    EXPECT_EQ(got.total_bytes_read, held);
    EXPECT_GE(got.total_bytes_read, prev_bytes);
    EXPECT_LE(got.bound, prev_bound);
    prev_bytes = got.total_bytes_read, prev_bound = got.bound;
  }
  // A moderate bound on a smooth field needs well under half the file.
  mdr::Retriever fresh(mdr::memory_source(file));
  const auto got = fresh.retrieve({EbMode::rel, 1e-3}, y.data(), y.size() * 4);
  EXPECT_LT(got.total_bytes_read, file.size() / 2);
  EXPECT_GT(got.segments, 0u);
}

TEST(MdrRetrieve, BoundBelowTheFinestReadsAllAndSaysSo) {
  const auto x = test::smooth_field<double>(Shape{{300}}, 2);
  const auto file = test::refactor_vec(x, {300});
  mdr::Retriever r(mdr::memory_source(file));
  std::vector<double> y(x.size());
  const auto got = r.retrieve({EbMode::abs, 1e-300}, y.data(), y.size() * 8);
  EXPECT_FALSE(got.met);
  EXPECT_EQ(got.segments, r.info().segments);
  EXPECT_EQ(got.bound, r.info().finest_bound);
  EXPECT_EQ(got.total_bytes_read, file.size());
  EXPECT_LE(test::max_error(x, y).first, got.bound);
  EXPECT_LT(got.bound, 1e-12 * 200);  // near lossless: 2^-50 of each level's scale
  EXPECT_THROW(r.retrieve({EbMode::abs, 1.0}, y.data(), y.size() * 8 - 8), Error);
  EXPECT_THROW(r.retrieve({EbMode::abs, -1.0}, y.data(), y.size() * 8), Error);
}

// Tighter bounds never read less, and the bound of a retrieval is the smallest the prefix
// allows: the estimate is monotone along the file.
TEST(MdrRetrieve, TighterBoundsReadMore) {
  const Shape s{{64, 64}};
  const auto x = test::smooth_field<float>(s, 4);
  const auto file = test::refactor_vec(x, s.dims);
  uint64_t prev = 0;
  for (int e = 0; e <= 12; ++e) {
    mdr::Retriever r(mdr::memory_source(file));
    std::vector<float> y(x.size());
    const auto got = r.retrieve({EbMode::rel, std::pow(10.0, -0.5 * e)}, y.data(), y.size() * 4);
    EXPECT_GE(got.total_bytes_read, prev);
    prev = got.total_bytes_read;
  }
}

// plan() tells what a fresh retrieve() reads and guarantees, without reading: at every bound,
// with exact values in the file (always read) and below the finest bound (not met).
TEST(MdrRetrieve, PlanIsWhatAFreshRetrievalReads) {
  const Shape s{{30, 41}};
  auto x = test::smooth_field<float>(s, 5);
  x[7] = std::numeric_limits<float>::quiet_NaN();
  const auto file = test::refactor_vec(x, s.dims);
  std::vector<float> y(x.size());
  std::vector<ErrorBound> bounds;
  for (double rel : kRel) bounds.push_back({EbMode::rel, rel});
  bounds.push_back({EbMode::abs, 1e-300});
  bounds.push_back({EbMode::abs, 1e300});
  for (const ErrorBound& eb : bounds) {
    test::LoggedSource log;
    mdr::Retriever r(log.source(file));
    const uint64_t opened = log.bytes();
    const mdr::Retrieval plan = r.plan(eb);
    EXPECT_EQ(log.bytes(), opened) << "plan reads nothing";
    const mdr::Retrieval got = r.retrieve(eb, y.data(), y.size() * 4);
    EXPECT_EQ(plan.requested, got.requested) << eb.value;
    EXPECT_EQ(plan.bound, got.bound) << eb.value;
    EXPECT_EQ(plan.met, got.met) << eb.value;
    EXPECT_EQ(plan.segments, got.segments) << eb.value;
    EXPECT_EQ(plan.bytes_read, got.bytes_read) << eb.value;
    EXPECT_EQ(plan.total_bytes_read, got.total_bytes_read) << eb.value;
    EXPECT_EQ(got.total_bytes_read, log.bytes()) << eb.value;
  }
}
