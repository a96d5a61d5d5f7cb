// CUDA twin of SZx, every decision through szx_math.hpp, so the bytes are the CPU twin's
// (docs/SZX.md). For B <= 128 (the default) one warp per data block, 8 per CTA, lane l owning
// values [4 l, 4 l + 4) with shuffle reductions/scans (the *_warp_kernel section below); larger
// blocks take one CTA per data block (64 threads up to 256, else 128; each thread walks a
// contiguous run of values), as described here.
//
// Encode, two passes over the field:
//   1. analyze_kernel: per block, min/max of the finite order keys (block reduce), mu, radius,
//      kind (0 or nb); for a non-constant block each thread walks its contiguous run of values
//      (the previous value's kept pattern is recomputed from x, so there is no chain), summing
//      its mid-bytes and its exact values; per-block counts go to small arrays.
//   The host turns those counts into per-block offsets (codes, mid-bytes, exact entries).
//   2. emit_kernel: the same walk again; a block scan of (mid-bytes, exact values) places each
//      thread's output; code bytes go straight out, mid-bytes are staged in shared memory and
//      leave coalesced, exact (index, value) pairs land in index order without a sort.
// Decode: the host validates exactly as decode_cpu does (section sizes, kinds, counts, exact
// runs); decode_kernel checks each block's codes (max, padding, sum == its mid count) before
// reading a mid-byte, builds each value's own bytes in shared memory, and resolves the leading
// bytes by index propagation: per byte position p < 3 a max-scan of "last value whose mid-bytes
// include byte p". Exact values are scattered last.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/exact_runs.hpp"
#include "predict/szx/szx.hpp"

