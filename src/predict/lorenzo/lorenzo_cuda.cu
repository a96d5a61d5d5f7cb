// CUDA twin of the Lorenzo predictor (lorenzo.hpp): buffers, the sort that puts the sparse
// lists in the CPU twin's order, and the copies. The kernels are in lorenzo_*_cuda.cu.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <bit>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/exact_runs_cuda.hpp"
#include "core/trace.hpp"
#include "lossless/codes/codes_device.hpp"
#include "lossless/codes/device_check.cuh"
#include "lossless/codes/readback.hpp"
#include "predict/lorenzo/lorenzo.hpp"
#include "predict/lorenzo/lorenzo_cuda.cuh"
#include "predict/lorenzo/lorenzo_tile.cuh"

namespace sciz::lorenzo {
namespace {

// count (key, value) pairs sorted by key (all keys < key_bound). Keys are unique, so the order,
// and with it the stream, does not depend on the GPU's schedule. keys/vals point into the input
// buffers or the alternates, whichever the last radix pass wrote.
template <class V>
struct Sorted {
  dev::Buffer<uint64_t> keys_alt;
  dev::Buffer<V> vals_alt;
  const uint64_t* keys = nullptr;
  const V* vals = nullptr;
};

// Consumes the input buffers' contents. No synchronization.
template <class V>
Sorted<V> sort_pairs(dev::Buffer<uint64_t>& keys, dev::Buffer<V>& vals, uint64_t count, uint64_t key_bound,
                     cudaStream_t s) {
  Sorted<V> r;
  r.keys = keys.get();
  r.vals = vals.get();
  if (count == 0) return r;
  r.keys_alt = dev::Buffer<uint64_t>(count, s);
  r.vals_alt = dev::Buffer<V>(count, s);
  cub::DoubleBuffer<uint64_t> k(keys.get(), r.keys_alt.get());
  cub::DoubleBuffer<V> v(vals.get(), r.vals_alt.get());
  const int end_bit = std::max(1, static_cast<int>(std::bit_width(key_bound - 1)));  // fewer radix passes
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, count, 0, end_bit, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, k, v, count, 0, end_bit, s));
  r.keys = k.Current();
  r.vals = v.Current();
  return r;
}

// The sorted pairs copied to the host (the caller synchronizes).
template <class V>
void sort_to_host(dev::Buffer<uint64_t>& keys, dev::Buffer<V>& vals, uint64_t count, uint64_t key_bound,
                  std::vector<uint64_t>& hkeys, std::vector<V>& hvals, cudaStream_t s) {
  hkeys.resize(count);
  hvals.resize(count);
  if (count == 0) return;
  const Sorted<V> r = sort_pairs(keys, vals, count, key_bound, s);
  dev::copy_to_host(hkeys.data(), r.keys, count * sizeof(uint64_t), s);
  dev::copy_to_host(hvals.data(), r.vals, count * sizeof(V), s);
}

// First capacity of the quantizer's sparse lists: most fields have few entries, so an eighth of
// the points, and a rerun in the rare case that is not enough (the counters then hold the
// exact sizes).
uint64_t first_capacity(uint64_t n) { return std::min<uint64_t>(n, std::max<uint64_t>(1u << 20, n / 8)); }

}  // namespace

template <class T>
void compress_cuda(const T* d_x, const Extent& e, const TileShape& c, const QuantParams<T>& p, uint16_t* d_codes,
                   Sparse<T>& sp, cudaStream_t stream) {
  sp = Sparse<T>{};
  const uint64_t n = e.count();
  uint64_t ocap = first_capacity(n), ecap = ocap;
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

// ---- Sections that stay on the device ----

namespace {

namespace xr = ::sciz::runs;

constexpr uint64_t kSparseHeader = 16;  // u64 count, u8 index width, 7 zero bytes

// The outliers section of write_sparse(): header, indices at `width` bytes, residuals.
__global__ void write_outliers_kernel(const uint64_t* __restrict__ idx, const int32_t* __restrict__ val, uint64_t m,
                                      uint32_t width, uint8_t* __restrict__ sec) {
  const uint64_t first = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  if (first == 0) {
    reinterpret_cast<uint64_t*>(sec)[0] = m;
    reinterpret_cast<uint64_t*>(sec)[1] = width;  // the width byte, then 7 zero bytes
  }
  int32_t* vals = reinterpret_cast<int32_t*>(sec + kSparseHeader + m * width);
  for (uint64_t k = first; k < m; k += step) {
    if (width == 4)
      reinterpret_cast<uint32_t*>(sec + kSparseHeader)[k] = static_cast<uint32_t>(idx[k]);
    else
      reinterpret_cast<uint64_t*>(sec + kSparseHeader)[k] = idx[k];
    vals[k] = val[k];
  }
}

// read_sparse()'s header checks: the width, the count against the slots and the section size.
__global__ void outliers_head_kernel(const uint8_t* sec, uint64_t size, uint64_t slots, DeviceStatus* st) {
  if (threadIdx.x != 0 || failed(st)) return;
  const uint64_t count = check::load_le(sec, 8);
  const uint32_t width = sec[8];
  if (width != 4 && width != 8) return report(st, kStatusOutliersHeader, 2, count, width);
  if (!(count <= slots && size - kSparseHeader == count * (width + 4)))
    return report(st, kStatusOutliersHeader, 2, count, width);
}

// read_sparse()'s index checks: strictly ascending, each below the slots.
__global__ void outliers_order_kernel(const uint8_t* __restrict__ sec, uint64_t slots, DeviceStatus* st) {
  if (check::block_failed(st)) return;
  const uint64_t count = *reinterpret_cast<const uint64_t*>(sec);
  const uint32_t width = sec[8];
  const uint8_t* idx = sec + kSparseHeader;
  auto at = [&](uint64_t k) -> uint64_t {
    return width == 8 ? reinterpret_cast<const uint64_t*>(idx)[k] : reinterpret_cast<const uint32_t*>(idx)[k];
  };
  for (uint64_t k = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
       k += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    const uint64_t i = at(k);
    if (!(i < slots && (k == 0 || i > at(k - 1)))) report(st, kStatusOutliersOrder, 2, k, i);
  }
}

unsigned stride_grid(uint64_t items) {
  return static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>((items + 255) / 256, 132 * 16)));
}

