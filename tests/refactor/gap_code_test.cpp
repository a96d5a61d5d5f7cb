// Gap coding of sparse bit streams (segment coding 3) alone: round trips at the edges (empty,
// no ones, one one, every run length distinct, dense), the size estimate is the segment's,
// and damaged segments are refused with an error naming them.
#include <gtest/gtest.h>

#include <sciz/error.hpp>

#include <random>

#include "refactor/mdr/gap_code.hpp"
#include "refactor/mdr/hybrid.hpp"
#include "support/random_bits.hpp"

using namespace sciz;
using namespace sciz::mdr;

namespace {

void set_bit(std::vector<uint8_t>& v, uint64_t p) { v[p >> 3] |= static_cast<uint8_t>(1u << (p & 7)); }

void round_trips(const std::vector<uint8_t>& raw, const char* what) {
  const std::vector<uint8_t> seg = encode_gaps(raw);
  ASSERT_FALSE(seg.empty()) << what;
  EXPECT_EQ(static_cast<Coding>(seg[0]), Coding::gaps) << what;
  EXPECT_EQ(gap_segment_bytes(raw), seg.size()) << what;
  EXPECT_EQ(decode_gaps(seg, raw.size(), "test"), raw) << what;
  EXPECT_EQ(decode_group(seg, raw.size(), "test"), raw) << what;
}

}  // namespace

TEST(MdrGapCode, Empty) {
  round_trips({}, "no bytes");
  EXPECT_EQ(encode_gaps({}).size(), 3u);  // coding, parameter, a count of 0
}

TEST(MdrGapCode, NoOnesAndOneOne) {
  round_trips(std::vector<uint8_t>(4096, 0), "zeros");
  EXPECT_EQ(encode_gaps(std::vector<uint8_t>(4096, 0)).size(), 3u);
  for (uint64_t p : {uint64_t(0), uint64_t(1), uint64_t(7), uint64_t(8), uint64_t(32767)}) {
    std::vector<uint8_t> v(4096, 0);
    set_bit(v, p);
    round_trips(v, "one one");
  }
  // A single one after a run far beyond the escape: its bit width is sent.
  std::vector<uint8_t> big(1 << 20, 0);
  set_bit(big, (uint64_t(1) << 23) - 1);
  round_trips(big, "one one at the end of 8 Mbit");
}

TEST(MdrGapCode, EveryRunLengthDistinct) {
  std::vector<uint8_t> v(1 << 16, 0);
  uint64_t p = 0;
  for (uint64_t run = 0; p + run < v.size() * 8; ++run) {
    p += run;
    set_bit(v, p);
    ++p;
  }
  round_trips(v, "runs 0, 1, 2, ...");
  std::vector<uint8_t> ones(333, 0xFF);
  round_trips(ones, "all ones");
}

TEST(MdrGapCode, RandomAndClusteredStreams) {
  for (double density : {0.0001, 0.003, 0.05, 0.25, 0.7})
    for (size_t n : {size_t(1), size_t(5), size_t(256), size_t(70001)})
      round_trips(test::random_bits(n, density, 11), "random");
  // Ones in clusters with long empty stretches between: what the short windows are for.
  std::vector<uint8_t> c(1 << 15, 0);
  for (size_t at = 0; at + 64 < c.size(); at += 4096)
    for (size_t k = 0; k < 64; ++k) c[at + k] = static_cast<uint8_t>(0x11 << (k % 4));
  round_trips(c, "clusters");
  const std::vector<uint8_t> seg = encode_gaps(c);
  EXPECT_LT(seg.size(), c.size() / 8);
}

TEST(MdrGapCode, SparseStreamsBeatTheStageCoders) {
  // The plane coder picks the gap coding where it is smallest, and it is on sparse streams.
  const auto raw = test::random_bits(1 << 15, 0.004, 5);
  const auto seg = encode_group(raw, {});
  EXPECT_EQ(static_cast<Coding>(seg[0]), Coding::gaps);
  EXPECT_EQ(decode_group(seg, raw.size(), "test"), raw);
}

