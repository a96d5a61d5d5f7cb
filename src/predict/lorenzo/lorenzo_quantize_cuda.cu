// Predict + quantize: one CTA per tile. Each thread loads its points (all loads issued before
// any is used), prequantizes them, applies the row fill rule, and stores d in shared memory with
// a zero halo at index -1 of every predicted axis, so lorenzo::delta's at(-1) is a plain load.
#include <cub/block/block_scan.cuh>

#include <limits>

#include "core/cuda_check.cuh"
#include "core/range_fold.cuh"
#include "predict/lorenzo/lorenzo_cuda.cuh"
#include "predict/lorenzo/lorenzo_tile.cuh"

// Minimum resident CTAs per SM the compiler must allow (a register cap); tuned on the H100.
#ifndef SCIZ_QUANTIZE_MIN_BLOCKS
// H100, 500^3 f32, after rows of 32 stopped zeroing a halo they never read (smem 10.7 -> 8 KB):
// rel 1e-3 / 1e-4: 4 -> 799 / 701 GB/s, 5 -> 803 / 726, 6 -> 809 / 740, 8 -> 825 / 750.
#define SCIZ_QUANTIZE_MIN_BLOCKS 8
#endif

namespace sciz::lorenzo::cuda {
namespace {

// Shared layout of d with the zero halo; only the axes delta looks back along get one.
template <class Tl, int ND>
struct Halo {
  static constexpr int hz = ND >= 3, hy = ND >= 2;
  static constexpr int pz = Tl::cz + hz, py = Tl::cy + hy, px = Tl::cx + 1;
  static constexpr int volume = pz * py * px;
  __device__ static int slot(int z, int y, int x) { return ((z + hz) * py + (y + hy)) * px + (x + 1); }