namespace sciz::szx {
namespace {

// Threads per CTA (one CTA per data block): 32 for B <= 128, 64 for B <= 256, else 128.
// Values per thread: a multiple of 4 (so each thread owns whole code bytes) with
// NT * per_thread(B, NT) >= B. Thread t walks values [t P, t P + P) of its block.
__host__ __device__ constexpr uint32_t per_thread(uint32_t B, int NT) { return 4 * ((B + 4 * NT - 1) / (4 * NT)); }
static_assert(per_thread(kMaxBlock, 128) * 128 == kMaxBlock);
static_assert(per_thread(128, 32) * 32 == 128 && per_thread(256, 64) * 64 == 256);

// The shared staging area (B * W bytes: mid-bytes when encoding, patterns when decoding).
extern __shared__ __align__(16) unsigned char g_smem[];

template <class T>
using KeyOf = std::make_signed_t<typename Traits<T>::U>;

template <class T>
struct MinMax {
  KeyOf<T> mn, mx;
  uint32_t nfin;
};
struct MinMaxOp {
  template <class A>
  __device__ A operator()(const A& a, const A& b) const {
    return {b.mn < a.mn ? b.mn : a.mn, b.mx > a.mx ? b.mx : a.mx, a.nfin + b.nfin};
  }
};

struct Counts {
  uint32_t mid, exact;
};
struct CountsOp {
  __device__ Counts operator()(const Counts& a, const Counts& b) const { return {a.mid + b.mid, a.exact + b.exact}; }
};

__device__ inline uint32_t block_len(uint64_t n, uint32_t B, uint64_t b) {
  const uint64_t rest = n - b * B;
  return rest < B ? static_cast<uint32_t>(rest) : B;
}

// ---- encode ---------------------------------------------------------------------------

template <class T, int NT>
__global__ void __launch_bounds__(NT)
    analyze_kernel(const T* __restrict__ x, uint64_t n, uint32_t B, double ebc, int pe, uint8_t* __restrict__ kinds,
                   T* __restrict__ mus, uint32_t* __restrict__ mid_count, uint32_t* __restrict__ ex_count) {
  using U = typename Traits<T>::U;
  using S = KeyOf<T>;
  using Reduce = cub::BlockReduce<MinMax<T>, NT>;
  using Reduce2 = cub::BlockReduce<Counts, NT>;
  __shared__ union {
    typename Reduce::TempStorage r1;
    typename Reduce2::TempStorage r2;
  } tmp;
  __shared__ T s_mu;
  __shared__ int s_nb;

  const uint64_t b = blockIdx.x, base = b * B;
  const uint32_t len = block_len(n, B, b);
  const uint32_t P = per_thread(B, NT), i0 = threadIdx.x * P, i1 = min(len, i0 + P);
  const T* xb = x + base;

  MinMax<T> a{std::numeric_limits<S>::max(), std::numeric_limits<S>::min(), 0};
  for (uint32_t i = i0; i < i1; ++i) {
    const T v = xb[i];
    if (is_finite(v)) {
      const S k = order_key(v);
      a.mn = k < a.mn ? k : a.mn;
      a.mx = k > a.mx ? k : a.mx;
      ++a.nfin;
    }
  }
  a = Reduce(tmp.r1).Reduce(a, MinMaxOp{});
  if (threadIdx.x == 0) {
    T mu = 0;
    int nb = 0;
    if (a.nfin > 0) {
      const T mn = from_order_key<T>(a.mn), mx = from_order_key<T>(a.mx);
      mu = block_mu(mn, mx);
      const double r = block_radius(mn, mx, mu);
      if (!(r <= ebc)) nb = required_bytes<T>(static_cast<T>(r), pe);
    }
    s_mu = mu;
    s_nb = nb;
    kinds[b] = static_cast<uint8_t>(nb);
    mus[b] = mu;
  }
  __syncthreads();
  const T mu = s_mu;
  const int nb = s_nb;
  Counts c{0, 0};
  if (nb == 0) {
    for (uint32_t i = i0; i < i1; ++i) c.exact += !is_finite(xb[i]);
  } else {
    const U keep = top_mask<T>(nb);
    const int lcap = leading_cap(nb);
    U prev = 0;
    if (i0 > 0 && i0 < len) {
      const T xp = xb[i0 - 1];
      prev = kept_pattern<T>((is_finite(xp) ? xp : mu) - mu, keep);
    }
    for (uint32_t i = i0; i < i1; ++i) {
      const T xi = xb[i];
      const U k = kept_pattern<T>((is_finite(xi) ? xi : mu) - mu, keep);
      const int L = leading_bytes<T>(k, prev, lcap);
      c.mid += static_cast<uint32_t>(nb - L);
      c.exact += !within(xi, reconstruct(mu, k), ebc);
      prev = k;
    }
  }
  __syncthreads();  // tmp is reused
  c = Reduce2(tmp.r2).Reduce(c, CountsOp{});
  if (threadIdx.x == 0) {
    mid_count[b] = c.mid;
    ex_count[b] = c.exact;
  }
}

// off: code_off[nblocks], mid_off[nblocks], ex_off[nblocks + 1] back to back.
template <class T, int NT>
__global__ void __launch_bounds__(NT)
    emit_kernel(const T* __restrict__ x, uint64_t n, uint32_t B, double ebc, const uint8_t* __restrict__ kinds,
                const T* __restrict__ mus, const uint64_t* __restrict__ off, uint8_t* __restrict__ codes,
                uint8_t* __restrict__ mid, uint64_t* __restrict__ ex_idx, T* __restrict__ ex_val) {
  using U = typename Traits<T>::U;
  using Scan = cub::BlockScan<Counts, NT>;
  __shared__ typename Scan::TempStorage tmp;
  uint8_t* s_mid = g_smem;

  const uint64_t nblocks = gridDim.x;
  const uint64_t b = blockIdx.x, base = b * B;
  const uint32_t len = block_len(n, B, b);
  const uint32_t P = per_thread(B, NT), i0 = threadIdx.x * P, i1 = min(len, i0 + P);
  const T* xb = x + base;
  const int nb = kinds[b];
  const T mu = mus[b];
  const uint64_t* ex_off = off + 2 * nblocks;
  const uint64_t e0 = ex_off[b];

  if (nb == 0) {
    if (ex_off[b + 1] == e0) return;  // uniform across the CTA
    Counts c{0, 0};
    for (uint32_t i = i0; i < i1; ++i) c.exact += !is_finite(xb[i]);
    Counts before;
    Scan(tmp).ExclusiveScan(c, before, Counts{0, 0}, CountsOp{});
    uint64_t at = e0 + before.exact;
    for (uint32_t i = i0; i < i1; ++i) {
      const T xi = xb[i];
      if (!is_finite(xi)) {
        ex_idx[at] = base + i;
        ex_val[at] = xi;
        ++at;
      }
    }
    return;
  }

  const U keep = top_mask<T>(nb);
  const int lcap = leading_cap(nb);
  uint8_t* cp = codes + off[b];
  U prev0 = 0;
  if (i0 > 0 && i0 < len) {
    const T xp = xb[i0 - 1];
    prev0 = kept_pattern<T>((is_finite(xp) ? xp : mu) - mu, keep);
  }
  // Pass 1: codes out, counts for the scan.
  Counts c{0, 0};
  {
    U prev = prev0;
    uint32_t cb = 0;
    for (uint32_t i = i0; i < i1; ++i) {
      const T xi = xb[i];
      const U k = kept_pattern<T>((is_finite(xi) ? xi : mu) - mu, keep);
      const int L = leading_bytes<T>(k, prev, lcap);
      c.mid += static_cast<uint32_t>(nb - L);
      c.exact += !within(xi, reconstruct(mu, k), ebc);
      prev = k;
      cb |= static_cast<uint32_t>(L) << (2 * (i & 3));
      if ((i & 3) == 3 || i + 1 == i1) {
        cp[i >> 2] = static_cast<uint8_t>(cb);
        cb = 0;
      }
    }
  }
  Counts before, total;
  Scan(tmp).ExclusiveScan(c, before, Counts{0, 0}, CountsOp{}, total);
  // Pass 2: mid-bytes into shared memory, exact values out.
  {
    U prev = prev0;
    uint32_t pos = before.mid;
    uint64_t at = e0 + before.exact;
    for (uint32_t i = i0; i < i1; ++i) {
      const T xi = xb[i];
      const U k = kept_pattern<T>((is_finite(xi) ? xi : mu) - mu, keep);
      const int L = leading_bytes<T>(k, prev, lcap);
      const U w = mid_word<T>(k, L);
      for (int q = 0; q < nb - L; ++q) s_mid[pos + q] = static_cast<uint8_t>(w >> (8 * q));
      pos += static_cast<uint32_t>(nb - L);
      if (!within(xi, reconstruct(mu, k), ebc)) {
        ex_idx[at] = base + i;
        ex_val[at] = xi;
        ++at;
      }
      prev = k;
    }
  }
  __syncthreads();
  uint8_t* mp = mid + off[nblocks + b];
  for (uint32_t q = threadIdx.x; q < total.mid; q += NT) mp[q] = s_mid[q];
}

// ---- decode ---------------------------------------------------------------------------

// Per thread: mid-bytes of its values, and per byte position p < 3 the last of its values
// whose mid-bytes include byte p (L <= p), -1 when none.
struct Walk {
  uint32_t mid;
  int src[3];
};
struct WalkOp {
  __device__ Walk operator()(const Walk& a, const Walk& b) const {
    return {a.mid + b.mid, {max(a.src[0], b.src[0]), max(a.src[1], b.src[1]), max(a.src[2], b.src[2])}};
  }
};

template <class T, int NT>
__global__ void __launch_bounds__(NT)
    decode_kernel(uint64_t n, uint32_t B, const uint8_t* __restrict__ kinds, const T* __restrict__ mus,
                  const uint32_t* __restrict__ rank, const uint64_t* __restrict__ mid_off,
                  const uint8_t* __restrict__ codes, const uint8_t* __restrict__ mid, T* __restrict__ out,
                  unsigned long long* __restrict__ bad) {
  using U = typename Traits<T>::U;
  constexpr int W = Traits<T>::kBytes;
  using Scan = cub::BlockScan<Walk, NT>;
  __shared__ typename Scan::TempStorage tmp;
  U* s_k = reinterpret_cast<U*>(g_smem);

  const uint64_t b = blockIdx.x, base = b * B;
  const uint32_t len = block_len(n, B, b);
  const int nb = kinds[b];
  const T mu = mus[b];
  T* ob = out + base;
  if (nb == 0) {
    for (uint32_t i = threadIdx.x; i < len; i += NT) ob[i] = mu;
    return;
  }
  const uint32_t P = per_thread(B, NT), i0 = threadIdx.x * P, i1 = min(len, i0 + P);
  const uint32_t j = rank[b];
  const uint8_t* cp = codes + static_cast<uint64_t>(j) * (B / 4);
  const uint64_t m0 = mid_off[j], count = mid_off[j + 1] - m0;
  const uint8_t* mp = mid + m0;
  const int lcap = leading_cap(nb);

  Walk w{0, {-1, -1, -1}};
  bool wrong = false;
  for (uint32_t i = i0; i < i1; ++i) {
    const int L = code_at(cp[i >> 2], i);
    wrong |= L > lcap;
    w.mid += static_cast<uint32_t>(nb - L);
#pragma unroll
    for (int p = 0; p < 3; ++p)
      if (L <= p) w.src[p] = static_cast<int>(i);
  }
  if ((len & 3) != 0 && i0 < len && len <= i0 + P)  // this thread owns the partial last code byte
    wrong |= (cp[(len - 1) >> 2] >> (2 * (len & 3))) != 0;
  Walk before, total;
  Scan(tmp).ExclusiveScan(w, before, Walk{0, {-1, -1, -1}}, WalkOp{}, total);
  wrong = __syncthreads_or(wrong) != 0;
  if (wrong || total.mid != count) {  // uniform: every mid-byte read below stays inside [0, count)
    if (threadIdx.x == 0) atomicMin(bad, static_cast<unsigned long long>(b));
    return;
  }
  const U keep = top_mask<T>(nb);
  // Each value's own bytes (positions >= L) from its mid-bytes.
  uint32_t pos = before.mid;
  for (uint32_t i = i0; i < i1; ++i) {
    const int L = code_at(cp[i >> 2], i);
    U word = 0;
    for (int q = 0; q < nb - L; ++q) word |= static_cast<U>(mp[pos + q]) << (8 * q);
    pos += static_cast<uint32_t>(nb - L);
    s_k[i] = merge_pattern<T>(U(0), word, L, keep);
  }
  __syncthreads();
  // Leading bytes: byte p < L of value i is byte p of the last earlier value with L <= p.
  int src[3] = {before.src[0], before.src[1], before.src[2]};
  for (uint32_t i = i0; i < i1; ++i) {
    const int L = code_at(cp[i >> 2], i);
    U k = s_k[i];
#pragma unroll
    for (int p = 0; p < 3; ++p) {
      if (p < L) {
        if (src[p] >= 0) k |= s_k[src[p]] & (static_cast<U>(0xff) << (8 * (W - 1 - p)));
      } else {
        src[p] = static_cast<int>(i);
      }
    }
    ob[i] = reconstruct(mu, k);
  }
}

// ---- warp-per-block kernels (B <= 128) --------------------------------------------------
// One warp per data block, kWarps blocks per CTA: lane l owns values [4 l, 4 l + 4) (one code
// byte), loaded with 16-byte loads when the field is 16-byte aligned (B is a multiple of 32,
// so every block then is). Reductions and scans are warp shuffles; the only synchronization
// is __syncwarp. The bytes are those of the CTA-per-block kernels above.
constexpr int kWarps = 8;
constexpr unsigned kFull = 0xffffffffu;

// Shared bytes per warp for staging B W bytes (mid-bytes) at a 4-byte phase, 16-aligned.
// Decoding reads a value's window as the 2 or 3 aligned words from its first mid-byte, so up
// to 12 bytes past the staged ones are read (and ignored by merge_pattern).
__host__ __device__ constexpr uint32_t stage_stride(uint32_t B, int W) { return (B * W + 16 + 15) / 16 * 16; }

template <class T>
__device__ inline void load4(const T* __restrict__ p, uint32_t cnt, bool vec, T (&v)[4]) {
  if (vec && cnt == 4) {
    if constexpr (sizeof(T) == 4) {
      const float4 q = *reinterpret_cast<const float4*>(p);
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
      const double2 q0 = reinterpret_cast<const double2*>(p)[0], q1 = reinterpret_cast<const double2*>(p)[1];
      v[0] = q0.x, v[1] = q0.y, v[2] = q1.x, v[3] = q1.y;
    }
  } else {
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) v[e] = e < cnt ? p[e] : T(0);
  }
}
template <class T>
__device__ inline void store4(T* __restrict__ p, uint32_t cnt, bool vec, const T (&v)[4]) {
  if (vec && cnt == 4) {
    if constexpr (sizeof(T) == 4) {
      *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
      reinterpret_cast<double2*>(p)[0] = make_double2(v[0], v[1]);
      reinterpret_cast<double2*>(p)[1] = make_double2(v[2], v[3]);
    }
  } else {
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e)
      if (e < cnt) p[e] = v[e];
  }
}
__device__ inline uint32_t warp_incl_sum(uint32_t x, uint32_t lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const uint32_t t = __shfl_up_sync(kFull, x, d);
    if (lane >= static_cast<uint32_t>(d)) x += t;
  }
  return x;
}
__device__ inline uint32_t warp_sum(uint32_t x) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(kFull, x, d);
  return x;
}

