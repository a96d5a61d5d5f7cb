// CUDA decoder of SZx (docs/SZX.md), both layouts. The host validates the sections exactly as
// decode_cpu does (validate()) and finds each block's kind (layout 1's mapped to layout 2's),
// base, rank and payload offset on the way; the kernel checks each block's codes (max,
// padding, sum == its mid count) before reading a mid-byte. With the sections on the device,
// kernels find the same (kinds, counts, offsets, bases) there.
//
// B <= 128: a warp per R consecutive data blocks, lane l values [4 l, 4 l + 4). Their
// mid-bytes and codes are staged in shared memory in one round of copies, a warp scan of the
// mid-byte counts places each value's own bytes, and the leading bytes are resolved in
// registers: byte p < 3 of a value comes from the last earlier value with L <= p, found lane
// by lane with one ballot per byte position (bytes >= 3 are never inherited, L <= 3).
// B > 128: one CTA per data block; leading bytes by index propagation (per byte position p < 3
// a max-scan of "last value whose mid-bytes include byte p") over patterns in shared memory.
#include <cub/block/block_scan.cuh>
#include <cuda_pipeline.h>

#include <vector>

#include "core/exact_runs.hpp"
#include "core/exact_runs_cuda.hpp"
#include "core/lookback.cuh"
#include "predict/szx/szx_cuda_common.cuh"

