// CUDA encoder of SZx (layout 2), every decision through szx_math.hpp, so the bytes are the CPU
// twin's (docs/SZX.md).
//
// B <= 128 (the default): one kernel, one read of the field. A CTA takes a tile of kWarps x R
// data blocks (tile id from an atomic counter); each warp encodes R consecutive blocks, one at a
// time, or for float at B = 128 two at a time in its two halves (warp-reduced min/max, the
// block's plan with its four base codes tried in four lanes, kept patterns, leading-byte codes,
// the bound check, a warp scan of the payload's byte counts) and
// stages everything whose place depends on earlier blocks (base and mid-bytes, codes, mid
// counts) in shared memory. Only then do the tile's totals (mid-bytes,
// exact values, non-constant blocks) go through a decoupled look-back (core/lookback.cuh), and
// the warps copy their staging to its place: the field is read once and the look-back wait
// holds no work back. A warp's blocks are consecutive in every section.
//
// B > 128: one CTA per data block, two passes (analyze: counts per block; the host turns them
// into offsets; emit: the same walk again, writing). Each thread walks a contiguous run of
// values, recomputing its predecessor's pattern from x, so there is no chain between threads.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <limits>
#include <vector>

#include "core/exact_download.hpp"
#include "core/exact_runs.hpp"
#include "core/host_memory.hpp"
#include "core/lookback.cuh"
#include "core/range_fold.cuh"
#include "predict/szx/szx_cuda_common.cuh"