dev::Buffer<DeviceStatus> zeroed_status(cudaStream_t s) {
  dev::Buffer<DeviceStatus> st(1, s);
  SCIZ_CUDA_CHECK(cudaMemsetAsync(st.get(), 0, sizeof(DeviceStatus), s));
  return st;
}

}  // namespace

template <class T>
DeviceSectionsOut compress_device(const T* d_x, const Extent& e, const TileShape& t, const QuantParams<T>& p,
                                  uint32_t alphabet, uint16_t centre, std::optional<Lossless> choice, cudaStream_t s,
                                  RangeKeys* range) {
  const uint64_t n = e.count();
  cuda::require_tile(t);
  DeviceSectionsOut out;
  out.check = zeroed_status(s);
  // Bytes, so that without a codes stage the buffer is section 1 as it stands.
  dev::Buffer<uint8_t> code_bytes(2 * n, s);
  uint16_t* d_codes = reinterpret_cast<uint16_t*>(code_bytes.get());
  // One download learns the sparse counts and every count the lossless stage needs.
  Readback rb;
  const size_t at_found = rb.reserve(2);
  std::optional<codes::DeviceEncoder> enc;
  if (choice) enc.emplace(d_codes, n, alphabet, centre, *choice, rb);
  rb.allocate(s);
  uint64_t ocap = first_capacity(n), ecap = ocap;
  dev::Buffer<uint64_t> oidx(ocap, s), eidx(ecap, s);
  dev::Buffer<int32_t> oval(ocap, s);
  dev::Buffer<T> evals(ecap, s);
  auto* found = reinterpret_cast<unsigned long long*>(rb.device(at_found));
  {
    TracePhase tp("lorenzo device: quantize + count", true, s);
    cuda::launch_quantize<T>(d_x, e, t, p, d_codes,
                             {found, oidx.get(), oval.get(), ocap, eidx.get(), evals.get(), ecap, range}, s);
    if (enc) enc->launch(s);
    rb.fetch(s);  // synchronization 1
  }
  uint64_t nout = rb.host(at_found)[0], nexact = rb.host(at_found)[1];
  if (nout > ocap || nexact > ecap) {  // rare: quantize again into lists of the exact sizes
    ocap = std::max(ocap, nout);
    ecap = std::max(ecap, nexact);
    oidx = dev::Buffer<uint64_t>(ocap, s);
    oval = dev::Buffer<int32_t>(ocap, s);
    eidx = dev::Buffer<uint64_t>(ecap, s);
    evals = dev::Buffer<T>(ecap, s);
    dev::Buffer<unsigned long long> again(2, s);
    SCIZ_CUDA_CHECK(cudaMemsetAsync(again.get(), 0, 2 * sizeof(unsigned long long), s));
    cuda::launch_quantize<T>(d_x, e, t, p, d_codes, {again.get(), oidx.get(), oval.get(), ocap, eidx.get(), evals.get(), ecap}, s);
    unsigned long long h[2];
    dev::copy_to_host(h, again.get(), sizeof h, s);
    dev::sync(s);  // synchronization 2, only after an overflow
    SCIZ_REQUIRE(h[0] == nout && h[1] == nexact, Status::internal, "lorenzo (CUDA): sparse counts changed on the rerun");
  }

  // Section 2, queued first so that the GPU sorts while the host chooses the stage: the
  // outliers, sorted tile-major as the CPU twin lists them.
  const uint64_t slots = tile_grid(e, t).count() * t.volume();
  const uint32_t width = slots <= (1ull << 32) ? 4 : 8;
  out.outliers_size = kSparseHeader + nout * (width + 4);
  out.outliers = dev::Buffer<uint8_t>(out.outliers_size, s);
  {
    const Sorted<int32_t> so = sort_pairs(oidx, oval, nout, slots, s);
    write_outliers_kernel<<<stride_grid(nout), 256, 0, s>>>(so.keys, so.vals, nout, width, out.outliers.get());
    SCIZ_CUDA_CHECK_LAUNCH("lorenzo write_outliers_kernel");
  }
  const Sorted<T> se = sort_pairs(eidx, evals, nexact, n, s);

  // Section 1: the stage chosen on the host from the counts; its encoders write straight into
  // device memory.
  if (enc) {
    TracePhase tp("lorenzo device: choose + encode codes", true, s);
    codes::DeviceEncoded c = enc->finish(out.check.get(), s);
    out.stage = c.stage;
    out.codes = std::move(c.bytes);
    out.codes_size = c.size;
  } else {
    out.codes = std::move(code_bytes);
    out.codes_size = 2 * n;
  }

  // Section 3: the exact values as runs. Last, so that the writer's own synchronization (its
  // size) finds the rest of the work already queued.
  TracePhase tp("lorenzo device: exact runs", true, s);
  runs::DeviceBlob b = xr::write_device<T>(se.keys, se.vals, nexact, s);
  out.exact = std::move(b.bytes);
  out.exact_size = b.size;
  return out;
}