namespace sciz::szx {
namespace {
using namespace detail;

extern __shared__ __align__(16) unsigned char g_smem[];

// Data blocks per warp and the CTAs per SM the registers are capped for, measured on an H100
// with 500 MB f32 (docs/PERF_NOTES.md): R = 8 with 6 CTAs beat R = 4 (more rounds of loads
// per block) and R = 16 (shared memory for only 3 CTAs).
constexpr int kDecodeR = 8, kDecodeMinCtas = 6;

// A warp's staging: its R blocks' payload (bases and mid-bytes) from the 16-byte boundary
// below the first (so 15 bytes of phase), 16 bytes more for the windows read past the last,
// and their codes.
template <class T>
__host__ __device__ constexpr uint32_t decode_mid_bytes(int R, uint32_t B) {
  return (R * (B + 1) * sizeof(T) + 16 + 16 + 15) / 16 * 16;
}
template <class T>
__host__ __device__ constexpr uint32_t decode_warp_bytes(int R, uint32_t B) {
  return decode_mid_bytes<T>(R, B) + (R * B / 4 + 15) / 16 * 16;
}

// B <= 128: a warp decodes R consecutive data blocks in two rounds of loads: first the
// blocks' metadata (lane r: block r's kind (layout 2's form), base, rank and payload offset),
// then the codes and payload of all of them, which are consecutive in their sections, copied
// into shared memory 16 bytes at a time without passing through registers. Then block by
// block, lane l values [4 l, 4 l + 4): the codes are checked (max, padding, sum == the block's
// mid count) before any of its mid-bytes is read, and the leading bytes resolved in registers.
// A block's payload opens with its base's bytes (read on the host or by bases_kernel, skipped
// here; none in layout 1).
template <class T, int R, int MB>
__global__ void __launch_bounds__(32 * kWarps, MB)
    decode_warp_kernel(uint64_t n, uint64_t nblocks, uint32_t B, const uint8_t* __restrict__ kinds,
                       const T* __restrict__ mus, const uint32_t* __restrict__ rank,
                       const uint64_t* __restrict__ block_mid_off, const uint8_t* __restrict__ codes,
                       const uint8_t* __restrict__ mid, T* __restrict__ out, unsigned long long* __restrict__ bad,
                       const DeviceStatus* st) {
  if (st && failed(st)) return;  // sections checked on the device and found wrong: write nothing
  using U = typename Traits<T>::U;
  constexpr int W = Traits<T>::kBytes;
  static_assert(R < 32);
  const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint8_t* smid = g_smem + warp * decode_warp_bytes<T>(R, B);
  uint8_t* scodes = smid + decode_mid_bytes<T>(R, B);
  const uint64_t b0 = (static_cast<uint64_t>(blockIdx.x) * kWarps + warp) * R;
  const uint32_t i0 = 4 * lane;
  const bool vec = (reinterpret_cast<uintptr_t>(out) & 15) == 0;

  // Round 1. Lane R reads the end offset of the group (block_mid_off has nblocks + 1 entries).
  const uint64_t bl = b0 + lane;
  const bool have = lane < R && bl < nblocks;
  const int my_kind = have ? kinds[bl] : 0;
  const T my_mu = have ? mus[bl] : T(0);
  const uint32_t my_rank = have ? rank[bl] : 0u;
  const uint64_t my_off = lane <= R ? block_mid_off[min(bl, nblocks)] : 0;
  const unsigned ncmask = __ballot_sync(kFull, kind_bits(static_cast<uint8_t>(my_kind)) != 0);
  const uint64_t m_start = __shfl_sync(kFull, my_off, 0), m_end = __shfl_sync(kFull, my_off, R);
  const uint64_t m16 = m_start & ~uint64_t(15);
  const uint32_t first_rank = ncmask ? __shfl_sync(kFull, my_rank, __ffs(ncmask) - 1) : 0u;

  // Round 2. The host checked that the counts tile the mid section and that the codes section
  // holds B/4 bytes per non-constant block but the last, and padded both (upload), so these
  // copies are in bounds whatever the codes say.
  {
    const uint8_t* gc = codes + static_cast<uint64_t>(first_rank) * (B / 4);
    for (uint32_t q = lane; q < __popc(ncmask) * (B / 32); q += 32) __pipeline_memcpy_async(scodes + 8 * q, gc + 8 * q, 8);
    const uint32_t span = static_cast<uint32_t>(m_end - m16);
    for (uint32_t q = lane; q < (span + 15) / 16; q += 32) __pipeline_memcpy_async(smid + 16 * q, mid + m16 + 16 * q, 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncwarp();
  }
  const uint32_t* sw0 = reinterpret_cast<const uint32_t*>(smid);
  uint32_t j = 0;  // non-constant blocks of the group so far
#pragma unroll 1
  for (int r = 0; r < R; ++r) {
    const uint64_t b = b0 + r;
    if (b >= nblocks) break;  // uniform across the warp
    const uint8_t kind = static_cast<uint8_t>(__shfl_sync(kFull, my_kind, r));
    const int bits = kind_bits(kind), nb = bytes_of_bits(bits), pad = pad_bits(bits);
    const T mu = __shfl_sync(kFull, my_mu, r);
    const uint32_t len = block_len(n, B, b);
    const uint32_t cnt = i0 < len ? min(4u, len - i0) : 0u;
    T* ob = out + b * B + i0;
    if (nb == 0) {
      const T o[4] = {mu, mu, mu, mu};
      store4(ob, cnt, vec, o);
      continue;
    }
    // The block's payload: its base's wb bytes (not read here), then its mid-bytes.
    const uint64_t o0 = __shfl_sync(kFull, my_off, r), o1 = __shfl_sync(kFull, my_off, r + 1);
    const uint32_t wb = static_cast<uint32_t>(base_bytes<T>(kind_code(kind)));
    const uint32_t count = static_cast<uint32_t>(o1 - o0) - wb;
    const uint32_t cb = cnt ? scodes[j * (B / 4) + lane] : 0u;
    ++j;
    const int lcap = leading_cap(nb);
    int L[4];
    bool wrong = cnt < 4 && (cb >> (2 * cnt)) != 0;  // padding of the partial last code byte
    uint32_t cm = 0;
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      L[e] = static_cast<int>((cb >> (2 * e)) & 3);
      if (e < cnt) {
        wrong |= L[e] > lcap;
        cm += static_cast<uint32_t>(nb - L[e]);
      }
    }
    const uint32_t im = warp_incl_sum(cm, lane);
    const uint32_t total = __shfl_sync(kFull, im, 31);
    const uint32_t at = static_cast<uint32_t>(o0 - m16) + wb;  // staged position of the first mid-byte
    if (__any_sync(kFull, wrong) || total != count) {  // uniform: mid-byte reads below stay in [0, count)
      if (lane == 0) atomicMin(bad, static_cast<unsigned long long>(b));
      continue;
    }
    // Own bytes of each value (positions >= L); the lane's composite: byte p of Vc is byte p of
    // its last value with L <= p, and Lc its smallest L (bytes p < Lc come from earlier lanes).
    const U keep = top_mask<T>(nb);
    U k[4], hm[4];
    int Lc = W;
    U Vc = 0;
    uint32_t pos = at + (im - cm);
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      hm[e] = lead_mask<T>(L[e]);
      k[e] = 0;
      if (e < cnt) {
        // The W bytes from pos, little-endian, out of aligned words.
        const uint32_t* sw = sw0 + (pos >> 2);
        const uint32_t sh = 8 * (pos & 3);
        U word;
        if constexpr (W == 4) {
          word = __funnelshift_r(sw[0], sw[1], sh);
        } else {
          const uint32_t w1 = sw[1];
          word = static_cast<U>(__funnelshift_r(sw[0], w1, sh)) | static_cast<U>(__funnelshift_r(w1, sw[2], sh)) << 32;
        }
        pos += static_cast<uint32_t>(nb - L[e]);
        k[e] = merge_pattern<T>(U(0), word, L[e], keep);
        Vc = (Vc & hm[e]) | k[e];
        Lc = min(Lc, L[e]);
      }
    }
    // The pattern before the lane's first value: byte p < 3 from the last earlier lane that owns
    // it (Lc <= p), zero if none (k_{-1} = 0); bytes >= 3 (never inherited) from the lane before.
    const unsigned earlier = (1u << lane) - 1u;
    U prev = __shfl_sync(kFull, Vc, lane ? lane - 1 : 0) & (~U(0) >> 24);
#pragma unroll
    for (int p = 0; p < 3; ++p) {
      const unsigned owners = __ballot_sync(kFull, Lc <= p) & earlier;
      const U t = __shfl_sync(kFull, Vc, owners ? 31 - __clz(owners) : 0);
      if (owners) prev |= t & (static_cast<U>(0xff) << (8 * (W - 1 - p)));
    }
    if (lane == 0) prev = 0;
    T o[4];
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      prev = (prev & hm[e]) | k[e];
      o[e] = e < cnt ? reconstruct(mu, prev, pad) : mu;
    }
    store4(ob, cnt, vec, o);
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

// B > 128: one CTA per data block; block_off as for the warp kernel (a payload offset per block).
template <class T, int NT>
__global__ void __launch_bounds__(NT)
    decode_kernel(uint64_t n, uint32_t B, const uint8_t* __restrict__ kinds, const T* __restrict__ mus,
                  const uint32_t* __restrict__ rank, const uint64_t* __restrict__ block_off,
                  const uint8_t* __restrict__ codes, const uint8_t* __restrict__ mid, T* __restrict__ out,
                  unsigned long long* __restrict__ bad, const DeviceStatus* st) {
  if (st && failed(st)) return;
  using U = typename Traits<T>::U;
  constexpr int W = Traits<T>::kBytes;
  using Scan = cub::BlockScan<Walk, NT>;
  __shared__ typename Scan::TempStorage tmp;
  U* s_k = reinterpret_cast<U*>(g_smem);

  const uint64_t b = blockIdx.x, base = b * B;
  const uint32_t len = block_len(n, B, b);
  const int bits = kind_bits(kinds[b]), nb = bytes_of_bits(bits), pad = pad_bits(bits);
  const T mu = mus[b];
  T* ob = out + base;
  if (nb == 0) {
    for (uint32_t i = threadIdx.x; i < len; i += NT) ob[i] = mu;
    return;
  }
  const uint32_t P = per_thread(B, NT), i0 = threadIdx.x * P, i1 = min(len, i0 + P);
  const uint32_t j = rank[b];
  const uint8_t* cp = codes + static_cast<uint64_t>(j) * (B / 4);
  const uint64_t wb = static_cast<uint64_t>(base_bytes<T>(kind_code(kinds[b])));
  const uint64_t m0 = block_off[b] + wb, count = block_off[b + 1] - m0;
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
    ob[i] = reconstruct(mu, k, pad);
  }
}

template <class T>
__global__ void scatter_kernel(const uint64_t* __restrict__ idx, const T* __restrict__ val, uint64_t count,
                               T* __restrict__ out) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t q = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < count; q += stride)
    out[idx[q]] = val[q];
}

