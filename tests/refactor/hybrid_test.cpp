// Hybrid lossless coding of bitplane groups: the estimates are the encoders' exact sizes, the
// choice follows the thresholds, and every segment decodes back to its planes (or is refused).
#include <gtest/gtest.h>

#include "lossless/stages/registry.hpp"
#include "lossless/stages/stages.hpp"
#include "refactor/mdr/hybrid.hpp"
#include "support/random_bits.hpp"

using namespace sciz;
using namespace sciz::mdr;

namespace {

Coding coding_of(const std::vector<uint8_t>& seg) { return static_cast<Coding>(seg.at(0)); }

}  // namespace

TEST(MdrHybrid, HuffmanEstimateIsExact) {
  for (double density : {0.0, 0.001, 0.05, 0.3, 0.5}) {
    for (size_t n : {size_t(4), size_t(600), size_t(40000), size_t(200000)}) {
      const auto raw = test::random_bits(n, density, static_cast<uint32_t>(n));
      stages::Context c1;
      c1.code_width = 1, c1.alphabet = 256;
      const uint64_t list = 3;  // count, code width, one id
      EXPECT_EQ(huffman_segment_bytes(raw), 1 + list + stages::encode_cpu(std::vector{stages::StageId::huffman}, raw, c1).size())
          << density << " " << n;
    }
  }
}

TEST(MdrHybrid, ChoosesBySizeAndThresholds) {
  const auto zeros = test::random_bits(1 << 16, 0.0, 1), noise = test::random_bits(1 << 16, 0.5, 2),
             skewed = test::random_bits(1 << 16, 0.03, 3);
  EXPECT_EQ(coding_of(encode_group(noise, {})), Coding::copy);  // nothing compresses noise
  const auto z = encode_group(zeros, {});
  ASSERT_EQ(coding_of(z), Coding::gaps);
  EXPECT_EQ(z.size(), 3u);  // no ones: coding, parameter, a count of 0
  const auto s = encode_group(skewed, {});
  EXPECT_NE(coding_of(s), Coding::copy);
  EXPECT_LT(s.size(), skewed.size() / 2);
  // T_s: small groups are copied or gap-coded, never stage-coded; T_cr: a coder must beat the
  // ratio asked for.
  EXPECT_NE(coding_of(encode_group(skewed, {skewed.size(), 1.0})), Coding::stages);
  const auto dense = test::random_bits(1 << 16, 0.3, 3);  // too dense for gap coding: T_s copies it
  EXPECT_EQ(coding_of(encode_group(dense, {dense.size(), 1.0})), Coding::copy);
  const double ratio = static_cast<double>(skewed.size()) / static_cast<double>(s.size());
  EXPECT_EQ(coding_of(encode_group(skewed, {256, ratio * 1.01})), Coding::copy);
  EXPECT_EQ(coding_of(encode_group(skewed, {256, ratio * 0.99})), coding_of(s));
}

TEST(MdrHybrid, SegmentsRoundTrip) {
  for (double density : {0.0, 0.01, 0.2, 0.5})
    for (size_t n : {size_t(4), size_t(300), size_t(65540)}) {
      const auto raw = test::random_bits(n, density, 7);
      EXPECT_EQ(decode_group(encode_group(raw, {}), raw.size(), "test"), raw) << density << " " << n;
    }
}

TEST(MdrHybrid, DamagedSegmentsAreRefused) {
  // Dense enough for the stage coders (a sparse one is gap-coded: gap_code_test.cpp).
  const auto raw = test::random_bits(50000, 0.3, 4);
  const auto seg = encode_group(raw, {});
  ASSERT_EQ(coding_of(seg), Coding::stages);
  auto expect_refused = [&](std::vector<uint8_t> s, uint64_t size, const char* why) {
    try {
      const auto out = decode_group(s, size, "level 3 group 1");
      // A flipped code bit can decode to other planes of the right size: the segment
      // checksum catches those. Anything else must be refused.
      EXPECT_EQ(out.size(), size) << why;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::corrupt_stream) << why;
      EXPECT_NE(std::string(e.what()).find("level 3 group 1"), std::string::npos) << e.what();
    }
  };
  for (size_t cut = 0; cut < seg.size(); cut += std::max<size_t>(1, seg.size() / 97)) {
    std::vector<uint8_t> t(seg.begin(), seg.begin() + cut);
    EXPECT_THROW(decode_group(t, raw.size(), "x"), Error) << "cut at " << cut;
  }
  EXPECT_THROW(decode_group(seg, raw.size() + 4, "x"), Error);
  auto bad = seg;
  bad[0] = 7;
  EXPECT_THROW(decode_group(bad, raw.size(), "x"), Error);
  for (size_t at = 0; at < seg.size(); at += std::max<size_t>(1, seg.size() / 211)) {
    auto f = seg;
    f[at] ^= 0x5a;
    expect_refused(f, raw.size(), "flip");
  }
  std::vector<uint8_t> copy(1 + 8, 0);
  EXPECT_THROW(decode_group(copy, 9, "x"), Error);  // copied planes of the wrong size
}
