// One-scan statistics of the zrle and rle candidates (see stats_cpu.hpp). Each 65536-code tile
// is turned into 64-bit masks (token / run-start positions, SSE2 compares where available) and
// only the mask transitions are visited: a zero run of the zrle tokens is a stretch of
// non-token positions, so a token's zrun is 0 unless the position before it is a non-token,
// and then it is the length of that stretch. Runs are visited start by start.
#include "lossless/codes/stats_cpu.hpp"

#include <algorithm>
#include <bit>

#include "lossless/codes/masks_cpu.hpp"
#include "lossless/rle/rle.hpp"
#include "lossless/zrle/zrle.hpp"

namespace sciz::codes {
namespace {

constexpr uint64_t kTile = 65536;
static_assert(kTile == zrle::kTile && kTile == rle::kMaxRun, "one tile size for both stages");
constexpr int64_t kParallelMin = 1 << 18;
constexpr uint32_t kBins = 65536;

struct TileTokens {
  uint64_t count = 0, zero_gaps = 0, forced_centre = 0;
  uint32_t open = 0;  // length of the zero run still open at the tile's end
};

// Tokens of tile [lo, hi): zrun histogram into zh (zrun 0 only counted, in zero_gaps).
TileTokens tile_tokens(const uint16_t* sym, uint64_t lo, uint64_t hi, uint16_t centre, uint64_t* zh) {
  TileTokens t;
  const bool full = hi - lo == kTile;
  uint64_t carry = 1;  // the position before the tile counts as a token (zrun starts at lo)
  bool open = false;
  uint64_t open_at = 0;
  for (uint64_t p0 = lo; p0 < hi; p0 += 64) {
    const uint32_t nb = static_cast<uint32_t>(std::min<uint64_t>(64, hi - p0));
    uint64_t tok;
    if (nb == 64) {
      tok = ~eq_mask64(sym + p0, centre);
    } else {
      tok = 0;
      for (uint32_t j = 0; j < nb; ++j) tok |= static_cast<uint64_t>(sym[p0 + j] != centre) << j;
    }
    if (full && p0 + 64 == hi) {  // the forced token at position % 65536 == 65535
      t.forced_centre += (tok >> 63) ^ 1;
      tok |= uint64_t{1} << 63;
    }
    const uint64_t valid = low_bits(nb);
    const uint64_t prev = (tok << 1) | carry;  // bit j: position j - 1 is a token
    t.count += static_cast<uint64_t>(std::popcount(tok));
    t.zero_gaps += static_cast<uint64_t>(std::popcount(tok & prev));
    uint64_t ev = ((~tok & prev) | (tok & ~prev)) & valid;  // zero-run starts and ends, alternating
    while (ev) {
      const uint64_t pos = p0 + static_cast<uint64_t>(std::countr_zero(ev));
      if (open)
        ++zh[pos - open_at];
      else
        open_at = pos;
      open = !open;
      ev &= ev - 1;
    }
    carry = tok >> 63;
  }
  if (open) t.open = static_cast<uint32_t>(hi - open_at);
  return t;
}

// Runs of tile [lo, hi): value and len_m1 histograms; returns the run count.
uint64_t tile_runs(const uint16_t* sym, uint64_t lo, uint64_t hi, uint64_t* vh, uint64_t* lh) {
  uint64_t count = 0, last = lo;
  bool any = false;
  for (uint64_t p0 = lo; p0 < hi; p0 += 64) {
    const uint32_t nb = static_cast<uint32_t>(std::min<uint64_t>(64, hi - p0));
    uint64_t start;
    if (nb == 64 && p0 > lo) {
      start = ~same_mask64(sym + p0);
    } else {
      start = 0;
      for (uint32_t j = 0; j < nb; ++j)
        start |= static_cast<uint64_t>(p0 + j == lo || sym[p0 + j] != sym[p0 + j - 1]) << j;
    }
    start &= low_bits(nb);
    count += static_cast<uint64_t>(std::popcount(start));
    while (start) {
      const uint64_t pos = p0 + static_cast<uint64_t>(std::countr_zero(start));
      ++vh[sym[pos]];
      if (any) ++lh[pos - last - 1];
      any = true;
      last = pos;
      start &= start - 1;
    }
  }
  if (any) ++lh[hi - last - 1];
  return count;
}

}  // namespace

TokenStats token_stats_cpu(std::span<const uint16_t> sym, uint16_t centre, const std::vector<uint64_t>& hist) {
  const uint64_t n = sym.size(), tiles = (n + kTile - 1) / kTile;
  TokenStats s;
  s.zrun.assign(kBins, 0);
  uint64_t count = 0, zero_gaps = 0, forced_centre = 0;
  uint32_t tail = 0;
  const bool parallel = static_cast<int64_t>(n) >= kParallelMin;
#pragma omp parallel if (parallel)
  {
    // One thread counts straight into the result: per-thread bins are 512 KB to clear and add.
    std::vector<uint64_t> own(parallel ? kBins : 0, 0);
    uint64_t* zh = parallel ? own.data() : s.zrun.data();
    uint64_t c = 0, z = 0, f = 0;
#pragma omp for schedule(static) nowait
    for (int64_t t = 0; t < static_cast<int64_t>(tiles); ++t) {
      const uint64_t lo = static_cast<uint64_t>(t) * kTile, hi = std::min(n, lo + kTile);
      const TileTokens tt = tile_tokens(sym.data(), lo, hi, centre, zh);
      c += tt.count;
      z += tt.zero_gaps;
      f += tt.forced_centre;
      if (t + 1 == static_cast<int64_t>(tiles)) tail = tt.open;  // only the last tile can end open
    }
#pragma omp critical
    {
      if (parallel)
        for (uint32_t b = 0; b < kBins; ++b) s.zrun[b] += zh[b];
      count += c;
      zero_gaps += z;
      forced_centre += f;
    }
  }
  s.zrun[0] += zero_gaps;
  s.count = count;
  s.tail = tail;
  s.value = hist;
  s.value.resize(kBins, 0);
  s.value[centre] = forced_centre;
  return s;
}

RunStats run_stats_cpu(std::span<const uint16_t> sym) {
  const uint64_t n = sym.size(), tiles = (n + kTile - 1) / kTile;
  RunStats s;
  s.value.assign(kBins, 0);
  s.len_m1.assign(kBins, 0);
  uint64_t count = 0;
  const bool parallel = static_cast<int64_t>(n) >= kParallelMin;
#pragma omp parallel if (parallel)
  {
    std::vector<uint64_t> own(parallel ? 2 * kBins : 0, 0);  // one thread: straight into the result
    uint64_t* vh = parallel ? own.data() : s.value.data();
    uint64_t* lh = parallel ? own.data() + kBins : s.len_m1.data();
    uint64_t c = 0;
#pragma omp for schedule(static) nowait
    for (int64_t t = 0; t < static_cast<int64_t>(tiles); ++t) {
      const uint64_t lo = static_cast<uint64_t>(t) * kTile, hi = std::min(n, lo + kTile);
      c += tile_runs(sym.data(), lo, hi, vh, lh);
    }
#pragma omp critical
    {
      if (parallel)
        for (uint32_t b = 0; b < kBins; ++b) s.value[b] += vh[b], s.len_m1[b] += lh[b];
      count += c;
    }
  }
  s.count = count;
  return s;
}

}  // namespace sciz::codes