// Device-side validation of the sections (szx_cpu.cpp's validate() on the device), and what
// the decode kernels need per block, in one pass with two decoupled look-backs
// (core/lookback.cuh). A CTA takes a tile of kPrepBlocks blocks: their kinds are checked and,
// for layout 1, mapped to layout 2's form (a bad kind reads as constant from then on); the
// non-constant ones are counted and the first look-back gives each its rank among them; the
// rank places its mid-byte count in the counts section, checked against what the block can
// hold, and the second look-back gives each block's payload offset; in layout 2 its base is
// read there. Every read stays where the section sizes allow, so a damaged stream is reported
// (first report wins) before the decode kernels, which then write nothing. The last tile
// checks the section totals. (Five kernels and two CUB scans did this before: 80-100 us a
// 128 MiB chunk on the H100, most of it launches in a row.)
constexpr int kPrepThreads = 256, kPrepPer = 8;
constexpr uint64_t kPrepBlocks = uint64_t{kPrepThreads} * kPrepPer;
// Per-tile aggregates: non-constant blocks (<= kPrepBlocks), then payload bytes (<= kPrepBlocks
// x (kMaxBlock x 8 + 8) < 2^27).
using PrepPacking = lookback::Packing<30, 16, 16>;
static_assert(kPrepBlocks * (uint64_t{kMaxBlock} * 8 + 8) < (uint64_t{1} << 30));

