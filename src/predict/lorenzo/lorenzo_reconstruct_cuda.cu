// Reconstruction as an N-D partial sum (cuSZ+ IV-B), one CTA per tile: residuals from codes,
// plus this tile's outliers, then inclusive sums along x, y and z. Integer sums are exact and
// order-free, so any parallel order equals the CPU's loops; wrap_add keeps hostile streams
// defined. Points outside an edge tile's valid box only feed sums at larger indices, which
// are never written out, so they need no masking.
#include <cub/block/block_scan.cuh>

#include <algorithm>

#include "core/cuda_check.cuh"
#include "predict/lorenzo/lorenzo_cuda.cuh"
#include "predict/lorenzo/lorenzo_tile.cuh"

namespace sciz::lorenzo::cuda {
namespace {

// Shared layout of the residuals, indexed by the tile-local offset (z cy + y) cx + x.
// 1-D: a pad word per 32 so the blocked reads of the block scan (8 consecutive per thread)
// hit distinct banks. 2-D: rows of 33 so a warp reading a column hits distinct banks.
template <class Tl>
struct Layout {
  static constexpr bool one_d = Tl::cy == 1 && Tl::cz == 1;  // one row: the 1-D tile
  static constexpr int px = Tl::cx + (Tl::cy == 32 ? 1 : 0);
  static constexpr int size = one_d ? Tl::volume + Tl::volume / 32 : Tl::cz * Tl::cy * px;
  __device__ static int slot(int off) {
    if constexpr (one_d)
      return off + off / 32;
    else
      return (off / Tl::cx) * px + off % Tl::cx;
  }
};

struct WrapAdd {
  __device__ int32_t operator()(int32_t a, int32_t b) const { return wrap_add(a, b); }
};

__device__ int32_t warp_inclusive_sum(int32_t v) {
  for (int off = 1; off < 32; off <<= 1) {
    const int32_t t = __shfl_up_sync(kFullMask, v, off);
    if (static_cast<int>(lane_id()) >= off) v = wrap_add(v, t);
  }
  return v;
}

// Where a tile's outliers come from: the host's sorted lists (kernel parameters, so the hot loop
// keeps no registers for them), or an outliers section on the device, read in place (u32 or u64
// indices as its header says, then the residuals; validated on the device before the kernel
// runs). Both list indices strictly ascending.
struct ListOutliers {
  const uint64_t* idx;
  const int32_t* val;
  uint64_t n;
  __device__ uint64_t count() const { return n; }
  __device__ uint64_t index(uint64_t k) const { return idx[k]; }
  __device__ int32_t value(uint64_t k) const { return val[k]; }
};
struct SectionOutliers {
  const uint8_t* sec;  // 8-byte aligned
  __device__ uint64_t count() const { return *reinterpret_cast<const uint64_t*>(sec); }
  __device__ uint32_t width() const { return sec[8]; }
  __device__ uint64_t index(uint64_t k) const {
    return width() == 8 ? reinterpret_cast<const uint64_t*>(sec + 16)[k] : reinterpret_cast<const uint32_t*>(sec + 16)[k];
  }
  __device__ int32_t value(uint64_t k) const {
    return reinterpret_cast<const int32_t*>(sec + 16 + count() * width())[k];
  }
};

// First i with a[i] >= key in a sorted array: a 32-way search, so a million outliers take
// four dependent loads instead of twenty. Called by a whole warp; every lane gets the answer.
template <class Src>
__device__ uint64_t warp_lower_bound(const Src& a, uint64_t n, uint64_t key) {
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    const uint64_t step = (hi - lo + 31) / 32;
    const uint64_t probe = lo + lane_id() * step;
    const int below = __popc(__ballot_sync(kFullMask, probe < hi && a.index(probe) < key));
    if (below == 0) {
      hi = lo;
    } else {
      const uint64_t last = lo + (below - 1) * step;  // a[last] < key <= a[last + step] if in range
      hi = std::min(hi, last + step);
      lo = last + 1;
    }
  }
  return lo;
}

// Adds the tile's run of outliers into q (which lives in registers, thread-striped).
template <class Tl, int K, class Src>
__device__ void add_outliers(int32_t (&q)[K], int32_t* s_q, const Src& o, uint64_t id) {
  using L = Layout<Tl>;
  __shared__ uint64_t s_run[2];
  const unsigned warp = threadIdx.x / 32;
  if (warp < 2) {
    const uint64_t r = warp_lower_bound(o, o.count(), (id + warp) * Tl::volume);
    if (lane_id() == 0) s_run[warp] = r;
  }
  __syncthreads();
  const uint64_t first = s_run[0], last = s_run[1];
  if (first >= last) return;  // block-uniform
#pragma unroll
  for (int k = 0; k < K; ++k) s_q[L::slot(threadIdx.x + kThreads * k)] = q[k];
  __syncthreads();
  for (uint64_t j = first + threadIdx.x; j < last; j += kThreads) {
    const uint64_t off = o.index(j) - id * Tl::volume;  // < volume for a sorted list; checked anyway
    if (off < Tl::volume) s_q[L::slot(static_cast<int>(off))] = wrap_add(s_q[L::slot(static_cast<int>(off))], o.value(j));
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < K; ++k) q[k] = s_q[L::slot(threadIdx.x + kThreads * k)];
  __syncthreads();  // s_q is rewritten by the sums next
}

// 1-D: one row of 2048 is a block-wide scan; blocked items come from shared memory.
template <class Tl, int K>
__device__ void partial_sums_1d(int32_t (&q)[K], int32_t* s_q) {
  using L = Layout<Tl>;
  using Scan = cub::BlockScan<int32_t, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
#pragma unroll
  for (int k = 0; k < K; ++k) s_q[L::slot(threadIdx.x + kThreads * k)] = q[k];
  __syncthreads();
  int32_t items[K];
#pragma unroll
  for (int j = 0; j < K; ++j) items[j] = s_q[L::slot(threadIdx.x * K + j)];
  Scan(tmp).InclusiveScan(items, items, WrapAdd{});
#pragma unroll
  for (int j = 0; j < K; ++j) s_q[L::slot(threadIdx.x * K + j)] = items[j];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < K; ++k) q[k] = s_q[L::slot(threadIdx.x + kThreads * k)];
}

