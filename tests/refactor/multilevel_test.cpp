// The multilevel decomposition: levels cover every node once on any grid, interpolation is
// exact where it must be, fills cost no coefficient, and recomposition inverts decomposition
// within the rounding the bound formula allows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <utility>

#include "refactor/mdr/bound.hpp"
#include "refactor/multilevel/multilevel.hpp"
#include "support/test_data.hpp"

using namespace sciz;
using namespace sciz::multilevel;

namespace {

const std::vector<std::vector<uint64_t>> kShapes = {
    {1},        {2},         {3},          {17},         {1000},      {4099},          {1, 1},
    {2, 2},     {3, 5},      {17, 1},      {1, 31},      {33, 65},    {7, 11, 13},     {2, 3, 2},
    {1, 17, 1}, {16, 16, 16}, {5, 1, 9, 3}, {2, 3, 5, 7}, {4, 4, 4, 4}, {3, 17, 2, 19}, {1, 1, 1, 1},
};

// Every field index, and where each level stores it.
std::vector<int> level_of_every_node(const Layout& l) {
  std::vector<int> level(l.grid.count(), -1);
  for (size_t ci = 0; ci < l.classes.size(); ++ci) {
    const Class& c = l.classes[ci];
    for (uint64_t a0 = 0; a0 < c.m[0]; ++a0)
      for (uint64_t a1 = 0; a1 < c.m[1]; ++a1)
        for (uint64_t a2 = 0; a2 < c.m[2]; ++a2)
          for (uint64_t a3 = 0; a3 < c.m[3]; ++a3) {
            const uint64_t i[4] = {coord(c, 0, a0), coord(c, 1, a1), coord(c, 2, a2), coord(c, 3, a3)};
            for (int k = 0; k < 4; ++k)
              if (i[k] >= l.grid.e[k]) return {};
            const uint64_t at = field_index(l.grid, i);
            if (level[at] != -1) return {};  // covered twice
            level[at] = l.class_level[ci];
          }
  }
  return level;
}

}  // namespace

TEST(Multilevel, GridDropsUnitAxesAndCountsLevels) {
  const Grid g = grid_of({1, 17, 1, 5});
  EXPECT_EQ(g.e[0], 1u);
  EXPECT_EQ(g.e[1], 1u);
  EXPECT_EQ(g.e[2], 17u);
  EXPECT_EQ(g.e[3], 5u);
  EXPECT_EQ(g.detail, 5);  // 2^5 = 32 >= 17 > 16
  EXPECT_EQ(active_axes(g), 2);
  for (uint64_t e : {1, 2, 3, 4, 5, 8, 9, 1000, 1024, 1025}) {
    const Grid h = grid_of({e});
    EXPECT_GE(uint64_t(1) << h.detail, e) << e;
    if (h.detail > 0) EXPECT_LT(uint64_t(1) << (h.detail - 1), e) << e;
  }
}

TEST(Multilevel, LevelsCoverEveryNodeOnce) {
  for (const auto& dims : kShapes) {
    const Layout l = layout_of(grid_of(dims));
    const std::vector<int> level = level_of_every_node(l);
    ASSERT_EQ(level.size(), l.grid.count()) << Shape{dims}.str();
    for (int v : level) ASSERT_GE(v, 0) << Shape{dims}.str();
    EXPECT_EQ(l.level_offset.back(), l.grid.count());
    EXPECT_EQ(l.level_count(0), 1u);  // the origin alone
  }
}

// Multilinear interpolation reproduces affine fields: every node whose corners all exist
// gets a zero coefficient, and a node extrapolated from one side gets slope x stride.
TEST(Multilevel, AffineFieldsHaveZeroCoefficientsInside) {
  for (const auto& dims : kShapes) {
    const Layout l = layout_of(grid_of(dims));
    const Grid& g = l.grid;
    const double slope[4] = {3, -5, 7, 2};
    std::vector<double> x(g.count());
    for (uint64_t i0 = 0; i0 < g.e[0]; ++i0)
      for (uint64_t i1 = 0; i1 < g.e[1]; ++i1)
        for (uint64_t i2 = 0; i2 < g.e[2]; ++i2)
          for (uint64_t i3 = 0; i3 < g.e[3]; ++i3) {
            const uint64_t i[4] = {i0, i1, i2, i3};
            x[field_index(g, i)] = 11 + slope[0] * i0 + slope[1] * i1 + slope[2] * i2 + slope[3] * i3;
          }
    std::vector<double> c(g.count());
    decompose_cpu(l, x.data(), c.data());
    for (size_t ci = 0; ci < l.classes.size(); ++ci) {
      const Class& cl = l.classes[ci];
      if (l.class_level[ci] == 0) {
        EXPECT_EQ(c[l.class_offset[ci]], 11.0);
        continue;
      }
      for (uint64_t k = 0; k < cl.count(); ++k) {
        uint64_t a[4], r = k, i[4];
        for (int ax = 3; ax >= 0; --ax) a[ax] = r % cl.m[ax], r /= cl.m[ax];
        double expect = 0;
        for (int ax = 0; ax < 4; ++ax) {
          i[ax] = coord(cl, ax, a[ax]);
          if ((cl.q >> ax) & 1 && i[ax] + cl.s >= g.e[ax]) expect += slope[ax] * cl.s;  // one-sided
        }
        ASSERT_EQ(c[l.class_offset[ci] + k], expect) << Shape{dims}.str() << " class " << cl.q << " node " << k;
      }
    }
  }
}

