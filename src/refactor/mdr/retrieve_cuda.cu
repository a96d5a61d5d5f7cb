// Retrieval's reconstruction on the GPU: the digits go up once, then per level the
// coefficients (bitplanes' reconstruct_cuda), the recomposition (multilevel's recompose_cuda),
// the cast to the field's type and the special values, all queued on one stream. The kernels
// are the CPU twins' arithmetic (bitplanes_math.hpp, multilevel_math.hpp), and the cast rounds
// to nearest on both sides, so the field equals the host retrieval's bit for bit.
#include <algorithm>
#include <cstring>

#include "core/cuda_check.cuh"
#include "core/launch_grid.hpp"
#include "core/device.hpp"
#include "core/host_transfer.hpp"
#include "refactor/bitplanes/bitplanes.hpp"
#include "refactor/mdr/retrieve_cuda.hpp"

namespace sciz::mdr {
namespace {

constexpr int kThreads = 256;
template <class T>
__global__ void __launch_bounds__(kThreads) cast_kernel(const double* __restrict__ x, uint64_t n, T* __restrict__ out) {
  for (uint64_t i = blockIdx.x * uint64_t(kThreads) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * kThreads)
    out[i] = static_cast<T>(x[i]);
}

// Bit patterns, not values: a NaN's payload comes back as it was.
template <class T>
__global__ void __launch_bounds__(kThreads)
    place_kernel(const uint64_t* __restrict__ idx, const uint64_t* __restrict__ bits, uint64_t count, T* __restrict__ out) {
  for (uint64_t k = blockIdx.x * uint64_t(kThreads) + threadIdx.x; k < count; k += uint64_t(gridDim.x) * kThreads) {
    const uint64_t b = bits[k];
    T v;
    memcpy(&v, &b, sizeof(T));
    out[idx[k]] = v;
  }
}

}  // namespace

template <class T>
void reconstruct_into_device(const multilevel::Layout& lay, const std::vector<LevelRecon>& levels,
                             const typename bitplanes::Digits<T>::Word* nb, const std::vector<uint64_t>& exact_idx,
                             const std::vector<uint64_t>& exact_bits, T* d_out, cudaStream_t s) {
  using D = bitplanes::Digits<T>;
  using W = typename D::Word;
  const uint64_t n = lay.grid.count();
  dev::Buffer<double> d_c(n, s);
  {
    // Only the levels read hold digits (the host leaves the others undefined, and their
    // coefficients are 0): each run of adjacent read levels goes up in one copy.
    dev::Buffer<W> d_nb(n, s);
    for (size_t a = 0; a < levels.size();) {
      size_t b = a;
      while (b < levels.size() && levels[b].read) ++b;
      if (b > a) {
        const uint64_t from = levels[a].offset, to = levels[b - 1].offset + levels[b - 1].count;
        dev::upload(d_nb.get() + from, nb + from, (to - from) * sizeof(W), s);
      }
      a = b + 1;
    }
    for (const LevelRecon& l : levels) {
      if (l.read)
        bitplanes::reconstruct_cuda<W>(d_nb.get() + l.offset, l.count, l.unknown, D::count, l.exponent, D::scale, true,
                                       d_c.get() + l.offset, s);
      else  // all zero bytes: +0.0, what reconstruct() gives a level with nothing read
        SCIZ_CUDA_CHECK(cudaMemsetAsync(d_c.get() + l.offset, 0, l.count * sizeof(double), s));
    }
  }
  dev::Buffer<double> d_x(n, s);
  multilevel::recompose_cuda(lay, d_c.get(), d_x.get(), s);
  d_c.reset();
  cast_kernel<T><<<gpu::grid_for(n, kThreads), kThreads, 0, s>>>(d_x.get(), n, d_out);
  SCIZ_CUDA_CHECK_LAUNCH("mdr cast_kernel");
  const uint64_t count = exact_idx.size();
  if (count == 0) return;
  dev::Buffer<uint64_t> d_idx(count, s), d_bits(count, s);
  dev::upload(d_idx.get(), exact_idx.data(), count * sizeof(uint64_t), s);
  dev::upload(d_bits.get(), exact_bits.data(), count * sizeof(uint64_t), s);
  place_kernel<T><<<gpu::grid_for(count, kThreads), kThreads, 0, s>>>(d_idx.get(), d_bits.get(), count, d_out);
  SCIZ_CUDA_CHECK_LAUNCH("mdr place_kernel (special values)");
}

template void reconstruct_into_device<float>(const multilevel::Layout&, const std::vector<LevelRecon>&, const uint32_t*,
                                             const std::vector<uint64_t>&, const std::vector<uint64_t>&, float*,
                                             cudaStream_t);
template void reconstruct_into_device<double>(const multilevel::Layout&, const std::vector<LevelRecon>&, const uint64_t*,
                                              const std::vector<uint64_t>&, const std::vector<uint64_t>&, double*,
                                              cudaStream_t);

}  // namespace sciz::mdr
