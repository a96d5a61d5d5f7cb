// The `interp` pipelines (`interp`, `interp-cr`, `interp-tp`) through the public API: round
// trips over dtype x dims (1-4-D) x awkward sizes x bounds (abs and rel, loose to below the
// data's ulp) with every point checked and NaN/Inf bit-exact, for each name; the NaN-masked ocean cut; the tuner's choices recorded in params and
// honoured by the decoder; the Lorenzo fallback; chunked streams; thread counts; damaged
// streams and hostile params or sections (valid checksums, wrong contents) refused as
// corrupt_stream, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

#include "core/container.hpp"
#include "support/shared_fields.hpp"
#include "support/test_data.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

using namespace sciz;
namespace fs = std::filesystem;

namespace {

template <class T>
constexpr DType dtype_of() {
  return sizeof(T) == 4 ? DType::f32 : DType::f64;
}

CompressOptions interp_options(ErrorBound eb, bool lorenzo = false, const std::string& pipeline = "interp") {
  CompressOptions o;
  o.eb = eb;
  o.pipeline = pipeline;
  o.device = Device::cpu;
  o.interp_lorenzo = lorenzo;
  return o;
}

std::string param(const StreamInfo& info, const std::string& key) {
  for (const auto& [k, v] : info.params)
    if (k == key) return v;
  return "";
}

template <class T>
std::vector<uint8_t> expect_round_trip(const std::vector<T>& x, const Shape& s, const CompressOptions& o,
                                       const std::string& what) {
  SCOPED_TRACE(what);
  auto st = compress({x.data(), dtype_of<T>(), s}, o);
  const StreamInfo info = inspect(st);
  EXPECT_EQ(info.pipeline, o.pipeline);
  for (const auto& c : info.chunks) EXPECT_TRUE(c.pipeline == o.pipeline || c.pipeline == "raw") << c.pipeline;
  std::vector<T> y(x.size());
  decompress(st, y.data(), y.size() * sizeof(T), Device::cpu);
  EXPECT_EQ(test::check_bound(x, y, info.eb_abs), "");
  return st;
}

const std::vector<std::string>& shapes() {
  static const std::vector<std::string> v = {"1",        "2",          "16",        "17",      "18",       "1031",
                                             "4099",     "1x17",       "2x131",     "16x16",   "17x17",    "18x33",
                                             "47x5",     "2x2x2",      "17x17x17",  "18x5x19", "13x31x7",  "33x3x40",
                                             "2x3x17x19", "3x1x18x16", "2x2x2x2",   "5x1x1x7"};
  return v;
}

// The three pipeline names, one ctest entry each.
class InterpNames : public ::testing::TestWithParam<std::string> {};

std::string test_name(const ::testing::TestParamInfo<std::string>& p) {
  std::string n = p.param;
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Names, InterpNames, ::testing::Values("interp", "interp-cr", "interp-tp"), test_name);

TEST_P(InterpNames, RoundTripsOverTypesDimsSizesAndBounds) {
  const std::string name = GetParam();
  for (const std::string& sh : shapes()) {
    const Shape s = Shape::parse(sh);
    auto xf = test::smooth_field<float>(s, 5);
    auto xd = test::smooth_field<double>(s, 6);
    std::mt19937 rng(7);
    std::normal_distribution<double> g(0, 1);
    for (size_t i = 0; i < xf.size(); ++i) xf[i] += static_cast<float>(0.3 * g(rng)), xd[i] += 0.3 * g(rng);
    for (ErrorBound eb : {ErrorBound{EbMode::abs, 5.0}, ErrorBound{EbMode::rel, 1e-2}, ErrorBound{EbMode::rel, 1e-4},
                          ErrorBound{EbMode::abs, 1e-9}}) {
      const std::string what = sh + (eb.mode == EbMode::abs ? " abs " : " rel ") + std::to_string(eb.value);
      expect_round_trip(xf, s, interp_options(eb, false, name), what + " f32");
      expect_round_trip(xd, s, interp_options(eb, false, name), what + " f64");
      expect_round_trip(xf, s, interp_options(eb, true, name), what + " f32, Lorenzo fallback allowed");
    }
  }
}

TEST_P(InterpNames, SpecialValuesComeBackExactly) {
  const std::string name = GetParam();
  for (const std::string& sh : {std::string("7x333"), std::string("20011"), std::string("9x10x11")}) {
    const Shape s = Shape::parse(sh);
    auto x = test::smooth_field<float>(s, 4);
    const auto sv = test::special_values_1d<float>(x.size(), 8);
    for (size_t i = 0; i < x.size(); ++i)
      if (!std::isfinite(sv[i])) x[i] = sv[i];
    x[100] = 1e30f, x[101] = -1e30f, x[102] = std::numeric_limits<float>::denorm_min(), x[103] = -0.0f;
    x[104] = std::numeric_limits<float>::max(), x[105] = -std::numeric_limits<float>::max();
    for (double rel : {1e-2, 1e-5}) {
      expect_round_trip(x, s, interp_options({EbMode::rel, rel}, false, name), sh + " special values");
      expect_round_trip(x, s, interp_options({EbMode::rel, rel}, true, name), sh + " special values, fallback allowed");
    }
    std::vector<double> c(s.count(), 2.5);
    expect_round_trip(c, s, interp_options({EbMode::rel, 1e-3}, false, name), sh + " constant");
    std::vector<double> nans(s.count(), std::numeric_limits<double>::quiet_NaN());
    expect_round_trip(nans, s, interp_options({EbMode::rel, 1e-3}, false, name), sh + " all NaN");
  }
}

TEST(InterpPipeline, NanMaskedOceanCut) {
  const fs::path p = fs::path(SCIZ_FIXTURES_DIR) / "ocean_nanland_cut_1x4x45x90.f32";
  const auto raw = test::read_file(p);
  const Shape s = Shape::parse("1x4x45x90");
  std::vector<float> x(s.count());
  ASSERT_EQ(raw.size(), x.size() * 4);
  std::memcpy(x.data(), raw.data(), raw.size());
  uint64_t nan = 0;
  for (float v : x) nan += std::isnan(v);
  ASSERT_GT(nan, x.size() / 10);
  for (double rel : {1e-2, 1e-3, 1e-4}) {
    const auto st = expect_round_trip(x, s, interp_options({EbMode::rel, rel}), "ocean cut rel " + std::to_string(rel));
    // The land mask is a few runs and does not spread into the sea: the stream stays well below
    // the finite values' raw size (a cascade of exact storage along the coast would not).
    EXPECT_LT(st.size(), (x.size() - nan) * 4 / 2) << "rel " << rel;
  }
}

TEST(InterpPipeline, ForcedChoicesAreRecordedAndHonoured) {
  const Shape s = Shape::parse("20x30x40");
  const auto x = test::smooth_field<float>(s, 11);
  for (auto [spline, scheme, name] :
       {std::tuple{InterpSpline::linear, InterpScheme::dim_zyx, "linear/zyx"},
        std::tuple{InterpSpline::cubic, InterpScheme::dim_xyz, "cubic/xyz"},
        std::tuple{InterpSpline::cubic, InterpScheme::multi_dim, "cubic/md"},
        std::tuple{InterpSpline::linear, InterpScheme::cross, "linear/cross"}}) {
    CompressOptions o = interp_options({EbMode::rel, 1e-3});
    o.interp_spline = spline;
    o.interp_scheme = scheme;
    o.interp_alpha = 1.5;
    o.interp_beta = 3;
    const auto st = expect_round_trip(x, s, o, name);
    const StreamInfo info = inspect(st);
    EXPECT_EQ(param(info, "predictor"), "interpolation");
    const std::string cfg = param(info, "level configs");
    size_t at = 0, count = 0;
    while ((at = cfg.find(name, at)) != std::string::npos) ++count, at += 1;
    EXPECT_EQ(count, std::stoul(param(info, "levels")) - 1) << cfg;
    EXPECT_EQ(param(info, "level bounds"), "alpha 1.5, beta 3");
  }
}

namespace {

// Rewrites chunk 0 of a stream through f(params, sections) and writes it again with valid
// checksums: what a hostile (not merely damaged) stream looks like.
template <class F>
std::vector<uint8_t> rewrite(const std::vector<uint8_t>& st, F&& f) {
  ParsedStream ps = read_stream(st);
  std::vector<ChunkOut> chunks;
  for (size_t i = 0; i < ps.chunks.size(); ++i) {
    ChunkOut c;
    c.pipeline = ps.chunks[i].header.pipeline;
    c.params = ps.chunks[i].header.params;
    for (const auto& sv : ps.chunks[i].sections) c.sections.push_back({sv.id, {sv.bytes.begin(), sv.bytes.end()}});
    if (i == 0) f(c.params, c.sections);
    chunks.push_back(std::move(c));
  }
  return write_stream(ps.header, ps.plan, chunks);
}

template <class T>
Status decode_status(const std::vector<uint8_t>& st, uint64_t n, std::vector<T>* out = nullptr) {
  std::vector<T> y(n);
  try {
    decompress(st, y.data(), y.size() * sizeof(T), Device::cpu);
  } catch (const Error& e) {
    return e.status();
  }
  if (out) *out = y;
  return Status::ok;
}

// Interp params (layout 2): layout, predictor, L, f32 alpha, f32 beta, L configs, L f64 bounds,
// then the stage list (count, code width, ids).
constexpr size_t kConfigAt = 11;
size_t list_at(const std::vector<uint8_t>& p) { return kConfigAt + 9 * size_t{p[2]}; }
void set_list(std::vector<uint8_t>& p, std::vector<uint8_t> list) {
  p.resize(list_at(p));
  p.insert(p.end(), list.begin(), list.end());
}

std::vector<uint8_t>& section(std::vector<SectionIn>& s, uint32_t id) {
  for (auto& x : s)
    if (x.id == id) return x.bytes;
  throw std::runtime_error("no section " + std::to_string(id));
}

}  // namespace

TEST(InterpPipeline, DecoderFollowsTheParamsNotItsOwnTuning) {
  const Shape s = Shape::parse("20x30x40");
  const auto x = test::smooth_field<float>(s, 11);
  CompressOptions o = interp_options({EbMode::rel, 1e-3});
  o.interp_spline = InterpSpline::cubic;
  o.interp_scheme = InterpScheme::multi_dim;
  o.interp_alpha = 1;
  const auto st = compress({x.data(), DType::f32, s}, o);
  std::vector<float> y;
  ASSERT_EQ(decode_status<float>(st, x.size(), &y), Status::ok);
  // The same codes read with every level switched to linear/zyx decode to other values: the
  // decoder reconstructs with what the params say.
  const auto other = rewrite(st, [](std::vector<uint8_t>& p, std::vector<SectionIn>&) {
    const int levels = p[2];
    for (int l = 0; l < levels; ++l) p[kConfigAt + l] = 0;
  });
  std::vector<float> z;
  ASSERT_EQ(decode_status<float>(other, x.size(), &z), Status::ok);
  EXPECT_NE(std::memcmp(y.data(), z.data(), y.size() * 4), 0);
}

TEST(InterpPipeline, LorenzoFallbackOnRoughAxes) {
  // A rough profile along x that moves as a whole along y (particles, or a time axis): first-
  // order Lorenzo codes it with zero residuals, interpolation along x cannot.
  const Shape s = Shape::parse("64x3000");
  std::vector<float> x(s.count());
  std::mt19937 rng(3);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> walk(3000);
  double w = 0;
  for (auto& v : walk) v = (w += g(rng));
  for (uint64_t t = 0; t < 64; ++t)
    for (uint64_t a = 0; a < 3000; ++a) x[t * 3000 + a] = static_cast<float>(walk[a] + 0.37 * t);
  const auto with = expect_round_trip(x, s, interp_options({EbMode::rel, 1e-4}, true), "fallback on");
  const auto without = expect_round_trip(x, s, interp_options({EbMode::rel, 1e-4}, false), "fallback off");
  EXPECT_EQ(param(inspect(with), "predictor").rfind("lorenzo", 0), 0u) << param(inspect(with), "predictor");
  EXPECT_EQ(param(inspect(without), "predictor"), "interpolation");
  EXPECT_LT(with.size(), without.size());
}

TEST(InterpPipeline, ChunkedStreamsDecodeWholeAndBySlice) {
  const Shape s = Shape::parse("70x33x21");
  auto x = test::smooth_field<double>(s, 12);
  x[5] = std::numeric_limits<double>::infinity();
  CompressOptions o = interp_options({EbMode::rel, 1e-3}, true);
  o.chunk_mb = 0.06;  // chunks of a few rows
  const auto st = expect_round_trip(x, s, o, "chunked");
  const StreamInfo info = inspect(st);
  ASSERT_GT(info.chunks.size(), 2u);
  const uint64_t row = 33 * 21;
  std::vector<double> part(10 * row);
  decompress_rows(st, 30, 40, part.data(), part.size() * 8, Device::cpu);
  std::vector<double> ref(x.begin() + 30 * row, x.begin() + 40 * row);
  EXPECT_EQ(test::check_bound(ref, part, info.eb_abs), "");
}

TEST_P(InterpNames, ThreadCountDoesNotChangeTheStream) {
#if defined(_OPENMP)
  const Shape s = Shape::parse("40x50x60");
  auto x = test::smooth_field<float>(s, 13);
  for (size_t i = 0; i < x.size(); i += 101) x[i] = std::numeric_limits<float>::quiet_NaN();
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  const CompressOptions o = interp_options({EbMode::rel, 1e-3}, true, GetParam());
  const auto a = compress({x.data(), DType::f32, s}, o);
  omp_set_num_threads(2);
  const auto b = compress({x.data(), DType::f32, s}, o);
  omp_set_num_threads(5);
  const auto c = compress({x.data(), DType::f32, s}, o);
  omp_set_num_threads(before);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

TEST_P(InterpNames, DamagedStreamsAreRefused) {
  const Shape s = Shape::parse("9x10x11");
  auto x = test::smooth_field<float>(s, 14);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[200] = 1e6f;  // an outlier or an exact value: every section non-empty
  const auto st = compress({x.data(), DType::f32, s}, interp_options({EbMode::rel, 1e-3}, false, GetParam()));
  ASSERT_EQ(decode_status<float>(st, x.size()), Status::ok);
  for (size_t len = 0; len < st.size(); len += 7) {
    std::vector<uint8_t> cut(st.begin(), st.begin() + len);
    ASSERT_EQ(decode_status<float>(cut, x.size()), Status::corrupt_stream) << "length " << len;
  }
  for (size_t byte = 0; byte < st.size(); byte += 3) {
    auto bad = st;
    bad[byte] ^= 0x10;
    ASSERT_NE(decode_status<float>(bad, x.size()), Status::ok) << "flip at byte " << byte;
  }
}

TEST_P(InterpNames, HostileParamsAndSectionsAreRefused) {
  const Shape s = Shape::parse("9x10x11");
  auto x = test::smooth_field<float>(s, 14);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[200] = 1e6f;
  x[201] = -3e4f;
  const auto st = compress({x.data(), DType::f32, s}, interp_options({EbMode::rel, 1e-3}, false, GetParam()));
  ASSERT_EQ(inspect(st).chunks[0].pipeline, GetParam());
  ASSERT_EQ(decode_status<float>(st, x.size()), Status::ok);
  using Edit = std::function<void(std::vector<uint8_t>&, std::vector<SectionIn>&)>;
  const std::vector<std::pair<std::string, Edit>> edits = {
      {"predictor 7", [](auto& p, auto&) { p[1] = 7; }},
      {"level count", [](auto& p, auto&) { p[2] += 1; }},
      {"config", [](auto& p, auto&) { p[kConfigAt] = 0x55; }},
      {"negative bound", [](auto& p, auto&) { const double v = -1; std::memcpy(&p[list_at(p) - 8], &v, 8); }},
      {"NaN bound", [](auto& p, auto&) { const double v = NAN; std::memcpy(&p[list_at(p) - 8], &v, 8); }},
      {"bound above the stream's", [](auto& p, auto&) { const double v = 1e30; std::memcpy(&p[list_at(p) - 8], &v, 8); }},
      {"extra params", [](auto& p, auto&) { p.push_back(0); }},
      {"short params", [](auto& p, auto&) { p.pop_back(); }},
      {"no stage list", [](auto& p, auto&) { p.resize(list_at(p)); }},
      {"stage list of 0 stages", [](auto& p, auto&) { p[list_at(p)] = 0; }},
      {"stage list of 9 stages", [](auto& p, auto&) { set_list(p, {9, 1, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30}); }},
      {"stage list of 2-byte codes", [](auto& p, auto&) { p[list_at(p) + 1] = 2; }},
      {"stage id 0x99", [](auto& p, auto&) { p[list_at(p) + 2] = 0x99; }},
      {"codes stage second", [](auto& p, auto&) { set_list(p, {2, 1, 0x40, 0x02}); }},
      {"another list: interp-tp", [](auto& p, auto&) { set_list(p, {3, 1, 0x10, 0x20, 0x30}); }},
      {"another list: interp-cr", [](auto& p, auto&) { set_list(p, {4, 1, 0x02, 0x32, 0x13, 0x40}); }},
      {"another list: bitpack", [](auto& p, auto&) { set_list(p, {1, 1, 0x01}); }},
      {"codes blob", [](auto&, auto& sec) { section(sec, 1)[0] ^= 0x5a; }},
      {"codes truncated", [](auto&, auto& sec) { section(sec, 1).resize(section(sec, 1).size() / 2); }},
      {"codes empty", [](auto&, auto& sec) { section(sec, 1).clear(); }},
      {"outlier count", [](auto&, auto& sec) { section(sec, 2)[0] += 1; }},
      {"outlier word too long", [](auto&, auto& sec) {
         auto& o = section(sec, 2);
         o.resize(8);
         const uint64_t one = 1;
         std::memcpy(o.data(), &one, 8);
         for (int i = 0; i < 6; ++i) o.push_back(0xff);
         o.push_back(0x01);
       }},
      {"outliers missing", [](auto&, auto& sec) {
         auto& o = section(sec, 2);
         o.assign(8, 0);
       }},
      {"exact count", [](auto&, auto& sec) { section(sec, 3)[0] += 1; }},
      {"exact moved onto a coded point", [](auto&, auto& sec) {
         auto& e = section(sec, 3);
         // First run's gap (after the 24-byte header and the palette of mode 1): shift it by one.
         const size_t at = e[16] == 1 ? 24 + (e[17] + 1) * 4 : 24;
         e[at] = static_cast<uint8_t>(e[at] + 1);
       }},
      {"exact section gone", [](auto&, auto& sec) { sec.erase(sec.begin() + 2); }},
  };
  const std::vector<uint8_t> params = read_stream(st).chunks[0].header.params;
  for (const auto& [name, edit] : edits) {
    if (name.rfind("another list", 0) == 0) {  // only a list the stream was not written with
      std::vector<uint8_t> p = params;
      std::vector<SectionIn> none;
      edit(p, none);
      if (p == params) continue;
    }
    const auto bad = rewrite(st, edit);
    const Status got = decode_status<float>(bad, x.size());
    EXPECT_TRUE(got == Status::corrupt_stream || got == Status::unsupported) << name << ": status " << static_cast<int>(got);
  }
  // An unknown params layout is a newer format, not damage.
  EXPECT_EQ(decode_status<float>(rewrite(st, [](auto& p, auto&) { p[0] = 3; }), x.size()), Status::unsupported);
  // Layout 1, the interp branch's draft that no release wrote, is not read either.
  EXPECT_EQ(decode_status<float>(rewrite(st, [](auto& p, auto&) { p[0] = 1; }), x.size()), Status::unsupported);
}

// interp at three bounds; its presets, which differ only in the codes' stage list, at one.
TEST_P(InterpNames, SharedDataEveryField) {
  const auto dir = test::shared_data_dir();
  if (!dir) GTEST_SKIP() << "../shared/data absent (fresh clone): extended test skipped";
  const std::vector<double> bounds =
      GetParam() == "interp" ? std::vector<double>{1e-2, 1e-3, 1e-4} : std::vector<double>{1e-3};
  test::for_each_real_field(*dir, [&](const test::RealField& f, const auto& x) {
    for (double rel : bounds) {
      CompressOptions o = interp_options({EbMode::rel, rel}, true, GetParam());
      const auto st = compress({x.data(), f.dtype, f.shape}, o);
      using T = typename std::decay_t<decltype(x)>::value_type;
      std::vector<T> y(x.size());
      decompress(st, y.data(), y.size() * sizeof(T), Device::cpu);
      EXPECT_EQ(test::check_bound(x, y, inspect(st).eb_abs), "") << f.name << " rel " << rel;
    }
  });
}
