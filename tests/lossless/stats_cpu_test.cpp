// Selection statistics of the CPU stage chooser (codes/stats_cpu.hpp): the token and run
// histograms from one scan must equal the histograms of the arrays that zrle::tokens_cpu and
// rle::runs_cpu build, bin for bin, or the choice (and so the stream) could change. Histograms
// may stop after their last used bin (small inputs are not given all 65536): compared as counts.
#include <gtest/gtest.h>

#include <random>

#include "lossless/codes/stats_cpu.hpp"
#include "lossless/huffman/huffman.hpp"
#include "lossless/rle/rle.hpp"
#include "lossless/zrle/zrle.hpp"

using namespace sciz;

namespace {

// Mostly `centre`, with stretches of other codes and of one repeated code; lengths across
// the 64-bit mask words and the 65536-code tiles.
std::vector<uint16_t> mixed(uint64_t n, double p_other, uint32_t seed, uint16_t centre) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> s;
  s.reserve(n);
  std::bernoulli_distribution other(p_other);
  while (s.size() < n) {
    const uint32_t kind = static_cast<uint32_t>(rng() % 10);
    const uint64_t len = kind < 6 ? 1 + rng() % 70 : kind < 9 ? 1 + rng() % 3000 : 1 + rng() % 140000;
    const uint16_t v = other(rng) ? static_cast<uint16_t>(rng() % 1024) : centre;
    const bool noisy = rng() % 2 == 0;
    for (uint64_t k = 0; k < len && s.size() < n; ++k)
      s.push_back(noisy && other(rng) ? static_cast<uint16_t>(rng() % 1024) : v);
  }
  return s;
}

// The counts of a histogram, its trailing empty bins dropped.
std::vector<uint64_t> counts(std::vector<uint64_t> h) {
  while (!h.empty() && h.back() == 0) h.pop_back();
  return h;
}

void expect_stats(const std::vector<uint16_t>& s, uint16_t centre) {
  const auto hist = huffman::histogram_cpu(s);
  const zrle::Tokens t = zrle::tokens_cpu(s, centre);
  const codes::TokenStats ts = codes::token_stats_cpu(s, centre, hist);
  ASSERT_EQ(ts.count, t.value.size()) << "n=" << s.size();
  ASSERT_EQ(ts.tail, t.tail) << "n=" << s.size();
  ASSERT_EQ(counts(ts.value), counts(huffman::histogram_cpu(t.value))) << "n=" << s.size();
  ASSERT_EQ(counts(ts.zrun), counts(huffman::histogram_cpu(t.zrun))) << "n=" << s.size();
  const rle::Runs r = rle::runs_cpu(s);
  const codes::RunStats rs = codes::run_stats_cpu(s);
  ASSERT_EQ(rs.count, r.value.size()) << "n=" << s.size();
  ASSERT_EQ(counts(rs.value), counts(huffman::histogram_cpu(r.value))) << "n=" << s.size();
  ASSERT_EQ(counts(rs.len_m1), counts(huffman::histogram_cpu(r.len_m1))) << "n=" << s.size();
  // Given the codes' histogram, a scan of mostly-starting runs visits the other positions.
  const codes::RunStats rh = codes::run_stats_cpu(s, &hist);
  ASSERT_EQ(rh.count, r.value.size()) << "n=" << s.size();
  ASSERT_EQ(counts(rh.value), counts(huffman::histogram_cpu(r.value))) << "n=" << s.size();
  ASSERT_EQ(counts(rh.len_m1), counts(huffman::histogram_cpu(r.len_m1))) << "n=" << s.size();
}

}  // namespace

TEST(CodesStats, MatchTheMaterializedArrays) {
  for (uint64_t n : {0ull, 1ull, 2ull, 63ull, 64ull, 65ull, 127ull, 65535ull, 65536ull, 65537ull, 131072ull,
                     131135ull, 300001ull, 1048577ull})
    for (double p : {0.0, 0.01, 0.5, 1.0})
      for (uint16_t centre : {uint16_t{512}, uint16_t{0}, uint16_t{65535}})
        expect_stats(mixed(n, p, static_cast<uint32_t>(n * 7 + 1000 * p + centre), centre), centre);
}

TEST(CodesStats, ForcedTokensHoldingTheCentre) {
  // All centre: only the forced tokens, each holding the centre, and a tail.
  for (uint64_t n : {65535ull, 65536ull, 65537ull, 196608ull, 196700ull}) {
    expect_stats(std::vector<uint16_t>(n, 512), 512);
    std::vector<uint16_t> s(n, 512);
    for (uint64_t i = 65534; i < n; i += 65536) s[i] = 3;  // a token right before a forced one
    expect_stats(s, 512);
  }
}

TEST(CodesStats, HistogramMatchesOneCounterAtATime) {
  for (uint64_t n : {0ull, 5ull, 65535ull, 65536ull, 65539ull, 262143ull, 262144ull, 1000003ull}) {
    const std::vector<uint16_t> s = mixed(n, 0.3, static_cast<uint32_t>(n), 512);
    std::vector<uint64_t> want(65536, 0);
    for (uint16_t v : s) ++want[v];
    ASSERT_EQ(counts(huffman::histogram_cpu(s)), counts(want)) << "n=" << n;
    ASSERT_GE(huffman::histogram_cpu(s).size(), counts(want).size());
  }
  std::vector<uint16_t> all(3 * 65536 + 7);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i * 40503u);
  std::vector<uint64_t> want(65536, 0);
  for (uint16_t v : all) ++want[v];
  ASSERT_EQ(counts(huffman::histogram_cpu(all)), counts(want));
}

// Runs of one and of a few codes, ending on either side of a 64-code word and of a tile, so
// that most positions start a run: the scan that counts runs of one from masks and visits only
// the other positions (run_stats_cpu given the histogram) against the materialized runs.
TEST(CodesStats, DenseRunsAcrossWordsAndTiles) {
  for (uint64_t k : {1ull, 2ull, 3ull, 63ull, 64ull, 65ull})
    for (uint64_t n : {1ull, 2ull, 64ull, 65ull, 129ull, 65536ull, 65537ull, 70000ull}) {
      std::vector<uint16_t> s(n);
      for (uint64_t i = 0; i < n; ++i) s[i] = static_cast<uint16_t>((i / k) % 3 + (i % 7 == 0 ? 5 : 0));
      expect_stats(s, 512);
      for (uint64_t i = 0; i < n; ++i) s[i] = static_cast<uint16_t>(i % 5 == 0 ? 9 : (i / k) % 2);
      expect_stats(s, 0);
    }
}