// 2-D / 3-D (rows of 32): x by warp shuffles in registers, y and z through shared memory.
template <class Tl, int K>
__device__ void partial_sums_rows(int32_t (&q)[K], int32_t* s_q) {
  using L = Layout<Tl>;
  constexpr int CZ = Tl::cz, CY = Tl::cy, CX = Tl::cx;
#pragma unroll
  for (int k = 0; k < K; ++k) s_q[L::slot(threadIdx.x + kThreads * k)] = warp_inclusive_sum(q[k]);
  __syncthreads();
  if constexpr (CY == 32) {  // a warp scans a whole column, lane = y
    static_assert(CZ * CX % (kThreads / 32) == 0, "columns per warp");
    for (int c = threadIdx.x / 32; c < CZ * CX; c += kThreads / 32) {
      const int z = c / CX, x = c % CX, at = L::slot((z * CY + static_cast<int>(lane_id())) * CX + x);
      s_q[at] = warp_inclusive_sum(s_q[at]);
    }
  } else {  // a thread scans one short column
    static_assert(CZ * CX == kThreads, "one (z, x) column per thread");
    const int z = threadIdx.x / CX, x = threadIdx.x % CX;
    int32_t acc = 0;
#pragma unroll
    for (int y = 0; y < CY; ++y) {
      const int at = L::slot((z * CY + y) * CX + x);
      acc = wrap_add(acc, s_q[at]);
      s_q[at] = acc;
    }
  }
  __syncthreads();
  if constexpr (CZ > 1) {  // thread (y, x) sums over z, which is exactly its k
    static_assert(CY * CX == kThreads && K == CZ, "one (y, x) column per thread");
    int32_t acc = 0;
#pragma unroll
    for (int z = 0; z < CZ; ++z) {
      acc = wrap_add(acc, s_q[L::slot(threadIdx.x + kThreads * z)]);
      q[z] = acc;
    }
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k) q[k] = s_q[L::slot(threadIdx.x + kThreads * k)];
  }
}

template <class Tl>
__device__ void load_codes(const uint16_t* __restrict__ codes, const Extent& e, const TileGrid& g, uint64_t id,
                           uint16_t (&c)[Tl::per_thread]) {
  const Box b = tile_box<Tl>(id, e, g);
  const PointWalk<Tl> walk(b);
#pragma unroll
  for (int k = 0; k < Tl::per_thread; ++k) {
    const int i = threadIdx.x + kThreads * k, z = Tl::z_of(i), y = Tl::y_of(i), x = Tl::x_of(i);
    c[k] = inside(b, z, y, x) ? codes[walk.at(k)] : uint16_t(0);
  }
}