struct PrepIn {
  uint64_t n, nblocks, tiles;
  uint32_t B;
  int layout;
  const uint8_t* kinds;   // the section
  const uint8_t* counts;  // mid-byte counts section
  uint64_t counts_bytes, codes_bytes;
  const uint8_t* mid;
  uint64_t mid_bytes;
};
struct PrepOut {
  uint32_t* rank;        // nblocks + 1 (the last: non-constant blocks in all)
  uint64_t* off;         // nblocks + 1 (the last: payload bytes the blocks account for)
  uint8_t* kind2;        // layout 1: kinds in layout 2's form
  void* bases;           // layout 2: each block's base
};

template <class T>
__global__ void __launch_bounds__(kPrepThreads) prep_kernel(PrepIn a, PrepOut o, lookback::State<3> by_rank,
                                                            lookback::State<3> by_off, DeviceStatus* st) {
  using U = typename Traits<T>::U;
  constexpr int W = Traits<T>::kBytes;
  using Scan32 = cub::BlockScan<uint32_t, kPrepThreads>;
  using Scan64 = cub::BlockScan<unsigned long long, kPrepThreads>;
  __shared__ union {
    typename Scan32::TempStorage s32;
    typename Scan64::TempStorage s64;
  } temp;
  __shared__ unsigned long long s_tile, s_before;
  const uint64_t tile = lookback::next_tile(by_rank, a.tiles, &s_tile);
  const uint64_t b0 = tile * kPrepBlocks + uint64_t{threadIdx.x} * kPrepPer;
  const bool l1 = a.layout == kLayout1;

  uint8_t k2[kPrepPer];
  uint32_t nc = 0;
#pragma unroll
  for (int j = 0; j < kPrepPer; ++j) {
    const uint64_t b = b0 + j;
    k2[j] = 0;
    if (b >= a.nblocks) continue;
    const uint8_t k = a.kinds[b];
    const bool ok = l1 ? k <= W : valid_kind<T>(k);
    if (!ok) report(st, kStatusSzxFirst + 0, 0, b, k);
    k2[j] = !ok ? 0 : l1 ? kind_of_layout1(k) : k;
    nc += kind_bits(k2[j]) != 0;
  }
  uint32_t nc_before, nc_tile;
  Scan32(temp.s32).ExclusiveSum(nc, nc_before, nc_tile);
  if (threadIdx.x < 32) {
    const lookback::Counts<3> p = lookback::exclusive_prefix<PrepPacking>(by_rank, tile, {{nc_tile, 0, 0}});
    if (threadIdx.x == 0) s_before = p.w[0];
  }
  __syncthreads();
  const uint64_t rank_tile = s_before;
  uint64_t r = rank_tile + nc_before;
  uint32_t mc[kPrepPer];
  unsigned long long bytes = 0;
#pragma unroll
  for (int j = 0; j < kPrepPer; ++j) {
    const uint64_t b = b0 + j;
    mc[j] = 0;
    if (b >= a.nblocks) continue;
    o.rank[b] = static_cast<uint32_t>(r);
    if (l1) o.kind2[b] = k2[j];
    const uint64_t nb = static_cast<uint64_t>(bytes_of_bits(kind_bits(k2[j])));
    uint64_t c = 0;
    if (nb != 0 && 2 * r + 2 <= a.counts_bytes) {
      c = a.counts[2 * r] | (uint64_t(a.counts[2 * r + 1]) << 8);
      if (c > uint64_t(block_len(a.n, a.B, b)) * nb) report(st, kStatusSzxFirst + 3, 0, b, c);
    }
    mc[j] = static_cast<uint32_t>(base_bytes<T>(kind_code(k2[j])) + c);
    bytes += mc[j];
    r += nb != 0;
  }
  __syncthreads();  // s_before and the scan storage are reused below
  unsigned long long bytes_before, bytes_tile;
  Scan64(temp.s64).ExclusiveSum(bytes, bytes_before, bytes_tile);
  if (threadIdx.x < 32) {
    const lookback::Counts<3> p = lookback::exclusive_prefix<PrepPacking>(by_off, tile, {{bytes_tile, 0, 0}});
    if (threadIdx.x == 0) s_before = p.w[0];
  }
  __syncthreads();
  uint64_t at = s_before + bytes_before;
#pragma unroll
  for (int j = 0; j < kPrepPer; ++j) {
    const uint64_t b = b0 + j;
    if (b >= a.nblocks) continue;
    o.off[b] = at;
    if (!l1) {  // the base opens the block's payload (0 where it would lie past the section)
      const int wb = base_bytes<T>(kind_code(k2[j]));
      U w = 0;
      if (at <= a.mid_bytes && static_cast<uint64_t>(wb) <= a.mid_bytes - at)
        for (int q = 0; q < wb; ++q) w |= static_cast<U>(a.mid[at + q]) << (8 * q);
      static_cast<T*>(o.bases)[b] = from_bits<T>(bswap(w));
    }
    at += mc[j];
    if (b + 1 == a.nblocks) {  // the last block's thread: the totals and the section sizes
      const uint64_t K = r, total = at;
      o.rank[a.nblocks] = static_cast<uint32_t>(K);
      o.off[a.nblocks] = total;
      if (a.counts_bytes != 2 * K) {
        report(st, kStatusSzxFirst + 1, 0, a.counts_bytes, K);
      } else {
        uint64_t codes = K * (a.B / 4);
        if (kind_bits(k2[j]) != 0) codes -= a.B / 4 - code_bytes(block_len(a.n, a.B, b));
        if (a.codes_bytes != codes) report(st, kStatusSzxFirst + 2, 0, a.codes_bytes, codes);
      }
      if (total != a.mid_bytes) report(st, kStatusSzxFirst + 4, 0, a.mid_bytes, total);
    }
  }
}

