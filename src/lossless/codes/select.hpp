// The choice of a lossless stage (Lossless::auto_select), written once for both devices: the
// CPU twin feeds it counts it computes on demand, the device path counts everything in one
// pass first and feeds it the downloaded histograms. Same counts, same decision, same stream.
#pragma once
#include <sciz/types.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "lossless/codes/codes.hpp"
#include "lossless/huffman/codebook.hpp"
#include "lossless/huffman/huffman.hpp"
#include "lossless/rle/rle.hpp"

namespace sciz::codes {

// A Huffman candidate sized exactly from its histogram: code lengths, code bits and blob bytes.
// The full codebook (65536-entry tables) is built only for a candidate that gets encoded.
struct Sized {
  huffman::Lengths lens;
  uint64_t bits = 0, bytes = 0;
  std::vector<uint64_t> hist;
  huffman::Codebook codebook() const { return huffman::codebook_from(lens); }
};

inline Sized size_from_hist(std::vector<uint64_t> h, uint64_t n) {
  Sized z;
  z.lens = huffman::code_lengths(h);
  z.bits = huffman::coded_bits(z.lens, h);
  z.bytes = huffman::blob_bytes(n, z.bits, huffman::codebook_bytes(z.lens));
  z.hist = std::move(h);
  return z;
}

inline uint64_t rle_bytes(uint64_t runs) { return rle::kHeaderBytes + 4 * runs; }

// Floors on the rle+huffman blob from the counts the zero-run candidate takes (no pass over
// the runs). For a histogram c of N symbols, no prefix code spends fewer bits than
//   L(c) = min sum c_i l_i  over real lengths l_i >= 1 with sum 2^-l_i <= 1
// (Huffman's lengths are such lengths): N H(c) when no count exceeds N / 2, else the largest
// count a bit each and the others an entropy code in the half left, c_max + R + R H(rest).
// L is a minimum of linear functions of c, so concave, symmetric and growing in every count.
struct CountSums {
  double n = 0, s = 0;  // total, sum c log2 c
  double max1 = 0, max2 = 0;
};
inline double xlog2(double x) { return x > 0 ? x * std::log2(x) : 0.0; }
inline double code_floor_bits(double n, double s, double cmax) {
  if (n <= 0) return 0;
  if (2 * cmax <= n) return xlog2(n) - s;
  const double rest = n - cmax;
  return cmax + rest + (xlog2(rest) - (s - xlog2(cmax)));
}
inline CountSums count_sums(std::span<const uint64_t> c) {
  CountSums t;
  for (uint64_t v : c)
    if (v) {
      const double x = static_cast<double>(v);
      t.n += x, t.s += xlog2(x);
      if (x > t.max1) t.max2 = t.max1, t.max1 = x;
      else if (x > t.max2) t.max2 = x;
    }
  return t;
}

// A floor on the rle+huffman blob (it is larger than the one a bit a run and a length gives):
//  - run values: the r0 maximal runs hold `centre_runs` centre runs and between 1 and hist[v]
//    runs of any other v present; L is least at the most concentrated such histogram (one
//    each, the rest to the largest bins first: it majorizes the others), and cutting runs at
//    multiples of 65536 only adds counts (with `cont`, the maximal runs' values exactly);
//  - run lengths: every centre run is a zero run of the tokens (the zero run before a
//    non-centre token, one longer before a forced token that holds the centre, and the tail),
//    so the lengths hold the zero runs' histogram less at most `forced` of them (each costing
//    at most log2(N) + 2 bits), and r0 - centre_runs lengths of the other runs, of which those
//    not forced to be single codes may lie anywhere: L being concave, it is least with all of
//    them in one bin, the cheapest.
// A margin covers the rounding of the doubles.
inline uint64_t rle_huffman_floor(std::span<const uint64_t> hist, uint16_t centre, uint64_t r0, uint64_t centre_runs,
                                  std::span<const uint64_t> zrun_hist, uint64_t forced,
                                  std::span<const uint64_t> cont = {}) {
  if (r0 == 0) return kRleHuffmanHeader;
  centre_runs = std::min(centre_runs, r0);
  const uint64_t k = r0 - centre_runs;  // maximal runs of other values
  // Values: each value present starts at least one run; the rest go to the largest bins.
  std::vector<uint64_t> val{centre_runs}, more;
  uint64_t others = 0;  // codes that are not the centre
  for (size_t v = 0; v < hist.size(); ++v)
    if (v != centre && hist[v]) val.push_back(1), more.push_back(hist[v] - 1), others += hist[v];
  if (val.size() - 1 > k) return kRleHuffmanHeader;  // not counts of one array: no floor
  // With `cont` (per value, the codes equal to the one before them), the maximal runs of v are
  // hist[v] - cont[v] exactly; counts that do not add up to k are ignored.
  bool exact = false;
  if (!cont.empty()) {
    std::vector<uint64_t> ex{centre_runs};
    uint64_t sum = 0;
    bool ok = true;
    for (size_t v = 0; v < hist.size() && ok; ++v)
      if (v != centre && hist[v]) {
        const uint64_t c = v < cont.size() ? cont[v] : 0;
        ok = c < hist[v];
        ex.push_back(hist[v] - c);
        sum += hist[v] - c;
      }
    if (ok && sum == k) val = std::move(ex), exact = true;
  }
  if (!exact) {
    std::vector<size_t> order(more.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return more[a] > more[b]; });
    for (uint64_t left = k - (val.size() - 1); size_t i : order) {
      if (!left) break;
      const uint64_t add = std::min(more[i], left);
      val[1 + i] += add;
      left -= add;
    }
  }
  const CountSums vs = count_sums(val);
  const double fv = code_floor_bits(vs.n, vs.s, vs.max1);
  // Lengths: k runs of other values cover `others` codes, so at least 2k - others of them
  // are single codes (zero runs of 1 count in the same bin); the rest may be any length.
  double fl = 0;
  while (!zrun_hist.empty() && zrun_hist.back() == 0) zrun_hist = zrun_hist.first(zrun_hist.size() - 1);
  if (zrun_hist.size() > 1 && others >= k) {
    std::vector<uint64_t> z(zrun_hist.begin() + 1, zrun_hist.end());
    const uint64_t ones = 2 * k > others ? 2 * k - others : 0;
    z[0] += ones;
    const CountSums m = count_sums(z);
    const double rest = static_cast<double>(k - ones), nk = m.n + rest;
    if (m.n > 0) {
      double least = code_floor_bits(nk, m.s + xlog2(rest), std::max(m.max1, rest));  // all in a bin of their own
      for (uint64_t v : z)
        if (v) {
          const double c = static_cast<double>(v), other = c == m.max1 ? m.max2 : m.max1;
          least = std::min(least, code_floor_bits(nk, m.s - xlog2(c) + xlog2(c + rest), std::max(other, c + rest)));
        }
      fl = least - static_cast<double>(forced) * (std::log2(nk) + 2);
    }
  }
  auto floor_bits = [](double f) { return f > 64 ? static_cast<uint64_t>(f * (1 - 1e-9) - 64) : uint64_t{0}; };
  const uint64_t bits = std::max(r0, floor_bits(fv)) + std::max(r0, floor_bits(fl));
  return kRleHuffmanHeader + bits / 8;
}