TEST(MdrGapCode, DamagedSegmentsAreRefusedNamingThem) {
  const auto raw = test::random_bits(20000, 0.01, 4);
  const auto seg = encode_gaps(raw);
  auto refused = [&](const std::vector<uint8_t>& s, uint64_t size, const std::string& why) {
    try {
      decode_gaps(s, size, "level 3 group 1");
      ADD_FAILURE() << why << ": accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::corrupt_stream) << why;
      EXPECT_NE(std::string(e.what()).find("level 3 group 1"), std::string::npos) << e.what();
    }
  };
  for (size_t cut = 1; cut < seg.size(); cut += std::max<size_t>(1, seg.size() / 97))
    refused({seg.begin(), seg.begin() + static_cast<std::ptrdiff_t>(cut)}, raw.size(), "cut at " + std::to_string(cut));
  refused(seg, raw.size() / 4, "a shorter stream than the ones need");
  auto extra = seg;
  extra.push_back(0);
  refused(extra, raw.size(), "a trailing byte");
  {
    // One one at bit 0 of 4 bytes: mean run 16, k 4, the code "0" and 4 zero bits; 3 bits of
    // padding, which must be zero.
    std::vector<uint8_t> one(4, 0);
    one[0] = 1;
    auto pad = encode_gaps(one);
    ASSERT_EQ(pad.size(), 4u);
    EXPECT_EQ(pad.back(), 0);
    pad.back() = 0x80;
    refused(pad, one.size(), "padding not zero");
  }
  auto k0 = seg;
  k0[1] = static_cast<uint8_t>((k0[1] & 0xC0) | 63);
  refused(k0, raw.size(), "start parameter 63");
  auto count = seg;
  count[2] = 0x7F;  // a count that the codes cannot deliver (or a run past the end)
  refused(count, raw.size(), "wrong count");
  // Flipped payload bits: either refused, or planes of the right size (the segment checksum
  // catches those); never a read outside the segment (the sanitizer builds watch that).
  for (size_t at = 3; at < seg.size(); at += 3) {
    auto f = seg;
    f[at] ^= 0x24;
    try {
      EXPECT_EQ(decode_gaps(f, raw.size(), "x").size(), raw.size());
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::corrupt_stream);
    }
  }
}

TEST(MdrGapCode, RefusedInFilesBeforeVersion3) {
  const auto raw = test::random_bits(4096, 0.01, 9);
  const auto seg = encode_gaps(raw);
  try {
    decode_group(seg, raw.size(), "level 2 group 0", 2);
    FAIL() << "coding 3 accepted in a version 2 file";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::corrupt_stream);
    EXPECT_NE(std::string(e.what()).find("level 2 group 0"), std::string::npos) << e.what();
  }
  EXPECT_EQ(decode_group(seg, raw.size(), "x", 3), raw);
}

// The sizing of the four windows in one AVX2 register (where the CPU has it) gives the scalar
// models' sizes, start parameter and window, and both are the written segment's size: random
// streams of every density, clustered ones, runs that need the escape, all ones, and runs
// at the powers of two where the Rice parameter steps.
TEST(MdrGapCode, VectorAndScalarSizingAgree) {
  std::vector<std::vector<uint8_t>> streams;
  for (double density : {1e-6, 1e-4, 1e-3, 0.01, 0.05, 0.25, 0.5, 1.0})
    for (size_t n : {size_t(1), size_t(9), size_t(4096), size_t(300000)})
      streams.push_back(test::random_bits(n, density, static_cast<uint32_t>(n * 3 + 1e6 * density)));
  std::mt19937_64 rng(5);
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<uint8_t> v(1 << 20, 0);
    uint64_t p = 0;
    for (int i = 0; p < v.size() * 8; ++i) {
      set_bit(v, p);
      if (kind == 0) p += 1 + (i % 40 < 30 ? rng() % 4 : rng() % 200000);            // clusters and long gaps
      else if (kind == 1) p += uint64_t(1) << (rng() % 23), p += rng() % 3;           // near powers of two
      else p += 1 + (rng() % 1000 == 0 ? 5000000 : rng() % 64);                       // rare escapes
    }
    streams.push_back(v);
  }
  for (const auto& raw : streams) {
    const GapPlan a = plan_gaps(raw, true), b = plan_gaps(raw, false);
    EXPECT_EQ(a.ones, b.ones) << raw.size();
    EXPECT_EQ(a.k0, b.k0) << raw.size();
    EXPECT_EQ(a.window, b.window) << raw.size();
    EXPECT_EQ(a.bytes, b.bytes) << raw.size();
    const auto seg = write_gaps(raw, b);
    EXPECT_EQ(seg.size(), b.bytes) << raw.size();
    EXPECT_EQ(seg, encode_gaps(raw));
  }
}