  __device__ static void zero(int32_t* s) {  // halo cells only, so no barrier against the interior writes
    for (int i = threadIdx.x; i < pz * py; i += kThreads) s[i * px] = 0;
    if (hy)
      for (int i = threadIdx.x; i < pz * px; i += kThreads) s[(i / px) * py * px + i % px] = 0;
    if (hz)
      for (int i = threadIdx.x; i < py * px; i += kThreads) s[i] = 0;
  }
};

// Appends entry(k) = (key, value) for every point k whose bit is set, with one atomic per CTA:
// tight bounds can flag millions of points, which must not serialize on one counter. The
// order inside the lists does not matter (they are sorted afterwards). Block-uniform call.
template <int K, class V, class Entry>
__device__ void push_block(uint32_t bits, unsigned long long* counter, uint64_t cap, uint64_t* keys, V* vals,
                           const Entry& entry) {
  using Scan = cub::BlockScan<int, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ unsigned long long base;
  int offset = 0, total = 0;
  Scan(tmp).ExclusiveSum(__popc(bits), offset, total);
  if (threadIdx.x == 0) base = atomicAdd(counter, static_cast<unsigned long long>(total));
  __syncthreads();
  uint64_t at = base + static_cast<uint64_t>(offset);
#pragma unroll 1
  for (int k = 0; k < K; ++k) {
    if (!(bits >> k & 1u)) continue;
    if (at < cap) entry(k, keys[at], vals[at]);
    ++at;
  }
}

// Row fill rule (lorenzo_math.hpp) for rows of 32: a warp holds one row, lane = x.
__device__ int32_t fill_row32(int32_t d, bool valid, bool fill) {
  if (!__ballot_sync(kFullMask, fill)) return d;
  const unsigned keep = __ballot_sync(kFullMask, valid && !fill);
  const unsigned before = keep & ((1u << lane_id()) - 1u);
  const int src = before ? 31 - __clz(before) : (keep ? __ffs(keep) - 1 : static_cast<int>(lane_id()));
  const int32_t got = __shfl_sync(kFullMask, d, src);
  return fill && keep ? got : d;
}

// Row fill rule for the 1-D tile, whose single row spans the CTA. keep[s] has bit i set when
// point 32 s + i is valid and not a fill point. Rare (NaN masks): callers branch around it.
template <class Tl, int ND>
__device__ void fill_row_block(int32_t* s_d, const unsigned* keep, uint32_t fill_bits) {
  constexpr int kSegs = Tl::cx / 32;
  static_assert(kSegs == 64 && Tl::cy == 1 && Tl::cz == 1, "block fill is for the 1-D tile");
  using H = Halo<Tl, ND>;
  __shared__ int prev_keep[kSegs];  // last kept point in segments before s, or -1
  __shared__ int first_keep;
  if (threadIdx.x < 32) {
    const int l = threadIdx.x;
    const unsigned m0 = keep[2 * l], m1 = keep[2 * l + 1];
    const int last0 = m0 ? 64 * l + 31 - __clz(m0) : -1;
    const int last1 = m1 ? 64 * l + 63 - __clz(m1) : last0;
    int incl = last1;
    for (int off = 1; off < 32; off <<= 1) {
      const int t = __shfl_up_sync(kFullMask, incl, off);
      if (l >= off) incl = max(incl, t);
    }
    int excl = __shfl_up_sync(kFullMask, incl, 1);
    if (l == 0) excl = -1;
    prev_keep[2 * l] = excl;
    prev_keep[2 * l + 1] = max(excl, last0);
    const unsigned any = __ballot_sync(kFullMask, (m0 | m1) != 0);
    if (l == 0) {
      int first = -1;
      if (any) {
        const int s = 2 * (__ffs(any) - 1) + (keep[2 * (__ffs(any) - 1)] ? 0 : 1);
        first = 32 * s + __ffs(keep[s]) - 1;
      }
      first_keep = first;
    }
  }
  __syncthreads();
  for (int k = 0; k < Tl::per_thread; ++k) {
    if (!(fill_bits >> k & 1u)) continue;
    const int x = threadIdx.x + kThreads * k, s = x / 32;
    const unsigned before = keep[s] & ((1u << (x % 32)) - 1u);
    int src = before ? 32 * s + 31 - __clz(before) : prev_keep[s];
    if (src < 0) src = first_keep;
    if (src >= 0) s_d[H::slot(0, 0, x)] = s_d[H::slot(0, 0, src)];  // sources are kept points: never written here
  }
}

// Lorenzo residual for rows of 32 in factored form: delta = Dz Dy Dx d, exactly the sum that
// lorenzo::delta spells out (integer arithmetic, every partial bounded by 2^30), but with one
// shuffle for Dx, one shared-memory read for Dy and registers for Dz (thread t holds the points
// t + 256 k, so for the 3-D tile its k is z) instead of eight shared-memory reads per point.
// Neighbours outside the tile are 0 as in delta(). The GPU-vs-CPU stream tests pin equality.
template <class Tl, int ND>
__device__ void residual_rows(int32_t (&r)[Tl::per_thread], int32_t* s_a) {
  constexpr int K = Tl::per_thread;
  static_assert(Tl::cx == 32 && (ND == 2 || (ND == 3 && Tl::cy * Tl::cx == kThreads && K == Tl::cz)),
                "rows of 32; for 3-D each thread owns a z column");
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int32_t left = __shfl_up_sync(kFullMask, r[k], 1);
    if (lane_id() != 0) r[k] -= left;
  }
  __syncthreads();  // s_a may still be read by the exact-value appends
#pragma unroll
  for (int k = 0; k < K; ++k) s_a[threadIdx.x + kThreads * k] = r[k];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int i = threadIdx.x + kThreads * k;
    if (Tl::y_of(i) != 0) r[k] -= s_a[i - 32];
  }
  if constexpr (ND == 3) {
#pragma unroll
    for (int k = K - 1; k > 0; --k) r[k] -= r[k - 1];
  }
  __syncthreads();  // callers may reuse s_a
}

