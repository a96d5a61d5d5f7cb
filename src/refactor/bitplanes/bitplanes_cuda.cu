// CUDA twin of mdr's bitplanes. Encoding is the paper's register block (section 4.3): thread
// t of a warp loads coefficients t, t + 32, t + 64, ... (consecutive threads, consecutive
// addresses), keeps its 32 digit words in registers, transposes them and writes one word per
// plane, with no communication between threads. Reductions (max |c|, the OR of the digits, the
// error table) are CUB's. All arithmetic is bitplanes_math.hpp's, as on the CPU.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/cuda_check.cuh"
#include "core/launch_grid.hpp"
#include "core/device.hpp"
#include "refactor/bitplanes/bitplanes.hpp"

namespace sciz::bitplanes {
namespace {

constexpr int kThreads = 256;
template <class T, class Op, class It>
T reduce(It in, uint64_t n, Op op, T init, cudaStream_t s) {
  size_t temp_bytes = 0;
  dev::Buffer<T> out(1, s);
  SCIZ_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, temp_bytes, in, out.get(), static_cast<int64_t>(n), op, init, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceReduce::Reduce(temp.get(), temp_bytes, in, out.get(), static_cast<int64_t>(n), op, init, s));
  T h;
  dev::copy_to_host(&h, out.get(), sizeof(T), s);
  dev::sync(s);
  return h;
}

struct Max {
  __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};
struct Or {
  __device__ uint64_t operator()(uint64_t a, uint64_t b) const { return a | b; }
};
struct AbsOf {
  const double* c;
  __device__ double operator()(uint64_t i) const { return fabs(c[i]); }
};
template <class W>
struct DigitsOf {
  const W* nb;
  __device__ uint64_t operator()(uint64_t i) const { return nb[i]; }
};
// Every group's error of a level in one pass over it: a thread keeps kErrItems coefficients
// (y in fixed-point units, their digits) in registers and measures |y - recon| for each count
// of groups read, as level_errors_cpu does; a warp's maximum goes to shared memory, a CTA's to
// out[t] (non-negative doubles order as their bit patterns). It replaced one CUB reduction and
// one host synchronization per group, each reading the whole level again.
constexpr int kErrItems = 8;
constexpr int kMaxGroups = 64;  // one digit a group at most
struct Unknown {
  int k[kMaxGroups + 1];  // digits still unknown once t groups are read (t >= 1)
};

template <class W>
__global__ void __launch_bounds__(kThreads)
    errors_kernel(const double* __restrict__ c, const W* __restrict__ nb, uint64_t n, int exponent, int scale,
                  int digits, int groups, Unknown u, unsigned long long* __restrict__ out) {
  __shared__ unsigned long long smax[kMaxGroups + 1];
  for (int t = threadIdx.x; t <= groups; t += kThreads) smax[t] = 0;
  __syncthreads();
  const uint64_t tile = uint64_t(kThreads) * kErrItems;
  for (uint64_t base = blockIdx.x * tile; base < n; base += uint64_t(gridDim.x) * tile) {
    double y[kErrItems];
    uint64_t w[kErrItems];
    bool real[kErrItems];
#pragma unroll
    for (int j = 0; j < kErrItems; ++j) {
      const uint64_t i = base + uint64_t(j) * kThreads + threadIdx.x;
      real[j] = i < n;
      y[j] = real[j] ? ldexp(c[i], scale - exponent) : 0.0;
      w[j] = real[j] ? static_cast<uint64_t>(nb[i]) : 0;
    }
    for (int t = 1; t <= groups; ++t) {
      const int k = u.k[t];
      const uint64_t keep = ~((uint64_t(1) << k) - 1);
      double e = 0.0;
#pragma unroll
      for (int j = 0; j < kErrItems; ++j)
        if (real[j]) e = fmax(e, fabs(y[j] - 0.5 * static_cast<double>(recon_half_units(w[j] & keep, k, digits))));
      for (int o = 16; o; o >>= 1) e = fmax(e, __shfl_xor_sync(0xffffffffu, e, o));
      if ((threadIdx.x & 31) == 0 && e > 0.0) atomicMax(&smax[t], static_cast<unsigned long long>(__double_as_longlong(e)));
    }
  }
  __syncthreads();
  for (int t = threadIdx.x; t <= groups; t += kThreads)
    if (smax[t]) atomicMax(&out[t], smax[t]);
}

template <class W>
__global__ void __launch_bounds__(kThreads)
    quantize_kernel(const double* __restrict__ c, uint64_t n, int exponent, int scale, int digits, W* __restrict__ nb) {
  for (uint64_t i = blockIdx.x * uint64_t(kThreads) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * kThreads)
    nb[i] = static_cast<W>(to_negabinary(quantize(c[i], exponent, scale), digits));
}

template <class W>
__global__ void __launch_bounds__(kThreads)
    encode_kernel(const W* __restrict__ nb, uint64_t n, int top, uint32_t* __restrict__ words) {
  const uint64_t pw = plane_words(n);
  for (uint64_t w = blockIdx.x * uint64_t(kThreads) + threadIdx.x; w < pw; w += uint64_t(gridDim.x) * kThreads) {
    uint32_t half[sizeof(W) / 4][32];
    gather_planes<W>(slot_of(w, n), n, [nb](uint64_t i) { return nb[i]; }, half);
    for (int p = 0; p < top; ++p) {
      const int d = top - 1 - p;
      words[p * pw + w] = half[d / 32][d % 32];
    }
  }
}

template <class W>
__global__ void __launch_bounds__(kThreads)
    decode_kernel(const uint32_t* __restrict__ words, uint64_t n, int high, int planes, W* __restrict__ nb) {
  const uint64_t pw = plane_words(n);
  for (uint64_t w = blockIdx.x * uint64_t(kThreads) + threadIdx.x; w < pw; w += uint64_t(gridDim.x) * kThreads) {
    constexpr int halves = sizeof(W) / 4;
    uint32_t half[halves][32];
    for (int h = 0; h < halves; ++h)
      for (int d = 0; d < 32; ++d) half[h][d] = 0;
    for (int p = 0; p < planes; ++p) {
      const int d = high - p;
      half[d / 32][d % 32] = words[p * pw + w];
    }
    for (int h = 0; h < halves; ++h) transpose32(half[h]);
    const WordSlot s = slot_of(w, n);
    for (int j = 0; j < 32; ++j) {
      const uint64_t i = s.first + j * s.threads;
      if (i >= n) break;
      uint64_t v = 0;
      for (int h = 0; h < halves; ++h) v |= static_cast<uint64_t>(half[h][j]) << (32 * h);
      nb[i] |= static_cast<W>(v);
    }
  }
}

template <class W>
__global__ void __launch_bounds__(kThreads)
    reconstruct_kernel(const W* __restrict__ nb, uint64_t n, int unknown, int digits, int exponent, int scale, bool read,
                       double* __restrict__ c) {
  for (uint64_t i = blockIdx.x * uint64_t(kThreads) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * kThreads)
    c[i] = reconstruct(nb[i], unknown, digits, exponent, scale, read);
}

}  // namespace