template <class T>
__global__ void __launch_bounds__(32 * kWarps)
    analyze_warp_kernel(const T* __restrict__ x, uint64_t n, uint64_t nblocks, uint32_t B, double ebc, int pe,
                        uint8_t* __restrict__ kinds, T* __restrict__ mus, uint32_t* __restrict__ mid_count,
                        uint32_t* __restrict__ ex_count) {
  using U = typename Traits<T>::U;
  using S = KeyOf<T>;
  const uint32_t lane = threadIdx.x & 31;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * kWarps;
  for (uint64_t b = static_cast<uint64_t>(blockIdx.x) * kWarps + (threadIdx.x >> 5); b < nblocks; b += stride) {
    __syncwarp();
    const uint64_t base = b * B;
    const uint32_t len = block_len(n, B, b), i0 = 4 * lane;
    const uint32_t cnt = i0 < len ? min(4u, len - i0) : 0u;
    const bool vec = (reinterpret_cast<uintptr_t>(x) & 15) == 0;
    T v[4];
    load4(x + base + i0, cnt, vec, v);

    S mn = std::numeric_limits<S>::max(), mx = std::numeric_limits<S>::min();
    uint32_t nfin = 0;
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      if (e < cnt && is_finite(v[e])) {
        const S k = order_key(v[e]);
        mn = k < mn ? k : mn;
        mx = k > mx ? k : mx;
        ++nfin;
      }
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
      const S a = __shfl_xor_sync(kFull, mn, d), c = __shfl_xor_sync(kFull, mx, d);
      mn = a < mn ? a : mn;
      mx = c > mx ? c : mx;
      nfin += __shfl_xor_sync(kFull, nfin, d);
    }
    // Every lane holds the same reduction, so every lane decides the same mu and nb.
    T mu = 0;
    int nb = 0;
    if (nfin > 0) {
      const T fmn = from_order_key<T>(mn), fmx = from_order_key<T>(mx);
      mu = block_mu(fmn, fmx);
      const double r = block_radius(fmn, fmx, mu);
      if (!(r <= ebc)) nb = required_bytes<T>(static_cast<T>(r), pe);
    }
    if (lane == 0) {
      kinds[b] = static_cast<uint8_t>(nb);
      mus[b] = mu;
    }
    uint32_t cm = 0, ce = 0;
    if (nb == 0) {
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) ce += e < cnt && !is_finite(v[e]);
    } else {
      const U keep = top_mask<T>(nb);
      const int lcap = leading_cap(nb);
      U k[4];
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) k[e] = kept_pattern<T>((is_finite(v[e]) ? v[e] : mu) - mu, keep);
      U prev = __shfl_up_sync(kFull, k[3], 1);
      if (lane == 0) prev = 0;
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) {
        if (e < cnt) {
          const int L = leading_bytes<T>(k[e], prev, lcap);
          cm += static_cast<uint32_t>(nb - L);
          ce += !within(v[e], reconstruct(mu, k[e]), ebc);
        }
        prev = k[e];
      }
    }
    cm = warp_sum(cm);
    ce = warp_sum(ce);
    if (lane == 0) {
      mid_count[b] = cm;
      ex_count[b] = ce;
    }
  }
}

