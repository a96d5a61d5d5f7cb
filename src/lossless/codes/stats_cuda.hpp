// Every count the stage choice and the device encoders need, in one pass over the codes on the
// device: the code histogram, the zero-run tokens (count, zrun histogram, forced centre tokens,
// tail), the runs (count, value and length-1 histograms, maximal-run changes) and bitpack's
// word count, plus per-65536-code tile token and run counts that place the tokens and runs
// later without counting again. The counts equal what stats_cpu.hpp, zrle::tokens_cpu and
// rle::runs_cpu give. Host-only interface (stats_cuda.cu).
#pragma once
#include <cstdint>

#include "core/cuda_fwd.hpp"

namespace sciz::codes::cuda {

inline constexpr uint64_t kTile = 65536;  // zrle::kTile == rle::kMaxRun

enum StatsFlag : uint32_t {
  kStatsHist = 1,    // code histogram
  kStatsTokens = 2,  // zero-run tokens
  kStatsRuns = 4,    // runs
  kStatsWidths = 8,  // bitpack words
  kStatsCont = 16,   // per value, codes equal to the one before them (with kStatsHist)
};

// Scalars, at StatsOut::scalars.
enum StatsScalar : uint32_t {
  kTokens = 0,        // zrle tokens
  kForcedCentre = 1,  // forced tokens (position % 65536 == 65535) holding the centre code
  kTail = 2,          // centre codes after the last token
  kRuns = 3,          // runs, cut at multiples of 65536
  kChanges = 4,       // positions i > 0 with sym[i] != sym[i - 1] (maximal runs - 1), with kStatsTokens or kStatsRuns
  kWidthWords = 5,    // sum of bitpack block widths: 32-bit words of the bitpack payload
  kBadSymbols = 6,    // symbols >= alphabet (an internal error of the caller)
  kCentreRuns = 7,    // maximal runs of the centre code (uncut), with kStatsTokens
  kScalarWords = 8,
};

// Device memory the pass accumulates into; every array must be zeroed before the launch.
struct StatsOut {
  uint64_t* scalars;         // [kScalarWords]
  uint64_t* hist;            // [alphabet]    with kStatsHist
  uint64_t* zrun_hist;       // [65536]       with kStatsTokens
  uint64_t* run_value_hist;  // [alphabet]    with kStatsRuns
  uint64_t* run_len_hist;    // [65536]       with kStatsRuns
  uint64_t* tile_tokens;     // [tiles]       with kStatsTokens (written, need not be zeroed)
  uint64_t* tile_runs;       // [tiles]       with kStatsRuns (written, need not be zeroed)
  uint64_t* cont_hist = nullptr;  // [alphabet] with kStatsCont: positions i > 0 with sym[i] == sym[i - 1],
                                  // by value, the centre left out (its maximal runs are kCentreRuns)
};

inline uint64_t stats_tiles(uint64_t n) { return (n + kTile - 1) / kTile; }

// d_sym: 16-byte aligned. No synchronization.
void launch_stats(const uint16_t* d_sym, uint64_t n, uint32_t alphabet, uint16_t centre, uint32_t flags,
                  const StatsOut& out, cudaStream_t s);

}  // namespace sciz::codes::cuda