template <class T>
void decompress_device(DeviceSpan codes_sec, DeviceSpan outliers, DeviceSpan exact, std::optional<Lossless> stage,
                       const Extent& e, const TileShape& t, const QuantParams<T>& p, T* d_out, DeviceStatus* st,
                       cudaStream_t s) {
  cuda::require_tile(t);  // before any device work
  const uint64_t n = e.count();
  dev::Buffer<uint16_t> decoded;
  const uint16_t* d_codes = reinterpret_cast<const uint16_t*>(codes_sec.data);
  if (stage) {
    decoded = dev::Buffer<uint16_t>(n, s);
    d_codes = decoded.get();
    TracePhase tp("lorenzo device: decode codes", true, s);
    codes::decode_device(*stage, codes_sec, decoded.get(), n, st, s);
  } else {
    SCIZ_REQUIRE(codes_sec.size == 2 * n && reinterpret_cast<uintptr_t>(codes_sec.data) % 2 == 0, Status::internal,
                 "lorenzo (CUDA): raw quant codes must be " + std::to_string(2 * n) + " aligned bytes");
  }

  // The outliers are read in place by the reconstruction: 8-byte aligned, checked first.
  if (outliers.size < kSparseHeader) return check::report_from_host(st, kStatusSectionTruncated, 2, outliers.size, kSparseHeader, s);
  dev::Buffer<uint8_t> aligned;
  const uint8_t* osec = outliers.data;
  if (reinterpret_cast<uintptr_t>(osec) % 16 != 0) {
    aligned = dev::Buffer<uint8_t>(outliers.size, s);
    dev::copy_on_device(aligned.get(), osec, outliers.size, s);
    osec = aligned.get();
  }
  const uint64_t slots = tile_grid(e, t).count() * t.volume();
  outliers_head_kernel<<<1, 32, 0, s>>>(osec, outliers.size, slots, st);
  SCIZ_CUDA_CHECK_LAUNCH("lorenzo outliers_head_kernel");
  outliers_order_kernel<<<stride_grid((outliers.size - kSparseHeader) / 8), 256, 0, s>>>(osec, slots, st);
  SCIZ_CUDA_CHECK_LAUNCH("lorenzo outliers_order_kernel");

  const runs::DeviceRuns<T> runs = xr::parse_device<T>(exact.data, exact.size, n, st, 3, s);
  // Every check above is queued before the first write to d_out, and every writer reads st.
  TracePhase tp("lorenzo device: reconstruct + exact", true, s);
  cuda::launch_reconstruct_section<T>(d_codes, osec, e, t, p, d_out, st, s);
  xr::scatter_device<T>(runs, d_out, st, s);
}

#define SCIZ_INSTANTIATE(T)                                                                                         \
  template void compress_cuda<T>(const T*, const Extent&, const TileShape&, const QuantParams<T>&, uint16_t*,     \
                                 Sparse<T>&, cudaStream_t);                                                         \
  template void decompress_cuda<T>(const uint16_t*, const Sparse<T>&, const Extent&, const TileShape&,            \
                                   const QuantParams<T>&, T*, cudaStream_t);                                        \
  template DeviceSectionsOut compress_device<T>(const T*, const Extent&, const TileShape&, const QuantParams<T>&, \
                                                uint32_t, uint16_t, std::optional<Lossless>, cudaStream_t, RangeKeys*); \
  template void decompress_device<T>(DeviceSpan, DeviceSpan, DeviceSpan, std::optional<Lossless>, const Extent&,     \
                                     const TileShape&,                                                              \
                                     const QuantParams<T>&, T*, DeviceStatus*, cudaStream_t);
SCIZ_INSTANTIATE(float)
SCIZ_INSTANTIATE(double)
#undef SCIZ_INSTANTIATE

}  // namespace sciz::lorenzo
