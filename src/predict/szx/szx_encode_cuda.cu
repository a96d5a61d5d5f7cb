// CUDA encoder of SZx, every decision through szx_math.hpp, so the bytes are the CPU twin's
// (docs/SZX.md).
//
// B <= 128 (the default): one kernel, one read of the field. A CTA takes a tile of kWarps x G
// data blocks (tile id from an atomic counter); each warp owns G consecutive blocks, lane l
// values [4 l, 4 l + 4) of each, all loaded up front. Per block: shuffle min/max, mu, nb, the
// kept patterns and leading-byte codes, the bound check, and a warp scan of (mid-bytes, exact
// values). The tile's totals (mid-bytes, exact values, non-constant blocks) go through a
// decoupled look-back (core/lookback.cuh), which gives every block its place in sections 3-6
// without a second pass. A warp's G blocks are consecutive in every section, so their
// mid-bytes are staged together in shared memory and leave as aligned words.
//
// B > 128: one CTA per data block, two passes (analyze: counts per block; the host turns them
// into offsets; emit: the same walk again, writing). Each thread walks a contiguous run of
// values, recomputing its predecessor's pattern from x, so there is no chain between threads.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <vector>

#include "core/exact_runs.hpp"
#include "core/lookback.cuh"
#include "predict/szx/szx_cuda_common.cuh"

namespace sciz::szx {
namespace {
using namespace detail;

extern __shared__ __align__(16) unsigned char g_smem[];

// Look-back counts: mid-bytes, exact values, non-constant blocks.
using Agg = lookback::Counts<3>;

// Data blocks per warp (G) and the CTAs per SM the registers are capped for (__launch_bounds__
// minimum), measured on an H100 with 32M values (docs/PERF_NOTES.md): f32 G = 4 with 3 CTAs
// (0.30 ms) beat G = 2 (0.38), G = 4 uncapped (0.34) and G = 8 (0.30-0.45); f64 G = 2.
template <class T>
struct FusedConfig {
  static constexpr int kG = sizeof(T) == 4 ? 4 : 2, kMinCtas = sizeof(T) == 4 ? 3 : 1;
};
// A tile's own counts beside its look-back flag: mid-bytes <= 8 warps x 8 blocks x 128 x 8
// (2^19), exact values <= 2^16, non-constant blocks <= 64.
using TilePacking = lookback::Packing<24, 24, 12>;

struct FusedOut {
  uint8_t* kinds;
  void* mus;
  uint8_t* mid_counts;
  uint8_t* codes;
  uint8_t* mid;
  uint64_t* ex_idx;
  void* ex_val;
  uint64_t ex_cap;  // entries past it are counted, not written (the host then retries)
};

template <class T, int G, int MB>
__global__ void __launch_bounds__(32 * kWarps, MB)
    encode_fused_kernel(const T* __restrict__ x, uint64_t n, uint64_t nblocks, uint64_t tiles, uint32_t B, double ebc,
                        int pe, lookback::State<3> st, FusedOut o) {
  using U = typename Traits<T>::U;
  using S = KeyOf<T>;
  __shared__ unsigned long long s_tile;
  __shared__ Agg s_warp[kWarps];
  const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint64_t tile = lookback::next_tile(st, tiles, &s_tile);
  const uint64_t b0 = (tile * kWarps + warp) * G;
  const uint32_t i0 = 4 * lane;
  const bool vec = (reinterpret_cast<uintptr_t>(x) & 15) == 0;

  T v[G][4];
  uint32_t cnt[G];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const uint64_t b = b0 + g;
    const uint32_t len = b < nblocks ? block_len(n, B, b) : 0u;
    cnt[g] = i0 < len ? min(4u, len - i0) : 0u;
    load4(x + (b < nblocks ? b * B + i0 : 0), cnt[g], vec, v[g]);
  }

  // Block min/max over finite values, every lane ends with the block's result.
  S mn[G], mx[G];
  uint32_t nfin[G];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    mn[g] = std::numeric_limits<S>::max(), mx[g] = std::numeric_limits<S>::min(), nfin[g] = 0;
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      if (e < cnt[g] && is_finite(v[g][e])) {
        const S k = order_key(v[g][e]);
        mn[g] = k < mn[g] ? k : mn[g];
        mx[g] = k > mx[g] ? k : mx[g];
        ++nfin[g];
      }
    }
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(S) == 4) {  // one warp-reduce instruction each (sm_80+)
#pragma unroll
    for (int g = 0; g < G; ++g) {
      mn[g] = __reduce_min_sync(kFull, mn[g]);
      mx[g] = __reduce_max_sync(kFull, mx[g]);
      nfin[g] = __reduce_add_sync(kFull, nfin[g]);
    }
  } else