// Sparse finds are rare, so the hot loops only set a bit per point; the appends run in a
// second, block-uniform pass (re-reading x, recomputing delta) only when some bit is set.
// That keeps registers low enough for four CTAs per SM. kRange: the values loaded are also
// folded into sink.range (an absolute bound's header), a template flag so that the relative
// bound's kernel stays as it was.
template <class T, class Tl, int ND, bool kRange>
__global__ void __launch_bounds__(kThreads, SCIZ_QUANTIZE_MIN_BLOCKS) quantize_kernel(const T* __restrict__ x, Extent e, TileGrid g,
                                                            QuantParams<T> p, uint16_t* __restrict__ codes,
                                                            SparseSink<T> sink) {
  using H = Halo<Tl, ND>;
  constexpr int K = Tl::per_thread;
  // Rows of 32 keep d in registers and use shared memory only as a plain exchange buffer: no
  // halo to size or zero.
  constexpr bool kRows = Tl::cx == 32;
  __shared__ int32_t s_d[kRows ? Tl::volume : H::volume];
  __shared__ unsigned s_keep[Tl::volume / 32];
  constexpr int kRangeWarps = kRange ? kThreads / 32 : 1;
  __shared__ T s_lo[kRangeWarps], s_hi[kRangeWarps];
  __shared__ uint32_t s_bad[kRangeWarps];
  // The CTA's fold, one set of atomics a tile, by thread 0 as it leaves (after the last barrier:
  // the warps' folds are in, and no warp waits on the atomics).
  auto commit_range = [&] {
    if constexpr (kRange) {
      if (threadIdx.x == 0) {
        RangeFold<T> all;
        for (int w = 0; w < kRangeWarps; ++w) {
          all.add_extremes(s_lo[w], s_hi[w]);
          all.bad += s_bad[w];
        }
        all.commit(sink.range, false);
      }
    }
  };
  const uint64_t id = blockIdx.x;
  const Box b = tile_box<Tl>(id, e, g);
  if constexpr (!kRows) H::zero(s_d);
  auto point = [&](int k, int& z, int& y, int& xx) {
    const int i = threadIdx.x + kThreads * k;
    z = Tl::z_of(i), y = Tl::y_of(i), xx = Tl::x_of(i);
    return inside(b, z, y, xx);
  };

  T v[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    int z, y, xx;
    // Outside the field: 0, or NaN for the range's fold (which skips NaN); never quantized.
    v[k] = point(k, z, y, xx) ? x[linear_index(b, e, z, y, xx)] : (kRange ? std::numeric_limits<T>::quiet_NaN() : T(0));
  }
  if constexpr (kRange) {  // lo and hi now; the non-finite values are counted with the exact ones
    RangeFold<T> rf;
#pragma unroll
    for (int k = 0; k < K; ++k) rf.add_fast(v[k]);
    rf.warp_reduce();
    if (lane_id() == 0) s_lo[threadIdx.x / 32] = rf.lo, s_hi[threadIdx.x / 32] = rf.hi, s_bad[threadIdx.x / 32] = 0;
  }
  uint32_t exact_bits = 0, fill_bits = 0;
  int32_t r[K];  // rows of 32: d, then the residual, stays in registers
#pragma unroll
  for (int k = 0; k < K; ++k) {
    int z, y, xx;
    const bool valid = point(k, z, y, xx);
    int32_t d = 0;
    const Prequant pq = valid ? prequantize(v[k], p, d) : Prequant::kQuantized;
    const bool fill = valid && pq == Prequant::kExactFill;
    exact_bits |= static_cast<uint32_t>(valid && pq != Prequant::kQuantized) << k;
    if constexpr (Tl::cx == 32) {
      r[k] = fill_row32(d, valid, fill);
    } else {
      const unsigned keep = __ballot_sync(kFullMask, valid && !fill);
      if (lane_id() == 0) s_keep[(threadIdx.x + kThreads * k) / 32] = keep;
      fill_bits |= static_cast<uint32_t>(fill) << k;
      s_d[H::slot(z, y, xx)] = d;
    }
  }
  if constexpr (Tl::cx != 32) {
    if (__syncthreads_or(fill_bits != 0)) fill_row_block<Tl, ND>(s_d, s_keep, fill_bits);
  }
  if (__syncthreads_or(exact_bits != 0)) {  // also the barrier before delta reads s_d
    if constexpr (kRange) {  // every non-finite value is an exact one; commit_range reads after a barrier
      uint32_t bad = 0;
#pragma unroll 1
      for (int k = 0; k < K; ++k) {
        int z, y, xx;
        if ((exact_bits >> k) & 1u) {
          point(k, z, y, xx);
          bad += RangeFold<T>::nonfinite(x[linear_index(b, e, z, y, xx)]);
        }
      }
      for (int d = 16; d > 0; d >>= 1) bad += __shfl_xor_sync(kFullMask, bad, d);
      if (lane_id() == 0) s_bad[threadIdx.x / 32] = bad;
    }
    push_block<K>(exact_bits, &sink.counts[1], sink.exact_cap, sink.exact_idx, sink.exact_val,
                  [&](int k, uint64_t& key, T& val) {
                    int z, y, xx;
                    point(k, z, y, xx);
                    key = linear_index(b, e, z, y, xx);
                    val = x[key];
                  });
  }

  if constexpr (Tl::cx == 32) {
    residual_rows<Tl, ND>(r, s_d);
    uint32_t outlier_bits = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      int z, y, xx;
      const bool valid = point(k, z, y, xx);
      uint16_t code = 0;
      const bool in_range = to_code(r[k], p.radius, code);
      if (valid) codes[linear_index(b, e, z, y, xx)] = code;
      outlier_bits |= static_cast<uint32_t>(valid && !in_range) << k;
    }
    if (__syncthreads_or(outlier_bits != 0)) {  // rare: park the residuals where the appends can index them
#pragma unroll
      for (int k = 0; k < K; ++k) s_d[threadIdx.x + kThreads * k] = r[k];
      __syncthreads();
      push_block<K>(outlier_bits, &sink.counts[0], sink.outlier_cap, sink.outlier_idx, sink.outlier_val,
                    [&](int k, uint64_t& key, int32_t& val) {
                      int z, y, xx;
                      point(k, z, y, xx);
                      key = tile_major_index(id, Tl::shape(), z, y, xx);
                      val = s_d[threadIdx.x + kThreads * k];
                    });
    }
    commit_range();
    return;
  }

  auto at = [&](int z, int y, int xx) -> int32_t { return s_d[H::slot(z, y, xx)]; };
  uint32_t outlier_bits = 0;
