// Kernel-level entry points of the Lorenzo CUDA twin: launches only, no allocation and no
// synchronization, so the benchmark can time the kernels alone. compress_cuda/decompress_cuda
// (lorenzo.hpp) compose them with the buffers, sorts and copies.
#pragma once
#include <cstdint>

#include "core/cuda_fwd.hpp"
#include "core/device_status.hpp"
#include "core/geometry.hpp"
#include "core/value_range.hpp"
#include "predict/lorenzo/lorenzo_math.hpp"

namespace sciz::lorenzo::cuda {

// Where the quantize kernel appends what it finds, in no particular order. The counters
// (counts[0] outliers, counts[1] exact values) must start at zero; they keep counting past
// the capacities, so after an overflow they hold the exact sizes a rerun needs.
template <class T>
struct SparseSink {
  unsigned long long* counts;
  uint64_t* outlier_idx;  // tile-major index
  int32_t* outlier_val;
  uint64_t outlier_cap;
  uint64_t* exact_idx;    // linear index
  T* exact_val;
  uint64_t exact_cap;
  RangeKeys* range = nullptr;  // also fold the values read into it (core/value_range.hpp)
};

// Codes for every point of the field (d_codes has e.count() entries). Throws
// Error(unsupported) unless c == default_tile(e.ndim).
template <class T>
void launch_quantize(const T* d_x, const Extent& e, const TileShape& c, const QuantParams<T>& p, uint16_t* d_codes,
                     const SparseSink<T>& sink, cudaStream_t s);

// Values from codes plus outliers (sorted tile-major, strictly ascending), exact values not
// yet applied. Throws Error(unsupported) unless the kernels are built for c (lorenzo_tile.cuh).
template <class T>
void launch_reconstruct(const uint16_t* d_codes, const uint64_t* d_outlier_idx, const int32_t* d_outlier_val,
                        uint64_t n_outliers, const Extent& e, const TileShape& c, const QuantParams<T>& p, T* d_out,
                        cudaStream_t s);

// The same with the outliers read in place from an outliers section on the device (16-byte
// aligned; its count, width and ascending indices below the slots validated on the device by
// earlier kernels). Writes nothing when st holds a failure.
template <class T>
void launch_reconstruct_section(const uint16_t* d_codes, const uint8_t* d_outliers, const Extent& e,
                                const TileShape& c, const QuantParams<T>& p, T* d_out, const DeviceStatus* st,
                                cudaStream_t s);

// out[idx[i]] = val[i] for idx[i] < n.
template <class T>
void launch_scatter_exact(const uint64_t* d_idx, const T* d_val, uint64_t m, T* d_out, uint64_t n, cudaStream_t s);

}  // namespace sciz::lorenzo::cuda
