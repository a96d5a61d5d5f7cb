// The `szx` pipeline through the public API: every fixture at three bounds with the bound
// checked on every point, NaN/Inf exact, and damaged streams refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

#include "support/test_data.hpp"

using namespace sciz;
namespace fs = std::filesystem;

namespace {

template <class T>
void expect_round_trip(const std::vector<T>& x, const Shape& s, ErrorBound eb, const std::string& what) {
  SCOPED_TRACE(what);
  CompressOptions o;
  o.eb = eb;
  o.pipeline = "szx";
  o.device = Device::cpu;
  const auto st = compress({x.data(), sizeof(T) == 4 ? DType::f32 : DType::f64, s}, o);
  const StreamInfo info = inspect(st);
  EXPECT_TRUE(info.pipeline == "szx" || info.pipeline == "raw") << info.pipeline;
  std::vector<T> y(x.size());
  decompress(st, y.data(), y.size() * sizeof(T), Device::cpu);
  EXPECT_EQ(test::check_bound(x, y, info.eb_abs), "");
}

}  // namespace

TEST(SzxPipeline, FixturesAtThreeBounds) {
  for (const auto& ent : fs::directory_iterator(SCIZ_FIXTURES_DIR)) {
    const std::string name = ent.path().filename().string();
    const auto raw = test::read_file(ent.path());
    const std::string dims = name.substr(name.rfind('_') + 1, name.rfind('.') - name.rfind('_') - 1);
    const Shape s = Shape::parse(dims);
    for (double rel : {1e-2, 1e-3, 1e-4}) {
      if (ent.path().extension() == ".f64") {
        std::vector<double> x(s.count());
        ASSERT_EQ(raw.size(), x.size() * 8) << name;
        std::memcpy(x.data(), raw.data(), raw.size());
        expect_round_trip(x, s, {EbMode::rel, rel}, name + " rel " + std::to_string(rel));
      } else {
        std::vector<float> x(s.count());
        ASSERT_EQ(raw.size(), x.size() * 4) << name;
        std::memcpy(x.data(), raw.data(), raw.size());
        expect_round_trip(x, s, {EbMode::rel, rel}, name + " rel " + std::to_string(rel));
      }
    }
  }
}

TEST(SzxPipeline, SpecialValuesComeBackExactly) {
  const Shape s = Shape::parse("7x333");
  auto x = test::smooth_field<float>(s, 4);
  for (uint64_t i = 0; i < x.size(); i += 17) x[i] = std::numeric_limits<float>::quiet_NaN();
  for (uint64_t i = 5; i < x.size(); i += 101) x[i] = -std::numeric_limits<float>::infinity();
  x[100] = 1e30f, x[101] = -1e30f, x[102] = std::numeric_limits<float>::denorm_min();
  expect_round_trip(x, s, {EbMode::abs, 1e-3}, "NaN/Inf/huge/denormal");
  expect_round_trip(std::vector<double>(1000, 2.5), Shape::parse("1000"), {EbMode::rel, 1e-3}, "constant f64");
}

TEST(SzxPipeline, DamagedStreamsAreRefused) {
  const Shape s = Shape::parse("6x7x40");
  auto x = test::smooth_field<float>(s, 2);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  CompressOptions o;
  o.eb = {EbMode::rel, 1e-3};
  o.pipeline = "szx";
  o.device = Device::cpu;
  const auto st = compress({x.data(), DType::f32, s}, o);
  ASSERT_EQ(inspect(st).pipeline, "szx");
  std::vector<float> y(x.size());
  for (size_t len = 0; len < st.size(); len += 7) {
    const std::vector<uint8_t> cut(st.begin(), st.begin() + static_cast<std::ptrdiff_t>(len));
    EXPECT_THROW(decompress(cut, y.data(), y.size() * 4, Device::cpu), Error) << "truncated to " << len;
  }
  for (size_t byte = 0; byte < st.size(); byte += 3) {
    auto bad = st;
    bad[byte] ^= 0x08;
    EXPECT_THROW(decompress(bad, y.data(), y.size() * 4, Device::cpu), Error) << "flip at " << byte;
  }
}

TEST(SzxPipeline, BlockSizeOptionReachesTheStream) {
  const Shape s = Shape::parse("9x1001");
  const auto x = test::smooth_field<float>(s, 3);
  for (uint32_t block : {32u, 96u, 128u, 1024u, 4096u}) {
    SCOPED_TRACE(block);
    CompressOptions o;
    o.eb = {EbMode::rel, 1e-3};
    o.pipeline = "szx";
    o.device = Device::cpu;
    o.szx_block = block;
    const auto st = compress({x.data(), DType::f32, s}, o);
    const StreamInfo info = inspect(st);
    ASSERT_EQ(info.pipeline, "szx");
    ASSERT_EQ(info.params.size(), 2u);
    EXPECT_EQ(info.params[0], std::make_pair(std::string("block"), std::to_string(block)));
    EXPECT_EQ(info.params[1].first, "layout");
    EXPECT_EQ(info.params[1].second.substr(0, 2), "2 ");
    std::vector<float> y(x.size());
    decompress(st, y.data(), y.size() * 4, Device::cpu);
    EXPECT_EQ(test::check_bound(x, y, info.eb_abs), "");
  }
  for (uint32_t bad : {0u, 16u, 100u, 4128u}) {
    CompressOptions o;
    o.eb = {EbMode::rel, 1e-3};
    o.pipeline = "szx";
    o.device = Device::cpu;
    o.szx_block = bad;
    try {
      compress({x.data(), DType::f32, s}, o);
      ADD_FAILURE() << "block " << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::invalid_argument) << bad;
      EXPECT_NE(std::string(e.what()).find("block size " + std::to_string(bad)), std::string::npos) << e.what();
    }
  }
}
