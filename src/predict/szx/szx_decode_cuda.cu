// CUDA decoder of SZx (docs/SZX.md). The host validates the sections exactly as decode_cpu
// does (validate()) and finds each block's rank and mid-byte offset on the way; the kernel
// checks each block's codes (max, padding, sum == its mid count) before reading a mid-byte.
//
// B <= 128: one warp per data block, lane l values [4 l, 4 l + 4). The block's mid-bytes are
// staged in shared memory, a warp scan of the mid-byte counts places each value's own bytes,
// and the leading bytes are resolved in registers: value i is f_i(k_{i-1}) with
// f_i(p) = (p & top L_i bytes) | own_i, and composing two such maps gives another
// (top min(L_a, L_b) bytes, (own_a & top L_b) | own_b), so a warp scan of (L, own) gives every
// lane the pattern before its first value.
// B > 128: one CTA per data block; leading bytes by index propagation (per byte position p < 3
// a max-scan of "last value whose mid-bytes include byte p") over patterns in shared memory.
#include <cub/block/block_scan.cuh>

#include <vector>

#include "core/exact_runs.hpp"
#include "predict/szx/szx_cuda_common.cuh"

namespace sciz::szx {
namespace {
using namespace detail;

extern __shared__ __align__(16) unsigned char g_smem[];

// A warp decodes G consecutive data blocks: every global load of the G blocks (metadata, then
// codes and mid-bytes) is issued before the first value is built, so a warp has G blocks of
// loads in flight instead of one.
template <class T, int G>
__global__ void __launch_bounds__(32 * kWarps)
    decode_warp_kernel(uint64_t n, uint64_t nblocks, uint32_t B, const uint8_t* __restrict__ kinds,
                       const T* __restrict__ mus, const uint32_t* __restrict__ rank,
                       const uint64_t* __restrict__ block_mid_off, const uint8_t* __restrict__ codes,
                       const uint8_t* __restrict__ mid, T* __restrict__ out, unsigned long long* __restrict__ bad) {
  using U = typename Traits<T>::U;
  constexpr int W = Traits<T>::kBytes;
  // Aligned words covering a block's mid-bytes at any 4-byte phase, and rounds of 32 lanes.
  constexpr uint32_t kWordsMax = (128 * W + 3 + 3) / 4, kRounds = (kWordsMax + 31) / 32;
  const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint32_t stride_bytes = stage_stride(B * W);
  uint32_t* s32 = reinterpret_cast<uint32_t*>(g_smem + warp * G * stride_bytes);
  const uint64_t b0 = (static_cast<uint64_t>(blockIdx.x) * kWarps + warp) * G;
  const uint32_t i0 = 4 * lane;
  const bool vec = (reinterpret_cast<uintptr_t>(out) & 15) == 0;

  int nb[G];
  T mu[G];
  uint64_t m0[G], count[G];
  uint32_t r[G], cnt[G];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const uint64_t b = b0 + g;
    const bool ok = b < nblocks;
    const uint32_t len = ok ? block_len(n, B, b) : 0u;
    cnt[g] = i0 < len ? min(4u, len - i0) : 0u;
    nb[g] = ok ? kinds[b] : 0;
    mu[g] = ok ? mus[b] : T(0);
    m0[g] = ok ? block_mid_off[b] : 0;
    count[g] = ok ? block_mid_off[b + 1] - m0[g] : 0;
    r[g] = ok ? rank[b] : 0u;
  }
  // Codes and mid-bytes (aligned words; the host pads the section so the last word is in
  // bounds). The host checked count <= len nb and that the counts tile the section, so these
  // reads are in bounds whatever the codes say; they are used only once the codes are checked.
  uint32_t cb[G], a[G];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    cb[g] = nb[g] && cnt[g] ? codes[static_cast<uint64_t>(r[g]) * (B / 4) + lane] : 0u;
    const uint8_t* mp = mid + m0[g];
    a[g] = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(mp) & 3);
    const uint32_t* g32 = reinterpret_cast<const uint32_t*>(mp - a[g]);
    const uint32_t nw = nb[g] ? (a[g] + static_cast<uint32_t>(count[g]) + 3) / 4 : 0u;
    uint32_t* st = s32 + g * (stride_bytes / 4);
#pragma unroll
    for (uint32_t q = 0; q < kRounds; ++q)
      if (lane + 32 * q < nw) st[lane + 32 * q] = g32[lane + 32 * q];
  }
  __syncwarp();

