// Format 5: lorenzo records a stage list. Every named list and random valid lists round trip
// within the bound on f32 and f64 fields (chunked too); --lossless X and the list "X" write the
// same stream, and auto's section 1 is the chosen stage's; damaged lists are refused, from the
// params alone and through a whole stream whose checksums were made to match.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "core/checksum.hpp"
#include "core/geometry.hpp"
#include "lossless/stages/registry.hpp"
#include "pipelines/lorenzo_codes.hpp"
#include "support/test_data.hpp"

using namespace sciz;
using stages::Chain;
using stages::StageId;

namespace {

Status status_of(const std::function<void()>& f, std::string* what = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (what) *what = e.what();
    return e.status();
  }
  return Status::ok;
}

template <class T>
std::vector<T> fixture(const char* file) {
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / file);
  std::vector<T> x(raw.size() / sizeof(T));
  std::memcpy(x.data(), raw.data(), x.size() * sizeof(T));
  return x;
}

std::string param(const StreamInfo& info, const std::string& key) {
  for (const auto& [k, v] : info.params)
    if (k == key) return v;
  return "";
}

// Compresses on the CPU with `stages`, checks the list recorded, decodes every point within the
// bound; returns the stream.
template <class T>
std::vector<uint8_t> round_trip(const std::vector<T>& x, const Shape& s, ErrorBound eb, const std::string& list,
                                double chunk_mb = kDefaultChunkMiB) {
  SCOPED_TRACE("stages " + list + " on " + s.str());
  CompressOptions o;
  o.eb = eb;
  o.device = Device::cpu;
  o.stages = list;
  o.chunk_mb = chunk_mb;
  const auto st = compress({x.data(), sizeof(T) == 4 ? DType::f32 : DType::f64, s}, o);
  const StreamInfo info = inspect(st);
  EXPECT_EQ(info.version, 5);
  if (info.chunks[0].pipeline == "lorenzo")
    EXPECT_EQ(param(info, "stages"), stages::chain_name(stages::parse_chain(list)) + " (2-byte codes)");
  std::vector<T> y(x.size());
  decompress(st, y.data(), y.size() * sizeof(T), Device::cpu);
  EXPECT_EQ(test::check_bound(x, y, info.eb_abs), "");
  return st;
}

// A random valid list: 1..8 stages, a codes stage first half the time.
std::string random_list(std::mt19937& rng) {
  std::vector<StageId> codes, bytes;
  for (StageId id : stages::all_stages()) (stages::family_of(id) == stages::Family::codes ? codes : bytes).push_back(id);
  Chain c;
  const size_t len = 1 + rng() % stages::kMaxChain;
  if (rng() % 2) c.push_back(codes[rng() % codes.size()]);
  while (c.size() < len) c.push_back(bytes[rng() % bytes.size()]);
  return stages::chain_name(c);
}

}  // namespace

TEST(LorenzoStages, NamedListsRoundTripOnF32AndF64) {
  const auto iso = fixture<float>("isabel_cut_20x50x50.f32");
  const auto ocean = fixture<float>("ocean_nanland_cut_1x4x45x90.f32");
  const auto mpas = fixture<double>("mpas_pressure_cut_20011.f64");
  for (const char* list : {"interp-cr", "interp-tp", "huffman", "rle", "rle+huffman", "zrle+huffman", "bitpack"}) {
    round_trip(iso, Shape::parse("20x50x50"), {EbMode::rel, 1e-3}, list);
    round_trip(ocean, Shape::parse("1x4x45x90"), {EbMode::rel, 1e-2}, list);
    round_trip(mpas, Shape::parse("20011"), {EbMode::abs, 0.5}, list);
  }
  // Several chunks, each recording its list.
  const auto st = round_trip(iso, Shape::parse("20x50x50"), {EbMode::rel, 1e-3}, "interp-cr", 0.05);
  EXPECT_GT(inspect(st).chunks.size(), 1u);
}

