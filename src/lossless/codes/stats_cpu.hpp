// CPU-only statistics for choosing a lossless stage: the histograms that the zrle+huffman and
// rle+huffman candidates would build from their token and run arrays, computed in one scan of
// the codes without building those arrays. Every count equals the one the materialized arrays
// give (tests/lossless/test_stats_cpu.cpp checks them against zrle::tokens_cpu and
// rle::runs_cpu), so the sizes, the codebooks and the choice are unchanged.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace sciz::codes {

struct TokenStats {
  std::vector<uint64_t> value, zrun;  // bins up to the largest value at least, as huffman::histogram_cpu
  uint64_t count = 0;                 // tokens
  uint32_t tail = 0;
};
// hist: huffman::histogram_cpu(sym). The token values are every non-centre code plus the
// forced tokens (position % 65536 == 65535), so their histogram is `hist` with the centre bin
// replaced by the forced tokens that hold the centre.
TokenStats token_stats_cpu(std::span<const uint16_t> sym, uint16_t centre, const std::vector<uint64_t>& hist);

struct RunStats {
  std::vector<uint64_t> value, len_m1;  // likewise, of rle::runs_cpu
  uint64_t count = 0;                   // runs (cut at multiples of 65536)
};
// hist, when given, is huffman::histogram_cpu(sym): where most positions start a run, the run
// values' histogram is then hist less the values of the other positions, which are fewer to
// visit.
RunStats run_stats_cpu(std::span<const uint16_t> sym, const std::vector<uint64_t>* hist = nullptr);

// Maximal runs of the centre code (uncut), and the forced tokens that hold it (positions
// 65535 mod 65536): with the histograms they give rle_huffman_floor (select.hpp).
uint64_t centre_runs_cpu(std::span<const uint16_t> sym, uint16_t centre);
uint64_t forced_centre_cpu(std::span<const uint16_t> sym, uint16_t centre);

}  // namespace sciz::codes
