// Dual-quantization Lorenzo predictor (cuSZ+): field -> 16-bit quant codes + sparse outliers
// + exactly stored values, and back by N-D partial sums. CPU and CUDA twins, one stream.
#pragma once
#include <sciz/types.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/device_span.hpp"
#include "core/device_status.hpp"
#include "core/geometry.hpp"
#include "core/value_range.hpp"
#include "predict/lorenzo/lorenzo_math.hpp"

namespace sciz::lorenzo {

template <class T>
struct Sparse {
  std::vector<uint64_t> outlier_idx;  // tile-major index, strictly ascending
  std::vector<int32_t> outlier_val;   // the full residual
  std::vector<uint64_t> exact_idx;    // linear index into the field, strictly ascending
  std::vector<T> exact_val;           // the original value, bit for bit (NaN payloads too)
};

template <class T>
QuantParams<T> make_params(double eb_abs, int32_t radius);

// prequantize() over n values, as the CPU twin's row loops run it (AVX2 where the CPU has it):
// d[i] its integer (0 where it fills), st[i] 0 quantized, 1 stored exactly, 2 an exact fill
// (Prequant in that order). Returns whether any st is not 0.
template <class T>
bool prequantize_row(const T* x, uint32_t n, const QuantParams<T>& p, int32_t* d, T* st);

// CPU twin (OpenMP over tiles). codes has e.count() entries, in the field's linear order.
template <class T>
void compress_cpu(const T* x, const Extent& e, const TileShape& c, const QuantParams<T>& p, uint16_t* codes,
                  Sparse<T>& sp);
template <class T>
void decompress_cpu(const uint16_t* codes, const Sparse<T>& sp, const Extent& e, const TileShape& c,
                    const QuantParams<T>& p, T* out);

// CUDA twin: x, codes and out are device pointers; the sparse lists are small and live on the
// host, sorted exactly as the CPU twin sorts them, so both twins write the same bytes.
template <class T>
void compress_cuda(const T* d_x, const Extent& e, const TileShape& c, const QuantParams<T>& p, uint16_t* d_codes,
                   Sparse<T>& sp, cudaStream_t stream);
template <class T>
void decompress_cuda(const uint16_t* d_codes, const Sparse<T>& sp, const Extent& e, const TileShape& c,
                     const QuantParams<T>& p, T* d_out, cudaStream_t stream);

// ---- Sections that stay on the device ----
//
// compress_device writes sections 1 (quant codes through `choice`, auto resolved as
// codes::encode_cpu does; without a choice, the codes themselves, 2 bytes each, for a stage
// list that starts with a byte stage), 2 (outliers) and 3 (exact values) into device memory, byte for byte
// what the CPU twin and the pipeline write: the quant codes never leave the device and only
// counts and histograms (a few KB) cross PCIe. Host synchronizations: one after quantizing and
// counting (the sparse counts and the code statistics, learnt together), one more in the rare
// case that the sparse lists overflowed their first capacity, and one inside the exact-runs
// writer when there are exact values (to learn the section's size). The sections are then
// complete once the caller synchronizes s. range (device, optional): the quantize kernel also
// folds the field's finite range into it, before the first synchronization.
struct DeviceSectionsOut {
  std::optional<Lossless> stage;                // the stage used (never auto_select; none: raw codes)
  dev::Buffer<uint8_t> codes, outliers, exact;  // device bytes of sections 1, 2, 3
  uint64_t codes_size = 0, outliers_size = 0, exact_size = 0;
  // The encoders' self-checks (device memory): a nonzero code after the caller's sync is a bug
  // in the encoder, never a property of the data (throw_if_failed names it).
  dev::Buffer<DeviceStatus> check;
};
template <class T>
DeviceSectionsOut compress_device(const T* d_x, const Extent& e, const TileShape& t, const QuantParams<T>& p,
                                  uint32_t alphabet, uint16_t centre, std::optional<Lossless> choice, cudaStream_t s,
                                  RangeKeys* range = nullptr);

// Decodes sections whose bytes are on the device (host-known lengths) into d_out, validating
// every one on the device as the CPU decoders do (without a stage, `codes` holds the n codes
// themselves, 2 bytes each, exactly) (the stage's headers and codebooks, chunk
// bits, run sums, bitpack widths; the outliers' count, width and strictly ascending indices
// below the slots; the exact runs). A failure is reported into st (codes 400..499, and the
// exact runs' 100..199); d_out is then left untouched, as it is when st already holds a
// failure. No synchronization: the caller syncs s once and reads st.
template <class T>
void decompress_device(DeviceSpan codes, DeviceSpan outliers, DeviceSpan exact, std::optional<Lossless> stage,
                       const Extent& e,
                       const TileShape& t, const QuantParams<T>& p, T* d_out, DeviceStatus* st, cudaStream_t s);

}  // namespace sciz::lorenzo