namespace sciz::szx {
namespace {
using namespace detail;

extern __shared__ __align__(16) unsigned char g_smem[];

// Look-back counts: payload bytes (bases and mid-bytes), exact values, non-constant blocks.
using Agg = lookback::Counts<3>;

// Data blocks per warp (R, P at a time, the next ones' loads in flight) and the CTAs per SM the
// registers are capped for (__launch_bounds__ minimum), by type and values a lane (V). Measured
// on an H100, 500 MB f32 (docs/PERF_NOTES.md): R = 8 beat R = 4 (tiles of 32 blocks pay the
// look-back twice as often) and R = 16 (twice the shared memory, 3 CTAs per SM); f32 with 4
// values a lane: 6 CTAs (40 registers) beat 4 and 5 (by less than the noise at 1e-4); f32 with
// 8 (two blocks a warp): 4 CTAs (64 registers, no spills) beat 5 (48 registers, 52 bytes
// spilled), 911-934 against 831-865 GB/s; f64 5 beat 6.
template <class T, int V>
struct TileConfig {
  static constexpr int kR = 8, kMinCtas = sizeof(T) == 8 ? 5 : (V == 8 ? 4 : 6);
};
// A tile's own counts beside its look-back flag: payload bytes <= 8 warps x 8 blocks x
// (128 x 8 + 8) (< 2^17), exact values <= 2^13, non-constant blocks <= 64.
using TilePacking = lookback::Packing<24, 24, 12>;

struct TileOut {
  uint8_t* kinds;
  uint8_t* mid_counts;
  uint8_t* codes;
  uint8_t* mid;
  uint64_t* ex_idx;
  void* ex_val;
  uint64_t ex_cap;  // entries past it are counted, not written (the host then retries)
};

// A warp's staging in shared memory: its R blocks' payload (bases and mid-bytes, at phase 0,
// zeroed, with 20 bytes of slack for put_mid_bytes' last words), their codes and their mid
// counts, packed as non-constant blocks come.
template <class T>
__host__ __device__ constexpr uint32_t stage_mid_bytes(int R, uint32_t B) {
  return (R * (B + 1) * sizeof(T) + 32 + 15) / 16 * 16;
}
template <class T>
__host__ __device__ constexpr uint32_t stage_warp_bytes(int R, uint32_t B) {
  return stage_mid_bytes<T>(R, B) + (R * B / 4 + 15) / 16 * 16 + (2 * R + 15) / 16 * 16;
}

// The largest float f with f (1 + 2^-22) <= ebc: a float |x - x'| at most f proves the double
// check passes (round-to-nearest moves a difference by less than 2^-23 of itself; a
// subnormal difference is exact), so only the rare values above f need the double check.
float fast_bound(double ebc) {
  float f = static_cast<float>(ebc);
  while (f > 0 && static_cast<double>(f) * (1.0 + 0x1p-22) > ebc) f = std::nextafter(f, 0.0f);
  return f;
}

// Bit e set when value e fails the bound check (within() of szx_math.hpp, exactly); rec(e)
// gives value e's reconstruction (and may record what it computed on the way: it runs once per
// value, in order, before any recomputation). Checking each value as it is reconstructed keeps
// no reconstruction live across the loop: at 6 CTAs per SM (40 registers) four of them spilled.
// float: the check in float first, the double one only for the values that need it, if any
// lane of the warp has one (then rec runs again for those values).
template <int V, class T, class Rec>
__device__ inline uint32_t miss_mask(const T (&v)[V], uint32_t cnt, double ebc, float ebf, Rec&& rec) {
  uint32_t m = 0;
  if constexpr (sizeof(T) == 4) {
    uint32_t slow = 0;
#pragma unroll
    for (uint32_t e = 0; e < V; ++e) {
      const T xr = rec(e);
      if (e < cnt && !(fabsf(v[e] - xr) <= ebf)) slow |= 1u << e;
    }
    if (__any_sync(kFull, slow)) {
#pragma unroll
      for (uint32_t e = 0; e < V; ++e)
        if (((slow >> e) & 1) && !within(v[e], rec(e), ebc)) m |= 1u << e;
    }
  } else {
#pragma unroll
    for (uint32_t e = 0; e < V; ++e) {
      const T xr = rec(e);
      if (e < cnt && !within(v[e], xr, ebc)) m |= 1u << e;
    }
  }
  return m;
}

// Finite min and max of a lane's values as order keys (mn > mx when it has none); padding
// values are NaN (loadv). float: the hardware's min and max skip a NaN operand, so only the
// infinities need turning into NaN, 4 instructions a value instead of 7 for the keys; which
// of -0 and +0 wins does not matter (block_mu).
template <int V, class T>
__device__ inline void lane_extremes(const T (&v)[V], KeyOf<T>& mn, KeyOf<T>& mx) {
  if constexpr (sizeof(T) == 4) {
    float lo = INFINITY, hi = -INFINITY;
#pragma unroll
    for (uint32_t e = 0; e < V; ++e) {
      const float a = fabsf(v[e]) < INFINITY ? v[e] : NAN;
      lo = fminf(lo, a);
      hi = fmaxf(hi, a);
    }
    mn = order_key(lo);
    mx = order_key(hi);
  } else {
    mn = std::numeric_limits<KeyOf<T>>::max();
    mx = std::numeric_limits<KeyOf<T>>::min();
#pragma unroll
    for (uint32_t e = 0; e < V; ++e) {
      if (is_finite(v[e])) {
        const KeyOf<T> k = order_key(v[e]);
        mn = k < mn ? k : mn;
        mx = k > mx ? k : mx;
      }
    }
  }
}

// The lanes' extremes reduced over each block's lanes (P blocks a warp, 32 / P lanes each).
// 32-bit keys: the warp-reduce instruction (sm_80+), once per block, the other blocks' lanes
// contributing the neutral value.
template <int P, class S>
__device__ inline void block_extremes(uint32_t h, S& mn, S& mx) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr bool kRedux = sizeof(S) == 4;
#else
  constexpr bool kRedux = false;
#endif
  if constexpr (kRedux && P == 1) {
    mn = __reduce_min_sync(kFull, mn);
    mx = __reduce_max_sync(kFull, mx);
  } else if constexpr (kRedux) {
    static_assert(P == 2);
    constexpr S kHi = std::numeric_limits<S>::max(), kLo = std::numeric_limits<S>::min();
    const S mn0 = __reduce_min_sync(kFull, h ? kHi : mn), mn1 = __reduce_min_sync(kFull, h ? mn : kHi);
    const S mx0 = __reduce_max_sync(kFull, h ? kLo : mx), mx1 = __reduce_max_sync(kFull, h ? mx : kLo);
    mn = h ? mn1 : mn0;
    mx = h ? mx1 : mx0;
  } else {
#pragma unroll
    for (int d = 16 / P; d > 0; d >>= 1) {
      const S a = __shfl_xor_sync(kFull, mn, d), c = __shfl_xor_sync(kFull, mx, d);
      mn = a < mn ? a : mn;
      mx = c > mx ? c : mx;
    }
  }
}

// A lane's code bytes (V / 4 of them) into the staging.
template <int V>
__device__ inline void store_codes(uint8_t* p, uint32_t cb) {
  if constexpr (V == 4)
    *p = static_cast<uint8_t>(cb);
  else
    *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(cb);
}

// ORs the lane's mid-bytes (value e: the low c[e] bytes of w[e], in value order, the rest of
// each w[e] zero) into the zeroed staging words from byte `pos`. float: the four values joined
// into one string of <= 16 bytes, ORed in as 5 words whatever its length (no branches; the
// words past it get zeros, hence the staging's slack); double: value by value.
template <class U>
__device__ inline void put_mid_bytes(uint32_t* sw, uint32_t pos, const U (&w)[4], const uint32_t (&c)[4]) {
  if constexpr (sizeof(U) == 4) {
    const uint32_t n01 = c[0] + c[1];
    const uint64_t s01 = static_cast<uint64_t>(w[0]) | (static_cast<uint64_t>(w[1]) << (8 * c[0]));
    const uint64_t s23 = static_cast<uint64_t>(w[2]) | (static_cast<uint64_t>(w[3]) << (8 * c[2]));
    const uint64_t lo = n01 < 8 ? s01 | (s23 << (8 * n01)) : s01;
    const uint64_t hi = n01 > 0 ? s23 >> (64 - 8 * n01) : 0;
    const uint32_t s0 = static_cast<uint32_t>(lo), s1 = static_cast<uint32_t>(lo >> 32),
                   s2 = static_cast<uint32_t>(hi), s3 = static_cast<uint32_t>(hi >> 32);
    const uint32_t sh = 8 * (pos & 3);
    uint32_t* q = sw + (pos >> 2);
    atomicOr(q, s0 << sh);
    atomicOr(q + 1, __funnelshift_l(s0, s1, sh));
    atomicOr(q + 2, __funnelshift_l(s1, s2, sh));
    atomicOr(q + 3, __funnelshift_l(s2, s3, sh));
    atomicOr(q + 4, __funnelshift_l(s3, 0u, sh));
  } else {
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      if (c[e]) {
        const uint32_t p = pos & 3, q = pos >> 2;
        const uint64_t lo = w[e] << (8 * p);
        const uint32_t hi = p ? static_cast<uint32_t>(w[e] >> (64 - 8 * p)) : 0u;
        atomicOr(sw + q, static_cast<uint32_t>(lo));
        if (p + c[e] > 4) atomicOr(sw + q + 1, static_cast<uint32_t>(lo >> 32));
        if (p + c[e] > 8) atomicOr(sw + q + 2, hi);
      }
      pos += c[e];
    }
  }
}