#endif
  {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
#pragma unroll
      for (int g = 0; g < G; ++g) {
        const S a = __shfl_xor_sync(kFull, mn[g], d), c = __shfl_xor_sync(kFull, mx[g], d);
        mn[g] = a < mn[g] ? a : mn[g];
        mx[g] = c > mx[g] ? c : mx[g];
        nfin[g] += __shfl_xor_sync(kFull, nfin[g], d);
      }
    }
  }

  // Per value: kept pattern, code, bound check. packed = mid-bytes | exact values << 16
  // (a block has at most B W <= 1024 mid-bytes and B exact values).
  T mu[G];
  int nb[G];
  uint32_t cb[G], exm[G], packed[G];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    mu[g] = 0;
    nb[g] = 0;
    if (nfin[g] > 0) {
      const T fmn = from_order_key<T>(mn[g]), fmx = from_order_key<T>(mx[g]);
      mu[g] = block_mu(fmn, fmx);
      const double r = block_radius(fmn, fmx, mu[g]);
      if (!(r <= ebc)) nb[g] = required_bytes<T>(static_cast<T>(r), pe);
    }
    cb[g] = 0, exm[g] = 0;
    uint32_t cm = 0;
    if (nb[g] == 0) {
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e)
        if (e < cnt[g] && !is_finite(v[g][e])) exm[g] |= 1u << e;
    } else {
      const U keep = top_mask<T>(nb[g]);
      const int lcap = leading_cap(nb[g]);
      U k[4];
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) k[e] = kept_pattern<T>((is_finite(v[g][e]) ? v[g][e] : mu[g]) - mu[g], keep);
      U prev = __shfl_up_sync(kFull, k[3], 1);
      if (lane == 0) prev = 0;
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) {
        if (e < cnt[g]) {
          const int L = leading_bytes<T>(k[e], prev, lcap);
          cm += static_cast<uint32_t>(nb[g] - L);
          cb[g] |= static_cast<uint32_t>(L) << (2 * e);
          if (!within(v[g][e], reconstruct(mu[g], k[e]), ebc)) exm[g] |= 1u << e;
        }
        prev = k[e];
      }
    }
    packed[g] = cm | static_cast<uint32_t>(__popc(exm[g])) << 16;
  }
  uint32_t incl[G];
#pragma unroll
  for (int g = 0; g < G; ++g) incl[g] = packed[g];
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const uint32_t t = __shfl_up_sync(kFull, incl[g], d);
      if (lane >= static_cast<uint32_t>(d)) incl[g] += t;
    }
  }
  uint32_t tot[G];
  Agg wa{{0, 0, 0}};
