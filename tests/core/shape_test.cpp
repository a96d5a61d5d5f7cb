#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include "core/geometry.hpp"

using namespace sciz;

TEST(Shape, ParsesSlowestToFastest) {
  const Shape s = Shape::parse("100x500x500");
  ASSERT_EQ(s.dims.size(), 3u);
  EXPECT_EQ(s.dims[0], 100u);
  EXPECT_EQ(s.count(), 25000000u);
  EXPECT_EQ(s.str(), "100x500x500");
  EXPECT_EQ(Shape::parse("7").count(), 7u);
  EXPECT_EQ(Shape::parse("2,3,4,5").count(), 120u);
}

TEST(Shape, RejectsBadDims) {
  for (const char* bad : {"", "x", "10x", "0x5", "5x0", "1x2x3x4x5", "a", "-3", "10x-2", "1e3", "99999999999999999999"}) {
    try {
      Shape::parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::invalid_argument) << bad;
    }
  }
}

TEST(Geometry, SqueezesUnitAxesAndFolds4D) {
  auto e = effective_extent(Shape::parse("1x1x100x200"));
  EXPECT_EQ(e.ndim, 2);
  EXPECT_EQ(e.ny, 100u);
  EXPECT_EQ(e.nx, 200u);
  e = effective_extent(Shape::parse("3x4x5x6"));
  EXPECT_EQ(e.ndim, 3);
  EXPECT_EQ(e.nz, 12u);
  e = effective_extent(Shape::parse("1x1x1"));
  EXPECT_EQ(e.ndim, 1);
  EXPECT_EQ(e.nx, 1u);
  e = effective_extent(Shape::parse("5x1x7"));
  EXPECT_EQ(e.ndim, 2);
  EXPECT_EQ(e.count(), 35u);
}
