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

namespace {

// Algorithm 2 as it was written before the sizes were planned: every candidate encoded, each
// kept if smaller than the best so far and clearing T_cr. encode_group, which sizes them and
// writes only the winner, must give these bytes.
std::vector<uint8_t> encode_everything(const std::vector<uint8_t>& raw, const HybridOptions& opt) {
  using stages::StageId;
  std::vector<uint8_t> best(1, static_cast<uint8_t>(Coding::copy));
  best.insert(best.end(), raw.begin(), raw.end());
  if (raw.size() % 4 != 0) return best;
  auto wins = [&](uint64_t size) {
    return size < best.size() && static_cast<double>(raw.size()) > opt.min_ratio * static_cast<double>(size);
  };
  uint64_t ones = 0, zero16 = 0;
  for (uint8_t b : raw) ones += static_cast<uint64_t>(__builtin_popcount(b));
  if (4 * ones <= 8 * raw.size())
    if (auto g = encode_gaps(raw); wins(g.size())) best = g;
  if (raw.size() <= opt.copy_below) return best;
  auto segment = [&](std::vector<StageId> chain, uint8_t width) {
    const stages::StageList list{chain, width};
    std::vector<uint8_t> seg(1, static_cast<uint8_t>(Coding::stages));
    const auto l = stages::write_stage_list(list);
    seg.insert(seg.end(), l.begin(), l.end());
    stages::Context c;
    c.code_width = width, c.alphabet = width == 1 ? 256 : 65536, c.centre = 0;
    const auto blob = stages::encode_cpu(chain, raw, c);
    seg.insert(seg.end(), blob.begin(), blob.end());
    return seg;
  };
  if (auto h = segment({StageId::huffman}, 1); wins(h.size())) best = h;
  for (size_t i = 0; i + 1 < raw.size(); i += 2) zero16 += (raw[i] | raw[i + 1]) == 0;
  if (2 * zero16 >= raw.size() / 2)
    if (auto z = segment({StageId::zrle_huffman}, 2); wins(z.size())) best = z;
  for (auto chain : {std::vector{StageId::rze1}, std::vector{StageId::bit4, StageId::rze1},
                     std::vector{StageId::huffman, StageId::rze1}})
    if (auto s = segment(chain, 1); wins(s.size())) best = s;
  return best;
}

}  // namespace

// The plan's size is the segment's, and sizing before writing chooses what encoding every
// candidate chose: random streams of every density, lengths around T_s and the 16 KiB stage
// blocks, streams of one repeated word, runs of ones, ones only at block edges, and
// thresholds that make ties and T_cr decide.
TEST(MdrHybrid, PlannedSegmentsAreTheOnesEncodingEverythingChose) {
  std::vector<std::vector<uint8_t>> inputs;
  for (double density : {0.0, 1e-5, 1e-3, 0.01, 0.05, 0.2, 0.25, 0.3, 0.5, 0.9, 1.0})
    for (size_t n : {size_t(4), size_t(252), size_t(256), size_t(260), size_t(4096), size_t(16384), size_t(16388),
                     size_t(70000)})
      inputs.push_back(test::random_bits(n, density, static_cast<uint32_t>(n + 1000 * density)));
  for (size_t n : {size_t(256), size_t(20000), size_t(65536)}) {
    std::vector<uint8_t> word(n), runs(n, 0), edges(n, 0), odd(n + 3, 0);
    for (size_t i = 0; i < n; ++i) word[i] = static_cast<uint8_t>(0x80u >> (i % 4));
    for (size_t i = 0; i < n; i += 997) std::fill(runs.begin() + i, runs.begin() + std::min(n, i + 40), 0xFF);
    for (size_t i = 16383; i < n; i += 16384) edges[i] = 0x80, edges[i - 16383] = 1;
    odd[n + 2] = 1;  // not whole words: copied
    inputs.push_back(word), inputs.push_back(runs), inputs.push_back(edges), inputs.push_back(odd);
  }
  for (const HybridOptions& opt :
       {HybridOptions{}, HybridOptions{0, 1.0}, HybridOptions{4096, 1.0}, HybridOptions{256, 1.7}, HybridOptions{256, 0.0}})
    for (const auto& raw : inputs) {
      const GroupPlan plan = plan_group(raw, opt);
      const std::vector<uint8_t> seg = encode_group(raw, opt);
      EXPECT_EQ(plan.bytes, seg.size()) << raw.size();
      EXPECT_EQ(encode_planned(raw, plan), seg) << raw.size();
      EXPECT_EQ(seg, encode_everything(raw, opt)) << raw.size() << " bytes, T_s " << opt.copy_below << ", T_cr "
                                                   << opt.min_ratio;
    }
}
