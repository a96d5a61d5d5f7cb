// `interp` predictor (cuSZ-Hi section 5.1 with QoZ's level-wise bounds): field -> uint8 quant
// codes, level by level and coarsest first, + exactly stored values; and back. The per-point
// arithmetic is interp_math.hpp; this is the host interface of the twins and the tuner.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/device_span.hpp"
#include "core/device_status.hpp"
#include "core/geometry.hpp"
#include "predict/interp/interp_math.hpp"

namespace sciz::interp {

// What the decoder needs beyond the layout, carried in the pipeline's params: per level
// l = 1..L (index l - 1) its spline and scheme and its bound eb_l (<= the stream's bound).
// alpha and beta are the tightening that produced the bounds, kept for display.
struct Choice {
  std::vector<LevelConfig> config;
  std::vector<double> eb;
  double alpha = 1, beta = 1;
  // The tuner's estimates on the sampled blocks, bits per value: the interpolation as chosen,
  // and first-order Lorenzo (dual quantization, radius 512) on the same points.
  double interp_bits = 0, lorenzo_bits = 0;
};

// Level bounds of QoZ: eb_l = eb / min(alpha^(l-1), beta). alpha^(l-1) by repeated
// multiplication in double, so every host computes the same bounds.
std::vector<double> level_bounds(double eb, int levels, double alpha, double beta);

// What the caller asks of the tuner: a spline or scheme < 0 is tuned per level; alpha <= 0
// tunes alpha and beta (alpha 1 turns tightening off).
// codes_bytes sizes a run of codes as the codes section would store them (the pipeline's
// lossless coding): the tightening is chosen by the size the samples really take, which at
// fractions of a bit per code is far from their entropy. Without one, the entropy is used.
struct TuneRequest {
  int spline = -1;
  int scheme = -1;
  unsigned scheme_mask = 0xF;  // with scheme < 0: the schemes the tuner may choose (bit = Scheme)
  double alpha = 0, beta = 0;
  std::function<uint64_t(std::span<const uint8_t> codes)> codes_bytes;
  // Sizes Lorenzo's 16-bit codes (radius 512) as the lorenzo pipeline stores them; with one, the
  // tuner also estimates Lorenzo on the samples (Choice::lorenzo_bits).
  std::function<uint64_t(std::span<const uint16_t> codes)> lorenzo_codes_bytes;
  // Threads the tuner's passes over the samples may use: 0 sizes them by the bytes they read
  // (no team for small work, core/omp_threads.hpp); a caller whose host cores idle while the
  // tuner runs (the GPU path) may give more. The choice does not depend on it.
  int threads = 0;
};

Layout layout_of(const Extent& e);

// What the tuner reads of a field: the boxes of the sampled blocks (sample_blocks(), about
// 0.2 % of them and at least a few dozen) and a window of the anchor grid (anchor_window(), at
// most 2^16 anchors from the origin). Gathered by either device; the tuner then runs on the
// host, so both devices choose the same.
// A sampled box as the tuner runs it, and the codes one block level left in it.
template <class T>
struct TuneSample {
  BoxGeom g;
  std::vector<T> x;  // the box's original values
  std::vector<T> v;  // its state: reconstructed up to the levels done so far
};
struct TuneLevelCodes {
  std::vector<uint8_t> codes;  // the codes of its finite points, in the order the level visits them
  uint64_t outlier_bytes = 0;  // its outliers' LEB128 bytes
};
using TuneSampleCodes = std::vector<std::vector<TuneLevelCodes>>;  // [level - 1][sample]

// The greedy search over the block levels (interp_tune_cpu.cpp's tune_block_levels: its
// contract, its choice and its codes) run by another device: given the samples in their state
// after the anchor error, the candidates and the level bounds, it sets config[0..3], leaves
// every sample in the chosen state and fills codes.
template <class T>
using BlockLevelSearch = std::function<void(std::vector<TuneSample<T>>& smp, const std::vector<LevelConfig>& cand,
                                            const std::vector<double>& ebs, double ebc,
                                            std::vector<LevelConfig>& config, TuneSampleCodes& codes)>;

// The runs that size a configuration under other bounds (interp_tune_cpu.cpp's sample_bits),
// for several sets of bounds at once: for each set j, the samples from states[j] (their boxes
// after that set's anchor error) through block levels 4..1 with config[l - 1] under
// ebs[j][l - 1]; fills codes[j] as the search fills its codes. One call, so that a device
// runs every set's levels before its one round trip.
template <class T>
using SampleLevelRuns = std::function<void(const std::vector<TuneSample<T>>& smp,
                                           const std::vector<std::vector<std::vector<T>>>& states,
                                           const std::vector<LevelConfig>& config,
                                           const std::vector<std::vector<double>>& ebs, double ebc,
                                           std::vector<TuneSampleCodes>& codes)>;

// The stride over the samples at which block level l's candidates are compared: level 1 holds
// 7/8 of a box's points, so its candidates run on every other sample (the others take the
// winner), from two samples on (a small field's budget leaves it two or three, where running
// level 1's candidates on each cost 40 % of its tuning and changed one choice in 216 on the
// fixtures' cuts). Both devices' searches compare on these samples, so they choose alike.
inline size_t compared_stride(int l, size_t samples) { return l == 1 && samples >= 2 ? 2 : 1; }

// The host's block-level search itself (tune_block_levels), for tests: with bound, as tune()
// runs it (losing candidates stopped early, the level above's scheme tried first); without,
// every candidate run to its end in the plain order. Both must choose, code and leave the
// samples alike.
template <class T>
void search_block_levels(std::vector<TuneSample<T>>& smp, const std::vector<LevelConfig>& cand,
                         const std::vector<double>& ebs, double ebc, std::vector<LevelConfig>& config,
                         TuneSampleCodes& codes, int threads, bool bound);

template <class T>
struct TuneInput {
  std::vector<uint64_t> blocks;  // sampled block ids
  std::vector<T> boxes;          // kBox^3 values per sampled block, 0 outside its box
  int64_t window[3] = {1, 1, 1};
  std::vector<T> anchors;        // the window of the anchor grid, z-y-x
  BlockLevelSearch<T> block_search;  // set by gather_cuda: the search on the GPU; empty: the host's
  SampleLevelRuns<T> sample_levels;  // likewise for the sizing runs
};
std::vector<uint64_t> sample_blocks(const Layout& L);
void anchor_window(const Layout& L, int64_t window[3]);
template <class T>
TuneInput<T> gather_cpu(const T* x, const Layout& L);
// The gathered boxes as the tuner's samples, each in its state before the block levels (its
// original values).
template <class T>
std::vector<TuneSample<T>> load_samples(const TuneInput<T>& in, const Layout& L);

// Auto-tuning (section 5.1.3) on the gathered samples; deterministic.
template <class T>
Choice tune(const TuneInput<T>& in, const Layout& L, double eb, const TuneRequest& req);
template <class T>
Choice tune_cpu(const T* x, const Layout& L, double eb, const TuneRequest& req) {
  return tune<T>(gather_cpu<T>(x, L), L, eb, req);
}

template <class T>
struct Sparse {
  std::vector<uint64_t> exact_idx;  // linear field index, strictly ascending
  std::vector<T> exact_val;         // bit for bit
  std::vector<int32_t> outliers;    // residuals of the kOutlierCode points, in code order
};

// CPU twin (OpenMP over blocks). codes has L.total entries, in the section's order.
template <class T>
void compress_cpu(const T* x, const Layout& L, const Choice& ch, double eb, uint8_t* codes, Sparse<T>& sp);

// Where each outlier's residual sits: the outliers are in code order, so the residual of the
// kOutlierCode at code position p is outlier number (outlier codes before p).
struct OutlierRanks {
  std::vector<uint64_t> before;  // outlier codes before each run of 256 codes
  uint64_t rank(const uint8_t* codes, uint64_t p) const {
    uint64_t r = before[p >> 8];
    for (uint64_t i = p & ~uint64_t{255}; i < p; ++i) r += codes[i] == kOutlierCode;
    return r;
  }
};

// Checks that the exactly stored values are exactly the points of code kExactCode (one entry
// each) and that there is one outlier per kOutlierCode; throws corrupt_stream otherwise. The
// decoders rely on it.
template <class T>
OutlierRanks check_sparse(const uint8_t* codes, const Layout& L, const Sparse<T>& sp);

// out receives L.total values (linear order). sp must have passed check_sparse.
template <class T>
void decompress_cpu(const uint8_t* codes, const Sparse<T>& sp, const OutlierRanks& ranks, const Layout& L,
                    const Choice& ch, T* out);

// The outliers section: u64 count, then per outlier in code order the LEB128 of
// outlier_word(q). read_outliers checks every word and that the section ends with the last.
std::vector<uint8_t> write_outliers(const std::vector<int32_t>& q);
void read_outliers(std::span<const uint8_t> sec, uint64_t max_count, std::vector<int32_t>& q);

// ---- CUDA twin (interp_cuda.cu): device pointers, the same choices, codes and lists ----

// The tuner's input gathered on the device (d_x) and brought to the host (one synchronization).
template <class T>
TuneInput<T> gather_cuda(const T* d_x, const Layout& L, cudaStream_t s);
// d_codes: L.total device bytes. The sparse lists come back to the host sorted as the CPU twin
// sorts them (one synchronization to learn their sizes, one more if they outgrew a first
// capacity).
template <class T>
void compress_cuda(const T* d_x, const Layout& L, const Choice& ch, double eb, uint8_t* d_codes, Sparse<T>& sp,
                   cudaStream_t s);
// Makes check_sparse's checks on the device first (throws corrupt_stream), then decodes into
// d_out. Synchronizes s before returning.
template <class T>
void decompress_cuda(const uint8_t* d_codes, const Sparse<T>& sp, const Layout& L, const Choice& ch, T* d_out,
                     cudaStream_t s);

// Device-resident sections (the pipeline's compress_device / decompress_device): the codes as
// compress_cuda leaves them, the outliers section (built on the host from the outliers, a few
// bytes each) and the exact-values section (sorted and written on the device), byte for byte
// what the CPU writes.
struct DeviceSparseOut {
  dev::Buffer<uint8_t> outliers, exact;
  uint64_t outliers_size = 0, exact_size = 0;
};
template <class T>
DeviceSparseOut compress_device(const T* d_x, const Layout& L, const Choice& ch, double eb, uint8_t* d_codes,
                                cudaStream_t s);
// Decodes device sections: d_codes (decoded by interp_codes::decode_cuda, which reported into
// st), the outliers and exact-values sections. One synchronization brings the outliers
// section and the verdict so far (throws when it holds a failure, or the outliers are
// damaged); then check_sparse's checks report into st and every write is skipped once it holds
// one. No synchronization at the end: the caller syncs and reads st.
template <class T>
void decompress_device(const uint8_t* d_codes, DeviceSpan outliers, DeviceSpan exact, const Layout& L, const Choice& ch,
                       T* d_out, DeviceStatus* st, cudaStream_t s);

// The double every reconstructed value is checked against: the bound and T(bound), whichever
// is tighter, so a check in either precision passes.
template <class T>
double eb_check(double eb) {
  const double t = static_cast<double>(static_cast<T>(eb));
  return t < eb ? t : eb;
}

template <class T>
LevelQuant<T> level_quant(double eb_l) {
  return {static_cast<T>(2.0 * eb_l), static_cast<T>(1.0 / (2.0 * eb_l))};
}

}  // namespace sciz::interp