#pragma unroll
  for (int g = 0; g < G; ++g) {
    tot[g] = __shfl_sync(kFull, incl[g], 31);
    wa.w[0] += tot[g] & 0xffff;
    wa.w[1] += tot[g] >> 16;
    wa.w[2] += nb[g] != 0;
  }

  // Tile prefix: warps in order, then the look-back over earlier tiles (warp 0).
  if (lane == 0) s_warp[warp] = wa;
  __syncthreads();
  if (warp == 0) {
    const Agg a = lane < kWarps ? s_warp[lane] : Agg{{0, 0, 0}};
    Agg in = a;
#pragma unroll
    for (int d = 1; d < kWarps; d <<= 1) {
#pragma unroll
      for (int i = 0; i < 3; ++i) {
        const unsigned long long t = __shfl_up_sync(kFull, in.w[i], d);
        if (lane >= static_cast<uint32_t>(d)) in.w[i] += t;
      }
    }
    Agg total;
#pragma unroll
    for (int i = 0; i < 3; ++i) total.w[i] = __shfl_sync(kFull, in.w[i], kWarps - 1);
    const Agg before = lookback::exclusive_prefix<TilePacking>(st, tile, total);
    if (lane < kWarps) {
      Agg ex;
#pragma unroll
      for (int i = 0; i < 3; ++i) ex.w[i] = before.w[i] + in.w[i] - a.w[i];
      s_warp[lane] = ex;
    }
  }
  __syncthreads();
  const Agg at0 = s_warp[warp];

  // Outputs. The warp's non-constant blocks are consecutive in sections 3-5.
  uint64_t ex_at = at0.w[1], nc_at = at0.w[2];
  uint8_t* mp = o.mid + at0.w[0];
  const uint32_t a = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(mp) & 3);
  uint8_t* stage = g_smem + warp * stage_stride(G * B * sizeof(T));
  uint32_t spos = a;
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const uint64_t b = b0 + g;
    if (b >= nblocks) break;  // uniform across the warp
    if (lane == 0) {
      o.kinds[b] = static_cast<uint8_t>(nb[g]);
      static_cast<T*>(o.mus)[b] = mu[g];
    }
    if (exm[g]) {
      uint64_t at = ex_at + ((incl[g] - packed[g]) >> 16);
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) {
        if ((exm[g] >> e) & 1) {
          if (at < o.ex_cap) {
            o.ex_idx[at] = b * B + i0 + e;
            static_cast<T*>(o.ex_val)[at] = v[g][e];
          }
          ++at;
        }
      }
    }
    ex_at += tot[g] >> 16;
    if (nb[g] == 0) continue;
    if (lane == 0) {
      o.mid_counts[2 * nc_at] = static_cast<uint8_t>(tot[g]);
      o.mid_counts[2 * nc_at + 1] = static_cast<uint8_t>((tot[g] & 0xffff) >> 8);
    }
    if (cnt[g]) o.codes[nc_at * (B / 4) + lane] = static_cast<uint8_t>(cb[g]);
    uint32_t pos = spos + ((incl[g] - packed[g]) & 0xffff);
    const U keep = top_mask<T>(nb[g]);
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      if (e < cnt[g]) {
        const int L = static_cast<int>((cb[g] >> (2 * e)) & 3);
        const U w = mid_word<T>(kept_pattern<T>((is_finite(v[g][e]) ? v[g][e] : mu[g]) - mu[g], keep), L);
#pragma unroll
        for (int q = 0; q < static_cast<int>(sizeof(T)); ++q)  // predicated, not a divergent loop
          if (q < nb[g] - L) stage[pos + q] = static_cast<uint8_t>(w >> (8 * q));
        pos += static_cast<uint32_t>(nb[g] - L);
      }
    }
    spos += tot[g] & 0xffff;
    ++nc_at;
  }
  __syncwarp();
  copy_words<true>(mp - a, stage, a, spos, lane);
}

// ---- B > 128: one CTA per data block, two passes -----------------------------------------

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

void check_args(double eb, uint32_t block, uint64_t n) {
  SCIZ_REQUIRE(std::isfinite(eb) && eb > 0, Status::invalid_argument,
               "szx: error bound " + std::to_string(eb) + " must be finite and positive");
  SCIZ_REQUIRE(valid_block(block), Status::invalid_argument,
               "szx: block size " + std::to_string(block) + " is not a multiple of 32 in 32..4096");
  SCIZ_REQUIRE(n < (uint64_t(1) << 56), Status::invalid_argument, "szx: field of " + std::to_string(n) + " values");
}

// Section 4's size: B/4 bytes per non-constant block, less for a partial last block.
uint64_t code_section_bytes(uint64_t n, uint32_t B, uint64_t nonconstant, bool last_nonconstant) {
  uint64_t bytes = nonconstant * (B / 4);
  const uint64_t last_len = n - (n - 1) / B * B;
  if (nonconstant && last_nonconstant) bytes -= B / 4 - code_bytes(static_cast<uint32_t>(last_len));
  return bytes;
}

// Exact entries the fused kernel has room for on its first try; a field with more is encoded
// again with exactly enough (the first pass counted them).
uint64_t first_exact_capacity(uint64_t n) { return n / 32 + 4096; }