struct Decision {
  Lossless stage;
  uint64_t bytes;   // the chosen blob's exact size
  uint64_t zfloor;  // for the trace line
  uint64_t r0;
};

// h: the Huffman candidate of the codes themselves. zrle_bytes() sizes the zrle+huffman
// candidate exactly; count_runs() gives the maximal run count (a floor for the cut runs);
// run_floor(r0) a floor on rle+huffman's bytes (rle_huffman_floor, or 0); run_bytes() sizes
// rle and rle+huffman exactly and returns {rle, rle+huffman}. Each sizing is called only when
// its floor beats the best exact size so far; ties go to the simpler stage. The floors only
// skip work: any valid ones give the same choice, so the two devices may use different ones.
template <class ZrleBytes, class CountRuns, class RunFloor, class RunBytes>
Decision decide(const Sized& h, uint64_t n, uint16_t centre, ZrleBytes&& zrle_bytes, CountRuns&& count_runs,
                RunFloor&& run_floor, RunBytes&& run_bytes) {
  Decision d{Lossless::huffman, h.bytes, 0, 0};
  // Zero runs: the non-centre codes must all be tokens, so their Huffman size plus one bit
  // per token is a floor (forced tokens only add to it).
  std::vector<uint64_t> nc = h.hist;
  const uint64_t tokens_min = n - (centre < nc.size() ? nc[centre] : 0);
  if (centre < nc.size()) nc[centre] = 0;
  d.zfloor = tokens_min ? size_from_hist(std::move(nc), tokens_min).bytes + tokens_min / 8 : 0;
  if (d.zfloor < d.bytes) {
    const uint64_t zb = zrle_bytes();
    if (zb < d.bytes) d.bytes = zb, d.stage = Lossless::zrle_huffman;
  }
  // Runs of any code: rle >= 4 bytes a run, rle+huffman >= 1 bit per value and per length.
  d.r0 = count_runs();  // before splitting: a floor for the split count
  if (rle_bytes(d.r0) < d.bytes || std::max<uint64_t>(kRleHuffmanHeader + d.r0 / 4, run_floor(d.r0)) < d.bytes) {
    const std::pair<uint64_t, uint64_t> rb = run_bytes();
    if (rb.first < d.bytes) d.bytes = rb.first, d.stage = Lossless::rle;
    if (rb.second < d.bytes) d.bytes = rb.second, d.stage = Lossless::rle_huffman;
  }
  return d;
}

}  // namespace sciz::codes
