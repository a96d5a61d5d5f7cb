// Reconstruction quality of a decoded field against its original, on the CPU or on the GPU
// that already holds both arrays. Both twins share one arithmetic (metrics_math.hpp), so they
// agree to the last bits that summation order allows.
//
// Definitions (what every number below means, for both twins):
//  * Only points whose ORIGINAL is finite are compared (n_compared of n).
//  * A non-finite original (NaN/Inf) must come back bit-identical (NaN payload included);
//    any other decoded value counts once in nonfinite_mismatch.
//  * A finite original decoded to NaN/Inf also counts in nonfinite_mismatch; its error is
//    +inf, so max_abs_err = rmse = nrmse = inf and psnr_db = -inf: the reconstruction is broken
//    and no average should hide that.
//  * max_abs_err = max |orig - dec| over compared points, evaluated in double.
//  * value_range = max - min over finite originals (0 when there are none or all are equal).
//  * rmse = sqrt(mean of (orig - dec)^2 over compared points); 0 when nothing is compared.
//  * psnr_db = 20 log10(value_range / rmse): +inf when rmse = 0, -inf when the range is 0 but
//    rmse is not.  nrmse = rmse / value_range: 0 when rmse = 0, +inf when the range is 0 only.
//  * ssim: mean structural similarity over windows of the EFFECTIVE geometry (size-1 axes
//    squeezed, 4-D folded to 3-D, see core/geometry.hpp), kSsimWindow points along each
//    effective axis (the axis length when shorter), window origins every kSsimStride points.
//    Per window, with means mx,my, population variances vx,vy and covariance cxy:
//        ssim = (2 mx my + c1) / (mx^2 + my^2 + c1)  *  (2 cxy + c2) / (vx + vy + c2)
//    with c1 = (0.01 L)^2, c2 = (0.03 L)^2, L = value_range. Either factor that is 0/0 (only
//    possible when L = 0) counts as 1. Windows holding any non-finite original are skipped;
//    a window of finite originals holding a non-finite decoded value scores 0. The result is
//    the mean over the windows not skipped, and 1 when every window was skipped.
#pragma once
#include <cstdint>

#include <sciz/types.hpp>

#include "core/cuda_fwd.hpp"

namespace sciz::metrics {

struct Quality {
  double max_abs_err = 0, rmse = 0, psnr_db = 0, nrmse = 0, ssim = 1, value_range = 0;
  uint64_t n = 0, n_compared = 0, nonfinite_mismatch = 0;
};

// orig and dec are host arrays of shape.count() values.
template <class T>
Quality compare_cpu(const T* orig, const T* dec, const Shape& shape);

// d_orig and d_dec are device arrays; work is queued on s and synchronised before returning.
// Throws Error(cuda_error) when a CUDA call fails, Error(no_device) in builds without CUDA.
template <class T>
Quality compare_cuda(const T* d_orig, const T* d_dec, const Shape& shape, cudaStream_t s);

// original / compressed; +inf for an empty stream (never produced, but never a division trap).
double ratio(uint64_t original_bytes, uint64_t compressed_bytes);
// Compressed bits per value; 0 for an empty field.
double bit_rate(uint64_t compressed_bytes, uint64_t n_values);

}  // namespace sciz::metrics
