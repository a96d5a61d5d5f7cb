// CUDA twin of the Lorenzo predictor (lorenzo.hpp): buffers, the sort that puts the sparse
// lists in the CPU twin's order, and the copies. The kernels are in lorenzo_*_cuda.cu.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <bit>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "predict/lorenzo/lorenzo.hpp"
#include "predict/lorenzo/lorenzo_cuda.cuh"
#include "predict/lorenzo/lorenzo_tile.cuh"

namespace sciz::lorenzo {
namespace {

// Sorts count (key, value) pairs by key (all keys < key_bound) and copies them to the host.
// Keys are unique, so the order, and with it the stream, does not depend on the GPU's
// schedule. Consumes the input buffers' contents.
template <class V>
void sort_to_host(dev::Buffer<uint64_t>& keys, dev::Buffer<V>& vals, uint64_t count, uint64_t key_bound,
                  std::vector<uint64_t>& hkeys, std::vector<V>& hvals, cudaStream_t s) {
  hkeys.resize(count);
  hvals.resize(count);
  if (count == 0) return;
  dev::Buffer<uint64_t> keys_alt(count, s);
  dev::Buffer<V> vals_alt(count, s);
  cub::DoubleBuffer<uint64_t> k(keys.get(), keys_alt.get());
  cub::DoubleBuffer<V> v(vals.get(), vals_alt.get());
  const int end_bit = std::max(1, static_cast<int>(std::bit_width(key_bound - 1)));  // fewer radix passes
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, count, 0, end_bit, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, k, v, count, 0, end_bit, s));
  dev::copy_to_host(hkeys.data(), k.Current(), count * sizeof(uint64_t), s);
  dev::copy_to_host(hvals.data(), v.Current(), count * sizeof(V), s);
}

}  // namespace

template <class T>
void compress_cuda(const T* d_x, const Extent& e, const TileShape& c, const QuantParams<T>& p, uint16_t* d_codes,
                   Sparse<T>& sp, cudaStream_t stream) {
  sp = Sparse<T>{};
  const uint64_t n = e.count();
  // Most fields have few sparse entries; size for an eighth of the points and rerun in the
  // rare case that is not enough (the counters then hold the exact sizes).
  uint64_t ocap = std::min<uint64_t>(n, std::max<uint64_t>(1u << 20, n / 8)), ecap = ocap;
  dev::Buffer<unsigned long long> counts(2, stream);
  dev::Buffer<uint64_t> oidx, eidx;
  dev::Buffer<int32_t> oval;
  dev::Buffer<T> evals;
  unsigned long long found[2] = {0, 0};
  for (int attempt = 0;; ++attempt) {
    oidx = dev::Buffer<uint64_t>(ocap, stream);
    oval = dev::Buffer<int32_t>(ocap, stream);
    eidx = dev::Buffer<uint64_t>(ecap, stream);
    evals = dev::Buffer<T>(ecap, stream);
    SCIZ_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, 2 * sizeof(unsigned long long), stream));
    const cuda::SparseSink<T> sink{counts.get(), oidx.get(), oval.get(), ocap, eidx.get(), evals.get(), ecap};
    cuda::launch_quantize<T>(d_x, e, c, p, d_codes, sink, stream);
    dev::copy_to_host(found, counts.get(), sizeof(found), stream);
    dev::sync(stream);
    if (found[0] <= ocap && found[1] <= ecap) break;
    SCIZ_REQUIRE(attempt == 0, Status::internal, "lorenzo (CUDA): sparse lists overflowed twice");
    ocap = std::max<uint64_t>(ocap, found[0]);
    ecap = std::max<uint64_t>(ecap, found[1]);
  }
  const uint64_t slots = tile_grid(e, c).count() * c.volume();
  sort_to_host(oidx, oval, found[0], slots, sp.outlier_idx, sp.outlier_val, stream);
  sort_to_host(eidx, evals, found[1], n, sp.exact_idx, sp.exact_val, stream);
  dev::sync(stream);
}

template <class T>
void decompress_cuda(const uint16_t* d_codes, const Sparse<T>& sp, const Extent& e, const TileShape& c,
                     const QuantParams<T>& p, T* d_out, cudaStream_t stream) {
  cuda::require_tile(c);  // before any upload
  SCIZ_REQUIRE(sp.outlier_idx.size() == sp.outlier_val.size() && sp.exact_idx.size() == sp.exact_val.size(),
          Status::internal, "lorenzo (CUDA): sparse index and value lists differ in length");
  // Pageable sources: each copy returns once its bytes are staged, so no sync is needed here.
  const uint64_t m = sp.outlier_idx.size();
  dev::Buffer<uint64_t> oidx(m, stream);
  dev::Buffer<int32_t> oval(m, stream);
  dev::copy_to_device(oidx.get(), sp.outlier_idx.data(), m * sizeof(uint64_t), stream);
  dev::copy_to_device(oval.get(), sp.outlier_val.data(), m * sizeof(int32_t), stream);
  cuda::launch_reconstruct<T>(d_codes, oidx.get(), oval.get(), m, e, c, p, d_out, stream);
  const uint64_t x = sp.exact_idx.size();
  if (x) {
    dev::Buffer<uint64_t> eidx(x, stream);
    dev::Buffer<T> evals(x, stream);
    dev::copy_to_device(eidx.get(), sp.exact_idx.data(), x * sizeof(uint64_t), stream);
    dev::copy_to_device(evals.get(), sp.exact_val.data(), x * sizeof(T), stream);
    cuda::launch_scatter_exact<T>(eidx.get(), evals.get(), x, d_out, e.count(), stream);
  }
}

#define SCIZ_INSTANTIATE(T)                                                                                         \
  template void compress_cuda<T>(const T*, const Extent&, const TileShape&, const QuantParams<T>&, uint16_t*,     \
                                 Sparse<T>&, cudaStream_t);                                                         \
  template void decompress_cuda<T>(const uint16_t*, const Sparse<T>&, const Extent&, const TileShape&,            \
                                   const QuantParams<T>&, T*, cudaStream_t);
SCIZ_INSTANTIATE(float)
SCIZ_INSTANTIATE(double)
#undef SCIZ_INSTANTIATE

}  // namespace sciz::lorenzo