__global__ void bad_codes_kernel(const unsigned long long* __restrict__ bad, DeviceStatus* st) {
  if (threadIdx.x == 0 && *bad != ~0ull) report(st, kStatusSzxFirst + 5, 0, *bad, 0);
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
  // Each block's payload offset: its base's bytes, then its mid-bytes.
  std::vector<uint64_t> off(nblocks + 1);
  uint64_t pos = 0, j = 0;
  for (uint64_t b = 0; b < nblocks; ++b) {
    off[b] = pos;
    pos += static_cast<uint64_t>(base_bytes<T>(kind_code(v.kinds[b])));
    if (kind_bits(v.kinds[b])) pos += v.mid_count[j++];
  }
  off[nblocks] = pos;
  DeviceSections<T> d;
  d.block = B;
  d.n = n;
  d.nblocks = nblocks;
  d.kinds = upload_vector(v.kinds.data(), v.kinds.size(), s);
  d.mus = upload_vector(reinterpret_cast<const uint8_t*>(v.base.data()), v.base.size() * sizeof(T), s);
  // Padded by a block's codes: the warp kernel copies B/4 bytes for every non-constant block,
  // the field's short last one included.
  d.codes = dev::Buffer<uint8_t>(sec.codes.size() + B / 4, s);
  if (!sec.codes.empty()) dev::copy_to_device(d.codes.get(), sec.codes.data(), sec.codes.size(), s);
  // Padded to whole 16-byte copies: the warp kernel stages payload 16 aligned bytes at a time.
  d.mid = dev::Buffer<uint8_t>(sec.mid.size() + 16, s);
  SCIZ_REQUIRE((reinterpret_cast<uintptr_t>(d.mid.get()) & 15) == 0, Status::internal,
               "szx: device buffer not 16-byte aligned");
  if (!sec.mid.empty()) dev::copy_to_device(d.mid.get(), sec.mid.data(), sec.mid.size(), s);
  d.rank = upload_vector(rank.data(), rank.size(), s);
  d.mid_off = upload_vector(off.data(), off.size(), s);
  d.exact_idx = upload_vector(v.exact_idx.data(), v.exact_idx.size(), s);
  d.exact_val = upload_vector(v.exact_val.data(), v.exact_val.size(), s);
  dev::sync(s);  // the host vectors above are released at return
  return d;
}