TEST(LorenzoStages, RandomValidListsRoundTrip) {
  std::mt19937 rng(2026);
  const auto iso = fixture<float>("isabel_cut_20x50x50.f32");
  const auto mpas = fixture<double>("mpas_pressure_cut_20011.f64");
  int coded = 0;  // chunks lorenzo kept (a list that expands the codes falls back to raw)
  for (int k = 0; k < 24; ++k) {
    const std::string list = random_list(rng);
    const auto st = k % 2 ? round_trip(iso, Shape::parse("20x50x50"), {EbMode::rel, 1e-2}, list)
                          : round_trip(mpas, Shape::parse("20011"), {EbMode::rel, 1e-3}, list, 0.05);
    coded += inspect(st).chunks[0].pipeline == "lorenzo";
  }
  EXPECT_GE(coded, 20) << "too few lists exercised: most fell back to raw storage";
  // Special values, odd sizes and a radius whose codes span one byte.
  const auto sv = test::special_values_1d<float>(20011, 5);
  round_trip(sv, Shape::parse("20011"), {EbMode::rel, 1e-3}, "tcms2,bit2,rre2,rze1");
  const auto tiny = test::smooth_1d<double>(3, 1);
  round_trip(tiny, Shape::parse("3"), {EbMode::abs, 1e-3}, "huffman,rre8,rze4");
}

TEST(LorenzoStages, LosslessIsTheOneStageListAndAutoKeepsItsSection) {
  const auto iso = fixture<float>("isabel_cut_20x50x50.f32");
  const FieldView f{iso.data(), DType::f32, Shape::parse("20x50x50")};
  for (Lossless l : {Lossless::huffman, Lossless::rle, Lossless::rle_huffman, Lossless::zrle_huffman, Lossless::bitpack}) {
    CompressOptions a, b;
    a.device = b.device = Device::cpu;
    a.lossless = l;
    b.stages = lossless_name(l);
    EXPECT_TRUE(compress(f, a) == compress(f, b)) << lossless_name(l);
  }
  CompressOptions a;
  a.device = Device::cpu;
  const auto st = compress(f, a);
  const std::string chosen = param(inspect(st), "stages");
  ASSERT_FALSE(chosen.empty());
  CompressOptions b = a;
  b.stages = chosen.substr(0, chosen.find(' '));
  EXPECT_TRUE(compress(f, b) == st) << "auto's stream differs from its chosen stage's";
}

TEST(LorenzoStages, BadOptionsAreRefusedBeforeAnyWork) {
  const auto x = test::smooth_1d<float>(1000, 1);
  const FieldView f{x.data(), DType::f32, Shape::parse("1000")};
  CompressOptions o;
  o.device = Device::cpu;
  std::string what;
  for (const char* bad : {"nosuch", "rre1,huffman", "huffman,huffman", "rre1,,rze1", ",", "rre1,rre1,rre1,rre1,rre1,rre1,rre1,rre1,rre1"}) {
    o.stages = bad;
    EXPECT_EQ(status_of([&] { compress(f, o); }, &what), Status::invalid_argument) << bad;
  }
  o.stages = "huffman";
  o.lossless = Lossless::rle;
  EXPECT_EQ(status_of([&] { compress(f, o); }, &what), Status::invalid_argument);
  EXPECT_NE(what.find("not both"), std::string::npos) << what;
  o.lossless = Lossless::auto_select;
  for (const char* p : {"delta", "szx"}) {
    o.pipeline = p;
    EXPECT_EQ(status_of([&] { compress(f, o); }, &what), Status::invalid_argument) << p;
    EXPECT_NE(what.find("stage list"), std::string::npos) << what;
  }
}