// Decomposing then recomposing gives the field back within the rounding allowance of the
// bound (zero coefficient error): the rounding half of the error argument, tested alone.
TEST(Multilevel, RecompositionInvertsDecompositionWithinRounding) {
  uint32_t seed = 1;
  for (const auto& dims : kShapes) {
    const Layout l = layout_of(grid_of(dims));
    for (double scale : {1.0, 1e-30, 3e20}) {
      auto x = test::random_field<double>(l.grid.count(), ++seed, scale);
      double m = 0;
      for (double v : x) m = std::max(m, std::fabs(v));
      std::vector<double> c(x.size()), y(x.size());
      decompose_cpu(l, x.data(), c.data());
      recompose_cpu(l, c.data(), y.data());
      const double allowed = mdr::guaranteed_bound({DType::f64, l.grid.detail, active_axes(l.grid), m}, 0.0);
      for (size_t i = 0; i < x.size(); ++i)
        ASSERT_LE(std::fabs(x[i] - y[i]), allowed) << Shape{dims}.str() << " point " << i << " scale " << scale;
    }
  }
}

// The recomposition (a fast path for nodes with every +s neighbour, runs of coefficients made
// on demand) is, bit for bit, predict() + c of every node, coarse to fine, on any grid.
TEST(Multilevel, RecompositionIsThePredictionOfEveryNode) {
  std::vector<std::vector<uint64_t>> shapes = kShapes;
  shapes.push_back({3, 1100});       // rows longer than a run
  shapes.push_back({9, 6, 1037});    // and an odd last run
  shapes.push_back({2, 5, 4, 600});
  uint32_t seed = 40;
  for (const auto& dims : shapes) {
    const Layout l = layout_of(grid_of(dims));
    const auto c = test::random_field<double>(l.grid.count(), ++seed, 1.0);
    std::vector<double> want(c.size());
    for (size_t ci = 0; ci < l.classes.size(); ++ci) {
      const Class& cl = l.classes[ci];
      uint64_t k = 0;
      for (uint64_t a0 = 0; a0 < cl.m[0]; ++a0)
        for (uint64_t a1 = 0; a1 < cl.m[1]; ++a1)
          for (uint64_t a2 = 0; a2 < cl.m[2]; ++a2)
            for (uint64_t a3 = 0; a3 < cl.m[3]; ++a3, ++k) {
              const uint64_t i[4] = {coord(cl, 0, a0), coord(cl, 1, a1), coord(cl, 2, a2), coord(cl, 3, a3)};
              const uint64_t at = field_index(l.grid, i);
              const double v = c[l.class_offset[ci] + k];
              want[at] = l.class_level[ci] == 0 ? v : predict(l.grid, cl, i, at, [&](uint64_t p) { return want[p]; }) + v;
            }
    }
    std::vector<double> got(c.size());
    recompose_cpu(l, c.data(), got.data());
    ASSERT_EQ(std::memcmp(got.data(), want.data(), 8 * got.size()), 0) << Shape{dims}.str();
    // Straight to f32, through the even points' grid: the same values rounded once.
    const CoeffSource src{[](const void* p, size_t ci, uint64_t k, uint64_t count, double* dst) {
                            const auto* a = static_cast<const std::pair<const Layout*, const double*>*>(p);
                            std::memcpy(dst, a->second + a->first->class_offset[ci] + k, count * sizeof(double));
                          }};
    const std::pair<const Layout*, const double*> ctx{&l, c.data()};
    std::vector<float> narrow(c.size(), std::nanf("")), want_f(c.size());
    recompose_cpu<float>(l, {src.fill, &ctx}, narrow.data());
    for (size_t i = 0; i < want.size(); ++i) want_f[i] = static_cast<float>(want[i]);
    ASSERT_EQ(std::memcmp(narrow.data(), want_f.data(), 4 * narrow.size()), 0) << Shape{dims}.str();
  }
}

// Special points filled coarse to fine get exactly zero coefficients and finite values.
TEST(Multilevel, FilledPointsCostNoCoefficient) {
  for (const auto& dims : kShapes) {
    const Layout l = layout_of(grid_of(dims));
    auto x = test::random_field<double>(l.grid.count(), 7, 10.0);
    std::mt19937 rng(3);
    std::vector<bool> special(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      if (rng() % 3 == 0) special[i] = true, x[i] = std::nan("");
    fill_cpu(l, x.data(), 0.5);
    for (double v : x) ASSERT_TRUE(std::isfinite(v));
    std::vector<double> c(x.size());
    decompose_cpu(l, x.data(), c.data());
    // Level 0 stores the value itself (its fill); every deeper special node must cost 0.
    for (size_t ci = 0; ci < l.classes.size(); ++ci) {
      const Class& cl = l.classes[ci];
      if (l.class_level[ci] == 0) continue;
      for (uint64_t k = 0; k < cl.count(); ++k) {
        uint64_t a[4], r = k, i[4];
        for (int ax = 3; ax >= 0; --ax) a[ax] = r % cl.m[ax], r /= cl.m[ax];
        for (int ax = 0; ax < 4; ++ax) i[ax] = coord(cl, ax, a[ax]);
        if (special[field_index(l.grid, i)]) ASSERT_EQ(c[l.class_offset[ci] + k], 0.0) << Shape{dims}.str();
      }
    }
  }
}
