// Property tests: every dtype x dims x bound x awkward size, smooth and random data, with the
// bound checked on every point. Sizes straddle the tile shapes (2048; 32x32; 8x8x32).
#include <gtest/gtest.h>

#include "support/test_data.hpp"

using namespace sciz;

namespace {

const char* kShapes[] = {"1",        "2",       "2047",    "2049",  "4099",   "1x1",     "2x3",
                         "31x33",    "33x31",   "97x13",   "7x9x31", "9x7x33", "8x8x32",  "17x5x3",
                         "3x5x7x11", "2x1x9x33", "1x1x1x5"};

struct Bound {
  EbMode mode;
  double value;
};
const Bound kBounds[] = {{EbMode::abs, 1.0}, {EbMode::abs, 1e-3}, {EbMode::rel, 1e-2}, {EbMode::rel, 1e-4}, {EbMode::rel, 1e-7}};

template <class T>
void roundtrip_all(bool smooth) {
  for (const char* sh : kShapes) {
    const Shape s = Shape::parse(sh);
    auto x = smooth ? test::smooth_field<T>(s, 7) : test::random_field<T>(s.count(), 11, 100.0);
    for (const auto& b : kBounds) {
      SCOPED_TRACE(std::string(sh) + (b.mode == EbMode::abs ? " abs " : " rel ") + std::to_string(b.value));
      CompressOptions o;
      o.eb = {b.mode, b.value};
      o.device = Device::cpu;
      const DType dt = sizeof(T) == 4 ? DType::f32 : DType::f64;
      auto st = compress({x.data(), dt, s}, o);
      EXPECT_LE(st.size(), max_compressed_size(dt, s));
      const StreamInfo info = inspect(st);
      std::vector<T> y(x.size());
      decompress(st, y.data(), y.size() * sizeof(T), Device::cpu);
      ASSERT_EQ(test::check_bound(x, y, info.eb_abs), "");
    }
  }
}

}  // namespace

TEST(LorenzoProperty, SmoothF32) { roundtrip_all<float>(true); }
TEST(LorenzoProperty, SmoothF64) { roundtrip_all<double>(true); }
TEST(LorenzoProperty, RandomF32) { roundtrip_all<float>(false); }
TEST(LorenzoProperty, RandomF64) { roundtrip_all<double>(false); }

TEST(LorenzoProperty, RadiusExtremes) {
  const Shape s = Shape::parse("40x50");
  auto x = test::random_field<float>(s.count(), 5, 10.0);
  for (int radius : {1, 2, 512, 32768}) {
    CompressOptions o;
    o.eb = {EbMode::abs, 0.01};
    o.device = Device::cpu;
    o.radius = radius;
    auto st = compress({x.data(), DType::f32, s}, o);
    std::vector<float> y(x.size());
    decompress(st, y.data(), y.size() * 4, Device::cpu);
    EXPECT_EQ(test::check_bound(x, y, 0.01), "") << "radius " << radius;
  }
  CompressOptions o;
  o.device = Device::cpu;
  for (int bad : {0, -1, 32769}) {
    o.radius = bad;
    EXPECT_THROW(compress({x.data(), DType::f32, s}, o), Error) << bad;
  }
}