template <class W>
Level<W> quantize_cuda(const double* d_c, uint64_t n, int scale, int digits, W* d_nb, cudaStream_t s) {
  Level<W> lv;
  if (n == 0) return lv;
  lv.max_abs = reduce(thrust::make_transform_iterator(thrust::counting_iterator<uint64_t>(0), AbsOf{d_c}), n, Max{}, 0.0, s);
  if (lv.max_abs == 0) {
    dev::zero(d_nb, n * sizeof(W), s);
    return lv;
  }
  std::frexp(lv.max_abs, &lv.exponent);
  quantize_kernel<W><<<gpu::grid_for(n, kThreads), kThreads, 0, s>>>(d_c, n, lv.exponent, scale, digits, d_nb);
  SCIZ_CUDA_CHECK_LAUNCH("bitplanes quantize_kernel");
  const uint64_t any =
      reduce(thrust::make_transform_iterator(thrust::counting_iterator<uint64_t>(0), DigitsOf<W>{d_nb}), n, Or{}, uint64_t(0), s);
  lv.top = any ? 64 - __builtin_clzll(any) : 0;
  return lv;
}

template <class W>
std::vector<double> level_errors_cuda(const double* d_c, const W* d_nb, uint64_t n, const Level<W>& lv, int scale,
                                      int digits, int g, cudaStream_t s) {
  const int groups = group_count(lv.top, g);
  std::vector<double> err(groups + 1, 0.0);
  err[0] = lv.max_abs;
  if (groups == 0) return err;
  SCIZ_REQUIRE(groups <= kMaxGroups, Status::internal, "bitplanes: more than 64 groups in a level");
  Unknown u{};
  for (int t = 1; t <= groups; ++t) u.k[t] = unknown_digits(lv.top, g, t);
  dev::Buffer<unsigned long long> d_max(groups + 1, s);
  dev::zero(d_max.get(), (groups + 1) * sizeof(unsigned long long), s);
  if (n) {
    errors_kernel<W><<<std::min(gpu::grid_for(n, kThreads * kErrItems), 2048u), kThreads, 0, s>>>(d_c, d_nb, n, lv.exponent, scale,
                                                                                       digits, groups, u, d_max.get());
    SCIZ_CUDA_CHECK_LAUNCH("bitplanes errors_kernel");
  }
  std::vector<unsigned long long> m(groups + 1);
  dev::copy_to_host(m.data(), d_max.get(), m.size() * sizeof(unsigned long long), s);
  dev::sync(s);
  for (int t = 1; t <= groups; ++t) {
    double units;
    std::memcpy(&units, &m[t], sizeof units);
    err[t] = error_from_units(settle(units, u.k[t]), lv.exponent, scale);
  }
  return err;
}