// The params alone: every rule of the stage list, the code width, the padding.
TEST(LorenzoStages, DamagedParamsAreRefused) {
  Extent e;
  e.ndim = 3;
  const std::vector<uint8_t> good = lorenzo_codes::write_params({512, {8, 8, 32}, stages::parse_chain("interp-cr")});
  ASSERT_EQ(good.size(), 16u);  // 8 + count, width, 4 ids + 2 zero bytes
  EXPECT_EQ(lorenzo_codes::read_params(good, e, 5).chain, stages::parse_chain("interp-cr"));
  struct Case {
    const char* what;
    std::function<void(std::vector<uint8_t>&)> damage;
    Status status;
    const char* says;
  };
  const Case cases[] = {
      {"count 0", [](auto& b) { b[8] = 0; }, Status::corrupt_stream, "0 stages"},
      {"count 9", [](auto& b) { b[8] = 9; }, Status::corrupt_stream, "9 stages"},
      {"count past the bytes", [](auto& b) { b[8] = 7; }, Status::corrupt_stream, "stage list"},
      {"code width 1", [](auto& b) { b[9] = 1; }, Status::corrupt_stream, "1-byte codes"},
      {"code width 3", [](auto& b) { b[9] = 3; }, Status::corrupt_stream, "code width 3"},
      {"unknown id", [](auto& b) { b[11] = 0x50; }, Status::corrupt_stream, "not a stage"},
      {"id 0", [](auto& b) { b[10] = 0; }, Status::corrupt_stream, "not a stage"},
      {"codes stage second", [](auto& b) { b[11] = 2; }, Status::corrupt_stream, "codes stage"},
      {"padding not zero", [](auto& b) { b[15] = 1; }, Status::corrupt_stream, "padding"},
      {"extra bytes", [](auto& b) { b.insert(b.end(), 4, 0); }, Status::corrupt_stream, "extra bytes"},
      {"cut in the list", [](auto& b) { b.resize(11); }, Status::corrupt_stream, "stage list"},
      {"cut in the padding", [](auto& b) { b.resize(15); }, Status::corrupt_stream, "padding"},
      // Found by the chunk-lorenzo fuzz run: 4096 x 4096 x 256 is 2^32 values, which a 32-bit
      // product wrapped to 0 and let through to a decoder with no tile buffer.
      {"tile of 2^32 values", [](auto& b) { b[2] = 0, b[3] = 0x10, b[4] = 0, b[5] = 0x10, b[6] = 0, b[7] = 1; },
       Status::corrupt_stream, "larger than 65536"},
      {"tile of 0 x 8 x 32", [](auto& b) { b[2] = 0, b[3] = 0; }, Status::corrupt_stream, "empty"},
  };
  for (const Case& c : cases) {
    auto b = good;
    c.damage(b);
    std::string what;
    EXPECT_EQ(status_of([&] { lorenzo_codes::read_params(b, e, 5); }, &what), c.status) << c.what;
    EXPECT_NE(what.find(c.says), std::string::npos) << c.what << ": " << what;
  }
  // Format 4's lossless byte: 1..5 known, others unsupported; format 1 knew bitpack only.
  std::vector<uint8_t> v4 = {0, 2, 8, 0, 8, 0, 32, 0, 2, 0, 0, 0};
  EXPECT_EQ(lorenzo_codes::read_params(v4, e, 4).chain, Chain{StageId::huffman});
  v4[8] = 6;
  EXPECT_EQ(status_of([&] { lorenzo_codes::read_params(v4, e, 4); }), Status::unsupported);
  v4[8] = 2;
  EXPECT_EQ(status_of([&] { lorenzo_codes::read_params(v4, e, 1); }), Status::unsupported);
}

// A whole stream whose stage list was damaged and whose chunk checksum was made to match: the
// decoder refuses it from the list, before decoding anything.
TEST(LorenzoStages, DamagedListInAStreamIsRefused) {
  const auto x = fixture<float>("isabel_cut_20x50x50.f32");
  CompressOptions o;
  o.device = Device::cpu;
  o.stages = "interp-cr";
  const auto st = compress({x.data(), DType::f32, Shape::parse("20x50x50")}, o);
  const StreamInfo info = inspect(st);
  ASSERT_EQ(info.chunks.size(), 1u);
  ASSERT_EQ(info.chunks[0].pipeline, "lorenzo");
  // Chunk: u8 name length, name, u32 params length, params, u32 section count, table of 32-byte
  // entries, u64 checksum of all that.
  const uint64_t c0 = info.chunks[0].offset;
  const uint64_t params_at = c0 + 1 + st[c0] + 4;
  uint32_t params_len = 0, nsec = 0;
  std::memcpy(&params_len, &st[params_at - 4], 4);
  ASSERT_EQ(params_len, 16u);
  std::memcpy(&nsec, &st[params_at + params_len], 4);
  const uint64_t sum_at = params_at + params_len + 4 + 32ull * nsec;
  auto reseal = [&](std::vector<uint8_t>& s) {
    const uint64_t h = xxh64(s.data() + c0, sum_at - c0);
    std::memcpy(&s[sum_at], &h, 8);
  };
  {
    auto same = st;
    reseal(same);
    ASSERT_TRUE(same == st) << "the chunk layout assumed here is not the stream's";
  }
  std::vector<float> y(x.size());
  for (auto [at, v, says] : {std::tuple{11, 0x50, "not a stage"}, std::tuple{9, 1, "1-byte codes"},
                             std::tuple{8, 0, "0 stages"}, std::tuple{10, 0x30, "rre1"}}) {
    auto bad = st;
    bad[params_at + at] = static_cast<uint8_t>(v);
    reseal(bad);
    std::string what;
    EXPECT_EQ(status_of([&] { decompress(bad, y.data(), y.size() * 4, Device::cpu); }, &what), Status::corrupt_stream)
        << "byte " << at;
    EXPECT_NE(what.find(says), std::string::npos) << what;
  }
}
