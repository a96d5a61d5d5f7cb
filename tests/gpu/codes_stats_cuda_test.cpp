// The device encoders' counting pass (lossless/codes/stats_cuda.cu) against counts taken by
// the definitions, one position at a time: every histogram bin, every scalar and every tile's
// token and run count. Sizes straddle the pass's warp parts (8,192 codes) and tiles (65,536),
// where the lengths that cross from one part or tile into the next are settled.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <algorithm>
#include <random>
#include <string>

#include "gpu/gpu_util.hpp"
#include "lossless/bitpack/bitpack_math.hpp"
#include "lossless/codes/codes.hpp"
#include "lossless/codes/stats_cpu.hpp"
#include "lossless/codes/stats_cuda.hpp"
#include "lossless/huffman/huffman.hpp"
#include "lossless/rle/rle.hpp"

using namespace sciz;
namespace cs = sciz::codes::cuda;

namespace {

constexpr uint64_t kTile = cs::kTile;

struct Counts {
  std::vector<uint64_t> scalars, hist, zrun, rval, rlen, tile_tok, tile_run, cont;
};

Counts by_definition(const std::vector<uint16_t>& v, uint32_t alphabet, uint16_t centre) {
  const uint64_t n = v.size(), tiles = cs::stats_tiles(n);
  Counts c{std::vector<uint64_t>(cs::kScalarWords), std::vector<uint64_t>(alphabet), std::vector<uint64_t>(65536),
           std::vector<uint64_t>(alphabet), std::vector<uint64_t>(65536), std::vector<uint64_t>(tiles),
           std::vector<uint64_t>(tiles), std::vector<uint64_t>(alphabet)};
  for (uint64_t p = 1; p < n; ++p)
    if (v[p] == v[p - 1] && v[p] != centre && v[p] < alphabet) ++c.cont[v[p]];
  for (uint64_t t = 0; t < tiles; ++t) {
    const uint64_t lo = t * kTile, hi = std::min(n, lo + kTile);
    uint64_t next_zero = lo, run_start = lo;  // first position of the current zero run / run
    for (uint64_t p = lo; p < hi; ++p) {
      if (v[p] >= alphabet) ++c.scalars[cs::kBadSymbols];
      else ++c.hist[v[p]];
      if (p > 0 && v[p] != v[p - 1]) ++c.scalars[cs::kChanges];
      if (v[p] == centre && (p == 0 || v[p - 1] != centre)) ++c.scalars[cs::kCentreRuns];
      const bool forced = p % kTile == kTile - 1;
      if (v[p] != centre || forced) {
        ++c.zrun[p - next_zero];
        ++c.tile_tok[t];
        c.scalars[cs::kForcedCentre] += forced && v[p] == centre;
        next_zero = p + 1;
      }
      if (p == lo || v[p] != v[p - 1]) {
        if (p != lo) ++c.rlen[p - run_start - 1];
        if (v[p] < alphabet) ++c.rval[v[p]];
        ++c.tile_run[t];
        run_start = p;
      }
    }
    if (hi > lo) ++c.rlen[hi - run_start - 1];
    if (t + 1 == tiles) c.scalars[cs::kTail] = hi - next_zero;
  }
  for (uint64_t t = 0; t < tiles; ++t) {
    c.scalars[cs::kTokens] += c.tile_tok[t];
    c.scalars[cs::kRuns] += c.tile_run[t];
  }
  for (uint64_t b = 0; b < n; b += 32) {  // bitpack: padding counts as the centre
    uint32_t z = 0;
    for (uint64_t p = b; p < std::min(n, b + 32); ++p) z |= bitpack::zigzag(v[p], centre);
    c.scalars[cs::kWidthWords] += bitpack::bit_width(z);
  }
  return c;
}

Counts on_device(const std::vector<uint16_t>& v, uint32_t alphabet, uint16_t centre, uint32_t flags) {
  const uint64_t n = v.size(), tiles = cs::stats_tiles(n);
  auto d = test::upload(v);
  auto zeroed = [](size_t k) {
    dev::Buffer<uint64_t> b(k, nullptr);
    dev::zero(b.get(), k * 8, nullptr);
    return b;
  };
  auto sc = zeroed(cs::kScalarWords), h = zeroed(alphabet), zr = zeroed(65536), rv = zeroed(alphabet),
       rl = zeroed(65536), tt = zeroed(tiles), tr = zeroed(tiles), co = zeroed(alphabet);
  cs::launch_stats(d.get(), n, alphabet, centre, flags,
                   {sc.get(), h.get(), zr.get(), rv.get(), rl.get(), tt.get(), tr.get(), co.get()}, nullptr);
  return {test::download(sc.get(), cs::kScalarWords), test::download(h.get(), alphabet),
          test::download(zr.get(), 65536),           test::download(rv.get(), alphabet),
          test::download(rl.get(), 65536),           test::download(tt.get(), tiles),
          test::download(tr.get(), tiles),           test::download(co.get(), alphabet)};
}

// Codes mostly at the centre, with runs of other values of random lengths (long ones included,
// so zero runs and runs cross warp parts and tiles), or dense noise.
std::vector<uint16_t> make_codes(uint64_t n, double p_other, uint32_t alphabet, uint16_t centre, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> v(n, centre);
  std::uniform_real_distribution<double> u(0, 1);
  for (uint64_t i = 0; i < n;) {
    const uint64_t len = u(rng) < 0.01 ? rng() % 20000 : 1 + rng() % 6;
    const uint16_t c = u(rng) < p_other ? static_cast<uint16_t>(rng() % alphabet) : centre;
    for (uint64_t k = 0; k < len && i < n; ++k, ++i) v[i] = c;
  }
  return v;
}

}  // namespace