#pragma unroll 1  // unrolled, the compiler hoists every shared load and runs out of registers
  for (int k = 0; k < K; ++k) {
    int z, y, xx;
    const bool valid = point(k, z, y, xx);
    uint16_t code = 0;
    const bool in_range = to_code(delta(at, z, y, xx, ND), p.radius, code);
    if (valid) codes[linear_index(b, e, z, y, xx)] = code;
    outlier_bits |= static_cast<uint32_t>(valid && !in_range) << k;
  }
  if (__syncthreads_or(outlier_bits != 0)) {
    push_block<K>(outlier_bits, &sink.counts[0], sink.outlier_cap, sink.outlier_idx, sink.outlier_val,
                  [&](int k, uint64_t& key, int32_t& val) {
                    int z, y, xx;
                    point(k, z, y, xx);
                    key = tile_major_index(id, Tl::shape(), z, y, xx);
                    val = delta(at, z, y, xx, ND);
                  });
  }
  commit_range();
}

template <class T, class Tl, int ND>
void launch(const T* d_x, const Extent& e, const QuantParams<T>& p, uint16_t* d_codes, const SparseSink<T>& sink,
            cudaStream_t s) {
  const TileGrid g = tile_grid(e, Tl::shape());
  const unsigned blocks = tile_blocks(g);
  if (blocks == 0) return;
  if (sink.range)
    quantize_kernel<T, Tl, ND, true><<<blocks, kThreads, 0, s>>>(d_x, e, g, p, d_codes, sink);
  else
    quantize_kernel<T, Tl, ND, false><<<blocks, kThreads, 0, s>>>(d_x, e, g, p, d_codes, sink);
  SCIZ_CUDA_CHECK_LAUNCH("lorenzo quantize_kernel");
}

}  // namespace

template <class T>
void launch_quantize(const T* d_x, const Extent& e, const TileShape& c, const QuantParams<T>& p, uint16_t* d_codes,
                     const SparseSink<T>& sink, cudaStream_t s) {
  SCIZ_REQUIRE(same_shape(c, default_tile(e.ndim)), Status::unsupported,
          "lorenzo (CUDA): compresses a " + std::to_string(e.ndim) + "-D field only with tile " +
              shape_str(default_tile(e.ndim)) + ", not " + shape_str(c));
  if (e.ndim == 1)
    launch<T, Tile1, 1>(d_x, e, p, d_codes, sink, s);
  else if (e.ndim == 2)
    launch<T, Tile2, 2>(d_x, e, p, d_codes, sink, s);
  else
    launch<T, Tile3, 3>(d_x, e, p, d_codes, sink, s);
}

template void launch_quantize<float>(const float*, const Extent&, const TileShape&, const QuantParams<float>&,
                                     uint16_t*, const SparseSink<float>&, cudaStream_t);
template void launch_quantize<double>(const double*, const Extent&, const TileShape&, const QuantParams<double>&,
                                      uint16_t*, const SparseSink<double>&, cudaStream_t);

}  // namespace sciz::lorenzo::cuda
