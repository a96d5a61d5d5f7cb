// Vocabulary types of the public API: element type, shape, device, error-bound mode.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sciz {

enum class DType : uint8_t { f32 = 1, f64 = 2 };
enum class Device : uint8_t { auto_select = 0, cpu = 1, cuda = 2 };
enum class EbMode : uint8_t { abs = 0, rel = 1 };

inline size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 8; }
const char* dtype_name(DType t);
DType parse_dtype(const std::string& s);     // "f32"/"float32"/"f64"/"float64"; throws otherwise
const char* device_name(Device d);
Device parse_device(const std::string& s);   // "cpu"/"cuda"/"gpu"/"auto"

// Dims slowest to fastest varying (C order, like a numpy shape); 1 to 4 of them, each >= 1.
struct Shape {
  std::vector<uint64_t> dims;
  uint64_t count() const;
  std::string str() const;                   // "100x500x500"
  static Shape parse(const std::string& s);  // inverse of str(); throws on bad input
  void validate() const;                     // 1..4 dims, none zero, product fits in 2^48
};

struct ErrorBound {
  EbMode mode = EbMode::rel;
  double value = 1e-3;
};

// Lossless stage for quant codes. auto_select sizes huffman, rle, rle+huffman and
// zrle+huffman (zero runs: runs of the centre code only) exactly from
// histograms and a run count and keeps the smallest; bitpack is the fixed-width stage of
// format version 1.
enum class Lossless : uint8_t { auto_select = 0, bitpack = 1, huffman = 2, rle = 3, rle_huffman = 4,
                              zrle_huffman = 5 };
// Chain of the delta pipeline (docs/DELTA.md, "Chain order"). auto_select: serpentine for
// 2-D to 4-D fields whose rows (fastest extent) hold at most 128 values, where it measured
// x1.03-1.61 smaller streams on real data at some GPU speed; linear otherwise (no gain measured
// on longer rows).
enum class DeltaChain : uint8_t { auto_select = 0, linear = 1, serpentine = 2 };
const char* delta_chain_name(DeltaChain c);          // "auto", "linear", "serpentine"
DeltaChain parse_delta_chain(const std::string& s);  // throws invalid_argument listing the choices

// Interpolation of the interp pipeline (docs/INTERP.md), for every level or, with
// auto_select, chosen per level by the tuner on sampled blocks. Splines: linear or cubic.
// Schemes: dimension by dimension with the slowest axis first (dim_zyx) or the fastest
// first (dim_xyz), cuSZ-Hi's multi-dimensional scheme (multi_dim), or that scheme with the mean
// of the orthant Lorenzo predictors for points with several odd coordinates (cross).
enum class InterpSpline : uint8_t { auto_select = 0, linear = 1, cubic = 2 };
enum class InterpScheme : uint8_t { auto_select = 0, dim_zyx = 1, dim_xyz = 2, multi_dim = 3, cross = 4 };
const char* interp_spline_name(InterpSpline s);            // "auto", "linear", "cubic"
InterpSpline parse_interp_spline(const std::string& s);    // throws invalid_argument listing the choices
const char* interp_scheme_name(InterpScheme s);            // "auto", "zyx", "xyz", "md", "cross"
InterpScheme parse_interp_scheme(const std::string& s);    // throws invalid_argument listing the choices

const char* lossless_name(Lossless l);               // "auto", "bitpack", "huffman", "rle", "rle+huffman", "zrle+huffman"
Lossless parse_lossless(const std::string& name);    // throws invalid_argument listing the choices

}  // namespace sciz
