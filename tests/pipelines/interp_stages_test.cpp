// Interp's codes section through stage lists (format 5): every stage alone and random lists
// round-trip and are recorded; the presets record their lists and refuse others; `interp`
// keeps, per chunk, the smallest of its candidates (tie to the earlier), which is exactly the
// stream that list gives when named; a chunk that falls back to Lorenzo carries the list too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

#include "core/container.hpp"
#include "lossless/stages/registry.hpp"
#include "pipelines/interp_codes.hpp"
#include "support/test_data.hpp"

using namespace sciz;
using stages::Chain;
using stages::StageId;

namespace {

std::string param(const StreamInfo& info, const std::string& key) {
  for (const auto& [k, v] : info.params)
    if (k == key) return v;
  return "";
}

template <class T>
std::vector<T> fixture(const char* file) {
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / file);
  std::vector<T> x(raw.size() / sizeof(T));
  std::memcpy(x.data(), raw.data(), x.size() * sizeof(T));
  return x;
}

// A smooth field with noise, NaN, Inf and a few spikes (outliers and exact values).
std::vector<float> awkward_field(const Shape& s) {
  auto x = test::smooth_field<float>(s, 21);
  std::mt19937 rng(5);
  std::normal_distribution<double> g(0, 0.05);
  for (auto& v : x) v += static_cast<float>(g(rng));
  x[1] = std::numeric_limits<float>::quiet_NaN();
  x[x.size() / 2] = std::numeric_limits<float>::infinity();
  x[x.size() / 3] = 1e5f;
  x[x.size() - 2] = -std::numeric_limits<float>::infinity();
  return x;
}

CompressOptions options(const std::string& pipeline, const std::string& list, ErrorBound eb = {EbMode::rel, 1e-3}) {
  CompressOptions o;
  o.eb = eb;
  o.pipeline = pipeline;
  o.device = Device::cpu;
  o.stages = list;
  return o;
}

// Compresses, checks the list recorded (`want`, unless empty; lorenzo's 2-byte codes in a chunk
// that fell back to Lorenzo) and every point; returns the stream.
template <class T>
std::vector<uint8_t> round_trip(const std::vector<T>& x, const Shape& s, const CompressOptions& o,
                                const std::string& want) {
  SCOPED_TRACE(o.pipeline + " stages '" + o.stages + "' on " + s.str());
  const auto st = compress({x.data(), sizeof(T) == 4 ? DType::f32 : DType::f64, s}, o);
  const StreamInfo info = inspect(st);
  EXPECT_EQ(info.version, 5);
  EXPECT_EQ(info.chunks[0].pipeline, o.pipeline);
  const bool lorenzo = param(info, "predictor").rfind("lorenzo", 0) == 0;
  if (!want.empty()) EXPECT_EQ(param(info, "stages"), want + (lorenzo ? " (2-byte codes)" : " (1-byte codes)"));
  std::vector<T> y(x.size());
  decompress(st, y.data(), y.size() * sizeof(T), Device::cpu);
  EXPECT_EQ(test::check_bound(x, y, info.eb_abs), "");
  return st;
}

Status compress_status(const CompressOptions& o) {
  const Shape s = Shape::parse("20x30");
  const auto x = test::smooth_field<float>(s, 1);
  try {
    compress({x.data(), DType::f32, s}, o);
  } catch (const Error& e) {
    return e.status();
  }
  return Status::ok;
}

}  // namespace

TEST(InterpStages, EveryStageAloneRoundTrips) {
  const Shape s = Shape::parse("23x37x19");
  const auto x = awkward_field(s);
  std::vector<double> xd(x.begin(), x.end());
  for (StageId id : stages::all_stages()) {
    const std::string name = stages::stage_name(id);
    round_trip(x, s, options("interp", name), name);
    round_trip(xd, s, options("interp", name, {EbMode::abs, 1e-4}), name);
  }
}