// Persistent CTAs with a grid stride, loading tile i + grid's codes while summing tile i
// (see quantize_kernel for why). Writes nothing when st (nullable) holds a failure: a decoder
// that validated its sections on the device leaves a damaged stream's output untouched.
template <class T, class Tl, class Src>
__global__ void __launch_bounds__(kThreads)
    reconstruct_kernel(const uint16_t* __restrict__ codes, Src o, Extent e, TileGrid g, QuantParams<T> p,
                       T* __restrict__ out, const DeviceStatus* st) {
  using L = Layout<Tl>;
  constexpr int K = Tl::per_thread;
  __shared__ int32_t s_q[L::size];
  if (st) {
    __shared__ int s_failed;
    if (threadIdx.x == 0) s_failed = failed(st);
    __syncthreads();
    if (s_failed) return;
  }
  const uint64_t ntiles = g.count();
  uint64_t id = blockIdx.x;
  uint16_t c[K];
  if (id < ntiles) load_codes<Tl>(codes, e, g, id, c);
  for (; id < ntiles; id += gridDim.x) {
    const uint64_t next = id + gridDim.x;
    uint16_t cn[K];
    if (next < ntiles) load_codes<Tl>(codes, e, g, next, cn);
    const Box b = tile_box<Tl>(id, e, g);
    int32_t q[K];
#pragma unroll
    for (int k = 0; k < K; ++k) q[k] = from_code(c[k], p.radius);  // points outside the box: see the note above
    if (o.count()) add_outliers<Tl>(q, s_q, o, id);
    if constexpr (L::one_d)
      partial_sums_1d<Tl>(q, s_q);
    else
      partial_sums_rows<Tl>(q, s_q);
    const PointWalk<Tl> walk(b);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int i = threadIdx.x + kThreads * k, z = Tl::z_of(i), y = Tl::y_of(i), x = Tl::x_of(i);
      if (inside(b, z, y, x)) out[walk.at(k)] = reconstruct(q[k], p.ebx2);
    }
#pragma unroll
    for (int k = 0; k < K; ++k) c[k] = cn[k];
    __syncthreads();  // the next tile rewrites s_q
  }
}

template <class T>
__global__ void scatter_kernel(const uint64_t* __restrict__ idx, const T* __restrict__ val, uint64_t m,
                               T* __restrict__ out, uint64_t n) {
  for (uint64_t j = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < m;
       j += static_cast<uint64_t>(gridDim.x) * blockDim.x)
    if (idx[j] < n) out[idx[j]] = val[j];
}

template <class T, class Src>
void launch(const uint16_t* d_codes, const Src& src, const Extent& e, const TileShape& c, const QuantParams<T>& p,
            T* d_out, const DeviceStatus* st, cudaStream_t s) {
  with_tile(c, [&](auto tile) {
    using Tl = decltype(tile);
    const TileGrid g = tile_grid(e, Tl::shape());
    const unsigned blocks = persistent_blocks(tile_blocks(g), reconstruct_kernel<T, Tl, Src>);
    if (blocks == 0) return;
    reconstruct_kernel<T, Tl, Src><<<blocks, kThreads, 0, s>>>(d_codes, src, e, g, p, d_out, st);
    SCIZ_CUDA_CHECK_LAUNCH("lorenzo reconstruct_kernel");
  });
}

}  // namespace

template <class T>
void launch_reconstruct(const uint16_t* d_codes, const uint64_t* d_outlier_idx, const int32_t* d_outlier_val,
                        uint64_t n_outliers, const Extent& e, const TileShape& c, const QuantParams<T>& p, T* d_out,
                        cudaStream_t s) {
  launch<T>(d_codes, ListOutliers{d_outlier_idx, d_outlier_val, n_outliers}, e, c, p, d_out, nullptr, s);
}

template <class T>
void launch_reconstruct_section(const uint16_t* d_codes, const uint8_t* d_outliers, const Extent& e,
                                const TileShape& c, const QuantParams<T>& p, T* d_out, const DeviceStatus* st,
                                cudaStream_t s) {
  launch<T>(d_codes, SectionOutliers{d_outliers}, e, c, p, d_out, st, s);
}

template <class T>
void launch_scatter_exact(const uint64_t* d_idx, const T* d_val, uint64_t m, T* d_out, uint64_t n, cudaStream_t s) {
  if (m == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<uint64_t>((m + 255) / 256, 4096));
  scatter_kernel<T><<<blocks, 256, 0, s>>>(d_idx, d_val, m, d_out, n);
  SCIZ_CUDA_CHECK_LAUNCH("lorenzo scatter_kernel");
}

#define SCIZ_INSTANTIATE(T)                                                                                          \
  template void launch_reconstruct<T>(const uint16_t*, const uint64_t*, const int32_t*, uint64_t, const Extent&,     \
                                      const TileShape&, const QuantParams<T>&, T*, cudaStream_t);                    \
  template void launch_reconstruct_section<T>(const uint16_t*, const uint8_t*, const Extent&, const TileShape&,      \
                                              const QuantParams<T>&, T*, const DeviceStatus*, cudaStream_t);         \
  template void launch_scatter_exact<T>(const uint64_t*, const T*, uint64_t, T*, uint64_t, cudaStream_t);
SCIZ_INSTANTIATE(float)
SCIZ_INSTANTIATE(double)
#undef SCIZ_INSTANTIATE

}  // namespace sciz::lorenzo::cuda
