// Golden streams: streams written by a released format version must decode forever, to the
// same bits. Each golden is decoded and its output digest compared with the recorded one;
// goldens of the current version are also re-compressed from the fixture, to catch silent
// encoder changes within a version.
// Regenerate (only when adding a new golden): SCIZ_WRITE_GOLDEN=1 ./sciz_tests --gtest_filter=Golden.*
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "core/checksum.hpp"
#include "core/container.hpp"
#include "pipelines/pipeline.hpp"
#include "lossless/stages/registry.hpp"
#include "support/goldens.hpp"
#include "support/test_data.hpp"

using namespace sciz;
namespace fs = std::filesystem;

namespace {
using test::kGoldens;
const fs::path& kDir = test::kGoldenDir;
}  // namespace

TEST(Golden, DecodesToRecordedBitsAndEncoderIsStable) {
  const bool write = std::getenv("SCIZ_WRITE_GOLDEN") != nullptr;
  for (const auto& g : kGoldens) {
    SCOPED_TRACE(g.name);
    const auto raw = test::read_file(fs::path(SCIZ_FIXTURES_DIR) / g.fixture);
    const Shape s = Shape::parse(g.dims);
    ASSERT_EQ(raw.size(), s.count() * dtype_size(g.dtype));
    const CompressOptions o = test::golden_options(g, Device::cpu);
    const auto fresh = compress({raw.data(), g.dtype, s}, o);
    const fs::path sp = kDir / (std::string(g.name) + ".sciz"), dp = kDir / (std::string(g.name) + ".xxh64");
    if (write && g.current && !fs::exists(sp)) {
      std::vector<uint8_t> dec(raw.size());
      decompress(fresh, dec.data(), dec.size(), Device::cpu);
      std::ofstream(sp, std::ios::binary).write(reinterpret_cast<const char*>(fresh.data()), fresh.size());
      std::ofstream(dp) << std::hex << xxh64(dec.data(), dec.size()) << "\n";
    }
    const auto golden = test::read_file(sp);
    ASSERT_FALSE(golden.empty()) << "missing " << sp;
    std::ifstream df(dp);
    std::string digest;
    df >> digest;
    std::vector<uint8_t> dec(raw.size());
    decompress(golden, dec.data(), dec.size(), Device::cpu);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(xxh64(dec.data(), dec.size())));
    EXPECT_EQ(digest, buf) << "golden stream no longer decodes to the recorded bits";
    const StreamInfo info = inspect(golden);
    const double eb = info.eb_abs;
    if (g.chunk_mb < 1) EXPECT_GT(info.chunks.size(), 1u) << "a chunked golden must hold several chunks";
    // Every version's params read as a stage list: format 1 to 4's lossless byte as one stage.
    if (info.chunks[0].pipeline == "lorenzo" && (*g.stages || g.lossless != Lossless::auto_select)) {
      std::string list;
      for (const auto& [k, v] : info.params)
        if (k == "stages") list = v;
      const std::string want = *g.stages ? stages::chain_name(stages::parse_chain(g.stages)) : lossless_name(g.lossless);
      EXPECT_EQ(list, want + " (2-byte codes)");
    }
    // A preset's chunks record its list (lorenzo's 2-byte codes where a chunk fell back).
    if (const auto preset = stages::preset_chain(g.pipeline)) {
      const ParsedStream ps = read_stream(golden);
      for (const auto& c : ps.chunks) {
        const auto d = find_pipeline(g.pipeline).describe(c.header.params, c.header.version);
        std::string list, predictor;
        for (const auto& [k, v] : d) {
          if (k == "stages") list = v;
          if (k == "predictor") predictor = v;
        }
        const bool lorenzo = predictor.rfind("lorenzo", 0) == 0;
        EXPECT_EQ(list, stages::chain_name(*preset) + (lorenzo ? " (2-byte codes)" : " (1-byte codes)"));
      }
    }
    if (g.dtype == DType::f32) {
      std::vector<float> a(s.count()), b(s.count());
      std::memcpy(a.data(), raw.data(), raw.size());
      std::memcpy(b.data(), dec.data(), dec.size());
      EXPECT_EQ(test::check_bound(a, b, eb), "");
    } else {
      std::vector<double> a(s.count()), b(s.count());
      std::memcpy(a.data(), raw.data(), raw.size());
      std::memcpy(b.data(), dec.data(), dec.size());
      EXPECT_EQ(test::check_bound(a, b, eb), "");
    }
    if (g.current)
      EXPECT_TRUE(fresh == golden) << "encoder output changed within the format version: bump it and add a golden";
  }
}

// The interp goldens hold every kind of chunk a decoder must read: interpolation coded by a
// codes stage alone, by one followed by a byte stage, by each named list, and the Lorenzo
// fallback, in f32 and f64 (GoldenGpu decodes and re-encodes them on the device).
TEST(GoldenInterp, CoverEveryKindOfChunk) {
  std::set<std::string> lists;
  bool fallback = false, f64 = false;
  for (const auto& g : kGoldens) {
    if (std::string(g.pipeline).rfind("interp", 0) != 0) continue;
    f64 |= g.dtype == DType::f64;
    const auto bytes = test::read_file(kDir / (std::string(g.name) + ".sciz"));
    const ParsedStream ps = read_stream(bytes);
    for (const auto& c : ps.chunks)
      for (const auto& [k, v] : find_pipeline(g.pipeline).describe(c.header.params, c.header.version)) {
        if (k == "predictor") fallback |= v.rfind("lorenzo", 0) == 0;
        if (k == "stages" && v.find("(1-byte codes)") != std::string::npos) lists.insert(v.substr(0, v.find(' ')));
      }
  }
  EXPECT_TRUE(fallback);
  EXPECT_TRUE(f64);
  EXPECT_TRUE(lists.count("huffman,rre4,tcms8,rze1") && lists.count("tcms1,bit1,rre1"));
  bool alone = false, with_byte_stage = false;
  for (const std::string& l : lists) {
    const auto c = stages::parse_chain(l);
    alone |= c.size() == 1;
    with_byte_stage |= c.size() == 2;
  }
  EXPECT_TRUE(alone && with_byte_stage);
}