#pragma unroll
  for (int g = 0; g < G; ++g) {
    const uint64_t b = b0 + g;
    if (b >= nblocks) break;  // uniform across the warp
    T* ob = out + b * B + i0;
    if (nb[g] == 0) {
      const T o[4] = {mu[g], mu[g], mu[g], mu[g]};
      store4(ob, cnt[g], vec, o);
      continue;
    }
    const int lcap = leading_cap(nb[g]);
    int L[4];
    bool wrong = cnt[g] < 4 && (cb[g] >> (2 * cnt[g])) != 0;  // padding of the partial last code byte
    uint32_t cm = 0;
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      L[e] = static_cast<int>((cb[g] >> (2 * e)) & 3);
      if (e < cnt[g]) {
        wrong |= L[e] > lcap;
        cm += static_cast<uint32_t>(nb[g] - L[e]);
      }
    }
    const uint32_t im = warp_incl_sum(cm, lane);
    const uint32_t total = __shfl_sync(kFull, im, 31);
    if (__any_sync(kFull, wrong) || total != count[g]) {  // uniform: mid-byte reads below stay in [0, count)
      if (lane == 0) atomicMin(bad, static_cast<unsigned long long>(b));
      continue;
    }
    // Own bytes of each value (positions >= L) and the lane's composite map (Lc, Vc).
    const uint32_t* sw0 = s32 + g * (stride_bytes / 4);
    const U keep = top_mask<T>(nb[g]);
    U k[4];
    int Lc = W;
    U Vc = 0;
    uint32_t pos = a[g] + (im - cm);
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      k[e] = 0;
      if (e < cnt[g]) {
        // The W bytes from pos, little-endian, out of aligned words.
        const uint32_t* sw = sw0 + (pos >> 2);
        const uint32_t sh = 8 * (pos & 3);
        U word;
        if constexpr (W == 4) {
          word = __funnelshift_r(sw[0], sw[1], sh);
        } else {
          const uint32_t w1 = sw[1];
          word = static_cast<U>(__funnelshift_r(sw[0], w1, sh)) |
                 static_cast<U>(__funnelshift_r(w1, sw[2], sh)) << 32;
        }
        pos += static_cast<uint32_t>(nb[g] - L[e]);
        k[e] = merge_pattern<T>(U(0), word, L[e], keep);
        Vc = (Vc & top_mask<T>(L[e])) | k[e];
        Lc = min(Lc, L[e]);
      }
    }
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const U tV = __shfl_up_sync(kFull, Vc, d);
      const int tL = __shfl_up_sync(kFull, Lc, d);
      if (lane >= static_cast<uint32_t>(d)) {
        Vc = (tV & top_mask<T>(Lc)) | Vc;
        Lc = min(Lc, tL);
      }
    }
    U prev = __shfl_up_sync(kFull, Vc, 1);  // the pattern before the lane's first value (k_{-1} = 0)
    if (lane == 0) prev = 0;
    T o[4];
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      prev = (prev & top_mask<T>(L[e])) | k[e];
      o[e] = e < cnt[g] ? reconstruct(mu[g], prev) : mu[g];
    }
    store4(ob, cnt[g], vec, o);
  }
}

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

template <class T>
__global__ void scatter_kernel(const uint64_t* __restrict__ idx, const T* __restrict__ val, uint64_t count,
                               T* __restrict__ out) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t q = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < count; q += stride)
    out[idx[q]] = val[q];
}

template <class X>
dev::Buffer<X> upload_vector(const X* p, size_t count, cudaStream_t s) {
  dev::Buffer<X> d(count, s);
  if (count) dev::copy_to_device(d.get(), p, count * sizeof(X), s);
  return d;
}

}  // namespace

