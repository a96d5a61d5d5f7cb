// The `delta` pipeline through the public API: every fixture at three bounds with the bound
// checked on every point, NaN/Inf exact, and damaged streams refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

#include "support/test_data.hpp"

using namespace sciz;
namespace fs = std::filesystem;

namespace {

template <class T>
void expect_round_trip(const std::vector<T>& x, const Shape& s, ErrorBound eb, const std::string& what,
                       bool must_be_delta = false) {
  SCOPED_TRACE(what);
  CompressOptions o;
  o.eb = eb;
  o.pipeline = "delta";
  o.device = Device::cpu;
  const auto st = compress({x.data(), sizeof(T) == 4 ? DType::f32 : DType::f64, s}, o);
  const StreamInfo info = inspect(st);
  EXPECT_TRUE(info.pipeline == "delta" || (!must_be_delta && info.pipeline == "raw")) << info.pipeline;
  std::vector<T> y(x.size());
  decompress(st, y.data(), y.size() * sizeof(T), Device::cpu);
  EXPECT_EQ(test::check_bound(x, y, info.eb_abs), "");
}

}  // namespace

TEST(DeltaPipeline, FixturesAtThreeBounds) {
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

TEST(DeltaPipeline, SpecialValuesComeBackExactly) {
  const Shape s = Shape::parse("7x333");
  auto x = test::smooth_field<float>(s, 4);
  for (uint64_t i = 0; i < x.size(); i += 17) x[i] = std::numeric_limits<float>::quiet_NaN();
  for (uint64_t i = 5; i < x.size(); i += 101) x[i] = -std::numeric_limits<float>::infinity();
  x[100] = 1e30f, x[101] = -1e30f, x[102] = std::numeric_limits<float>::denorm_min(), x[103] = -0.0f;
  expect_round_trip(x, s, {EbMode::abs, 1e-3}, "NaN/Inf/huge/denormal");
  expect_round_trip(std::vector<double>(1000, 2.5), Shape::parse("1000"), {EbMode::rel, 1e-3}, "constant f64", true);
}

TEST(DeltaPipeline, CudaPathNeverReturnsWrongBytes) {
  // Until (and after) the CUDA twin exists, asking for it either works or throws: never a
  // silently wrong stream.
  const Shape s = Shape::parse("40x50");
  const auto x = test::smooth_field<float>(s, 6);
  CompressOptions o;
  o.eb = {EbMode::rel, 1e-3};
  o.pipeline = "delta";
  o.device = Device::cuda;
  try {
    const auto st = compress({x.data(), DType::f32, s}, o);
    std::vector<float> y(x.size());
    decompress(st, y.data(), y.size() * 4, Device::cpu);
    EXPECT_EQ(test::check_bound(x, y, inspect(st).eb_abs), "");
  } catch (const Error& e) {
    EXPECT_TRUE(e.status() == Status::no_device || e.status() == Status::unsupported) << e.what();
  }
}

TEST(DeltaPipeline, DamagedStreamsAreRefused) {
  const Shape s = Shape::parse("6x7x40");
  auto x = test::smooth_field<float>(s, 2);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  CompressOptions o;
  o.eb = {EbMode::rel, 1e-3};
  o.pipeline = "delta";
  o.device = Device::cpu;
  const auto st = compress({x.data(), DType::f32, s}, o);
  ASSERT_EQ(inspect(st).pipeline, "delta");
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

TEST(DeltaPipeline, ChainFollowsTheOptionAndTheRows) {
  // auto: serpentine on rows of <= 128 values (2-D+), linear on longer rows and on 1-D fields;
  // linear / serpentine when asked. Every stream decodes within the bound.
  struct Case {
    const char* dims;
    DeltaChain chain;
    const char* expect;  // start of the "chain" parameter as `sciz info` shows it
  };
  for (const Case& c : {Case{"60x50", DeltaChain::auto_select, "serpentine over rows of 50"},
                        Case{"4x30x128", DeltaChain::auto_select, "serpentine over rows of 128"},
                        Case{"20x129", DeltaChain::auto_select, "linear"},
                        Case{"3000", DeltaChain::auto_select, "linear"},
                        Case{"60x50", DeltaChain::linear, "linear"},
                        Case{"20x300", DeltaChain::serpentine, "serpentine over rows of 300"},
                        Case{"1x3000", DeltaChain::serpentine, "linear"},  // one row: nothing to serpentine
                        Case{"3000", DeltaChain::serpentine, "linear"}}) {
    SCOPED_TRACE(std::string(c.dims) + " " + delta_chain_name(c.chain));
    const Shape s = Shape::parse(c.dims);
    const auto x = test::smooth_field<float>(s, 8);
    CompressOptions o;
    o.eb = {EbMode::rel, 1e-3};
    o.pipeline = "delta";
    o.device = Device::cpu;
    o.delta_chain = c.chain;
    const auto st = compress({x.data(), DType::f32, s}, o);
    const StreamInfo info = inspect(st);
    ASSERT_EQ(info.pipeline, "delta");
    std::string chain;
    for (const auto& [k, v] : info.params)
      if (k == "chain") chain = v;
    EXPECT_EQ(chain.rfind(c.expect, 0), 0u) << chain;
    std::vector<float> y(x.size());
    decompress(st, y.data(), y.size() * 4, Device::cpu);
    EXPECT_EQ(test::check_bound(x, y, info.eb_abs), "");
  }
  EXPECT_EQ(parse_delta_chain("serpentine"), DeltaChain::serpentine);
  EXPECT_THROW(parse_delta_chain("zigzag"), Error);
}
