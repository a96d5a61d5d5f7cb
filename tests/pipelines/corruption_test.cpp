// Damaged streams: every truncation, every single-bit flip, a wrong version, trailing bytes
// and a wrong output size are refused with an Error before any value is produced.
#include <gtest/gtest.h>

#include "lossless/stages/registry.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {
constexpr Lossless kStages[] = {Lossless::huffman, Lossless::rle, Lossless::rle_huffman, Lossless::zrle_huffman,
                                 Lossless::bitpack};

// The stage lists of several stages (format 5) go through the same checks.
constexpr const char* kLists[] = {"interp-cr", "interp-tp", "zrle+huffman,rze2"};

std::vector<uint8_t> sample_stream(Lossless lossless = Lossless::auto_select, const char* list = "") {
  const Shape s = Shape::parse("6x7x40");
  auto x = test::smooth_field<float>(s, 2);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[100] = 1e30f;  // an outlier and an exact value, so every section is non-empty
  CompressOptions o;
  o.eb = {EbMode::rel, 1e-3};
  o.device = Device::cpu;
  o.lossless = lossless;
  o.stages = list;
  auto st = compress({x.data(), DType::f32, s}, o);
  const StreamInfo info = inspect(st);
  EXPECT_EQ(info.chunks[0].pipeline, "lorenzo") << "fell back to raw: the stage under test is not in the stream";
  const std::string want = *list ? stages::chain_name(stages::parse_chain(list))
                                 : lossless != Lossless::auto_select ? lossless_name(lossless) : "";
  if (!want.empty()) {
    bool seen = false;
    for (const auto& [k, v] : info.params)
      if (k == "stages") {
        seen = true;
        EXPECT_EQ(v, want + " (2-byte codes)");
      }
    EXPECT_TRUE(seen);
  }
  return st;
}

Status decode_status(const std::vector<uint8_t>& st, uint64_t out_bytes = 6 * 7 * 40 * 4) {
  std::vector<uint8_t> out(out_bytes);
  try {
    decompress(st, out.data(), out.size(), Device::cpu);
  } catch (const Error& e) {
    return e.status();
  }
  return Status::ok;
}
}  // namespace

TEST(Corruption, IntactStreamDecodes) { EXPECT_EQ(decode_status(sample_stream()), Status::ok); }

// Every stream under test: each codes stage alone, then the lists of several stages.
std::vector<std::pair<std::string, std::vector<uint8_t>>> streams_under_test() {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> v;
  for (Lossless l : kStages) v.push_back({lossless_name(l), sample_stream(l)});
  for (const char* list : kLists) v.push_back({list, sample_stream(Lossless::auto_select, list)});
  return v;
}

TEST(Corruption, EveryTruncationRejected) {
  for (const auto& [name, st] : streams_under_test()) {
  SCOPED_TRACE(name);
  for (size_t len = 0; len < st.size(); ++len) {
    std::vector<uint8_t> cut(st.begin(), st.begin() + len);
    const Status s = decode_status(cut);
    ASSERT_TRUE(s == Status::corrupt_stream) << "length " << len << " gave status " << static_cast<int>(s);
  }
  }
}

TEST(Corruption, EveryBitFlipRejected) {
  for (const auto& [name, st] : streams_under_test()) {
  SCOPED_TRACE(name);
  for (size_t byte = 0; byte < st.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto bad = st;
      bad[byte] ^= static_cast<uint8_t>(1u << bit);
      const Status s = decode_status(bad);
      ASSERT_NE(s, Status::ok) << "flip at byte " << byte << " bit " << bit << " went unnoticed";
    }
  }
  }
}

TEST(Corruption, UnknownVersionIsUnsupported) {
  auto st = sample_stream();
  st[4] = 99;  // format version lives at bytes 4..5
  EXPECT_EQ(decode_status(st), Status::unsupported);
  try {
    std::vector<uint8_t> out(6 * 7 * 40 * 4);
    decompress(st, out.data(), out.size(), Device::cpu);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("version 99"), std::string::npos) << e.what();
  }
}

TEST(Corruption, BadMagicTrailingBytesAndWrongSize) {
  auto st = sample_stream();
  auto bad = st;
  bad[0] = 'X';
  EXPECT_EQ(decode_status(bad), Status::corrupt_stream);
  auto longer = st;
  longer.push_back(0);
  EXPECT_EQ(decode_status(longer), Status::corrupt_stream);
  EXPECT_EQ(decode_status(st, 6 * 7 * 40 * 4 - 4), Status::invalid_argument);
  EXPECT_EQ(decode_status(std::vector<uint8_t>{}), Status::corrupt_stream);
}

TEST(Corruption, InspectAgreesWithTheHeader) {
  const auto st = sample_stream();
  const StreamInfo info = inspect(st);
  EXPECT_EQ(info.pipeline, "lorenzo");
  EXPECT_EQ(info.shape.str(), "6x7x40");
  EXPECT_EQ(info.dtype, DType::f32);
  EXPECT_EQ(info.nonfinite, 1u);
  EXPECT_EQ(info.sections.size(), 3u);
  EXPECT_EQ(info.stream_bytes, st.size());
}