template <class T>
__global__ void __launch_bounds__(32 * kWarps)
    emit_warp_kernel(const T* __restrict__ x, uint64_t n, uint64_t nblocks, uint32_t B, double ebc,
                     const uint8_t* __restrict__ kinds, const T* __restrict__ mus, const uint64_t* __restrict__ off,
                     uint8_t* __restrict__ codes, uint8_t* __restrict__ mid, uint64_t* __restrict__ ex_idx,
                     T* __restrict__ ex_val) {
  using U = typename Traits<T>::U;
  constexpr int W = Traits<T>::kBytes;
  const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * kWarps;
  for (uint64_t b = static_cast<uint64_t>(blockIdx.x) * kWarps + warp; b < nblocks; b += stride) {
    __syncwarp();  // uniform across the warp; the staging area is reused
    const uint64_t base = b * B;
    const uint32_t len = block_len(n, B, b), i0 = 4 * lane;
    const uint32_t cnt = i0 < len ? min(4u, len - i0) : 0u;
    // Every load of the block is issued up front (a constant block with no exact values reads
    // x for nothing, but no load waits on another).
    const bool vec = (reinterpret_cast<uintptr_t>(x) & 15) == 0;
    T v[4];
    load4(x + base + i0, cnt, vec, v);
    const int nb = kinds[b];
    const T mu = mus[b];
    const uint64_t* ex_off = off + 2 * nblocks;
    const uint64_t e0 = ex_off[b], e1 = ex_off[b + 1], code_off = off[b], mid_at = off[nblocks + b];
    if (nb == 0 && e1 == e0) continue;  // uniform across the warp

    if (nb == 0) {
      uint32_t c = 0;
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) c += e < cnt && !is_finite(v[e]);
      uint64_t at = e0 + (warp_incl_sum(c, lane) - c);
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) {
        if (e < cnt && !is_finite(v[e])) {
          ex_idx[at] = base + i0 + e;
          ex_val[at] = v[e];
          ++at;
        }
      }
      continue;
    }

    const U keep = top_mask<T>(nb);
    const int lcap = leading_cap(nb);
    U k[4];
    int L[4];
    bool ex[4];
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) k[e] = kept_pattern<T>((is_finite(v[e]) ? v[e] : mu) - mu, keep);
    U prev = __shfl_up_sync(kFull, k[3], 1);
    if (lane == 0) prev = 0;
    uint32_t cm = 0, ce = 0, cb = 0;
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      L[e] = leading_bytes<T>(k[e], prev, lcap);
      ex[e] = !within(v[e], reconstruct(mu, k[e]), ebc);
      if (e < cnt) {
        cm += static_cast<uint32_t>(nb - L[e]);
        ce += ex[e];
        cb |= static_cast<uint32_t>(L[e]) << (2 * e);
      }
      prev = k[e];
    }
    // mid <= B W <= 1024 and exact <= B: one scan of both, packed.
    const uint32_t packed = cm | ce << 16;
    const uint32_t incl = warp_incl_sum(packed, lane), excl = incl - packed;
    const uint32_t total_mid = __shfl_sync(kFull, incl, 31) & 0xffff;
    if (cnt) codes[code_off + lane] = static_cast<uint8_t>(cb);

    uint64_t at = e0 + (excl >> 16);
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      if (e < cnt && ex[e]) {
        ex_idx[at] = base + i0 + e;
        ex_val[at] = v[e];
        ++at;
      }
    }
    // Mid-bytes staged at the global address's 4-byte phase, then out in aligned words.
    uint8_t* mp = mid + mid_at;
    const uint32_t a = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(mp) & 3);
    uint8_t* s = g_smem + warp * stage_stride(B, W);
    uint32_t pos = a + (excl & 0xffff);
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      if (e < cnt) {
        const U w = mid_word<T>(k[e], L[e]);
        for (int q = 0; q < nb - L[e]; ++q) s[pos + q] = static_cast<uint8_t>(w >> (8 * q));
        pos += static_cast<uint32_t>(nb - L[e]);
      }
    }
    __syncwarp();
    uint8_t* g0 = mp - a;
    const uint32_t endb = a + total_mid, nw = (endb + 3) / 4;
    for (uint32_t q = lane; q < nw; q += 32) {
      const uint32_t lo = 4 * q, hi = lo + 4;
      if (lo >= a && hi <= endb) {
        *reinterpret_cast<uint32_t*>(g0 + lo) = *reinterpret_cast<const uint32_t*>(s + lo);
      } else {
        for (uint32_t r = max(lo, a); r < min(hi, endb); ++r) g0[r] = s[r];
      }
    }
  }
}