TEST(CodesStatsCuda, EveryCountEqualsTheDefinition) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const uint32_t all = cs::kStatsHist | cs::kStatsTokens | cs::kStatsRuns;
  for (uint64_t n : {1ull, 31ull, 255ull, 8191ull, 8192ull, 8193ull, 16385ull, 65535ull, 65536ull, 65537ull,
                     3 * 65536ull + 12345ull, 1000003ull})
    for (double p : {0.0, 0.01, 0.3, 1.0})
      for (auto [alphabet, centre] : {std::pair<uint32_t, uint16_t>{1024, 512}, {65536, 32768}, {2, 1}}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " p=" + std::to_string(p) + " alphabet=" + std::to_string(alphabet));
        const auto v = make_codes(n, p, alphabet, centre, static_cast<uint32_t>(n * 31 + 1000 * p + alphabet));
        const Counts want = by_definition(v, alphabet, centre);
        const Counts got = on_device(v, alphabet, centre, all);
        for (uint32_t k : {cs::kTokens, cs::kForcedCentre, cs::kTail, cs::kRuns, cs::kChanges, cs::kBadSymbols,
                           cs::kCentreRuns})
          ASSERT_EQ(got.scalars[k], want.scalars[k]) << "scalar " << k;
        ASSERT_TRUE(got.hist == want.hist);
        ASSERT_TRUE(got.zrun == want.zrun);
        ASSERT_TRUE(got.rval == want.rval);
        ASSERT_TRUE(got.rlen == want.rlen);
        ASSERT_TRUE(got.tile_tok == want.tile_tok);
        ASSERT_TRUE(got.tile_run == want.tile_run);
        // The flag sets the choice asks for alone count the same.
        const Counts tok = on_device(v, alphabet, centre, cs::kStatsHist | cs::kStatsTokens | cs::kStatsCont);
        ASSERT_TRUE(tok.cont == want.cont) << "continuations by value";
        ASSERT_EQ(tok.scalars[cs::kBadSymbols], want.scalars[cs::kBadSymbols]);
        ASSERT_TRUE(tok.zrun == want.zrun && tok.tile_tok == want.tile_tok && tok.hist == want.hist);
        for (uint32_t k : {cs::kTokens, cs::kForcedCentre, cs::kTail, cs::kChanges, cs::kCentreRuns})
          ASSERT_EQ(tok.scalars[k], want.scalars[k]) << "scalar " << k << " of the first pass of auto";
        const Counts zr = on_device(v, alphabet, centre, cs::kStatsHist | cs::kStatsTokens);  // zrle+huffman's
        ASSERT_TRUE(zr.zrun == want.zrun && zr.tile_tok == want.tile_tok && zr.hist == want.hist);
        const Counts run = on_device(v, alphabet, centre, cs::kStatsRuns);
        ASSERT_TRUE(run.rlen == want.rlen && run.rval == want.rval && run.tile_run == want.tile_run);
        const Counts wid = on_device(v, alphabet, centre, cs::kStatsWidths);
        ASSERT_EQ(wid.scalars[cs::kWidthWords], want.scalars[cs::kWidthWords]);
      }
}