template <class T>
DeviceSections<T> upload(const Sections& sec, uint64_t n, cudaStream_t s) {
  Validated<T> v = validate<T>(sec, n);  // every length and count, by the code decode_cpu uses
  const uint32_t B = sec.block;
  const uint64_t nblocks = (n + B - 1) / B, K = v.nc_block.size();
  require_grid(nblocks, Status::corrupt_stream);
  std::vector<uint32_t> rank(nblocks, 0);  // of each non-constant block among them
  for (uint64_t j = 0; j < K; ++j) rank[v.nc_block[j]] = static_cast<uint32_t>(j);
  // The warp kernel reads mid-byte offsets per block (no wait on rank), the CTA kernel per rank.
  std::vector<uint64_t>& mid_off = v.mid_off;
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
  DeviceSections<T> d;
  d.block = B;
  d.n = n;
  d.nblocks = nblocks;
  d.kinds = upload_vector(sec.kinds.data(), sec.kinds.size(), s);
  d.mus = upload_vector(sec.mus.data(), sec.mus.size(), s);
  d.codes = upload_vector(sec.codes.data(), sec.codes.size(), s);
  // Padded to whole words: the warp kernel reads mid-bytes as aligned 4-byte words.
  d.mid = dev::Buffer<uint8_t>(sec.mid.size() + 4, s);
  if (!sec.mid.empty()) dev::copy_to_device(d.mid.get(), sec.mid.data(), sec.mid.size(), s);
  d.rank = upload_vector(rank.data(), rank.size(), s);
  d.mid_off = upload_vector(mid_off.data(), mid_off.size(), s);
  d.exact_idx = upload_vector(v.exact_idx.data(), v.exact_idx.size(), s);
  d.exact_val = upload_vector(v.exact_val.data(), v.exact_val.size(), s);
  dev::sync(s);  // the host vectors above are released at return
  return d;
}

template <class T>
void decode_device(const DeviceSections<T>& d, T* d_out, cudaStream_t s) {
  constexpr int W = Traits<T>::kBytes;
  const uint64_t n = d.n, nblocks = d.nblocks;
  const uint32_t B = d.block;
  if (nblocks == 0) return;
  dev::Buffer<unsigned long long> d_bad(1, s);
  SCIZ_CUDA_CHECK(cudaMemsetAsync(d_bad.get(), 0xff, 8, s));
  const T* mus = reinterpret_cast<const T*>(d.mus.get());
  KernelTimer t1("decode_kernel", n * W, s);
  if (B <= 128) {
    // One block per warp measured fastest (0.163 ms for 32M f32 values, against 0.18 with two
    // and 0.21 with four): more warps in flight beat more loads per warp.
    constexpr int G = 1;
    const size_t smem = size_t{kWarps} * G * stage_stride(B * W);
    const uint64_t grid = (nblocks + uint64_t{kWarps} * G - 1) / (uint64_t{kWarps} * G);
    decode_warp_kernel<T, G><<<static_cast<unsigned>(grid), 32 * kWarps, smem, s>>>(
        n, nblocks, B, d.kinds.get(), mus, d.rank.get(), d.mid_off.get(), d.codes.get(), d.mid.get(), d_out,
        d_bad.get());
  } else {
    with_threads(B, [&](auto nt) {
      decode_kernel<T, decltype(nt)::value><<<static_cast<unsigned>(nblocks), decltype(nt)::value, size_t{B} * W, s>>>(
          n, B, d.kinds.get(), mus, d.rank.get(), d.mid_off.get(), d.codes.get(), d.mid.get(), d_out, d_bad.get());
    });
  }
  SCIZ_CUDA_CHECK_LAUNCH("szx decode_kernel");
  t1.stop();
  const uint64_t ne = d.exact_idx.size();
  if (ne) {
    const unsigned grid = static_cast<unsigned>(std::clamp<uint64_t>((ne + 255) / 256, 1, 132 * 16));
    scatter_kernel<T><<<grid, 256, 0, s>>>(d.exact_idx.get(), d.exact_val.get(), ne, d_out);
    SCIZ_CUDA_CHECK_LAUNCH("szx scatter_kernel");
  }
  unsigned long long bad = ~0ull;
  dev::copy_to_host(&bad, d_bad.get(), 8, s);
  dev::sync(s);
  SCIZ_REQUIRE(bad == ~0ull, Status::corrupt_stream,
               "szx: the leading-byte codes of block " + std::to_string(bad) +
                   " do not match its kept bytes and mid-byte count");
}

template DeviceSections<float> upload<float>(const Sections&, uint64_t, cudaStream_t);
template DeviceSections<double> upload<double>(const Sections&, uint64_t, cudaStream_t);
template void decode_device<float>(const DeviceSections<float>&, float*, cudaStream_t);
template void decode_device<double>(const DeviceSections<double>&, double*, cudaStream_t);

}  // namespace sciz::szx