template <class T>
__global__ void __launch_bounds__(32 * kWarps)
    decode_warp_kernel(uint64_t n, uint64_t nblocks, uint32_t B, const uint8_t* __restrict__ kinds,
                       const T* __restrict__ mus, const uint32_t* __restrict__ rank,
                       const uint64_t* __restrict__ block_mid_off, const uint8_t* __restrict__ codes,
                       const uint8_t* __restrict__ mid, T* __restrict__ out, unsigned long long* __restrict__ bad) {
  using U = typename Traits<T>::U;
  constexpr int W = Traits<T>::kBytes;
  const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * kWarps;
  for (uint64_t b = static_cast<uint64_t>(blockIdx.x) * kWarps + warp; b < nblocks; b += stride) {
    __syncwarp();  // uniform across the warp; the staging area is reused
    const uint64_t base = b * B;
    const uint32_t len = block_len(n, B, b), i0 = 4 * lane;
    const uint32_t cnt = i0 < len ? min(4u, len - i0) : 0u;
    const bool vec = (reinterpret_cast<uintptr_t>(out) & 15) == 0;
    const int nb = kinds[b];
    const T mu = mus[b];
    const uint32_t j = rank[b];
    const uint64_t m0 = block_mid_off[b], count = block_mid_off[b + 1] - m0;
    T* ob = out + base + i0;
    if (nb == 0) {
      const T o[4] = {mu, mu, mu, mu};
      store4(ob, cnt, vec, o);
      continue;
    }
    const uint32_t cb = cnt ? codes[static_cast<uint64_t>(j) * (B / 4) + lane] : 0u;
    // The block's mid-bytes into shared memory at their 4-byte phase, in aligned words. The host
    // checked count <= len nb and that the counts tile the section, so these reads are in
    // bounds whatever the codes say; they are used only once the codes are checked.
    uint8_t* s = g_smem + warp * (stage_stride(B, W) + B * W);
    U* s_k = reinterpret_cast<U*>(s + stage_stride(B, W));
    const uint8_t* mp = mid + m0;
    const uint32_t a = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(mp) & 3);
    {
      const uint8_t* g0 = mp - a;
      const uint32_t endb = a + static_cast<uint32_t>(count), nw = (endb + 3) / 4;
      for (uint32_t q = lane; q < nw; q += 32) {
        const uint32_t lo = 4 * q, hi = lo + 4;
        if (lo >= a && hi <= endb) {
          *reinterpret_cast<uint32_t*>(s + lo) = *reinterpret_cast<const uint32_t*>(g0 + lo);
        } else {
          for (uint32_t r = max(lo, a); r < min(hi, endb); ++r) s[r] = g0[r];
        }
      }
    }
    const int lcap = leading_cap(nb);
    int L[4];
    bool wrong = cnt < 4 && (cb >> (2 * cnt)) != 0;  // padding of the partial last code byte
    uint32_t cm = 0, src = 0;  // src: per byte position p < 3, byte p = 1 + last own value with L <= p
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      L[e] = static_cast<int>((cb >> (2 * e)) & 3);
      if (e < cnt) {
        wrong |= L[e] > lcap;
        cm += static_cast<uint32_t>(nb - L[e]);
#pragma unroll
        for (int p = 0; p < 3; ++p)
          if (L[e] <= p) src = (src & ~(0xffu << (8 * p))) | (i0 + e + 1) << (8 * p);
      }
    }
    // Inclusive scans: mid-bytes (sum), sources (bytewise max; B <= 128 so 1 + index fits a byte).
    uint32_t im = cm, is = src;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const uint32_t tm = __shfl_up_sync(kFull, im, d), ts = __shfl_up_sync(kFull, is, d);
      if (lane >= static_cast<uint32_t>(d)) {
        im += tm;
        is = __vmaxu4(is, ts);
      }
    }
    const uint32_t total = __shfl_sync(kFull, im, 31);
    uint32_t before_src = __shfl_up_sync(kFull, is, 1);
    if (lane == 0) before_src = 0;
    if (__any_sync(kFull, wrong) || total != count) {  // uniform: mid-byte reads below stay in [0, count)
      if (lane == 0) atomicMin(bad, static_cast<unsigned long long>(b));
      continue;
    }
    __syncwarp();
    const U keep = top_mask<T>(nb);
    U k[4];
    uint32_t pos = a + (im - cm);
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      if (e < cnt) {
        // The W bytes from pos, little-endian, out of aligned words.
        const uint32_t* sw = reinterpret_cast<const uint32_t*>(s) + (pos >> 2);
        const uint32_t sh = 8 * (pos & 3);
        U word;
        if constexpr (W == 4) {
          word = __funnelshift_r(sw[0], sw[1], sh);
        } else {
          const uint32_t w1 = sw[1];
          word = static_cast<U>(__funnelshift_r(sw[0], w1, sh)) |
                 static_cast<U>(__funnelshift_r(w1, sw[2], sh)) << 32;
        }
        pos += static_cast<uint32_t>(nb - L[e]);
        k[e] = merge_pattern<T>(U(0), word, L[e], keep);
        s_k[i0 + e] = k[e];
      }
    }
    __syncwarp();
    // Leading bytes: byte p < L of value i is byte p of the last earlier value with L <= p.
    int sp[3];