// The reference above is the CPU twin's counters' own definition (runs without a device).
TEST(CodesStatsCuda, TheDefinitionIsTheCpuCounters) {
  for (uint64_t n : {1ull, 8193ull, 65537ull, 3 * 65536ull + 12345ull})
    for (double p : {0.0, 0.01, 0.3, 1.0}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " p=" + std::to_string(p));
      const auto v = make_codes(n, p, 1024, 512, static_cast<uint32_t>(n + 1000 * p));
      const Counts want = by_definition(v, 1024, 512);
      const codes::TokenStats ts = codes::token_stats_cpu(v, 512, huffman::histogram_cpu(v));
      const codes::RunStats rs = codes::run_stats_cpu(v);
      auto same = [](std::vector<uint64_t> a, std::vector<uint64_t> b) {  // trailing zero bins aside
        while (!a.empty() && a.back() == 0) a.pop_back();
        while (!b.empty() && b.back() == 0) b.pop_back();
        return a == b;
      };
      ASSERT_EQ(ts.count, want.scalars[cs::kTokens]);
      ASSERT_EQ(ts.tail, want.scalars[cs::kTail]);
      ASSERT_TRUE(same(ts.zrun, want.zrun));
      ASSERT_EQ(rs.count, want.scalars[cs::kRuns]);
      ASSERT_TRUE(same(rs.value, want.rval));
      ASSERT_TRUE(same(rs.len_m1, want.rlen));
      ASSERT_EQ(rle::count_runs_cpu(v), want.scalars[cs::kChanges] + 1);
      ASSERT_EQ(codes::centre_runs_cpu(v, 512), want.scalars[cs::kCentreRuns]);
      ASSERT_EQ(codes::forced_centre_cpu(v, 512), want.scalars[cs::kForcedCentre]);
    }
}

// `auto` on the device counts every candidate in one pass and sizes the run candidates from it:
// where runs win (long runs of any value), where they nearly do and where they cannot, the
// device chooses what the CPU twin chooses and writes its bytes.
TEST(CodesStatsCuda, AutoChoiceEqualsTheCpuTwinWhereRunsWinOrNot) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(5);
  auto runs_of = [&](uint64_t n, uint32_t longest, uint32_t alphabet) {
    std::vector<uint16_t> v(n);
    for (uint64_t i = 0; i < n;) {
      const uint16_t c = static_cast<uint16_t>(rng() % alphabet);
      for (uint64_t k = 1 + rng() % longest; k > 0 && i < n; --k) v[i++] = c;
    }
    return v;
  };
  std::vector<Lossless> seen;
  for (uint64_t n : {1ull, 8193ull, 65536ull, 65537ull, 300007ull})
    for (uint32_t longest : {1u, 3u, 40u, 5000u})
      for (double p : {0.0, 0.05}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " longest=" + std::to_string(longest) + " p=" + std::to_string(p));
        std::vector<uint16_t> v = runs_of(n, longest, 1024);
        if (p > 0) v = make_codes(n, p, 1024, 512, static_cast<uint32_t>(n + longest));
        const codes::Encoded cpu = codes::encode_cpu(v, 1024, 512, Lossless::auto_select);
        auto d = test::upload(v);
        const codes::Encoded gpu = codes::encode_cuda(d.get(), n, 1024, 512, Lossless::auto_select, nullptr);
        ASSERT_EQ(static_cast<int>(gpu.stage), static_cast<int>(cpu.stage));
        ASSERT_TRUE(gpu.bytes == cpu.bytes);
        dev::Buffer<uint16_t> back(n, nullptr);
        codes::decode_cuda(gpu.stage, gpu.bytes, back.get(), n, nullptr);
        ASSERT_TRUE(test::download(back.get(), n) == v);
        seen.push_back(gpu.stage);
      }
  // The cases reach both run stages and at least one other.
  auto has = [&](Lossless l) { return std::find(seen.begin(), seen.end(), l) != seen.end(); };
  EXPECT_TRUE(has(Lossless::rle) || has(Lossless::rle_huffman));
  EXPECT_TRUE(has(Lossless::huffman) || has(Lossless::zrle_huffman));
}