namespace {

// The decode kernel for B, every pointer on the device (kinds in layout 2's form).
template <class T>
void launch_decode(uint64_t n, uint64_t nblocks, uint32_t B, const uint8_t* kinds, const T* mus, const uint32_t* rank,
                   const uint64_t* off, const uint8_t* codes, const uint8_t* mid, T* d_out, unsigned long long* bad,
                   const DeviceStatus* st, cudaStream_t s) {
  if (B <= 128) {
    const size_t smem = size_t{kWarps} * decode_warp_bytes<T>(kDecodeR, B);
    allow_shared_bytes(decode_warp_kernel<T, kDecodeR, kDecodeMinCtas>, smem);
    const uint64_t grid = (nblocks + uint64_t{kWarps} * kDecodeR - 1) / (uint64_t{kWarps} * kDecodeR);
    decode_warp_kernel<T, kDecodeR, kDecodeMinCtas><<<static_cast<unsigned>(grid), 32 * kWarps, smem, s>>>(
        n, nblocks, B, kinds, mus, rank, off, codes, mid, d_out, bad, st);
  } else {
    with_threads(B, [&](auto nt) {
      decode_kernel<T, decltype(nt)::value><<<static_cast<unsigned>(nblocks), decltype(nt)::value,
                                              size_t{B} * sizeof(T), s>>>(n, B, kinds, mus, rank, off, codes, mid,
                                                                          d_out, bad, st);
    });
  }
  SCIZ_CUDA_CHECK_LAUNCH("szx decode_kernel");
}

}  // namespace

