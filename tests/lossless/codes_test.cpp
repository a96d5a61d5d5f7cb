// The quant-code stages behind one entry point: forced choices are honoured, auto keeps the
// smallest of huffman / rle / rle+huffman, and every stage refuses damaged blobs (checked
// here below the container, whose checksums would otherwise catch the damage first).
#include <gtest/gtest.h>
#include <sciz/error.hpp>

#include <random>

#include "lossless/codes/codes.hpp"
#include "lossless/codes/select.hpp"
#include "lossless/codes/stats_cpu.hpp"
#include "lossless/huffman/huffman.hpp"
#include "lossless/rle/rle.hpp"

using namespace sciz;

namespace {

// Quant codes as a smooth field gives them: long stretches of the centre, noisy patches.
std::vector<uint16_t> field_codes(uint64_t n, double noisy_fraction, uint32_t seed) {
  std::mt19937 rng(seed);
  std::geometric_distribution<int> g(0.35);
  std::vector<uint16_t> v(n, 512);
  uint64_t i = 0;
  while (i < n) {
    const uint64_t len = 1 + rng() % 400;
    const bool noisy = std::uniform_real_distribution<double>(0, 1)(rng) < noisy_fraction;
    for (uint64_t k = 0; k < len && i < n; ++k, ++i)
      if (noisy) v[i] = static_cast<uint16_t>(512 + ((rng() & 1) ? g(rng) : -g(rng)));
  }
  return v;
}

constexpr Lossless kStages[] = {Lossless::huffman, Lossless::rle, Lossless::rle_huffman, Lossless::zrle_huffman,
                                 Lossless::bitpack};

std::vector<uint16_t> round_trip(const codes::Encoded& e, uint64_t n) {
  std::vector<uint16_t> out(n, 0xffff);
  codes::decode_cpu(e.stage, e.bytes, out);
  return out;
}

}  // namespace

TEST(Codes, ForcedStagesRoundTrip) {
  for (uint64_t n : {0ull, 1ull, 2ull, 513ull, 70000ull, 300001ull})
    for (Lossless l : kStages) {
      const auto v = field_codes(n, 0.3, static_cast<uint32_t>(n));
      const auto e = codes::encode_cpu(v, 1024, 512, l);
      EXPECT_EQ(e.stage, l);
      EXPECT_LE(e.bytes.size(), codes::max_encoded_bytes(n));
      ASSERT_EQ(round_trip(e, n), v) << lossless_name(l) << " n=" << n;
    }
}

TEST(Codes, AutoKeepsTheSmallestStage) {
  for (double noisy : {0.0, 0.001, 0.02, 0.2, 1.0}) {
    const auto v = field_codes(400000, noisy, 3);
    size_t best = SIZE_MAX;
    Lossless best_stage = Lossless::auto_select;
    for (Lossless l : {Lossless::huffman, Lossless::zrle_huffman, Lossless::rle, Lossless::rle_huffman}) {
      const size_t b = codes::encode_cpu(v, 1024, 512, l).bytes.size();
      if (b < best) best = b, best_stage = l;
    }
    const auto a = codes::encode_cpu(v, 1024, 512, Lossless::auto_select);
    EXPECT_EQ(a.bytes.size(), best) << "noisy=" << noisy;
    EXPECT_EQ(a.stage, best_stage) << "noisy=" << noisy;
    ASSERT_EQ(round_trip(a, v.size()), v);
  }
  // The extremes go where they should: all-centre codes to a run coder, noise to huffman.
  EXPECT_NE(codes::encode_cpu(field_codes(400000, 0.0, 1), 1024, 512, Lossless::auto_select).stage, Lossless::huffman);
  EXPECT_EQ(codes::encode_cpu(field_codes(400000, 1.0, 1), 1024, 512, Lossless::auto_select).stage, Lossless::huffman);
}

TEST(Codes, RunCodersBreakTheHuffmanCeiling) {
  // Huffman spends at least one bit per code; smooth codes must go well below that.
  const auto v = field_codes(1 << 20, 0.01, 5);
  const auto a = codes::encode_cpu(v, 1024, 512, Lossless::auto_select);
  EXPECT_LT(a.bytes.size() * 8, v.size() / 4) << lossless_name(a.stage);
}