// ORs a base's stored bytes (the low bytes of w, the rest zero: base_word()) into the zeroed
// staging words from byte `pos`. An OR, not byte stores, so the other lanes' mid-bytes may
// land in the same word in any order, without a __syncwarp between them.
template <class U>
__device__ inline void put_base(uint32_t* sw, uint32_t pos, U w) {
  const uint32_t sh = 8 * (pos & 3);
  uint32_t* q = sw + (pos >> 2);
  const uint32_t w0 = static_cast<uint32_t>(w);
  if constexpr (sizeof(U) == 4) {
    atomicOr(q, w0 << sh);
    if (sh) atomicOr(q + 1, w0 >> (32 - sh));
  } else {
    const uint32_t w1 = static_cast<uint32_t>(w >> 32);
    atomicOr(q, w0 << sh);
    atomicOr(q + 1, __funnelshift_l(w0, w1, sh));
    if (sh) atomicOr(q + 2, w1 >> (32 - sh));
  }
}

__device__ inline uint32_t warp_sum(uint32_t x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_add_sync(kFull, x);
#else
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(kFull, x, d);
  return x;
#endif
}

// B <= 128. A CTA of kWarps warps takes a tile of kWarps x R consecutive data blocks (the tile
// id from the look-back's counter); warp w takes blocks [R w, R w + R) of it, P = V / 4 at a
// time: lane l holds V consecutive values, so a block spans 32 / P lanes (V = 4: the whole
// warp; V = 8, for B = 128: half of it, and the two halves code two blocks in the same
// instructions: the plan, its base trials, the scan, the loop's bookkeeping are paid once for
// both). The next P blocks' values load meanwhile. Everything a block writes is made before the
// look-back: kinds straight to global memory (their place is the block index), codes, mid counts
// and the payload into the warp's staging, exact values as bits. Once the look-back has placed
// the tile, each warp copies its staging out. kRange: the blocks' finite extremes (found anyway)
// and their non-finite values are also folded into *range, for an absolute bound's header.
template <class T, int R, int MB, uint32_t kB, int V, bool kRange>
__global__ void __launch_bounds__(32 * kWarps, MB)
    encode_tile_kernel(const T* __restrict__ x, uint64_t n, uint64_t nblocks, uint64_t tiles, uint32_t B_arg,
                       double ebc, float ebf, int pe, lookback::State<3> st, TileOut o, RangeKeys* range) {
  const uint32_t B = kB ? kB : B_arg;  // kB: the default block size, known to the compiler
  using U = typename Traits<T>::U;
  using S = KeyOf<T>;
  using Bits = std::conditional_t<(R > 8), uint64_t, uint32_t>;  // 4 exact-value bits a block
  constexpr int P = V / 4;                                       // blocks an iteration
  constexpr uint32_t G = 32 / P;                                 // lanes a block
  static_assert(R <= 16 && R % P == 0 && (V == 4 || V == 8));
  static_assert(V == 4 || kB == 128, "two blocks a warp need B = 128 (8 values a lane, 16 lanes a block)");
  __shared__ unsigned long long s_tile;
  __shared__ Agg s_warp[kWarps];
  const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint32_t h = lane / G, lb = lane % G;  // the lane's block in an iteration, its lane in it
  const uint64_t tile = lookback::next_tile(st, tiles, &s_tile);
  const uint64_t b0 = (tile * kWarps + warp) * R, bend = min(b0 + R, nblocks);
  const bool vec = (reinterpret_cast<uintptr_t>(x) & 15) == 0;
  const uint32_t mid_room = stage_mid_bytes<T>(R, B);
  uint8_t* smid = g_smem + warp * stage_warp_bytes<T>(R, B);
  uint8_t* scodes = smid + mid_room;
  uint16_t* scounts = reinterpret_cast<uint16_t*>(scodes + (R * B / 4 + 15) / 16 * 16);
  uint32_t* sw = reinterpret_cast<uint32_t*>(smid);
  for (uint32_t q = lane; q < mid_room / 16; q += 32) reinterpret_cast<uint4*>(smid)[q] = make_uint4(0, 0, 0, 0);
  __syncwarp();

  // A lane's values in iteration j start at index (b0 + P j) B + V lane (V lane < B for V = 4
  // when B < 128: the other lanes hold none). Only the field's end can cut them short.
  const uint32_t nr = static_cast<uint32_t>(bend > b0 ? bend - b0 : 0);
  const uint32_t nit = (nr + P - 1) / P;
  const uint32_t own = V * lane < P * B ? V : 0u;  // values of a lane in a full iteration
  const uint64_t first = b0 * B + V * lane;
  auto count = [&](uint32_t j) -> uint32_t {
    const uint64_t at = first + uint64_t{j} * P * B;
    return at >= n ? 0u : (n - at < own ? static_cast<uint32_t>(n - at) : own);
  };
  const T* xn = x + first;  // the next iteration's values of this lane
  T nx[V];
  uint32_t ncnt = 0;
  if (nit) {
    ncnt = count(0);
    loadv(xn, ncnt, vec, nx);
  }
  uint32_t spos = 0, nc = 0;
  Bits exbits = 0;
  // kRange: the blocks' extremes as keys (a block with no finite value has mn > mx, which
  // moves neither); the non-finite values are counted among the exact ones, where they are stored.
  S range_lo = std::numeric_limits<S>::max(), range_hi = std::numeric_limits<S>::min();
#pragma unroll 1
  for (uint32_t j = 0; j < nit; ++j) {
    T v[V];
#pragma unroll
    for (int e = 0; e < V; ++e) v[e] = nx[e];
    const uint32_t cnt = ncnt;
    if (j + 1 < nit) {
      xn += P * B;
      ncnt = count(j + 1);
      loadv(xn, ncnt, vec, nx);
    }
    // The block's min/max over finite values (no finite value: mn > mx); padding is NaN.
    S mn, mx;
    lane_extremes(v, mn, mx);
    block_extremes<P>(h, mn, mx);
    if constexpr (kRange) {
      range_lo = mn < range_lo ? mn : range_lo;
      range_hi = mx > range_hi ? mx : range_hi;
    }
    // plan_block() with its four base codes tried at once, lane q of the block trying code q:
    // the first that qualifies wins (code 3, the mid-range itself, always does).
    T mu = 0;  // the block's base
    int bits = 0, code = 0;  // kept bits (0: constant) and base code
    {
      T cand = 0;
      bool ok = false;
      if (mn <= mx) {  // uniform across the block: every lane of it holds the same mn, mx
        const T fmn = from_order_key<T>(mn), fmx = from_order_key<T>(mx);
        const T mid = block_mu(fmn, fmx);
        const double rad = block_radius(fmn, fmx, mid);
        const bool cst = rad <= ebc;
        if (!cst) bits = required_bits<T>(static_cast<T>(rad), pe);
        cand = mid;
        const int q = static_cast<int>(lb & 3);
        ok = (cst ? constant_base(fmn, fmx, mid, ebc, q, cand) : nonconstant_base(fmn, fmx, mid, bits, pe, q, cand)) &&
             lb < 4;
      }
      const uint32_t votes = (__ballot_sync(kFull, ok) >> (h * G)) & 15u;
      code = votes ? __ffs(votes) - 1 : 0;
      mu = __shfl_sync(kFull, cand, h * G + code);
      if (mn > mx) mu = 0;
    }
    const uint32_t blk = P * j + h;  // the lane's block in the warp's run
    if (lb == 0 && blk < nr) o.kinds[b0 + blk] = make_kind(bits, code);
    const int nb = bytes_of_bits(bits), pad = pad_bits(bits);
    const uint32_t wb = static_cast<uint32_t>(base_bytes<T>(code));
    const uint32_t head = lb == 0 ? wb : 0u;  // a block's payload opens with its base's bytes
    uint32_t ex = 0;
    if (!__any_sync(kFull, nb != 0)) {  // every block of the iteration constant
#pragma unroll
      for (uint32_t e = 0; e < V; ++e)
        if (e < cnt && !is_finite(v[e])) ex |= 1u << e;
      // (Every shuffle here and below runs in all lanes, its result selected after: a shuffle
      // under a lane-dependent condition would leave the full mask waiting.)
      const uint32_t wb0 = P == 1 ? wb : __shfl_sync(kFull, wb, 0);
      if (head) put_base(sw, spos + (h ? wb0 : 0u), base_word(mu, static_cast<int>(wb)));
      spos += P == 1 ? wb : wb0 + __shfl_sync(kFull, wb, G);
    } else {
      // Kept patterns, codes (the previous value's pattern from the lane before), the bound
      // check, and the payload placed by a warp scan of its byte counts (a constant block's
      // lanes count only its base's bytes: with nb = 0 every count below is 0).
      const U maskR = bits_mask<T>(bits);
      const U cap_bit = lead_cap_bit<T>(leading_cap(nb));
      U k[V];
      ex = miss_mask<V>(v, cnt, ebc, ebf, [&](uint32_t e) {  // the reconstruction, computed where it is checked
        const U kt = kept_top<T>((is_finite(v[e]) ? v[e] : mu) - mu, maskR);  // kept_pattern() << pad
        k[e] = kt >> pad;
        return mu + from_bits<T>(kt);  // reconstruct(mu, k[e], pad)
      });
      U prev = __shfl_up_sync(kFull, k[V - 1], 1);
      if (lb == 0) prev = 0;
      uint32_t cb = 0, c[V];
      U w[V];
#pragma unroll
      for (uint32_t e = 0; e < V; ++e) {
        const bool in = e < cnt;
        const int L = leading_bytes_capped<T>(k[e], prev, cap_bit);
        c[e] = in ? static_cast<uint32_t>(nb - L) : 0u;
        cb |= (in ? static_cast<uint32_t>(L) : 0u) << (2 * e);
        w[e] = in ? mid_word<T>(k[e], L) : U(0);
        prev = k[e];
      }
      uint32_t len = head;
#pragma unroll
      for (uint32_t e = 0; e < V; ++e) len += c[e];
      const uint32_t incl = warp_incl_sum(len, lane);
      const uint32_t tot = __shfl_sync(kFull, incl, 31);
      const uint32_t pos = spos + incl - len;
      if (head) put_base(sw, pos, base_word(mu, static_cast<int>(wb)));
      uint32_t mpos = pos + head;
#pragma unroll
      for (int g = 0; g < V; g += 4) {  // four values at a time
        const U w4[4] = {w[g], w[g + 1], w[g + 2], w[g + 3]};
        const uint32_t c4[4] = {c[g], c[g + 1], c[g + 2], c[g + 3]};
        put_mid_bytes(sw, mpos, w4, c4);
        mpos += c4[0] + c4[1] + c4[2] + c4[3];
      }
      // The block's total: the scan at its last lane less the blocks before it.
      const bool coded = nb != 0;  // non-constant blocks have codes and a mid count
      uint32_t btot = tot, slot = nc;
      if constexpr (P == 2) {
        const uint32_t tot0 = __shfl_sync(kFull, incl, G - 1);
        const uint32_t coded0 = __shfl_sync(kFull, static_cast<uint32_t>(coded), 0);
        btot = h ? tot - tot0 : tot0;
        slot = nc + (h ? coded0 : 0u);
      }
      if (coded && V * lb < B) store_codes<V>(scodes + slot * (B / 4) + (V / 4) * lb, cb);
      if (coded && lb == 0) scounts[slot] = static_cast<uint16_t>(btot - wb);
      spos += tot;
      nc += P == 1 ? static_cast<uint32_t>(coded) : __popc(__ballot_sync(kFull, coded && lb == 0));
    }
    exbits |= static_cast<Bits>(ex) << (V * j);
  }
  RangeFold<T> rf;
  if constexpr (kRange) {
    if (range_lo <= range_hi) rf.add_extremes(from_order_key<T>(range_lo), from_order_key<T>(range_hi));
  }
  const uint32_t nex = warp_sum(sizeof(Bits) == 8 ? __popcll(exbits) : __popc(static_cast<uint32_t>(exbits)));

  // Tile prefix: warps in order, then the look-back over earlier tiles (warp 0).
  if (lane == 0) s_warp[warp] = Agg{{spos, nex, nc}};
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

  // Codes: B/4 bytes a non-constant block at rank * B/4 (8-byte aligned: B is a multiple of 32;
  // a short last block's padding codes are zero and past the section's end).
  {
    uint2* gc = reinterpret_cast<uint2*>(o.codes + at0.w[2] * (B / 4));
    const uint2* sc = reinterpret_cast<const uint2*>(scodes);
    for (uint32_t q = lane; q < nc * (B / 32); q += 32) gc[q] = sc[q];
  }
  if (lane < nc) reinterpret_cast<uint16_t*>(o.mid_counts)[at0.w[2] + lane] = scounts[lane];
  // Payload: staged at phase 0, shifted to the destination's phase; whole words where the
  // destination word is all ours, bytes at the two ends.
  {
    uint8_t* mp = o.mid + at0.w[0];
    const uint32_t a = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(mp) & 3);
    uint32_t* gw = reinterpret_cast<uint32_t*>(mp - a);
    const uint32_t end = a + spos;
    for (uint32_t q = lane; q < (end + 3) / 4; q += 32) {
      const uint32_t out = __funnelshift_rc(q ? sw[q - 1] : 0u, sw[q], 8 * (4 - a));
      if (4 * q >= a && 4 * q + 4 <= end) {
        gw[q] = out;
      } else {
        uint8_t* gb = reinterpret_cast<uint8_t*>(gw) + 4 * q;
#pragma unroll
        for (uint32_t i = 0; i < 4; ++i)
          if (4 * q + i >= a && 4 * q + i < end) gb[i] = static_cast<uint8_t>(out >> (8 * i));
      }
    }
  }
  // Exact values (rare): in index order (lane order is index order within an iteration), the
  // values read again.
  if (nex) {
    uint64_t at = at0.w[1];
#pragma unroll 1
    for (uint32_t j = 0; j < nit; ++j) {
      const uint32_t m = static_cast<uint32_t>(exbits >> (V * j)) & ((1u << V) - 1), cm = __popc(m);
      const uint32_t incl = warp_incl_sum(cm, lane), tot = __shfl_sync(kFull, incl, 31);
      if (tot == 0) continue;  // uniform
      uint64_t p = at + incl - cm;
#pragma unroll
      for (uint32_t e = 0; e < V; ++e) {
        if ((m >> e) & 1) {
          if (kRange || p < o.ex_cap) {  // every non-finite value is an exact one
            const uint64_t idx = first + uint64_t{j} * P * B + e;
            const T val = x[idx];
            if constexpr (kRange) rf.bad += !is_finite(val);
            if (p < o.ex_cap) {
              o.ex_idx[p] = idx;
              static_cast<T*>(o.ex_val)[p] = val;
            }
          }
          ++p;
        }
      }
      at += tot;
    }
  }
  if constexpr (kRange) rf.flush(range);
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
                   T* __restrict__ bases, uint32_t* __restrict__ mid_count, uint32_t* __restrict__ ex_count) {
  using U = typename Traits<T>::U;
  using S = KeyOf<T>;
  using Reduce = cub::BlockReduce<MinMax<T>, NT>;
  using Reduce2 = cub::BlockReduce<Counts, NT>;
  __shared__ union {
    typename Reduce::TempStorage r1;
    typename Reduce2::TempStorage r2;
  } tmp;
  __shared__ BlockPlan<T> s_plan;

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
    s_plan = plan_block<T>(from_order_key<T>(a.mn), from_order_key<T>(a.mx), a.nfin > 0, ebc, pe, kLayout2);
    kinds[b] = s_plan.kind;
    bases[b] = s_plan.base;
  }
  __syncthreads();
  const T mu = s_plan.base;
  const int nb = s_plan.nb, pad = s_plan.pad;
  Counts c{0, 0};
  if (nb == 0) {
    for (uint32_t i = i0; i < i1; ++i) c.exact += !is_finite(xb[i]);
  } else {
    const U keep = top_mask<T>(nb);
    const int lcap = leading_cap(nb);
    U prev = 0;
    if (i0 > 0 && i0 < len) {
      const T xp = xb[i0 - 1];
      prev = kept_pattern<T>((is_finite(xp) ? xp : mu) - mu, pad, keep);
    }
    for (uint32_t i = i0; i < i1; ++i) {
      const T xi = xb[i];
      const U k = kept_pattern<T>((is_finite(xi) ? xi : mu) - mu, pad, keep);
      const int L = leading_bytes<T>(k, prev, lcap);
      c.mid += static_cast<uint32_t>(nb - L);
      c.exact += !within(xi, reconstruct(mu, k, pad), ebc);
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

// off: code_off[nblocks], payload_off[nblocks], ex_off[nblocks + 1] back to back; a block's
// payload is its base's bytes, then its mid-bytes.
template <class T, int NT>
__global__ void __launch_bounds__(NT)
    emit_kernel(const T* __restrict__ x, uint64_t n, uint32_t B, double ebc, int pe, const uint8_t* __restrict__ kinds,
                const T* __restrict__ bases, const uint64_t* __restrict__ off, uint8_t* __restrict__ codes,
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
  const int R = kind_bits(kinds[b]), nb = bytes_of_bits(R), pad = pad_bits(R);
  const int wb = base_bytes<T>(kind_code(kinds[b]));
  const T mu = bases[b];
  const uint64_t* ex_off = off + 2 * nblocks;
  const uint64_t e0 = ex_off[b];
  uint8_t* mp = mid + off[nblocks + b];
  if (threadIdx.x == 0) {
    const U w = base_word(mu, wb);
    for (int q = 0; q < wb; ++q) mp[q] = static_cast<uint8_t>(w >> (8 * q));
  }
  mp += wb;

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
    prev0 = kept_pattern<T>((is_finite(xp) ? xp : mu) - mu, pad, keep);
  }
  // Pass 1: codes out, counts for the scan.
  Counts c{0, 0};
  {
    U prev = prev0;
    uint32_t cb = 0;
    for (uint32_t i = i0; i < i1; ++i) {
      const T xi = xb[i];
      const U k = kept_pattern<T>((is_finite(xi) ? xi : mu) - mu, pad, keep);
      const int L = leading_bytes<T>(k, prev, lcap);
      c.mid += static_cast<uint32_t>(nb - L);
      c.exact += !within(xi, reconstruct(mu, k, pad), ebc);
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
      const U k = kept_pattern<T>((is_finite(xi) ? xi : mu) - mu, pad, keep);
      const int L = leading_bytes<T>(k, prev, lcap);
      const U w = mid_word<T>(k, L);
      for (int q = 0; q < nb - L; ++q) s_mid[pos + q] = static_cast<uint8_t>(w >> (8 * q));
      pos += static_cast<uint32_t>(nb - L);
      if (!within(xi, reconstruct(mu, k, pad), ebc)) {
        ex_idx[at] = base + i;
        ex_val[at] = xi;
        ++at;
      }
      prev = k;
    }
  }
  __syncthreads();
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

// Exact entries the tile kernel has room for on its first try; a field with more is encoded
// again with exactly enough (the first pass counted them).
uint64_t first_exact_capacity(uint64_t n) { return n / 32 + 4096; }

template <class T, int R>
void encode_tiles(const T* d_x, uint64_t n, double ebc, int pe, uint32_t B, cudaStream_t s, DeviceEncoded<T>& d,
                  RangeKeys* range) {
  constexpr int W = Traits<T>::kBytes;
  const uint64_t nblocks = d.nblocks, tiles = (nblocks + kWarps * R - 1) / (kWarps * R);
  SCIZ_REQUIRE(tiles < (uint64_t(1) << 31), Status::invalid_argument, "szx: field too large for one launch");
  lookback::Storage<3> chain(tiles, s);
  // Worst case sizes for the sections whose totals the kernel finds: every block non-constant.
  d.mid_counts = dev::Buffer<uint8_t>(2 * nblocks, s);
  d.codes = dev::Buffer<uint8_t>(nblocks * (B / 4), s);
  d.mid = dev::Buffer<uint8_t>(n * W + nblocks * W, s);  // every value kept whole, and every base
  uint64_t cap = std::min<uint64_t>(n, first_exact_capacity(n));
  const size_t smem = size_t{kWarps} * stage_warp_bytes<T>(R, B);
  // float at the default block size: half a warp a block (8 values a lane); double keeps a warp
  // a block (8 doubles a lane would not fit its registers), as does any other block size.
  constexpr int V = sizeof(T) == 4 ? 8 : 4;
  const auto kernel = B == kDefaultBlock
                          ? encode_tile_kernel<T, R, TileConfig<T, V>::kMinCtas, kDefaultBlock, V, false>
                          : encode_tile_kernel<T, R, TileConfig<T, 4>::kMinCtas, 0, 4, false>;
  // Only the default block size folds the range (the engine folds the others' chunks itself).
  const auto folding = encode_tile_kernel<T, R, TileConfig<T, V>::kMinCtas, kDefaultBlock, V, true>;
  const bool fold = range && B == kDefaultBlock;
  allow_shared_bytes(kernel, smem);
  if (fold) allow_shared_bytes(folding, smem);
  const float ebf = fast_bound(ebc);
  for (int attempt = 0; attempt < 2; ++attempt) {
    d.exact_idx = dev::Buffer<uint64_t>(cap, s);
    d.exact_val = dev::Buffer<T>(cap, s);
    chain.reset(s);
    const TileOut o{d.kinds.get(), d.mid_counts.get(), d.codes.get(), d.mid.get(), d.exact_idx.get(),
                     d.exact_val.get(), cap};
    KernelTimer t("encode tile kernel", n * W, s);
    // A second attempt must not fold the values twice (the count of non-finite ones would).
    (fold && attempt == 0 ? folding : kernel)<<<static_cast<unsigned>(tiles), 32 * kWarps, smem, s>>>(
        d_x, n, nblocks, tiles, B, ebc, ebf, pe, chain.state(), o, range);
    SCIZ_CUDA_CHECK_LAUNCH("szx encode_tile_kernel");
    t.stop();
    Agg tot;
    chain.totals(&tot, s);
    uint8_t last_kind = 0;
    dev::copy_to_host(&last_kind, d.kinds.get() + (nblocks - 1), 1, s);
    dev::sync(s);
    d.mid_bytes = tot.w[0];
    d.exact_count = tot.w[1];
    d.nonconstant = tot.w[2];
    d.code_bytes = code_section_bytes(n, B, d.nonconstant, kind_bits(last_kind) != 0);
    d.range_folded = fold;
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
  dev::Buffer<T> d_bases(nblocks, s);
  KernelTimer t1("encode analyze_kernel", n * W, s);
  with_threads(B, [&](auto nt) {
    analyze_kernel<T, decltype(nt)::value><<<grid, decltype(nt)::value, 0, s>>>(d_x, n, B, ebc, pe, d.kinds.get(),
                                                                               d_bases.get(), d_cnt.get(),
                                                                               d_cnt.get() + nblocks);
  });
  SCIZ_CUDA_CHECK_LAUNCH("szx analyze_kernel");
  t1.stop();
  std::vector<uint8_t> kinds(nblocks);
  std::vector<uint32_t> cnt(2 * nblocks);
  dev::copy_to_host(kinds.data(), d.kinds.get(), nblocks, s);
  dev::copy_to_host(cnt.data(), d_cnt.get(), 2 * nblocks * 4, s);
  dev::sync(s);

  // Per-block offsets: codes at j B/4 for the j-th non-constant block, payload (base bytes and
  // mid-bytes) and exact entries at exclusive prefix sums.
  std::vector<uint64_t> off(3 * nblocks + 1, 0);
  std::vector<uint8_t> mid_counts;
  mid_counts.reserve(2 * nblocks);
  uint64_t payload = 0, ex_total = 0, K = 0;
  for (uint64_t b = 0; b < nblocks; ++b) {
    off[2 * nblocks + b] = ex_total;
    ex_total += cnt[nblocks + b];
    off[nblocks + b] = payload;
    payload += static_cast<uint64_t>(base_bytes<T>(kind_code(kinds[b])));
    if (kind_bits(kinds[b]) == 0) continue;
    off[b] = K * (B / 4);
    payload += cnt[b];
    mid_counts.push_back(static_cast<uint8_t>(cnt[b]));
    mid_counts.push_back(static_cast<uint8_t>(cnt[b] >> 8));
    ++K;
  }
  off[3 * nblocks] = ex_total;
  d.nonconstant = K;
  d.mid_bytes = payload;
  d.exact_count = ex_total;
  d.code_bytes = code_section_bytes(n, B, K, kind_bits(kinds[nblocks - 1]) != 0);
  dev::Buffer<uint64_t> d_off(off.size(), s);
  dev::copy_to_device(d_off.get(), off.data(), off.size() * 8, s);
  d.mid_counts = dev::Buffer<uint8_t>(mid_counts.size(), s);
  dev::copy_to_device(d.mid_counts.get(), mid_counts.data(), mid_counts.size(), s);
  d.codes = dev::Buffer<uint8_t>(K * (B / 4), s);
  d.mid = dev::Buffer<uint8_t>(payload, s);
  d.exact_idx = dev::Buffer<uint64_t>(ex_total, s);
  d.exact_val = dev::Buffer<T>(ex_total, s);
  KernelTimer t2("encode emit_kernel", n * W, s);
  with_threads(B, [&](auto nt) {
    emit_kernel<T, decltype(nt)::value><<<grid, decltype(nt)::value, size_t{B} * W, s>>>(
        d_x, n, B, ebc, pe, d.kinds.get(), d_bases.get(), d_off.get(), d.codes.get(), d.mid.get(), d.exact_idx.get(),
        d.exact_val.get());
  });
  SCIZ_CUDA_CHECK_LAUNCH("szx emit_kernel");
  t2.stop();
  dev::sync(s);  // d_off and d_bases are released at return
}

}  // namespace

template <class T>
DeviceEncoded<T> encode_device(const T* d_x, uint64_t n, double eb, uint32_t block, cudaStream_t s, RangeKeys* range) {
  check_args(eb, block, n);
  const double ebc = eb_check<T>(eb);
  const int pe = eb_exponent(ebc);
  DeviceEncoded<T> d;
  d.block = block;
  d.nblocks = (n + block - 1) / block;
  require_grid(d.nblocks, Status::invalid_argument);
  d.kinds = dev::Buffer<uint8_t>(d.nblocks, s);
  if (d.nblocks == 0) return d;
  if (block <= 128)
    encode_tiles<T, TileConfig<T, 4>::kR>(d_x, n, ebc, pe, block, s, d, range);
  else
    encode_two_pass<T>(d_x, n, ebc, pe, block, s, d);
  return d;
}

template <class T>
Encoded download(const DeviceEncoded<T>& d, cudaStream_t s, Stats* stats) {
  Encoded e;
  e.block = d.block;
  e.layout = kLayout2;
  e.exact = download_exact_runs<T>(d.exact_idx.get(), d.exact_val.get(), d.exact_count, s);
  // Fresh host pages cost more to fault in than to fill (core/host_memory.hpp): the large
  // sections get huge pages, and the payload room for the whole stream, which the container
  // then builds in place around them (core/container.cpp).
  const uint64_t others = d.nblocks + 2 * d.nonconstant + d.code_bytes + e.exact.size();
  reserve_large(e.mid, d.mid_bytes + others + (size_t{1} << 20));
  reserve_large(e.codes, d.code_bytes);
  e.kinds.resize(d.nblocks);
  e.mid_counts.resize(2 * d.nonconstant);
  e.codes.resize(d.code_bytes);
  e.mid.resize(d.mid_bytes);
  if (d.nblocks) {
    dev::copy_to_host(e.kinds.data(), d.kinds.get(), e.kinds.size(), s);
    dev::copy_to_host(e.mid_counts.data(), d.mid_counts.get(), e.mid_counts.size(), s);
    dev::copy_to_host(e.codes.data(), d.codes.get(), e.codes.size(), s);
    dev::copy_to_host(e.mid.data(), d.mid.get(), e.mid.size(), s);
    dev::sync(s);
  }
  if (stats) {
    stats->blocks = d.nblocks;
    stats->constant_blocks = d.nblocks - d.nonconstant;
    stats->exact_values = d.exact_count;
  }
  return e;
}

template DeviceEncoded<float> encode_device<float>(const float*, uint64_t, double, uint32_t, cudaStream_t, RangeKeys*);
template DeviceEncoded<double> encode_device<double>(const double*, uint64_t, double, uint32_t, cudaStream_t, RangeKeys*);
template Encoded download<float>(const DeviceEncoded<float>&, cudaStream_t, Stats*);
template Encoded download<double>(const DeviceEncoded<double>&, cudaStream_t, Stats*);

}  // namespace sciz::szx
