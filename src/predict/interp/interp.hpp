// `interp` predictor (cuSZ-Hi section 5.1 with QoZ's level-wise bounds): field -> uint8 quant
// codes, level by level and coarsest first, + exactly stored values; and back. The per-point
// arithmetic is interp_math.hpp; this is the host interface of the twins and the tuner.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

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
};

// Level bounds of QoZ: eb_l = eb / min(alpha^(l-1), beta). alpha^(l-1) by repeated
// multiplication in double, so every host computes the same bounds.
std::vector<double> level_bounds(double eb, int levels, double alpha, double beta);

// What the caller asks of the tuner: a spline or scheme < 0 is tuned per level; alpha <= 0
// tunes alpha and beta (alpha 1 turns tightening off).
struct TuneRequest {
  int spline = -1;
  int scheme = -1;
  double alpha = 0, beta = 0;
};

Layout layout_of(const Extent& e);

// Auto-tuning (section 5.1.3) on sampled blocks; deterministic, independent of threads.
template <class T>
Choice tune_cpu(const T* x, const Layout& L, double eb, const TuneRequest& req);

template <class T>
struct Exact {
  std::vector<uint64_t> idx;  // linear field index, strictly ascending
  std::vector<T> val;         // bit for bit
};

// CPU twin (OpenMP over blocks). codes has L.total entries, in the section's order.
template <class T>
void compress_cpu(const T* x, const Layout& L, const Choice& ch, double eb, uint8_t* codes, Exact<T>& ex);

// Checks that the exactly stored values are exactly the points of code kExactCode (one entry
// each); throws corrupt_stream otherwise. The decoders rely on it.
template <class T>
void check_exact(const uint8_t* codes, const Layout& L, const Exact<T>& ex);

// out receives L.total values (linear order). ex must have passed check_exact.
template <class T>
void decompress_cpu(const uint8_t* codes, const Exact<T>& ex, const Layout& L, const Choice& ch, T* out);

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