template <class W>
void encode_planes_cuda(const W* d_nb, uint64_t n, int top, uint32_t* d_words, cudaStream_t s) {
  if (n == 0 || top == 0) return;
  encode_kernel<W><<<gpu::grid_for(plane_words(n), kThreads), kThreads, 0, s>>>(d_nb, n, top, d_words);
  SCIZ_CUDA_CHECK_LAUNCH("bitplanes encode_kernel");
}

template <class W>
void decode_planes_cuda(const uint32_t* d_words, uint64_t n, int high, int planes, W* d_nb, cudaStream_t s) {
  if (n == 0 || planes == 0) return;
  decode_kernel<W><<<gpu::grid_for(plane_words(n), kThreads), kThreads, 0, s>>>(d_words, n, high, planes, d_nb);
  SCIZ_CUDA_CHECK_LAUNCH("bitplanes decode_kernel");
}

template <class W>
void reconstruct_cuda(const W* d_nb, uint64_t n, int unknown, int digits, int exponent, int scale, bool read, double* d_c,
                      cudaStream_t s) {
  if (n == 0) return;
  reconstruct_kernel<W><<<gpu::grid_for(n, kThreads), kThreads, 0, s>>>(d_nb, n, unknown, digits, exponent, scale, read, d_c);
  SCIZ_CUDA_CHECK_LAUNCH("bitplanes reconstruct_kernel");
}

#define SCIZ_BITPLANES_CUDA(W)                                                                                      \
  template Level<W> quantize_cuda<W>(const double*, uint64_t, int, int, W*, cudaStream_t);                          \
  template std::vector<double> level_errors_cuda<W>(const double*, const W*, uint64_t, const Level<W>&, int, int, int, \
                                                    cudaStream_t);                                                  \
  template void encode_planes_cuda<W>(const W*, uint64_t, int, uint32_t*, cudaStream_t);                            \
  template void decode_planes_cuda<W>(const uint32_t*, uint64_t, int, int, W*, cudaStream_t);                       \
  template void reconstruct_cuda<W>(const W*, uint64_t, int, int, int, int, bool, double*, cudaStream_t);
SCIZ_BITPLANES_CUDA(uint32_t)
SCIZ_BITPLANES_CUDA(uint64_t)
#undef SCIZ_BITPLANES_CUDA

}  // namespace sciz::bitplanes