TEST(InterpStages, RandomListsRoundTrip) {
  std::vector<StageId> codes, bytes;
  for (StageId id : stages::all_stages()) (stages::family_of(id) == stages::Family::codes ? codes : bytes).push_back(id);
  std::mt19937 rng(11);
  for (const char* sh : {"4099", "61x67", "9x10x35", "2x3x17x19"}) {
    const Shape s = Shape::parse(sh);
    const auto x = awkward_field(s);
    for (int k = 0; k < 6; ++k) {
      Chain c;
      const size_t len = 1 + rng() % stages::kMaxChain;
      if (rng() % 2) c.push_back(codes[rng() % codes.size()]);
      while (c.size() < len) c.push_back(bytes[rng() % bytes.size()]);
      const std::string list = stages::chain_name(c);
      round_trip(x, s, options("interp", list), list);
    }
  }
}

TEST(InterpStages, PresetsRecordTheirListsAndRefuseOthers) {
  const Shape s = Shape::parse("31x29x17");
  const auto x = awkward_field(s);
  round_trip(x, s, options("interp-cr", ""), "huffman,rre4,tcms8,rze1");
  round_trip(x, s, options("interp-tp", ""), "tcms1,bit1,rre1");
  // Naming a preset's own list is no conflict; under `interp` the same list writes the same
  // chunk (params and sections), the pipeline's name aside.
  const auto cr = compress({x.data(), DType::f32, s}, options("interp-cr", ""));
  EXPECT_EQ(round_trip(x, s, options("interp-cr", "huffman,rre4,tcms8,rze1"), "huffman,rre4,tcms8,rze1"), cr);
  const auto listed = round_trip(x, s, options("interp", "interp-cr"), "huffman,rre4,tcms8,rze1");
  const ParsedStream a = read_stream(cr), b = read_stream(listed);
  ASSERT_EQ(a.chunks.size(), 1u);
  ASSERT_EQ(b.chunks.size(), 1u);
  EXPECT_EQ(a.chunks[0].header.params, b.chunks[0].header.params);
  ASSERT_EQ(a.chunks[0].sections.size(), b.chunks[0].sections.size());
  for (size_t i = 0; i < a.chunks[0].sections.size(); ++i)
    EXPECT_TRUE(std::equal(a.chunks[0].sections[i].bytes.begin(), a.chunks[0].sections[i].bytes.end(),
                           b.chunks[0].sections[i].bytes.begin(), b.chunks[0].sections[i].bytes.end()))
        << "section " << i;

  EXPECT_EQ(compress_status(options("interp-cr", "interp-tp")), Status::invalid_argument);
  EXPECT_EQ(compress_status(options("interp-tp", "huffman")), Status::invalid_argument);
  CompressOptions lossless = options("interp-cr", "");
  lossless.lossless = Lossless::huffman;
  EXPECT_EQ(compress_status(lossless), Status::invalid_argument);
  lossless.pipeline = "interp";
  lossless.stages = "rre1";
  EXPECT_EQ(compress_status(lossless), Status::invalid_argument);  // a list and a lossless stage
  EXPECT_EQ(compress_status(options("interp", "rre1,huffman")), Status::invalid_argument);
  EXPECT_EQ(compress_status(options("interp", "zstd")), Status::invalid_argument);
  // A lossless stage alone is the list of that stage.
  lossless.stages.clear();
  lossless.lossless = Lossless::bitpack;
  EXPECT_EQ(param(inspect(round_trip(x, s, lossless, "bitpack")), "stages"), "bitpack (1-byte codes)");
}

