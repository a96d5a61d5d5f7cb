// `delta` (AATROX, Zhang et al., ICS '25): prequantize, delta-code each warp layer of 32768
// values as one chain, store per 32 values a width and bit planes of sign and magnitude,
// skipping all-zero groups. Every point is checked against the bound; misses, NaN/Inf and
// values too large for the chain are stored exactly (the paper stores none).
//
// This is the codec (sections in, sections out); docs/DELTA.md is its normative format. The
// CPU twin is here; the CUDA twin writes the same bytes through delta_math.hpp.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/device_span.hpp"
#include "core/device_status.hpp"
#include "core/value_range.hpp"
#include "predict/delta/delta_math.hpp"

namespace sciz::delta {

// Chain order (docs/DELTA.md, "Chain order"): linear runs through the flattened field;
// serpentine walks every odd row of `row` values backwards, so the chain steps from one row to
// the next between neighbours along the second axis instead of jumping a row's length back.
inline constexpr uint8_t kModeLinear = 0, kModeSerpentine = 1;
inline constexpr uint64_t kMaxRow = (uint64_t(1) << 31) - 1;
struct Chain {
  uint8_t mode = kModeLinear;
  uint64_t row = 0;  // serpentine: values per row (2..kMaxRow, < n, dividing n); linear: 0
};
// The chain a field gets from its fastest extent `row` (0: none known): serpentine whenever
// rows are 2..kMaxRow values and there are at least two of them; row must divide n.
Chain chain_for(uint64_t n, uint64_t row);

// The sections of one delta stream, in the order docs/DELTA.md numbers them.
struct Encoded {
  uint8_t mode = kModeLinear;
  uint64_t row = 0;
  std::vector<uint8_t> widths;   // 1: u8 per group of 32 values, 0..31
  std::vector<uint8_t> initial;  // 2: i32 per warp layer, its chain's q_{-1}
  std::vector<uint8_t> payload;  // 3: per layer, its groups' sign and plane words, padded to 16
  std::vector<uint8_t> exact;    // 4: exactly stored values (core/exact_runs.hpp)

  uint64_t payload_bytes() const { return widths.size() + initial.size() + payload.size() + exact.size(); }
};

struct Sections {
  uint8_t mode = kModeLinear;
  uint64_t row = 0;
  std::span<const uint8_t> widths, initial, payload, exact;
};

inline Sections view(const Encoded& e) { return {e.mode, e.row, e.widths, e.initial, e.payload, e.exact}; }

// Params: u8 mode, 3 zero bytes, and for serpentine a u64 row. read_params refuses anything
// else (corrupt_stream).
std::vector<uint8_t> write_params(uint8_t mode, uint64_t row);
Chain read_params(std::span<const uint8_t> params);

inline uint64_t group_count(uint64_t n) { return (n + kGroup - 1) / kGroup; }
inline uint64_t layer_count(uint64_t n) { return (n + kLayer - 1) / kLayer; }

// Encoder statistics, for tests and benchmarks (not part of the stream).
struct Stats {
  uint64_t layers = 0, groups = 0, zero_groups = 0, exact_values = 0;
};

// CPU twin, OpenMP over warp layers; the bytes do not depend on the thread count.
// eb: the absolute bound (finite, > 0), else invalid_argument. row: the field's fastest extent
// (chain_for picks the chain; 0 or n: linear).
template <class T>
Encoded encode_cpu(const T* x, uint64_t n, double eb, Stats* stats = nullptr, uint64_t row = 0);

// What both decoders learn on the host before touching memory: each layer's payload offset
// (one entry per layer + the total) and the exact values. Checks the mode, n, every section
// length and every width (corrupt_stream otherwise); after it, every payload read of every
// layer lies inside that layer's bytes.
template <class T>
struct Validated {
  std::vector<uint64_t> layer_off;
  std::vector<uint64_t> exact_idx;
  std::vector<T> exact_val;
};
template <class T>
Validated<T> validate(const Sections& s, uint64_t n);
// What validate() checks from lengths alone (mode, row, n and the two fixed-size sections),
// shared with the device decoder, which checks the contents on the device.
void check_layout(uint8_t mode, uint64_t row, uint64_t n, uint64_t widths_bytes, uint64_t initial_bytes);

// Decodes n values into out (eb: the stream's resolved bound). A stream that does not fit
// throws Error(corrupt_stream) before any out-of-bounds read or write.
template <class T>
void decode_cpu(const Sections& s, uint64_t n, double eb, T* out);

// ---- CUDA twin (delta_cuda.cu) ----

// The sections as the encoder leaves them on the device, with their sizes on the host.
template <class T>
struct DeviceEncoded {
  uint64_t n = 0, payload_bytes = 0, exact_count = 0, zero_groups = 0;
  uint8_t mode = kModeLinear;
  uint64_t row = 0;
  dev::Buffer<uint8_t> widths, initial, payload;
  dev::Buffer<uint64_t> exact_idx;  // ascending
  dev::Buffer<T> exact_val;
};

// x on the device. One kernel: a CTA per layer packs it, finds its payload offset by decoupled
// look-back over layers, then moves it there. Synchronizes s once, to learn the sizes. row: as
// for encode_cpu. range (device, optional): the kernel also folds x's finite range into it
// (core/value_range.hpp), before that synchronization.
template <class T>
DeviceEncoded<T> encode_device(const T* d_x, uint64_t n, double eb, cudaStream_t s, uint64_t row = 0,
                               RangeKeys* range = nullptr);

// The device sections copied to the host, byte-identical to encode_cpu's.
template <class T>
Encoded download(const DeviceEncoded<T>& d, cudaStream_t s, Stats* stats = nullptr);

template <class T>
Encoded encode_cuda(const T* d_x, uint64_t n, double eb, cudaStream_t s, Stats* stats = nullptr, uint64_t row = 0) {
  return download(encode_device<T>(d_x, n, eb, s, row), s, stats);
}

// What the decode kernel reads, on the device: the validated sections and each layer's payload
// offset (found on the host by validate()).
template <class T>
struct DeviceSections {
  uint64_t n = 0, row = 0;
  double eb = 0;
  dev::Buffer<uint8_t> widths, initial, payload;
  dev::Buffer<uint64_t> layer_off;
  dev::Buffer<uint64_t> exact_idx;
  dev::Buffer<T> exact_val;
};

// Validates on the host exactly as decode_cpu does (corrupt_stream otherwise), then uploads.
template <class T>
DeviceSections<T> upload(const Sections& sec, uint64_t n, double eb, cudaStream_t s);

// One kernel (a CTA per layer) then the exact values. Synchronizes s once.
template <class T>
void decode_device(const DeviceSections<T>& d, T* d_out, cudaStream_t s);

// The sections in device memory (lengths from the container, contents on the device, payload on
// a 16-byte boundary), decoded into d_out with every check of validate() made: the length checks
// here (throwing corrupt_stream), the content checks on the device (widths, layer sizes against
// the payload, the exact runs), reported into st; the decode kernel and the exact-value scatter
// write nothing once st holds a failure. No synchronization.
struct DeviceSectionsIn {
  uint8_t mode = kModeLinear;
  uint64_t row = 0;
  DeviceSpan widths, initial, payload, exact;
};
template <class T>
void decode_device_sections(const DeviceSectionsIn& sec, uint64_t n, double eb, T* d_out, DeviceStatus* st,
                            cudaStream_t s);

template <class T>
void decode_cuda(const Sections& sec, uint64_t n, double eb, T* d_out, cudaStream_t s) {
  decode_device<T>(upload<T>(sec, n, eb, s), d_out, s);
}

}  // namespace sciz::delta