#pragma unroll
    for (int p = 0; p < 3; ++p) sp[p] = static_cast<int>((before_src >> (8 * p)) & 0xff) - 1;
    T o[4];
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      if (e < cnt) {
        U kk = k[e];
#pragma unroll
        for (int p = 0; p < 3; ++p) {
          if (p < L[e]) {
            if (sp[p] >= 0) kk |= s_k[sp[p]] & (static_cast<U>(0xff) << (8 * (W - 1 - p)));
          } else {
            sp[p] = static_cast<int>(i0 + e);
          }
        }
        o[e] = reconstruct(mu, kk);
      } else {
        o[e] = mu;
      }
    }
    store4(ob, cnt, vec, o);
  }
}

template <class T>
__global__ void scatter_kernel(const uint64_t* __restrict__ idx, const T* __restrict__ val, uint64_t count,
                               T* __restrict__ out) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t q = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < count; q += stride)
    out[idx[q]] = val[q];
}

// The CTA size for block size B, as a compile-time constant handed to f.
template <class F>
void with_threads(uint32_t B, F&& f) {
  if (B <= 128)
    f(std::integral_constant<int, 32>{});
  else if (B <= 256)
    f(std::integral_constant<int, 64>{});
  else
    f(std::integral_constant<int, 128>{});
}

// Opt-in kernel timing, informational only: with SCIZ_SZX_TIMING set in the environment each
// kernel's time (CUDA events on its stream) and the field bytes per second go to stderr.
class KernelTimer {
 public:
  KernelTimer(const char* name, uint64_t field_bytes, cudaStream_t s) : name_(name), bytes_(field_bytes), s_(s) {
    if (!std::getenv("SCIZ_SZX_TIMING")) return;
    SCIZ_CUDA_CHECK(cudaEventCreate(&a_));
    SCIZ_CUDA_CHECK(cudaEventCreate(&b_));
    SCIZ_CUDA_CHECK(cudaEventRecord(a_, s_));
  }
  void stop() {
    if (!a_) return;
    SCIZ_CUDA_CHECK(cudaEventRecord(b_, s_));
    SCIZ_CUDA_CHECK(cudaEventSynchronize(b_));
    float ms = 0;
    SCIZ_CUDA_CHECK(cudaEventElapsedTime(&ms, a_, b_));
    std::fprintf(stderr, "[szx cuda timing, informational] %s: %.3f ms, %.1f GB/s of field\n", name_, ms,
                 static_cast<double>(bytes_) / (ms * 1e6));
  }
  ~KernelTimer() {
    if (a_) cudaEventDestroy(a_);
    if (b_) cudaEventDestroy(b_);
  }
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

 private:
  const char* name_;
  uint64_t bytes_;
  cudaStream_t s_;
  cudaEvent_t a_ = nullptr, b_ = nullptr;
};

unsigned grid_for(uint64_t items) {
  return static_cast<unsigned>(std::clamp<uint64_t>((items + 255) / 256, 1, 132 * 16));
}

// Grid of a warp-per-block kernel. f32: one warp per data block (measured faster on an H100);
// f64: one resident wave at most, each warp striding over blocks (measured faster there).
template <class T, class K>
unsigned warp_grid(K kernel, uint64_t nblocks, size_t smem) {
  const uint64_t want = (nblocks + kWarps - 1) / kWarps;
  if constexpr (sizeof(T) == 4) return static_cast<unsigned>(want);
  int dev = 0, sms = 0, per_sm = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&dev));
  SCIZ_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  SCIZ_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * kWarps, smem));
  const uint64_t cap = static_cast<uint64_t>(std::max(sms, 1)) * static_cast<uint64_t>(std::max(per_sm, 1));
  return static_cast<unsigned>(std::min(want, cap));
}