// rle_huffman_floor (select.hpp) lets auto skip counting the runs, on both devices: it must
// never exceed the rle+huffman blob it bounds, with or without the zero runs' histogram, on
// codes made to stress each of its terms (runs of other values, long and crossing the 65536
// tiles, the forced centre tokens at their ends, noise, a single value), and it must rule the
// runs out on smooth-field codes, where huffman or zrle+huffman win.
TEST(Codes, RunFloorNeverExceedsTheRunCoder) {
  std::mt19937 rng(11);
  auto runs_of = [&](uint64_t n, uint32_t longest, uint32_t alphabet, double centre_share) {
    std::vector<uint16_t> v(n);
    for (uint64_t i = 0; i < n;) {
      const bool c = std::uniform_real_distribution<double>(0, 1)(rng) < centre_share;
      const uint16_t x = c ? uint16_t(512) : static_cast<uint16_t>(rng() % alphabet);
      for (uint64_t k = 1 + rng() % longest; k > 0 && i < n; --k) v[i++] = x;
    }
    return v;
  };
  int cases = 0, ruled_out = 0, ruled_out_exact = 0;
  auto check = [&](const std::vector<uint16_t>& v, const std::string& what) {
    SCOPED_TRACE(what + " n=" + std::to_string(v.size()));
    const uint64_t n = v.size();
    const std::vector<uint64_t> hist = huffman::histogram_cpu(v);
    const codes::TokenStats ts = codes::token_stats_cpu(v, 512, hist);
    const uint64_t r0 = rle::count_runs_cpu(v), cr = codes::centre_runs_cpu(v, 512),
                   forced = codes::forced_centre_cpu(v, 512);
    const uint64_t exact = codes::encoded_bytes_cpu(v, 1024, 512, Lossless::rle_huffman);
    const uint64_t with = codes::rle_huffman_floor(hist, 512, r0, cr, ts.zrun, forced);
    const uint64_t without = codes::rle_huffman_floor(hist, 512, r0, cr, {}, forced);
    std::vector<uint64_t> cont(hist.size());  // as the device's first pass counts them
    for (uint64_t i = 1; i < n; ++i) cont[v[i]] += v[i] == v[i - 1] && v[i] != 512;
    const uint64_t exact_values = codes::rle_huffman_floor(hist, 512, r0, cr, ts.zrun, forced, cont);
    ASSERT_LE(with, exact);
    ASSERT_LE(without, exact);
    ASSERT_LE(without, with);
    ASSERT_LE(exact_values, exact);
    ASSERT_LE(with, exact_values);
    ++cases;
    const uint64_t best = std::min(codes::encoded_bytes_cpu(v, 1024, 512, Lossless::huffman),
                                   codes::encoded_bytes_cpu(v, 1024, 512, Lossless::zrle_huffman));
    ruled_out += n > 0 && with >= best && codes::kRleHuffmanHeader + r0 / 4 < best;
    ruled_out_exact += n > 0 && exact_values >= best;
  };
  for (uint64_t n : {1ull, 2ull, 65535ull, 65536ull, 65537ull, 3 * 65536ull + 12345ull, 300007ull}) {
    for (double noisy : {0.0, 0.02, 0.3, 1.0}) check(field_codes(n, noisy, static_cast<uint32_t>(n + 100 * noisy)), "field");
    for (uint32_t longest : {1u, 2u, 3u, 40u, 70000u})
      for (double share : {0.0, 0.5, 0.9}) check(runs_of(n, longest, 1024, share), "runs " + std::to_string(longest));
    std::vector<uint16_t> ends(n, 512);  // the centre everywhere but just before the tiles' ends
    for (uint64_t p = 65534; p < n; p += 65536) ends[p] = 513;
    check(ends, "forced centre tokens after a one-code zero run");
    check(std::vector<uint16_t>(n, 700), "one other value");
    check(std::vector<uint16_t>(n, 512), "the centre only");
  }
  EXPECT_GT(cases, 100);
  EXPECT_GE(ruled_out, 5) << "the floor should rule the runs out on smooth-field codes";
  EXPECT_GE(ruled_out_exact, ruled_out);
}

TEST(Codes, EveryStageRefusesDamagedBlobs) {
  const auto v = field_codes(50000, 0.2, 8);
  std::mt19937 rng(1);
  for (Lossless l : kStages) {
    SCOPED_TRACE(lossless_name(l));
    const auto e = codes::encode_cpu(v, 1024, 512, l);
    std::vector<uint16_t> out(v.size());
    for (size_t cut : {size_t{0}, size_t{7}, e.bytes.size() / 3, e.bytes.size() - 1}) {
      const std::vector<uint8_t> t(e.bytes.begin(), e.bytes.begin() + static_cast<std::ptrdiff_t>(cut));
      EXPECT_THROW(codes::decode_cpu(l, t, out), Error) << "cut to " << cut;
    }
    auto longer = e.bytes;
    longer.push_back(0);
    EXPECT_THROW(codes::decode_cpu(l, longer, out), Error);
    // Random damage: a decoder may only throw or finish inside its output, never fault.
    // Damage to the headers and counts must be caught.
    int caught = 0;
    for (int trial = 0; trial < 120; ++trial) {
      auto bad = e.bytes;
      const size_t at = trial < 60 ? rng() % std::min<size_t>(bad.size(), 64) : rng() % bad.size();
      bad[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
      try {
        codes::decode_cpu(l, bad, out);
      } catch (const Error& err) {
        ++caught;
        EXPECT_TRUE(err.status() == Status::corrupt_stream || err.status() == Status::unsupported) << err.what();
      }
    }
    EXPECT_GT(caught, 0);
  }
  std::vector<uint16_t> out(10);
  EXPECT_THROW(codes::decode_cpu(Lossless::auto_select, {}, out), Error);
}