template <class T>
void decode_device(const DeviceSections<T>& d, T* d_out, cudaStream_t s) {
  constexpr int W = Traits<T>::kBytes;
  const uint64_t n = d.n, nblocks = d.nblocks;
  if (nblocks == 0) return;
  dev::Buffer<unsigned long long> d_bad(1, s);
  SCIZ_CUDA_CHECK(cudaMemsetAsync(d_bad.get(), 0xff, 8, s));
  KernelTimer t1("decode_kernel", n * W, s);
  launch_decode<T>(n, nblocks, d.block, d.kinds.get(), reinterpret_cast<const T*>(d.mus.get()), d.rank.get(),
                   d.mid_off.get(), d.codes.get(), d.mid.get(), d_out, d_bad.get(), nullptr, s);
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

template <class T>
void decode_device_sections(const DeviceSectionsIn& sec, uint64_t n, T* d_out, DeviceStatus* st, cudaStream_t s) {
  constexpr int W = Traits<T>::kBytes;
  check_layout(sec.block, sec.layout, n, W, sec.kinds.size, sec.mus.size);
  const bool l1 = sec.layout == kLayout1;
  const uint32_t B = sec.block;
  const uint64_t nblocks = (n + B - 1) / B;
  require_grid(nblocks, Status::corrupt_stream);
  const runs::DeviceRuns<T> exact = runs::parse_device<T>(sec.exact.data, sec.exact.size, n, st, 6, s);
  if (nblocks == 0) return;
  // The warp kernel copies payload 16 aligned bytes at a time and codes a whole block at a
  // time: in a stream, sections start on 16-byte boundaries and the chunk's tail covers the
  // copies past the last section's end (core/container.hpp).
  SCIZ_REQUIRE((reinterpret_cast<uintptr_t>(sec.mid.data) & 15) == 0 &&
                   (!l1 || (reinterpret_cast<uintptr_t>(sec.mus.data) & 7) == 0),
               Status::internal, "szx: sections not on 16-byte boundaries");
  dev::Buffer<uint32_t> rank(nblocks + 1, s);
  dev::Buffer<uint64_t> off(nblocks + 1, s);
  dev::Buffer<uint8_t> kind2;  // layout 1's kinds in layout 2's form (a Buffer of 0 still allocates a byte)
  dev::Buffer<T> bases;        // layout 2's bases, read from the payload
  if (l1)
    kind2 = dev::Buffer<uint8_t>(nblocks, s);
  else
    bases = dev::Buffer<T>(nblocks, s);
  const uint8_t* kinds = l1 ? kind2.get() : sec.kinds.data;
  {
    const uint64_t tiles = (nblocks + kPrepBlocks - 1) / kPrepBlocks;
    // Both look-backs in one storage, so one memset resets them: tiles [0, T) and the tile
    // counter for the ranks, the next T + 1 status words for the offsets.
    const lookback::Storage<3> look(2 * tiles + 1, s);
    look.reset(s);
    const lookback::State<3> both = look.state();
    const lookback::State<3> by_rank{both.status, both.inclusive};
    const lookback::State<3> by_off{both.status + tiles + 1, both.inclusive + tiles + 1};
    const PrepIn in{n, nblocks, tiles, B, sec.layout, sec.kinds.data, sec.mid_counts.data, sec.mid_counts.size,
                    sec.codes.size, sec.mid.data, sec.mid.size};
    const PrepOut out{rank.get(), off.get(), l1 ? kind2.get() : nullptr, l1 ? nullptr : bases.get()};
    prep_kernel<T><<<static_cast<unsigned>(tiles), kPrepThreads, 0, s>>>(in, out, by_rank, by_off, st);
    SCIZ_CUDA_CHECK_LAUNCH("szx prep_kernel");
  }
  const T* mus = l1 ? reinterpret_cast<const T*>(sec.mus.data) : bases.get();
  dev::Buffer<unsigned long long> d_bad(1, s);
  SCIZ_CUDA_CHECK(cudaMemsetAsync(d_bad.get(), 0xff, 8, s));
  KernelTimer t("decode_kernel (device sections)", n * W, s);
  launch_decode<T>(n, nblocks, B, kinds, mus, rank.get(), off.get(), sec.codes.data, sec.mid.data, d_out, d_bad.get(),
                   st, s);
  t.stop();
  bad_codes_kernel<<<1, 32, 0, s>>>(d_bad.get(), st);
  SCIZ_CUDA_CHECK_LAUNCH("szx bad_codes_kernel");
  runs::scatter_device<T>(exact, d_out, st, s);
}

template void decode_device_sections<float>(const DeviceSectionsIn&, uint64_t, float*, DeviceStatus*, cudaStream_t);
template void decode_device_sections<double>(const DeviceSectionsIn&, uint64_t, double*, DeviceStatus*, cudaStream_t);
template DeviceSections<float> upload<float>(const Sections&, uint64_t, cudaStream_t);
template DeviceSections<double> upload<double>(const Sections&, uint64_t, cudaStream_t);
template void decode_device<float>(const DeviceSections<float>&, float*, cudaStream_t);
template void decode_device<double>(const DeviceSections<double>&, double*, cudaStream_t);

}  // namespace sciz::szx
