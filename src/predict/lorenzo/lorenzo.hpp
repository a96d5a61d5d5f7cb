// Dual-quantization Lorenzo predictor (cuSZ+): field -> 16-bit quant codes + sparse outliers
// + exactly stored values, and back by N-D partial sums. CPU and CUDA twins, one stream.
#pragma once
#include <cstdint>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/geometry.hpp"
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

}  // namespace sciz::lorenzo