void require_grid(uint64_t nblocks, Status st) {
  SCIZ_REQUIRE(nblocks < (uint64_t(1) << 31), st, "szx: " + std::to_string(nblocks) + " blocks, above the grid limit");
}

}  // namespace

template <class T>
Encoded encode_cuda(const T* d_x, uint64_t n, double eb, uint32_t block, cudaStream_t s, Stats* stats) {
  constexpr int W = Traits<T>::kBytes;
  SCIZ_REQUIRE(std::isfinite(eb) && eb > 0, Status::invalid_argument,
               "szx: error bound " + std::to_string(eb) + " must be finite and positive");
  SCIZ_REQUIRE(valid_block(block), Status::invalid_argument,
               "szx: block size " + std::to_string(block) + " is not a multiple of 32 in 32..4096");
  SCIZ_REQUIRE(n < (uint64_t(1) << 56), Status::invalid_argument, "szx: field of " + std::to_string(n) + " values");
  const double ebc = eb_check<T>(eb);
  const int pe = eb_exponent(ebc);
  const uint32_t B = block;
  const uint64_t nblocks = (n + B - 1) / B;
  require_grid(nblocks, Status::invalid_argument);

  Encoded e;
  e.block = B;
  e.kinds.resize(nblocks);
  e.mus.resize(nblocks * W);
  std::vector<uint64_t> exact_idx;
  std::vector<T> exact_val;
  uint64_t K = 0;
  if (nblocks) {
    dev::Buffer<uint8_t> d_kinds(nblocks, s);
    dev::Buffer<T> d_mus(nblocks, s);
    dev::Buffer<uint32_t> d_cnt(2 * nblocks, s);  // mid counts, then exact counts
    const unsigned grid = static_cast<unsigned>(nblocks);
    const unsigned agrid = B <= 128 ? warp_grid<T>(analyze_warp_kernel<T>, nblocks, 0) : 0;
    KernelTimer t1("encode analyze_kernel", n * W, s);
    if (B <= 128)
      analyze_warp_kernel<T><<<agrid, 32 * kWarps, 0, s>>>(
          d_x, n, nblocks, B, ebc, pe, d_kinds.get(), d_mus.get(), d_cnt.get(), d_cnt.get() + nblocks);
    else
      with_threads(B, [&](auto nt) {
        analyze_kernel<T, decltype(nt)::value><<<grid, decltype(nt)::value, 0, s>>>(
            d_x, n, B, ebc, pe, d_kinds.get(), d_mus.get(), d_cnt.get(), d_cnt.get() + nblocks);
      });
    SCIZ_CUDA_CHECK_LAUNCH("szx analyze_kernel");
    t1.stop();
    std::vector<uint32_t> cnt(2 * nblocks);
    dev::copy_to_host(e.kinds.data(), d_kinds.get(), nblocks, s);
    dev::copy_to_host(e.mus.data(), d_mus.get(), nblocks * W, s);
    dev::copy_to_host(cnt.data(), d_cnt.get(), 2 * nblocks * 4, s);
    dev::sync(s);

    // Per-block offsets: codes at j B/4 for the j-th non-constant block, mid-bytes and exact
    // entries at exclusive prefix sums.
    std::vector<uint64_t> off(3 * nblocks + 1, 0);
    uint64_t mid_total = 0, ex_total = 0, codes_total = 0;
    e.mid_counts.reserve(2 * nblocks);
    for (uint64_t b = 0; b < nblocks; ++b) {
      off[2 * nblocks + b] = ex_total;
      ex_total += cnt[nblocks + b];
      if (e.kinds[b] == 0) continue;
      off[b] = K * (B / 4);
      off[nblocks + b] = mid_total;
      mid_total += cnt[b];
      const uint16_t c16 = static_cast<uint16_t>(cnt[b]);
      e.mid_counts.push_back(static_cast<uint8_t>(c16));
      e.mid_counts.push_back(static_cast<uint8_t>(c16 >> 8));
      codes_total += code_bytes(static_cast<uint32_t>(std::min<uint64_t>(B, n - b * B)));
      ++K;
    }
    off[3 * nblocks] = ex_total;
    dev::Buffer<uint64_t> d_off(off.size(), s);
    dev::copy_to_device(d_off.get(), off.data(), off.size() * 8, s);
    dev::Buffer<uint8_t> d_codes(K * (B / 4), s), d_mid(mid_total, s);
    dev::Buffer<uint64_t> d_ei(ex_total, s);
    dev::Buffer<T> d_ev(ex_total, s);
    const size_t esmem = size_t{kWarps} * stage_stride(B, W);
    const unsigned egrid = B <= 128 ? warp_grid<T>(emit_warp_kernel<T>, nblocks, esmem) : 0;
    KernelTimer t2("encode emit_kernel", n * W, s);
    if (B <= 128)
      emit_warp_kernel<T><<<egrid, 32 * kWarps, esmem, s>>>(
          d_x, n, nblocks, B, ebc, d_kinds.get(), d_mus.get(), d_off.get(), d_codes.get(), d_mid.get(), d_ei.get(),
          d_ev.get());
    else
      with_threads(B, [&](auto nt) {
        emit_kernel<T, decltype(nt)::value><<<grid, decltype(nt)::value, size_t{B} * W, s>>>(
            d_x, n, B, ebc, d_kinds.get(), d_mus.get(), d_off.get(), d_codes.get(), d_mid.get(), d_ei.get(),
            d_ev.get());
      });
    SCIZ_CUDA_CHECK_LAUNCH("szx emit_kernel");
    t2.stop();
    e.codes.resize(codes_total);
    e.mid.resize(mid_total);
    exact_idx.resize(ex_total);
    exact_val.resize(ex_total);
    dev::copy_to_host(e.codes.data(), d_codes.get(), codes_total, s);
    dev::copy_to_host(e.mid.data(), d_mid.get(), mid_total, s);
    dev::copy_to_host(exact_idx.data(), d_ei.get(), ex_total * 8, s);
    dev::copy_to_host(exact_val.data(), d_ev.get(), ex_total * sizeof(T), s);
    dev::sync(s);
  }
  e.exact = write_runs<T>(exact_idx, exact_val);
  if (stats) {
    stats->blocks = nblocks;
    stats->constant_blocks = nblocks - K;
    stats->exact_values = exact_idx.size();
  }
  return e;
}