template <class T, int G, int MB>
void encode_fused(const T* d_x, uint64_t n, double ebc, int pe, uint32_t B, cudaStream_t s, DeviceEncoded<T>& d) {
  constexpr int W = Traits<T>::kBytes;
  const uint64_t nblocks = d.nblocks, tiles = (nblocks + kWarps * G - 1) / (kWarps * G);
  SCIZ_REQUIRE(tiles < (uint64_t(1) << 31), Status::invalid_argument, "szx: field too large for one launch");
  lookback::Storage<3> chain(tiles, s);
  // Worst case sizes for the sections whose totals the kernel finds: every block non-constant.
  d.mid_counts = dev::Buffer<uint8_t>(2 * nblocks, s);
  d.codes = dev::Buffer<uint8_t>(nblocks * (B / 4), s);
  d.mid = dev::Buffer<uint8_t>(n * W, s);
  uint64_t cap = std::min<uint64_t>(n, first_exact_capacity(n));
  const size_t smem = size_t{kWarps} * stage_stride(G * B * W);
  for (int attempt = 0; attempt < 2; ++attempt) {
    d.exact_idx = dev::Buffer<uint64_t>(cap, s);
    d.exact_val = dev::Buffer<T>(cap, s);
    chain.reset(s);
    const FusedOut o{d.kinds.get(), d.mus.get(), d.mid_counts.get(), d.codes.get(), d.mid.get(),
                     d.exact_idx.get(), d.exact_val.get(), cap};
    KernelTimer t("encode fused kernel", n * W, s);
    encode_fused_kernel<T, G, MB><<<static_cast<unsigned>(tiles), 32 * kWarps, smem, s>>>(d_x, n, nblocks, tiles, B, ebc,
                                                                                      pe, chain.state(), o);
    SCIZ_CUDA_CHECK_LAUNCH("szx encode_fused_kernel");
    t.stop();
    Agg tot;
    chain.totals(&tot, s);
    uint8_t last_kind = 0;
    dev::copy_to_host(&last_kind, d.kinds.get() + (nblocks - 1), 1, s);
    dev::sync(s);
    d.mid_bytes = tot.w[0];
    d.exact_count = tot.w[1];
    d.nonconstant = tot.w[2];
    d.code_bytes = code_section_bytes(n, B, d.nonconstant, last_kind != 0);
    if (d.exact_count <= cap) return;
    cap = d.exact_count;
  }
  fail(Status::internal, "szx: exact-value count changed between two encodes of the same field");
}

template <class T>
void encode_two_pass(const T* d_x, uint64_t n, double ebc, int pe, uint32_t B, cudaStream_t s, DeviceEncoded<T>& d) {
  constexpr int W = Traits<T>::kBytes;
  const uint64_t nblocks = d.nblocks;
  const unsigned grid = static_cast<unsigned>(nblocks);
  dev::Buffer<uint32_t> d_cnt(2 * nblocks, s);  // mid counts, then exact counts
  KernelTimer t1("encode analyze_kernel", n * W, s);
  with_threads(B, [&](auto nt) {
    analyze_kernel<T, decltype(nt)::value><<<grid, decltype(nt)::value, 0, s>>>(
        d_x, n, B, ebc, pe, d.kinds.get(), reinterpret_cast<T*>(d.mus.get()), d_cnt.get(), d_cnt.get() + nblocks);
  });
  SCIZ_CUDA_CHECK_LAUNCH("szx analyze_kernel");
  t1.stop();
  std::vector<uint8_t> kinds(nblocks);
  std::vector<uint32_t> cnt(2 * nblocks);
  dev::copy_to_host(kinds.data(), d.kinds.get(), nblocks, s);
  dev::copy_to_host(cnt.data(), d_cnt.get(), 2 * nblocks * 4, s);
  dev::sync(s);

  // Per-block offsets: codes at j B/4 for the j-th non-constant block, mid-bytes and exact
  // entries at exclusive prefix sums.
  std::vector<uint64_t> off(3 * nblocks + 1, 0);
  std::vector<uint8_t> mid_counts;
  mid_counts.reserve(2 * nblocks);
  uint64_t mid_total = 0, ex_total = 0, K = 0;
  for (uint64_t b = 0; b < nblocks; ++b) {
    off[2 * nblocks + b] = ex_total;
    ex_total += cnt[nblocks + b];
    if (kinds[b] == 0) continue;
    off[b] = K * (B / 4);
    off[nblocks + b] = mid_total;
    mid_total += cnt[b];
    mid_counts.push_back(static_cast<uint8_t>(cnt[b]));
    mid_counts.push_back(static_cast<uint8_t>(cnt[b] >> 8));
    ++K;
  }
  off[3 * nblocks] = ex_total;
  d.nonconstant = K;
  d.mid_bytes = mid_total;
  d.exact_count = ex_total;
  d.code_bytes = code_section_bytes(n, B, K, kinds[nblocks - 1] != 0);
  dev::Buffer<uint64_t> d_off(off.size(), s);
  dev::copy_to_device(d_off.get(), off.data(), off.size() * 8, s);
  d.mid_counts = dev::Buffer<uint8_t>(mid_counts.size(), s);
  dev::copy_to_device(d.mid_counts.get(), mid_counts.data(), mid_counts.size(), s);
  d.codes = dev::Buffer<uint8_t>(K * (B / 4), s);
  d.mid = dev::Buffer<uint8_t>(mid_total, s);
  d.exact_idx = dev::Buffer<uint64_t>(ex_total, s);
  d.exact_val = dev::Buffer<T>(ex_total, s);
  KernelTimer t2("encode emit_kernel", n * W, s);
  with_threads(B, [&](auto nt) {
    emit_kernel<T, decltype(nt)::value><<<grid, decltype(nt)::value, size_t{B} * W, s>>>(
        d_x, n, B, ebc, d.kinds.get(), reinterpret_cast<const T*>(d.mus.get()), d_off.get(), d.codes.get(),
        d.mid.get(), d.exact_idx.get(), d.exact_val.get());
  });
  SCIZ_CUDA_CHECK_LAUNCH("szx emit_kernel");
  t2.stop();
  dev::sync(s);  // d_off is released at return
}

}  // namespace

