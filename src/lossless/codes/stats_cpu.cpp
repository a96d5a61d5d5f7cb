// One-scan statistics of the zrle and rle candidates (see stats_cpu.hpp). Each 65536-code tile
// is turned into 64-bit masks (token / run-start positions, SSE2 compares where available) and
// only the mask transitions are visited: a zero run of the zrle tokens is a stretch of
// non-token positions, so a token's zrun is 0 unless the position before it is a non-token,
// and then it is the length of that stretch. Runs are visited start by start.
#include "lossless/codes/stats_cpu.hpp"

#include <algorithm>
#include <bit>

#include "core/bit_count.hpp"
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

// Bins that grow to the largest index counted: small inputs never touch the 65536-bin tables
// (512 KB each, fresh pages on a first call); large ones reach them after a few doublings.
struct Bins {
  std::vector<uint64_t> v;
  void add(uint64_t i) {
    if (i >= v.size()) [[unlikely]]
      v.resize(std::max<uint64_t>(i + 1, std::min<uint64_t>(2 * v.size(), kBins)), 0);
    ++v[i];
  }
  void add_into(std::vector<uint64_t>& out) const {
    if (out.size() < v.size()) out.resize(v.size(), 0);
    for (size_t b = 0; b < v.size(); ++b) out[b] += v[b];
  }
};

// Tokens of tile [lo, hi): zrun histogram into zh (zrun 0 only counted, in zero_gaps).
TileTokens tile_tokens(const uint16_t* sym, uint64_t lo, uint64_t hi, uint16_t centre, Bins& zh) {
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
    t.count += static_cast<uint64_t>(set_bits(tok));
    t.zero_gaps += static_cast<uint64_t>(set_bits(tok & prev));
    uint64_t ev = ((~tok & prev) | (tok & ~prev)) & valid;  // zero-run starts and ends, alternating
    while (ev) {
      const uint64_t pos = p0 + static_cast<uint64_t>(std::countr_zero(ev));
      if (open)
        zh.add(pos - open_at);
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

// Run starts of the nb positions from p0 inside tile [lo, hi) (a tile's first position starts one).
inline uint64_t start_mask(const uint16_t* sym, uint64_t lo, uint64_t p0, uint32_t nb) {
  if (nb == 64 && p0 > lo) return ~same_mask64(sym + p0);
  uint64_t start = 0;
  for (uint32_t j = 0; j < nb; ++j) start |= static_cast<uint64_t>(p0 + j == lo || sym[p0 + j] != sym[p0 + j - 1]) << j;
  return start & low_bits(nb);
}

// Runs of tile [lo, hi): value and len_m1 histograms; returns the run count.
uint64_t tile_runs(const uint16_t* sym, uint64_t lo, uint64_t hi, Bins& vh, Bins& lh) {
  uint64_t count = 0, last = lo;
  bool any = false;
  for (uint64_t p0 = lo; p0 < hi; p0 += 64) {
    const uint32_t nb = static_cast<uint32_t>(std::min<uint64_t>(64, hi - p0));
    uint64_t start = start_mask(sym, lo, p0, nb);
    count += static_cast<uint64_t>(set_bits(start));
    while (start) {
      const uint64_t pos = p0 + static_cast<uint64_t>(std::countr_zero(start));
      vh.add(sym[pos]);
      if (any) lh.add(pos - last - 1);
      any = true;
      last = pos;
      start &= start - 1;
    }
  }
  if (any) lh.add(hi - last - 1);
  return count;
}

// The same for a tile where most positions start a run (quant codes of a small field: 0.8 n
// runs on a 200 KB cut), visiting the other positions only: their values into rh (the caller
// subtracts them from the codes' histogram), and the runs longer than one where they open (a
// start followed by a non-start) and close (a non-start followed by a start or the tile's
// end), which alternate; runs of one are counted by popcount.
uint64_t tile_runs_dense(const uint16_t* sym, uint64_t lo, uint64_t hi, Bins& rh, Bins& lh) {
  uint64_t count = 0, ones = 0, open_at = 0;
  bool open = false;
  uint32_t nb = static_cast<uint32_t>(std::min<uint64_t>(64, hi - lo));
  uint64_t start = start_mask(sym, lo, lo, nb);
  for (uint64_t p0 = lo; p0 < hi; p0 += 64) {
    const uint64_t q0 = p0 + 64;
    const uint32_t nb2 = q0 < hi ? static_cast<uint32_t>(std::min<uint64_t>(64, hi - q0)) : 0;
    const uint64_t after = nb2 ? start_mask(sym, lo, q0, nb2) : 0;
    const uint64_t valid = low_bits(nb);
    // Bit j: position j + 1 starts a run (the tile's end counts as one).
    const uint64_t next = (start >> 1) | (nb2 ? (after & 1) << 63 : uint64_t{1} << (nb - 1));
    count += static_cast<uint64_t>(set_bits(start));
    ones += static_cast<uint64_t>(set_bits(start & next));
    for (uint64_t m = ~start & valid; m; m &= m - 1) rh.add(sym[p0 + static_cast<uint64_t>(std::countr_zero(m))]);
    for (uint64_t ev = ((start & ~next) | (~start & next)) & valid; ev; ev &= ev - 1) {
      const uint64_t pos = p0 + static_cast<uint64_t>(std::countr_zero(ev));
      if (open) lh.add(pos - open_at);
      else open_at = pos;
      open = !open;
    }
    start = after;
    nb = nb2;
  }
  if (ones) {
    if (lh.v.empty()) lh.v.resize(1, 0);
    lh.v[0] += ones;
  }
  return count;
}

}  // namespace

TokenStats token_stats_cpu(std::span<const uint16_t> sym, uint16_t centre, const std::vector<uint64_t>& hist) {
  const uint64_t n = sym.size(), tiles = (n + kTile - 1) / kTile;
  TokenStats s;
  uint64_t count = 0, zero_gaps = 0, forced_centre = 0;
  uint32_t tail = 0;
#pragma omp parallel if (static_cast<int64_t>(n) >= kParallelMin)
  {
    Bins zh;
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
      zh.add_into(s.zrun);
      count += c;
      zero_gaps += z;
      forced_centre += f;
    }
  }
  if (count) {
    if (s.zrun.empty()) s.zrun.resize(1, 0);
    s.zrun[0] += zero_gaps;
  }
  s.count = count;
  s.tail = tail;
  s.value = hist;
  if (s.value.size() <= centre) s.value.resize(size_t{centre} + 1, 0);
  s.value[centre] = forced_centre;
  return s;
}