template <class T>
void decode_cuda(const Sections& sec, uint64_t n, T* d_out, cudaStream_t s) {
  constexpr int W = Traits<T>::kBytes;
  // Every length and count checked on the host first, by the code decode_cpu uses.
  Validated<T> v = validate<T>(sec, n);
  std::vector<uint64_t>& mid_off = v.mid_off;
  const std::vector<uint64_t>& exact_idx = v.exact_idx;
  const std::vector<T>& exact_val = v.exact_val;
  const uint32_t B = sec.block;
  const uint64_t nblocks = (n + B - 1) / B, K = v.nc_block.size();
  std::vector<uint32_t> rank(nblocks, 0);  // of each non-constant block among them
  for (uint64_t j = 0; j < K; ++j) rank[v.nc_block[j]] = static_cast<uint32_t>(j);
  if (nblocks == 0) return;
  require_grid(nblocks, Status::corrupt_stream);

  dev::Buffer<uint8_t> d_kinds(nblocks, s), d_codes(sec.codes.size(), s), d_mid(sec.mid.size(), s);
  dev::Buffer<T> d_mus(nblocks, s);
  dev::Buffer<uint32_t> d_rank(nblocks, s);
  // The warp kernel reads mid-byte offsets per block (no wait on rank), the CTA kernel per rank.
  if (B <= 128) {
    std::vector<uint64_t> per_block(nblocks + 1);
    uint64_t r = 0;  // non-constant blocks before b
    for (uint64_t b = 0; b < nblocks; ++b) {
      per_block[b] = mid_off[r];
      r += sec.kinds[b] != 0;
    }
    per_block[nblocks] = mid_off[K];
    mid_off.swap(per_block);
  }
  dev::Buffer<uint64_t> d_mid_off(mid_off.size(), s);
  dev::Buffer<unsigned long long> d_bad(1, s);
  const unsigned long long none = ~0ull;
  dev::copy_to_device(d_kinds.get(), sec.kinds.data(), nblocks, s);
  dev::copy_to_device(d_mus.get(), sec.mus.data(), nblocks * W, s);
  dev::copy_to_device(d_rank.get(), rank.data(), nblocks * 4, s);
  dev::copy_to_device(d_mid_off.get(), mid_off.data(), mid_off.size() * 8, s);
  dev::copy_to_device(d_codes.get(), sec.codes.data(), sec.codes.size(), s);
  dev::copy_to_device(d_mid.get(), sec.mid.data(), sec.mid.size(), s);
  dev::copy_to_device(d_bad.get(), &none, 8, s);
  const size_t dsmem = size_t{kWarps} * (stage_stride(B, W) + B * W);
  const unsigned dgrid = B <= 128 ? warp_grid<T>(decode_warp_kernel<T>, nblocks, dsmem) : 0;
  KernelTimer t1("decode_kernel", n * W, s);
  if (B <= 128)
    decode_warp_kernel<T><<<dgrid, 32 * kWarps, dsmem, s>>>(
        n, nblocks, B, d_kinds.get(), d_mus.get(), d_rank.get(), d_mid_off.get(), d_codes.get(), d_mid.get(), d_out,
        d_bad.get());
  else
    with_threads(B, [&](auto nt) {
      decode_kernel<T, decltype(nt)::value><<<static_cast<unsigned>(nblocks), decltype(nt)::value, size_t{B} * W, s>>>(
          n, B, d_kinds.get(), d_mus.get(), d_rank.get(), d_mid_off.get(), d_codes.get(), d_mid.get(), d_out,
          d_bad.get());
    });
  SCIZ_CUDA_CHECK_LAUNCH("szx decode_kernel");
  t1.stop();
  unsigned long long bad = none;
  dev::copy_to_host(&bad, d_bad.get(), 8, s);
  dev::sync(s);
  SCIZ_REQUIRE(bad == none, Status::corrupt_stream,
               "szx: the leading-byte codes of block " + std::to_string(bad) +
                   " do not match its kept bytes and mid-byte count");
  if (!exact_idx.empty()) {
    dev::Buffer<uint64_t> d_ei(exact_idx.size(), s);
    dev::Buffer<T> d_ev(exact_val.size(), s);
    dev::copy_to_device(d_ei.get(), exact_idx.data(), exact_idx.size() * 8, s);
    dev::copy_to_device(d_ev.get(), exact_val.data(), exact_val.size() * sizeof(T), s);
    scatter_kernel<T><<<grid_for(exact_idx.size()), 256, 0, s>>>(d_ei.get(), d_ev.get(), exact_idx.size(), d_out);
    SCIZ_CUDA_CHECK_LAUNCH("szx scatter_kernel");
    dev::sync(s);
  }
}

template Encoded encode_cuda<float>(const float*, uint64_t, double, uint32_t, cudaStream_t, Stats*);
template Encoded encode_cuda<double>(const double*, uint64_t, double, uint32_t, cudaStream_t, Stats*);
template void decode_cuda<float>(const Sections&, uint64_t, float*, cudaStream_t);
template void decode_cuda<double>(const Sections&, uint64_t, double*, cudaStream_t);

}  // namespace sciz::szx