TEST(InterpStages, AutoKeepsTheSmallestCandidate) {
  struct Case {
    const char* fixture;
    const char* dims;
    bool f64;
  };
  const Case cases[] = {{"isabel_cut_20x50x50.f32", "20x50x50", false},
                        {"etopo_cut_101x201.f32", "101x201", false},
                        {"s3d_chi_cut_25x25x25.f32", "25x25x25", false},
                        {"ocean_nanland_cut_1x4x45x90.f32", "1x4x45x90", false},
                        {"cosmo_halo_x_32314.f32", "32314", false},
                        {"mpas_pressure_cut_20011.f64", "20011", true}};
  int not_first = 0;
  for (const Case& c : cases) {
    const Shape s = Shape::parse(c.dims);
    for (double rel : {1e-2, 1e-4}) {
      SCOPED_TRACE(std::string(c.fixture) + " rel " + std::to_string(rel));
      // Tightening and the Lorenzo fallback off: the tuner sizes its samples under the list it
      // is given, so only with both fixed are the codes the same under every list.
      auto opts = [&](const std::string& list) {
        CompressOptions o = options("interp", list, {EbMode::rel, rel});
        o.interp_alpha = 1;
        o.interp_lorenzo = false;
        return o;
      };
      // The codes section's size: the stream's can hide a byte of it in the container's padding.
      auto run = [&](const std::string& list, std::vector<uint8_t>* stream = nullptr) {
        std::vector<uint8_t> st;
        if (c.f64) {
          const auto x = fixture<double>(c.fixture);
          st = compress({x.data(), DType::f64, s}, opts(list));
        } else {
          const auto x = fixture<float>(c.fixture);
          st = compress({x.data(), DType::f32, s}, opts(list));
        }
        uint64_t codes = 0;
        const ParsedStream ps = read_stream(st);
        for (const auto& sec : ps.chunks.at(0).sections)
          if (sec.id == 1) codes = sec.bytes.size();
        if (stream) *stream = std::move(st);
        return codes;
      };
      std::vector<uint8_t> st;
      const uint64_t size = run("", &st);
      std::string chosen = param(inspect(st), "stages");
      ASSERT_GT(chosen.size(), 15u);
      chosen.resize(chosen.size() - std::string(" (1-byte codes)").size());
      const StageId best = stages::parse_chain(chosen)[0];
      const auto cand = interp_codes::auto_candidates(best);
      bool seen = false;
      for (size_t i = 0; i < cand.size(); ++i) {
        const std::string list = stages::chain_name(cand[i]);
        std::vector<uint8_t> other;
        const uint64_t other_size = run(list, &other);
        if (list == chosen) {
          seen = true;
          not_first += i > 0;
          EXPECT_EQ(other, st) << "auto's stream differs from its list named";
        } else {
          // Earlier candidates are strictly larger (ties go to the earlier), later ones no smaller.
          if (!seen) EXPECT_GT(other_size, size) << list;
          else EXPECT_GE(other_size, size) << list;
        }
      }
      EXPECT_TRUE(seen) << chosen << " is no candidate";
    }
  }
  EXPECT_GT(not_first, 0) << "no case kept a byte stage: the candidates beyond the codes stage are untested";
}

TEST(InterpStages, LorenzoFallbackChunksCarryTheList) {
  // A rough integer profile moving as a whole, at a bound of 0.5: every Lorenzo residual off the
  // first row and column is 0, which interpolation along the profile cannot approach under any
  // list, so every pipeline falls back.
  const Shape s = Shape::parse("64x3000");
  std::vector<float> x(s.count());
  std::mt19937 rng(3);
  std::vector<int> walk(3000);
  int w = 0;
  for (auto& v : walk) v = (w += static_cast<int>(rng() % 201) - 100);
  for (uint64_t t = 0; t < 64; ++t)
    for (uint64_t a = 0; a < 3000; ++a) x[t * 3000 + a] = static_cast<float>(walk[a] + 3 * static_cast<int>(t));
  for (const auto& [pipeline, list] : {std::pair{"interp-tp", "tcms1,bit1,rre1"},
                                       std::pair{"interp-cr", "huffman,rre4,tcms8,rze1"},
                                       std::pair{"interp", "zrle+huffman,rze2"}}) {
    CompressOptions o = options(pipeline, pipeline == std::string("interp") ? list : "", {EbMode::abs, 0.5});
    const auto st = compress({x.data(), DType::f32, s}, o);
    const StreamInfo info = inspect(st);
    EXPECT_EQ(param(info, "predictor").rfind("lorenzo", 0), 0u) << pipeline;
    EXPECT_EQ(param(info, "stages"), std::string(list) + " (2-byte codes)") << pipeline;
    std::vector<float> y(x.size());
    decompress(st, y.data(), y.size() * 4, Device::cpu);
    EXPECT_EQ(test::check_bound(x, y, info.eb_abs), "") << pipeline;
  }
}
