// The choice of a lossless stage (Lossless::auto_select), written once for both devices: the
// CPU twin feeds it counts it computes on demand, the device path counts everything in one
// pass first and feeds it the downloaded histograms. Same counts, same decision, same stream.
#pragma once
#include <sciz/types.hpp>

#include <cstdint>
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

struct Decision {
  Lossless stage;
  uint64_t bytes;   // the chosen blob's exact size
  uint64_t zfloor;  // for the trace line
  uint64_t r0;
};

// h: the Huffman candidate of the codes themselves. zrle_bytes() sizes the zrle+huffman
// candidate exactly; count_runs() gives the maximal run count (a floor for the cut runs);
// run_bytes() sizes rle and rle+huffman exactly and returns {rle, rle+huffman}. Each is called
// only when its floor beats the best exact size so far; ties go to the simpler stage.
template <class ZrleBytes, class CountRuns, class RunBytes>
Decision decide(const Sized& h, uint64_t n, uint16_t centre, ZrleBytes&& zrle_bytes, CountRuns&& count_runs, RunBytes&& run_bytes) {
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
  if (std::min(rle_bytes(d.r0), kRleHuffmanHeader + d.r0 / 4) < d.bytes) {
    const std::pair<uint64_t, uint64_t> rb = run_bytes();
    if (rb.first < d.bytes) d.bytes = rb.first, d.stage = Lossless::rle;
    if (rb.second < d.bytes) d.bytes = rb.second, d.stage = Lossless::rle_huffman;
  }
  return d;
}

}  // namespace sciz::codes