template <class T>
DeviceEncoded<T> encode_device(const T* d_x, uint64_t n, double eb, uint32_t block, cudaStream_t s) {
  constexpr int W = Traits<T>::kBytes;
  check_args(eb, block, n);
  const double ebc = eb_check<T>(eb);
  const int pe = eb_exponent(ebc);
  DeviceEncoded<T> d;
  d.block = block;
  d.nblocks = (n + block - 1) / block;
  require_grid(d.nblocks, Status::invalid_argument);
  d.kinds = dev::Buffer<uint8_t>(d.nblocks, s);
  d.mus = dev::Buffer<uint8_t>(d.nblocks * W, s);
  if (d.nblocks == 0) return d;
  if (block <= 128)
    encode_fused<T, FusedConfig<T>::kG, FusedConfig<T>::kMinCtas>(d_x, n, ebc, pe, block, s, d);
  else
    encode_two_pass<T>(d_x, n, ebc, pe, block, s, d);
  return d;
}

template <class T>
Encoded download(const DeviceEncoded<T>& d, cudaStream_t s, Stats* stats) {
  constexpr int W = Traits<T>::kBytes;
  Encoded e;
  e.block = d.block;
  e.kinds.resize(d.nblocks);
  e.mus.resize(d.nblocks * W);
  e.mid_counts.resize(2 * d.nonconstant);
  e.codes.resize(d.code_bytes);
  e.mid.resize(d.mid_bytes);
  std::vector<uint64_t> exact_idx(d.exact_count);
  std::vector<T> exact_val(d.exact_count);
  if (d.nblocks) {
    dev::copy_to_host(e.kinds.data(), d.kinds.get(), e.kinds.size(), s);
    dev::copy_to_host(e.mus.data(), d.mus.get(), e.mus.size(), s);
    dev::copy_to_host(e.mid_counts.data(), d.mid_counts.get(), e.mid_counts.size(), s);
    dev::copy_to_host(e.codes.data(), d.codes.get(), e.codes.size(), s);
    dev::copy_to_host(e.mid.data(), d.mid.get(), e.mid.size(), s);
    dev::copy_to_host(exact_idx.data(), d.exact_idx.get(), exact_idx.size() * 8, s);
    dev::copy_to_host(exact_val.data(), d.exact_val.get(), exact_val.size() * sizeof(T), s);
    dev::sync(s);
  }
  e.exact = write_runs<T>(exact_idx, exact_val);
  if (stats) {
    stats->blocks = d.nblocks;
    stats->constant_blocks = d.nblocks - d.nonconstant;
    stats->exact_values = d.exact_count;
  }
  return e;
}

template DeviceEncoded<float> encode_device<float>(const float*, uint64_t, double, uint32_t, cudaStream_t);
template DeviceEncoded<double> encode_device<double>(const double*, uint64_t, double, uint32_t, cudaStream_t);
template Encoded download<float>(const DeviceEncoded<float>&, cudaStream_t, Stats*);
template Encoded download<double>(const DeviceEncoded<double>&, cudaStream_t, Stats*);

}  // namespace sciz::szx