RunStats run_stats_cpu(std::span<const uint16_t> sym, const std::vector<uint64_t>* hist) {
  const uint64_t n = sym.size(), tiles = (n + kTile - 1) / kTile;
  RunStats s;
  uint64_t count = 0;
  // Dense runs: a popcount pass over the run-start masks first (a few microseconds on 50,000
  // codes) tells whether fewer positions continue a run than start one.
  bool dense = false;
  if (hist && n) {
    uint64_t starts = 0;
    for (uint64_t lo = 0; lo < n; lo += kTile) {
      const uint64_t hi = std::min(n, lo + kTile);
      for (uint64_t p0 = lo; p0 < hi; p0 += 64)
        starts += static_cast<uint64_t>(
            set_bits(start_mask(sym.data(), lo, p0, static_cast<uint32_t>(std::min<uint64_t>(64, hi - p0)))));
    }
    dense = 2 * starts > n;
  }
#pragma omp parallel if (static_cast<int64_t>(n) >= kParallelMin)
  {
    Bins vh, lh;
    uint64_t c = 0;
#pragma omp for schedule(static) nowait
    for (int64_t t = 0; t < static_cast<int64_t>(tiles); ++t) {
      const uint64_t lo = static_cast<uint64_t>(t) * kTile, hi = std::min(n, lo + kTile);
      c += dense ? tile_runs_dense(sym.data(), lo, hi, vh, lh) : tile_runs(sym.data(), lo, hi, vh, lh);
    }
#pragma omp critical
    {
      vh.add_into(s.value);
      lh.add_into(s.len_m1);
      count += c;
    }
  }
  s.count = count;
  if (dense) {  // s.value holds the values that continue a run: the run values are the rest
    std::vector<uint64_t> v = *hist;
    // Both tables may end early (at their largest value): every value that continues a run is a
    // code, so it lies inside the histogram, and s.value past it holds only zeros.
    for (size_t b = 0; b < std::min(v.size(), s.value.size()); ++b) v[b] -= s.value[b];
    s.value = std::move(v);
  }
  return s;
}

uint64_t centre_runs_cpu(std::span<const uint16_t> sym, uint16_t centre) {
  const int64_t n = static_cast<int64_t>(sym.size());
  if (n == 0) return 0;
  uint64_t starts = sym[0] == centre;
#pragma omp parallel for schedule(static) reduction(+ : starts) if (n >= kParallelMin)
  for (int64_t i = 1; i < n; ++i) starts += (sym[i] == centre) & (sym[i - 1] != centre);
  return starts;
}

uint64_t forced_centre_cpu(std::span<const uint16_t> sym, uint16_t centre) {
  uint64_t f = 0;
  for (uint64_t p = kTile - 1; p < sym.size(); p += kTile) f += sym[p] == centre;
  return f;
}

}  // namespace sciz::codes
