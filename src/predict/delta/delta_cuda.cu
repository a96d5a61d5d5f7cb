// CUDA twin of `delta` (docs/DELTA.md, "GPU mapping"), every decision through delta_math.hpp.
//
// Compression, one kernel: a warp takes the next warp layer (32768 values; the id comes from
// an atomic counter, so every earlier layer is already in flight) and walks its 32 iterations
// twice. Lane t owns group 32 j + t of iteration j: its 32 values in registers. (A CTA per layer
// with its warps splitting the iterations measured 378-389 GB/s on the 500 MB field against
// 656: its CTAs each wait on the look-back as a whole.)
//   Sizing walk: prequantize, chain, widths (stored at their fixed addresses), the layer's
//   payload bytes and exact count.
//   Look-back (core/lookback.cuh): the layer publishes its padded size and exact count and
//   learns the sums over all earlier layers.
//   Packing walk: the same arithmetic again (the field is re-read), a warp scan of group sizes
//   places each lane's sign word and bit planes (one 32 x 32 bit transpose); exact values go out
//   in index order.
// Within a warp the chain crosses lanes and iterations: lane t's predecessor is lane t-1's last
// code, lane 0's the previous iteration's lane-31 last code (the paper's circular shift and tail
// rotation). Fill values (NaN/Inf/too large) repeat the last non-fill code, a "last valid" warp
// scan that runs only in iterations holding a fill.
//
// Decompression, one kernel: a CTA per layer, its warps splitting the iterations. CTA scans give
// each part its payload offset (from the widths) and its chain carry (the earlier parts' delta
// sums, read off the bit planes by popcount). Then per iteration: a warp scan of group sizes,
// one transpose back to magnitudes, a prefix sum in registers and a warp scan of the lanes' sums
// (the paper's dual-level prefix sum), lane 31's sum carried to the next iteration. Exact values
// are scattered afterwards.
#include <algorithm>
#include <type_traits>
#include <cstring>
#include <string>
#include <vector>

#include <cub/block/block_reduce.cuh>

#include "core/cuda_check.cuh"
#include "core/exact_download.hpp"
#include "core/exact_runs_cuda.cuh"
#include "core/exact_runs.hpp"
#include "core/host_memory.hpp"
#include "core/kernel_timer.cuh"
#include "core/lookback.cuh"
#include "core/range_fold.cuh"
#include "predict/delta/delta.hpp"

namespace sciz::delta {
namespace {

constexpr unsigned kFull = 0xffffffffu;
// Warps per layer (per CTA) in both kernels, and iterations each walks: as many as the static
// shared memory allows (48 KB; a warp stages 1,056 values).
template <class T>
constexpr int kLayerWarps = sizeof(T) == 4 ? 8 : 4;
template <class T>
constexpr uint32_t kIterPerWarp = 32 / kLayerWarps<T>;
constexpr uint32_t kEncodeWarps = 4;  // encoder: warps per layer (per CTA)
// A layer's own counts beside its look-back flag: padded payload bytes <= 1024 x 128 + 16
// (2^18), exact values <= 32768.
using LayerPacking = lookback::Packing<24, 24, 12>;
using Agg = lookback::Counts<3>;

// The decoder passes an iteration's 1024 values and its words through shared memory so that
// global accesses are coalesced (a lane's own group is 32 consecutive values: written straight
// to global memory, every store instruction of the warp would touch 32 lines). Value k sits at k + k / 32, so
// lane t's group (t * 33 + i) and the vector-wide copies are both free of bank conflicts.
constexpr uint32_t kIter = 1024;
constexpr uint32_t kStageValues = kIter + kIter / 32;
__device__ inline uint32_t padded(uint32_t k) { return k + k / 32; }

template <class T>
using Vec2 = std::conditional_t<sizeof(T) == 4, float4, double2>;  // 16 bytes of T

// The stage's first count values out to g. One warp.
template <class T>
__device__ inline void stage_out(T* __restrict__ g, uint32_t count, const T* __restrict__ st, uint32_t lane) {
  constexpr uint32_t V = 16 / sizeof(T);
  if (count == kIter && (reinterpret_cast<uintptr_t>(g) & 15) == 0) {
#pragma unroll
    for (uint32_t r = 0; r < kIter / V / 32; ++r) {
      const uint32_t k = (r * 32 + lane) * V;
      Vec2<T> q;
      if constexpr (V == 4) {
        q = make_float4(st[padded(k)], st[padded(k + 1)], st[padded(k + 2)], st[padded(k + 3)]);
      } else {
        q = make_double2(st[padded(k)], st[padded(k + 1)]);
      }
      reinterpret_cast<Vec2<T>*>(g)[r * 32 + lane] = q;
    }
  } else {
    for (uint32_t k = lane; k < count; k += 32) g[k] = st[padded(k)];
  }
}

// Rows of the serpentine chain (row 0: the linear chain), with floor(2^32 / row) so that a
// layer-local index divides by row in a multiply-high and one correction.
struct Rows {
  uint32_t row = 0, magic = 0;
};
inline Rows make_rows(uint64_t row) {  // row <= kMaxRow < 2^31
  return row ? Rows{static_cast<uint32_t>(row), static_cast<uint32_t>((uint64_t(1) << 32) / row)} : Rows{};
}

// Where a layer starts among the rows (base = r0 row + a0), and t = a0 + k split the same way
// for layer-local k: t < 2^31 + 2^16, so 32-bit arithmetic holds.
struct RowPos {
  uint64_t r0 = 0;
  uint32_t a0 = 0;
  __device__ RowPos(uint64_t base, const Rows& R) {
    if (R.row) r0 = base / R.row, a0 = static_cast<uint32_t>(base - r0 * R.row);
  }
  __device__ void at(uint32_t k, const Rows& R, uint64_t& r, uint32_t& a) const {
    const uint32_t t = a0 + k;
    uint32_t q = __umulhi(t, R.magic);  // floor(t / row) or one less
    a = t - q * R.row;
    if (a >= R.row) a -= R.row, ++q;
    r = r0 + q;
  }
};

// Serpentine chain: the stage's count values from layer-local chain index k0 to their field
// places. A lane takes 16 bytes of consecutive chain values, which are consecutive field values
// (reversed in odd rows): one vector store where they lie in one row and aligned, else value by
// value. Consecutive lanes stay on consecutive field bytes, so the stores stay coalesced.
template <class T>
__device__ inline void stage_out_rows(T* __restrict__ out, const Rows& R, const RowPos& pos, uint32_t k0,
                                      uint32_t count, const T* __restrict__ st, uint32_t lane) {
  constexpr uint32_t V = 16 / sizeof(T);
  const uint32_t row = R.row;
  for (uint32_t k = lane * V; k < count; k += 32 * V) {
    uint64_t r;
    uint32_t a;
    pos.at(k0 + k, R, r, a);
    const bool odd = r & 1;
    if (k + V <= count && a + V <= row) {
      T* dst = out + r * row + (odd ? row - a - V : a);
      if ((reinterpret_cast<uintptr_t>(dst) & 15) == 0) {
        Vec2<T> q;
        if constexpr (V == 4) {
          q = odd ? make_float4(st[padded(k + 3)], st[padded(k + 2)], st[padded(k + 1)], st[padded(k)])
                  : make_float4(st[padded(k)], st[padded(k + 1)], st[padded(k + 2)], st[padded(k + 3)]);
        } else {
          q = odd ? make_double2(st[padded(k + 1)], st[padded(k)]) : make_double2(st[padded(k)], st[padded(k + 1)]);
        }
        *reinterpret_cast<Vec2<T>*>(dst) = q;
        continue;
      }
    }
    uint64_t rs = r * row;
    bool o = odd;
    for (uint32_t e = 0; e < V && k + e < count; ++e) {
      out[rs + (o ? row - 1 - a : a)] = st[padded(k + e)];
      if (++a == row) a = 0, rs += row, o = !o;
    }
  }
}

// The encoder reads a lane's 32 values straight from global memory (vector loads when
// aligned): staging them through shared memory as the decoder does measured slower here
// (500 MB Isabel f32: 580 against 656 GB/s); L1 serves the 128-byte runs.
template <class T>
__device__ inline void load_group(const T* __restrict__ p, uint32_t len, T (&v)[32]) {
  if (len == 32 && (reinterpret_cast<uintptr_t>(p) & 15) == 0) {
    if constexpr (sizeof(T) == 4) {
#pragma unroll
      for (int c = 0; c < 8; ++c) {
        const float4 q = reinterpret_cast<const float4*>(p)[c];
        v[4 * c] = q.x, v[4 * c + 1] = q.y, v[4 * c + 2] = q.z, v[4 * c + 3] = q.w;
      }
    } else {
#pragma unroll
      for (int c = 0; c < 16; ++c) {
        const double2 q = reinterpret_cast<const double2*>(p)[c];
        v[2 * c] = q.x, v[2 * c + 1] = q.y;
      }
    }
  } else {
#pragma unroll
    for (uint32_t i = 0; i < 32; ++i) v[i] = i < len ? p[i] : T(0);
  }
}

// load_group of 32 values into v reversed (v[31 - i] = p[i]): an odd row of the serpentine chain.
template <class T>
__device__ inline void load_group_rev(const T* __restrict__ p, T (&v)[32]) {
  if ((reinterpret_cast<uintptr_t>(p) & 15) == 0) {
    if constexpr (sizeof(T) == 4) {
#pragma unroll
      for (int c = 0; c < 8; ++c) {
        const float4 q = reinterpret_cast<const float4*>(p)[c];
        v[31 - 4 * c] = q.x, v[30 - 4 * c] = q.y, v[29 - 4 * c] = q.z, v[28 - 4 * c] = q.w;
      }
    } else {
#pragma unroll
      for (int c = 0; c < 16; ++c) {
        const double2 q = reinterpret_cast<const double2*>(p)[c];
        v[31 - 2 * c] = q.x, v[30 - 2 * c] = q.y;
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < 32; ++i) v[31 - i] = p[i];
  }
}

// A layer's values in chain order (docs/DELTA.md, "Chain order"): the field itself for the
// linear chain; for the serpentine chain, odd rows backwards.
template <class T>
struct ChainView {
  const T* x;
  uint64_t base, n;
  Rows R;
  RowPos pos;
  __device__ ChainView(const T* x_, uint64_t base_, uint64_t n_, const Rows& R_)
      : x(x_), base(base_), n(n_), R(R_), pos(base_, R_) {}

  __device__ T at(uint32_t k) const {
    if (!R.row) return x[base + k];
    uint64_t r;
    uint32_t a;
    pos.at(k, R, r, a);
    return x[r * R.row + (r & 1 ? R.row - 1 - a : a)];
  }

  // A lane's group of 32 chain values from k (len of them, the rest 0). Within one row: vector
  // loads, reversed in registers for odd rows. Across two rows (rows of >= 32): vector by vector
  // when rows hold whole vectors, else each value from its row piece. (Loading each piece as a
  // 32-value window merged into v measured slower: 1081/1074/924 against 1185/1130/1020 GB/s on
  // the 500 MB Isabel field.) Rows shorter than a group: value by value.
  __device__ void group(uint32_t k, uint32_t len, T (&v)[32]) const {
    if (!R.row || !len) return load_group(x + base + k, len, v);  // (len 0: lanes past the field's end)
    uint64_t r;
    uint32_t a;
    pos.at(k, R, r, a);
    const uint32_t row = R.row;
    const bool odd = r & 1;
    const T* xr = x + r * row;  // the row of the group's first value
    if (a + 32 <= row) {  // (then an odd row holds all 32: the field ends at a row's end)
      if (odd)
        load_group_rev(xr + (row - a - 32), v);
      else
        load_group(xr + a, len, v);
    } else if (row >= 32 && len == 32 && row % (16 / sizeof(T)) == 0 &&
               (reinterpret_cast<uintptr_t>(x) & 15) == 0) {
      // Values [0, m) finish row r from a, the rest start row r + 1 (the other direction).
      // Rows of whole 16-byte vectors: a and m are multiples of V too, so each vector of the
      // group lies in one piece, aligned: load it there and reverse it on a backward piece.
      constexpr uint32_t V = 16 / sizeof(T);
      const uint32_t m = row - a;
#pragma unroll
      for (uint32_t i = 0; i < 32; i += V) {
        const bool first = i < m;
        const uint32_t off = first ? (odd ? row - a - i - V : a + i) : (odd ? row + (i - m) : 2 * row - (i - m) - V);
        const Vec2<T> q = *reinterpret_cast<const Vec2<T>*>(xr + off);
        const bool back = first == odd;
        if constexpr (V == 4) {
          v[i] = back ? q.w : q.x, v[i + 1] = back ? q.z : q.y, v[i + 2] = back ? q.y : q.z, v[i + 3] = back ? q.x : q.w;
        } else {
          v[i] = back ? q.y : q.x, v[i + 1] = back ? q.x : q.y;
        }
      }
    } else if (row >= 32) {
      // Values [0, m) finish row r from a, the rest start row r + 1 (the other direction).
      const uint32_t m = row - a;
      const int32_t s = odd ? -1 : 1;
      const uint32_t p1 = odd ? row - 1 - a : a, p2 = odd ? row - m : 2 * row - 1 + m;
#pragma unroll
      for (uint32_t i = 0; i < 32; ++i) {
        const uint32_t si = static_cast<uint32_t>(s * static_cast<int32_t>(i));
        v[i] = i < len ? xr[i < m ? p1 + si : p2 - si] : T(0);
      }
    } else {
      uint64_t rs = r * row;
      uint32_t at = a;
      bool o = odd;
#pragma unroll
      for (uint32_t i = 0; i < 32; ++i) {
        v[i] = i < len ? x[o ? rs + (row - 1 - at) : rs + at] : T(0);
        if (++at == row) at = 0, rs += row, o = !o;
      }
    }
  }
};

// Words [0, nwords) between global g and shared s, coalesced. One warp.
template <bool ToGlobal>
__device__ inline void copy_words(uint32_t* __restrict__ g, uint32_t* __restrict__ s, uint32_t nwords,
                                  uint32_t lane) {
  for (uint32_t q = lane; q < nwords; q += 32) {
    if constexpr (ToGlobal)
      g[q] = s[q];
    else
      s[q] = g[q];
  }
}

__device__ inline uint32_t warp_excl_sum(uint32_t x, uint32_t lane, uint32_t& total) {
  uint32_t in = x;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const uint32_t t = __shfl_up_sync(kFull, in, d);
    if (lane >= static_cast<uint32_t>(d)) in += t;
  }
  total = __shfl_sync(kFull, in, 31);
  return in - x;
}

__device__ inline uint32_t warp_max(uint32_t x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(kFull, x);
#else
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) x = max(x, __shfl_xor_sync(kFull, x, d));
  return x;
#endif
}

// transpose32 in the cheapest form that the widest group of the warp allows (a branch that is
// the same in every lane): groups are mostly narrow, and the full transpose was the largest
// share of both kernels' instructions.
template <bool ToPlanes>
__device__ inline void transpose_bounded(uint32_t (&a)[32], uint32_t widest) {
  if (widest <= 4) {
    ToPlanes ? transpose32_cols<4>(a) : transpose32_rows<4>(a);
  } else if (widest <= 8) {
    ToPlanes ? transpose32_cols<8>(a) : transpose32_rows<8>(a);
  } else if (widest <= 16) {
    ToPlanes ? transpose32_cols<16>(a) : transpose32_rows<16>(a);
  } else {
    transpose32(a);
  }
}

// Inclusive warp scan with the chain's wrapping add.
__device__ inline int32_t warp_incl_wrap_sum(int32_t x, uint32_t lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int32_t t = __shfl_up_sync(kFull, x, d);
    if (lane >= static_cast<uint32_t>(d)) x = wrap_add(x, t);
  }
  return x;
}

// One group of one iteration, as both walks of the encoder see it.
struct Group {
  uint32_t mag[32];
  uint32_t sign = 0, special = 0, width = 0;
  int32_t last = 0;  // the group's last chain code (the next lane's predecessor)
};

// Prequantize a lane's 32 values, resolve the chain across the warp and build the group.
// carry: the chain code before lane 0's first value (updated to lane 31's last code).
template <class T>
__device__ inline void make_group(const T (&v)[32], uint32_t len, const Quant<T>& p, uint32_t lane, int32_t& carry,
                                  Group& g) {
  int32_t q[32];
  uint32_t fill = 0;
  g.special = 0;
#pragma unroll
  for (uint32_t i = 0; i < 32; ++i) {
    q[i] = 0;
    if (i < len) {
      const Kind k = prequantize(v[i], p, q[i]);
      g.special |= static_cast<uint32_t>(k != Kind::kQuantized) << i;
      fill |= static_cast<uint32_t>(k == Kind::kExactFill) << i;
    }
  }
  const uint32_t pad = len < 32 ? ~0u << len : 0u;  // slots past the field repeat the chain
  const uint32_t holes = fill | pad;
  // The lane's predecessor: the last non-hole code of the lanes before it, else carry.
  int32_t own_last = 0;  // (a register select per value: an indexed q[] would live in local memory)
  const bool has = holes != ~0u;
#pragma unroll
  for (uint32_t i = 0; i < 32; ++i) own_last = (holes >> i) & 1u ? own_last : q[i];
  int32_t prev;
  if (__any_sync(kFull, holes != 0)) {
    bool hv = has;
    int32_t val = own_last;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const bool th = __shfl_up_sync(kFull, hv, d);
      const int32_t tv = __shfl_up_sync(kFull, val, d);
      if (lane >= static_cast<uint32_t>(d) && !hv) {
        hv = th;
        val = tv;
      }
    }
    const bool ph = __shfl_up_sync(kFull, hv, 1);
    const int32_t pv = __shfl_up_sync(kFull, val, 1);
    prev = lane > 0 && ph ? pv : carry;
    const int32_t last_all = __shfl_sync(kFull, val, 31);
    carry = __shfl_sync(kFull, hv, 31) ? last_all : carry;
  } else {
    prev = __shfl_up_sync(kFull, q[31], 1);
    if (lane == 0) prev = carry;
    carry = __shfl_sync(kFull, q[31], 31);
  }
  uint32_t any = 0;
  g.sign = 0;
#pragma unroll
  for (uint32_t i = 0; i < 32; ++i) {
    const int32_t qi = fill_or((holes >> i) & 1u, q[i], prev);
    const int32_t d = delta_of(qi, prev);
    prev = qi;
    g.mag[i] = magnitude(d);
    g.sign |= sign_bit(d) << i;
    any |= g.mag[i];
  }
  g.last = prev;
  g.width = width_of(any);
}

struct EncodeOut {
  uint8_t* widths;
  int32_t* initial;
  uint8_t* payload;
  uint64_t* ex_idx;
  void* ex_val;
  uint64_t ex_cap;  // entries past it are counted, not written (the host then retries)
};

// Where a layer packs itself before it knows its offset. Each warp packs its part into shared
// memory (kStageWords words) and spills what does not fit to slot l % slots of a ring in global
// memory, at the same word index; each slot is a worst-case layer (a region per part) plus the
// layer's 1024 exceptional-value masks. gen[s] counts the layers that have released slot s, so
// layer l writes it once it reads l / slots there. Slots are as many as the CTAs that can be
// resident, so the wait is almost never taken; when it is, the owner got its layer id earlier,
// so it is running and needs nothing from us.
constexpr uint32_t kSlotBytes = kLayerGroups * 4 * (kMaxWidth + 1) + kLayerAlign;
struct Ring {
  uint8_t* bytes;            // slots x kSlotBytes
  uint32_t* masks;           // slots x kLayerGroups
  unsigned long long* gen;   // slots, zero before the launch
  uint64_t slots;
};
// 7 KB of packed words per warp: a part at rel 1e-3 of Isabel (~4.5 KB) fits, and 7 CTAs
// (the register limit) still fit an SM's shared memory.
constexpr uint32_t kStageWords = 1792;

// The last non-fill code in values [from, to) of the layer, probed backwards 32 at a time (one
// coalesced load in the common case). has: whether there is one. One warp.
template <class T>
__device__ inline bool last_code(const ChainView<T>& x, uint32_t from, uint32_t to, const Quant<T>& p,
                                 uint32_t lane, int32_t& code) {
  while (to > from) {
    const uint32_t lo = to - from > 32 ? to - 32 : from;
    const uint32_t k = lo + lane;
    int32_t q = 0;
    const bool ok = k < to && prequantize(x.at(k), p, q) != Kind::kExactFill;
    const unsigned m = __ballot_sync(kFull, ok);
    if (m) {
      code = __shfl_sync(kFull, q, 31 - __clz(static_cast<int>(m)));
      return true;
    }
    to = lo;
  }
  return false;
}

// A CTA per layer; warp w takes iterations [w IPW, (w + 1) IPW) (its part). Layers, not warps,
// are the unit so that the last, partial wave of a 500 MB field is a quarter of a layer's walk.
// The look-back's third counter carries the zero-width groups (<= 1024 a layer: 12 bits).
// kRange: the values walked are also folded into *range (an absolute bound's call skips the
// separate range pass); a template flag so that the relative bound's kernel stays as it was.
template <class T, bool kRange>
__global__ void __launch_bounds__(32 * kEncodeWarps, sizeof(T) == 4 ? 7 : 4)
    encode_kernel(const T* __restrict__ x, uint64_t n, Rows rows, uint64_t layers, Quant<T> p,
                  lookback::State<3> st, EncodeOut o, Ring ring, RangeKeys* range) {
  constexpr uint32_t W = kEncodeWarps, IPW = 32 / W, kPartBytes = IPW * 32 * 4 * (kMaxWidth + 1);
  __shared__ uint32_t s_pack[W][kStageWords];
  __shared__ unsigned long long s_tile;
  __shared__ uint32_t s_has[W], s_bytes[W], s_exact[W], s_zeros[W];
  __shared__ int32_t s_last[W];
  __shared__ uint64_t s_before[2];
  const uint32_t lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  const uint64_t l = lookback::next_tile(st, layers, &s_tile);
  if (l >= layers) return;  // uniform across the CTA
  const uint64_t base = l * kLayer;
  const ChainView<T> xl(x, base, n, rows);
  const uint32_t len = static_cast<uint32_t>(n - base < kLayer ? n - base : kLayer);
  const uint32_t iters = (len + 1023) / 1024;
  const uint32_t j0 = min(iters, wid * IPW), j1 = min(iters, j0 + IPW);
  const uint64_t slot = l % ring.slots;
  const unsigned long long use = l / ring.slots;
  uint32_t* const spill = reinterpret_cast<uint32_t*>(ring.bytes + slot * kSlotBytes + wid * kPartBytes);
  uint32_t* const stage = s_pack[wid];
  uint32_t* const masks = ring.masks + slot * kLayerGroups;

  // The layer's initial code: that of its first value, 0 when it is fill.
  int32_t q0 = 0;
  {
    int32_t q;
    const Kind k0 = prequantize(xl.at(0), p, q);
    q0 = initial_q(k0 == Kind::kExactFill, q);
  }
  if (threadIdx.x == 0) {
    o.initial[l] = q0;
    if (use) {
      while (*reinterpret_cast<volatile unsigned long long*>(ring.gen + slot) != use) {
      }
      __threadfence();  // the previous layer's reads of the slot are done before ours write it
    }
  }
  // The chain into each part: the last non-fill code of the parts before it, else q0.
  {
    int32_t code = 0;
    const bool has = last_code(xl, j0 * 1024, min(len, j1 * 1024), p, lane, code);
    if (lane == 0) s_has[wid] = has, s_last[wid] = code;
  }
  __syncthreads();
  int32_t carry = q0;
  for (uint32_t w = 0; w < wid; ++w)
    if (s_has[w]) carry = s_last[w];

  // The part's walk: prequantize, chain, widths, each group packed at its word in the part.
  uint32_t at = 0, exact = 0, zeros = 0, special_iters = 0;
  RangeFold<T> rf;
  for (uint32_t j = j0; j < j1; ++j) {
    const uint32_t g0 = j * 1024 + lane * 32;
    const uint32_t glen = g0 < len ? min(32u, len - g0) : 0u;
    T v[32];
    xl.group(g0, glen, v);
    if constexpr (kRange) {  // the non-finite values are counted where they are stored, below
      if (glen == 32) {
#pragma unroll
        for (uint32_t i = 0; i < 32; ++i) rf.add_fast(v[i]);
      } else {
#pragma unroll
        for (uint32_t i = 0; i < 32; ++i)
          if (i < glen) rf.add_fast(v[i]);
      }
    }
    Group g;
    make_group(v, glen, p, lane, carry, g);
    if (glen) {
      o.widths[(base + g0) / kGroup] = static_cast<uint8_t>(g.width);
      zeros += g.width == 0;
    }
    uint32_t total;
    const uint32_t w0 = at + warp_excl_sum(group_bytes(g.width), lane, total) / 4;
    at += total / 4;
    transpose_bounded<true>(g.mag, warp_max(g.width));
    if (g.width) {
      if (w0 + g.width < kStageWords) {
        stage[w0] = g.sign;
#pragma unroll
        for (uint32_t k = 0; k < kMaxWidth; ++k)
          if (k < g.width) stage[w0 + 1 + k] = g.mag[k];
      } else {  // at the stage's end: word by word
        (w0 < kStageWords ? stage : spill)[w0] = g.sign;
#pragma unroll
        for (uint32_t k = 0; k < kMaxWidth; ++k)
          if (k < g.width) (w0 + 1 + k < kStageWords ? stage : spill)[w0 + 1 + k] = g.mag[k];
      }
    }
    if (__any_sync(kFull, g.special != 0)) {
      masks[j * 32 + lane] = g.special;
      special_iters |= 1u << (j - j0);
      exact += __popc(g.special);
    }
  }
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    exact += __shfl_xor_sync(kFull, exact, d);
    zeros += __shfl_xor_sync(kFull, zeros, d);
  }
  if (lane == 0) s_bytes[wid] = at * 4, s_exact[wid] = exact, s_zeros[wid] = zeros;
  __syncthreads();

  // Warp 0: the parts' offsets in the layer, then the layer's offset in the field (look-back).
  if (wid == 0) {
    uint32_t bytes, ex, zs;
    const uint32_t bx = warp_excl_sum(lane < W ? s_bytes[lane] : 0u, lane, bytes);
    const uint32_t ox = warp_excl_sum(lane < W ? s_exact[lane] : 0u, lane, ex);
    warp_excl_sum(lane < W ? s_zeros[lane] : 0u, lane, zs);
    const uint32_t padded = static_cast<uint32_t>(align_layer(bytes));
    const Agg before = lookback::exclusive_prefix<LayerPacking>(st, l, Agg{{padded, ex, zs}});
    if (lane < (padded - bytes) / 4)  // the layer's zero padding
      reinterpret_cast<uint32_t*>(o.payload + before.w[0] + bytes)[lane] = 0;
    if (lane < W) s_bytes[lane] = bx, s_exact[lane] = ox;
    if (lane == 0) s_before[0] = before.w[0], s_before[1] = before.w[1];
  }
  __syncthreads();

  // The part to its place: the staged words, then the spilled ones (through L2, where written).
  {
    uint32_t* dst = reinterpret_cast<uint32_t*>(o.payload + s_before[0] + s_bytes[wid]);
    const uint32_t staged = min(at, kStageWords);
    for (uint32_t q = lane; q < staged; q += 32) dst[q] = stage[q];
    for (uint32_t q = kStageWords + lane; q < at; q += 32) dst[q] = __ldcg(spill + q);
  }
  // Exceptional values, in index order: only the groups that hold one are read again.
  if (exact) {
    uint64_t ex_at = s_before[1] + s_exact[wid];
    for (uint32_t bitsj = special_iters; bitsj; bitsj &= bitsj - 1) {
      const uint32_t j = j0 + __ffs(static_cast<int>(bitsj)) - 1;
      const uint32_t special = __ldcg(masks + j * 32 + lane);
      uint32_t ex_total;
      uint64_t e = ex_at + warp_excl_sum(__popc(special), lane, ex_total);
      ex_at += ex_total;
      if (special) {
        const uint32_t g0 = j * 1024 + lane * 32;
        for (uint32_t bits = special; bits; bits &= bits - 1, ++e) {
          const uint32_t i = __ffs(static_cast<int>(bits)) - 1;
          if (kRange || e < o.ex_cap) {
            const T val = xl.at(g0 + i);
            if constexpr (kRange) rf.bad += RangeFold<T>::nonfinite(val);
            if (e < o.ex_cap) {
              o.ex_idx[e] = base + g0 + i;
              static_cast<T*>(o.ex_val)[e] = val;
            }
          }
        }
      }
    }
  }
  if constexpr (kRange) rf.flush(range);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    *reinterpret_cast<volatile unsigned long long*>(ring.gen + slot) = use + 1;  // the slot is free again
  }
}

// The signed sum of a group's deltas (mod 2^32) straight from its planes: each plane k adds
// 2^k per positive value holding bit k and takes 2^k per negative one. Values past glen count
// for nothing, as in decode_cpu.
__device__ inline uint32_t group_sum(const uint32_t* __restrict__ words, uint32_t w, uint32_t glen) {
  if (!w) return 0;
  const uint32_t m = glen == 32 ? ~0u : (1u << glen) - 1u, neg = words[0] & m, pos = ~words[0] & m;
  uint32_t sum = 0;
  for (uint32_t k = 0; k < w; ++k)
    sum += (static_cast<uint32_t>(__popc(words[1 + k] & pos)) - static_cast<uint32_t>(__popc(words[1 + k] & neg)))
           << k;
  return sum;
}

// Iteration j of a layer (len values from base) in the decoder: the lane's group length and
// width, and the offset of its words among the iteration's, which are copied from in + at into
// the warp's stage sw, coalesced (<= 4 KB: they fit where the iteration's values go later); at
// moves past them. Both of the decoder's walks start every iteration with it.
struct IterWords {
  uint32_t glen, w, mine;
};
__device__ inline IterWords stage_words(const uint8_t* __restrict__ in, uint32_t& at, const uint8_t* __restrict__ widths,
                                        uint64_t base, uint32_t j, uint32_t len, uint32_t* __restrict__ sw,
                                        uint32_t lane) {
  const uint32_t g0 = j * kIter + lane * 32;
  const uint32_t glen = g0 < len ? min(32u, len - g0) : 0u;
  const uint32_t w = glen ? widths[(base + g0) / kGroup] : 0u;
  uint32_t total;
  const uint32_t mine = warp_excl_sum(group_bytes(w), lane, total);
  copy_words<false>(const_cast<uint32_t*>(reinterpret_cast<const uint32_t*>(in + at)), sw, total / 4, lane);
  at += total;
  __syncwarp();
  return {glen, w, mine};
}

// A CTA per layer; warp w decodes iterations [w IPW, (w + 1) IPW). Its payload offset is a CTA
// scan of the warps' sizes (widths only); its chain carry a CTA scan of the warps' delta sums,
// read off the planes by popcount (group_sum) before the decoding walk.
template <class T>
__global__ void __launch_bounds__(32 * kLayerWarps<T>)
    decode_kernel(uint64_t n, Rows rows, Quant<T> p, const uint8_t* __restrict__ widths, const int32_t* __restrict__ initial,
                  const uint8_t* __restrict__ payload, const uint64_t* __restrict__ layer_off, T* __restrict__ out,
                  const DeviceStatus* st) {
  if (st && failed(st)) return;  // sections checked on the device and found wrong: write nothing
  __shared__ T s_stage[kLayerWarps<T>][kStageValues];
  __shared__ uint32_t s_bytes[kLayerWarps<T>];
  __shared__ int32_t s_sum[kLayerWarps<T>];
  const uint32_t lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  T* stage = s_stage[wid];
  uint32_t* sw = reinterpret_cast<uint32_t*>(stage);
  const uint64_t l = blockIdx.x, base = l * kLayer;
  const uint32_t len = static_cast<uint32_t>(n - base < kLayer ? n - base : kLayer);
  const uint32_t iters = (len + kIter - 1) / kIter;
  const uint32_t j0 = min(iters, wid * kIterPerWarp<T>), j1 = min(iters, j0 + kIterPerWarp<T>);
  const uint8_t* in = payload + layer_off[l];
  const RowPos rpos(base, rows);

  uint32_t bytes = 0;
  for (uint32_t j = j0; j < j1; ++j) {
    const uint32_t g0 = j * kIter + lane * 32;
    bytes += g0 < len ? group_bytes(widths[(base + g0) / kGroup]) : 0u;
  }
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) bytes += __shfl_xor_sync(kFull, bytes, d);
  if (lane == 0) s_bytes[wid] = bytes;
  __syncthreads();
  if (wid == 0) {
    uint32_t t;
    const uint32_t b = lane < kLayerWarps<T> ? s_bytes[lane] : 0u, bx = warp_excl_sum(b, lane, t);
    if (lane < kLayerWarps<T>) s_bytes[lane] = bx;
  }
  __syncthreads();

  // Sum walk: the warp's part's delta sum, for the chain carry of the warps after it.
  uint32_t at = s_bytes[wid], sum = 0;
  for (uint32_t j = j0; j < j1; ++j) {
    const IterWords it = stage_words(in, at, widths, base, j, len, sw, lane);
    sum += group_sum(sw + it.mine / 4, it.w, it.glen);
    __syncwarp();
  }
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) sum += __shfl_xor_sync(kFull, sum, d);
  if (lane == 0) s_sum[wid] = static_cast<int32_t>(sum);
  __syncthreads();
  if (wid == 0) {
    const int32_t v = lane < kLayerWarps<T> ? s_sum[lane] : 0;
    const int32_t incl = warp_incl_wrap_sum(v, lane);
    if (lane < kLayerWarps<T>) s_sum[lane] = wrap_add(incl, -v);
  }
  __syncthreads();

  int32_t carry = wrap_add(initial[l], s_sum[wid]);
  at = s_bytes[wid];
  for (uint32_t j = j0; j < j1; ++j) {
    const auto [glen, w, mine] = stage_words(in, at, widths, base, j, len, sw, lane);
    uint32_t sign = 0, mag[32];
    const uint32_t* words = sw + mine / 4;
#pragma unroll
    for (uint32_t k = 0; k < 32; ++k) mag[k] = 0;
    if (w) {
      sign = words[0];
#pragma unroll
      for (uint32_t k = 0; k < kMaxWidth; ++k)
        if (k < w) mag[k] = words[1 + k];
    }
    transpose_bounded<false>(mag, warp_max(w));
    // Prefix sums: in the lane, then across lanes (wrapping, as decode_cpu).
    int32_t acc = 0;
#pragma unroll
    for (uint32_t i = 0; i < 32; ++i) {
      acc = wrap_add(acc, i < glen ? signed_delta(sign, i, mag[i]) : 0);
      mag[i] = static_cast<uint32_t>(acc);
    }
    const int32_t incl = warp_incl_wrap_sum(acc, lane);
    const int32_t start = wrap_add(carry, wrap_add(incl, -acc));
    carry = wrap_add(carry, __shfl_sync(kFull, incl, 31));
    __syncwarp();  // every lane has its words: the stage takes the values now
#pragma unroll
    for (uint32_t i = 0; i < 32; ++i)
      if (i < glen) stage[lane * 33 + i] = reconstruct(wrap_add(start, static_cast<int32_t>(mag[i])), p);
    __syncwarp();
    if (rows.row)
      stage_out_rows(out, rows, rpos, j * kIter, min(kIter, len - j * kIter), stage, lane);
    else
      stage_out(out + base + j * kIter, min(kIter, len - j * kIter), stage, lane);
    __syncwarp();
  }
}

template <class T>
__global__ void scatter_kernel(const uint64_t* __restrict__ idx, const T* __restrict__ val, uint64_t count,
                               uint64_t row, T* __restrict__ out) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t q = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < count; q += stride)
    out[row ? serp_index(idx[q], row) : idx[q]] = val[q];  // indices are chain indices
}

// Device-side validation of the sections (delta_cpu.cpp's validate() on the device), and the
// layers' payload offsets, in one pass: a CTA per layer sums its groups' payload bytes and
// checks every width; a decoupled look-back (core/lookback.cuh) turns the sums into offsets, and
// the last layer's total must be the payload section's length. (A kernel of shared atomics, a
// CUB scan and a check kernel did this before: about 30 us a 128 MiB chunk on the H100, most of
// it the one shared word that 256 threads a layer added into.)
constexpr int kLayerThreads = 256;
// Any width byte (up to 255, reported) keeps a layer's bytes within LayerPacking's first word.
static_assert(uint64_t{kLayerGroups} * 4 * 256 + kLayerAlign < (uint64_t{1} << 24));

__global__ void __launch_bounds__(kLayerThreads)
    layer_offsets_kernel(const uint8_t* __restrict__ widths, uint64_t G, uint64_t L, uint64_t payload,
                         uint64_t* __restrict__ layer_off, lookback::State<3> look, DeviceStatus* st) {
  using Reduce = cub::BlockReduce<uint32_t, kLayerThreads>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ unsigned long long s_tile, s_bad;
  const uint64_t l = lookback::next_tile(look, L, &s_tile);
  if (threadIdx.x == 0) s_bad = ~0ull;
  __syncthreads();
  const uint64_t g0 = l * kLayerGroups, g1 = min(G, g0 + kLayerGroups);
  uint32_t bytes = 0;
  for (uint64_t g = g0 + threadIdx.x; g < g1; g += blockDim.x) {
    const uint32_t w = widths[g];
    if (w > kMaxWidth) atomicMin(&s_bad, static_cast<unsigned long long>(g));
    bytes += group_bytes(w);
  }
  const uint32_t sum = Reduce(temp).Sum(bytes);  // thread 0's
  __shared__ unsigned long long s_layer;
  if (threadIdx.x == 0) s_layer = align_layer(uint64_t{sum});
  __syncthreads();
  if (threadIdx.x >= 32) return;
  const lookback::Counts<3> before = lookback::exclusive_prefix<LayerPacking>(look, l, {{s_layer, 0, 0}});
  if (threadIdx.x != 0) return;
  const uint64_t end = before.w[0] + s_layer;
  if (l == 0) layer_off[0] = 0;
  layer_off[l + 1] = end;
  if (s_bad != ~0ull) report(st, kStatusDeltaFirst + 0, 0, s_bad, widths[s_bad]);
  if (l + 1 == L && end != payload) report(st, kStatusDeltaFirst + 1, 0, payload, end);
}

struct SerpentineMap {
  uint64_t row;
  __device__ uint64_t operator()(uint64_t c) const { return row ? serp_index(c, row) : c; }
};

// Kernel timing under SCIZ_DELTA_TIMING (core/kernel_timer.cuh).
struct Timer : KernelTimer {
  Timer(const char* name, uint64_t field_bytes, cudaStream_t s)
      : KernelTimer("delta", "SCIZ_DELTA_TIMING", name, field_bytes, s) {}
};


// CTAs of encode_kernel that fit on the device at once: the ring's slot count.
template <class T>
uint64_t ring_slots() {
  // Asked once per process: four runtime queries cost more than a small field's kernel.
  static const uint64_t slots = [] {
    int dev = 0, sms = 0, ctas = 0;
    SCIZ_CUDA_CHECK(cudaGetDevice(&dev));
    SCIZ_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    SCIZ_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, encode_kernel<T, false>, 32 * kEncodeWarps, 0));
    return std::max<uint64_t>(1, uint64_t(sms) * uint64_t(ctas));
  }();
  return slots;
}

}  // namespace

template <class T>
DeviceEncoded<T> encode_device(const T* d_x, uint64_t n, double eb, cudaStream_t s, uint64_t row_hint,
                               RangeKeys* range) {
  SCIZ_REQUIRE(std::isfinite(eb) && eb > 0, Status::invalid_argument,
               "delta: error bound " + std::to_string(eb) + " must be finite and positive");
  SCIZ_REQUIRE(n < (uint64_t(1) << 56), Status::invalid_argument, "delta: field of " + std::to_string(n) + " values");
  const uint64_t L = layer_count(n), G = group_count(n);
  SCIZ_REQUIRE(L < (uint64_t(1) << 31), Status::invalid_argument, "delta: field too large for one launch");
  const Chain chain = chain_for(n, row_hint);
  DeviceEncoded<T> d;
  d.n = n;
  d.mode = chain.mode;
  d.row = chain.row;
  d.widths = dev::Buffer<uint8_t>(G, s);
  d.initial = dev::Buffer<uint8_t>(4 * L, s);
  if (L == 0) return d;
  const Quant<T> p = make_quant<T>(eb);
  // Worst case payload: every group of width 31, every layer padded.
  d.payload = dev::Buffer<uint8_t>(L * align_layer(uint64_t{kLayerGroups} * group_bytes(kMaxWidth)), s);
  // Host calls are few on purpose: each costs microseconds of an idle GPU on a small field.
  const uint64_t slots = std::min<uint64_t>(L, ring_slots<T>());
  lookback::Storage<3> look(L, s, slots);  // its reset also zeroes the ring's generations
  dev::Buffer<uint8_t> ring_mem(slots * (kSlotBytes + 4 * kLayerGroups), s);
  const Ring ring{ring_mem.get(), reinterpret_cast<uint32_t*>(ring_mem.get() + slots * kSlotBytes), look.extra(),
                  slots};
  uint64_t cap = std::min<uint64_t>(n, n / 32 + 4096);
  for (int attempt = 0; attempt < 2; ++attempt) {
    d.exact_idx = dev::Buffer<uint64_t>(cap, s);
    d.exact_val = dev::Buffer<T>(cap, s);
    look.reset(s);
    const EncodeOut o{d.widths.get(), reinterpret_cast<int32_t*>(d.initial.get()), d.payload.get(),
                      d.exact_idx.get(), d.exact_val.get(), cap};
    Timer t("encode kernel", n * sizeof(T), s);
    const unsigned grid = static_cast<unsigned>(L);
    // A second attempt must not fold the values twice (the count of non-finite ones would).
    if (range && attempt == 0)
      encode_kernel<T, true><<<grid, 32 * kEncodeWarps, 0, s>>>(d_x, n, make_rows(d.row), L, p, look.state(), o, ring,
                                                                 range);
    else
      encode_kernel<T, false><<<grid, 32 * kEncodeWarps, 0, s>>>(d_x, n, make_rows(d.row), L, p, look.state(), o, ring,
                                                                  nullptr);
    SCIZ_CUDA_CHECK(cudaGetLastError());
    t.stop();
    Agg tot;
    look.totals(&tot, s);
    dev::sync(s);
    d.payload_bytes = tot.w[0];
    d.exact_count = tot.w[1];
    d.zero_groups = tot.w[2];
    if (d.exact_count <= cap) return d;
    cap = d.exact_count;
  }
  fail(Status::internal, "delta: exact-value count changed between two encodes of the same field");
}

template <class T>
Encoded download(const DeviceEncoded<T>& d, cudaStream_t s, Stats* stats) {
  Encoded e;
  e.mode = d.mode;
  e.row = d.row;
  const uint64_t L = layer_count(d.n), G = group_count(d.n);
  e.exact = download_exact_runs<T>(d.exact_idx.get(), d.exact_val.get(), d.exact_count, s);
  // Fresh host pages cost more to fault in than to fill (core/host_memory.hpp): the payload
  // gets huge pages and room for the whole stream, which the container then builds in place
  // around it (core/container.cpp).
  reserve_large(e.payload, d.payload_bytes + G + 4 * L + e.exact.size() + (size_t{1} << 20));
  e.widths.resize(G);
  e.initial.resize(4 * L);
  e.payload.resize(d.payload_bytes);
  if (L) {
    dev::copy_to_host(e.widths.data(), d.widths.get(), G, s);
    dev::copy_to_host(e.initial.data(), d.initial.get(), 4 * L, s);
    dev::copy_to_host(e.payload.data(), d.payload.get(), d.payload_bytes, s);
    dev::sync(s);
  }
  if (stats) {
    stats->layers = L;
    stats->groups = G;
    stats->zero_groups = d.zero_groups;
    stats->exact_values = d.exact_count;
  }
  return e;
}

template <class T>
DeviceSections<T> upload(const Sections& sec, uint64_t n, double eb, cudaStream_t s) {
  SCIZ_REQUIRE(std::isfinite(eb) && eb > 0, Status::corrupt_stream,
               "delta: error bound " + std::to_string(eb) + " must be finite and positive");
  const Validated<T> v = validate<T>(sec, n);  // every length and width, as decode_cpu checks
  auto up = [&]<class X>(dev::Buffer<X>& buf, const void* src, size_t bytes) {
    buf = dev::Buffer<X>(bytes / sizeof(X), s);
    if (bytes) dev::copy_to_device(buf.get(), src, bytes, s);
  };
  DeviceSections<T> d;
  d.n = n;
  d.eb = eb;
  d.row = sec.row;  // validated
  up(d.widths, sec.widths.data(), sec.widths.size());
  up(d.initial, sec.initial.data(), sec.initial.size());
  up(d.payload, sec.payload.data(), sec.payload.size());
  up(d.layer_off, v.layer_off.data(), v.layer_off.size() * 8);
  up(d.exact_idx, v.exact_idx.data(), v.exact_idx.size() * 8);
  up(d.exact_val, v.exact_val.data(), v.exact_val.size() * sizeof(T));
  dev::sync(s);  // the host vectors are released at return
  return d;
}

template <class T>
void decode_device(const DeviceSections<T>& d, T* d_out, cudaStream_t s) {
  const uint64_t L = layer_count(d.n);
  if (L == 0) return;
  const Quant<T> p = make_quant<T>(d.eb);
  SCIZ_REQUIRE(L < (uint64_t(1) << 31), Status::corrupt_stream, "delta: too many layers for one launch");
  Timer t("decode kernel", d.n * sizeof(T), s);
  decode_kernel<T><<<static_cast<unsigned>(L), 32 * kLayerWarps<T>, 0, s>>>(
      d.n, make_rows(d.row), p, d.widths.get(), reinterpret_cast<const int32_t*>(d.initial.get()), d.payload.get(), d.layer_off.get(),
      d_out, nullptr);
  SCIZ_CUDA_CHECK(cudaGetLastError());
  t.stop();
  const uint64_t ne = d.exact_idx.size();
  if (ne) {
    const unsigned grid = static_cast<unsigned>(std::clamp<uint64_t>((ne + 255) / 256, 1, 132 * 16));
    scatter_kernel<T><<<grid, 256, 0, s>>>(d.exact_idx.get(), d.exact_val.get(), ne, d.row, d_out);
    SCIZ_CUDA_CHECK(cudaGetLastError());
  }
  dev::sync(s);
}

template <class T>
void decode_device_sections(const DeviceSectionsIn& sec, uint64_t n, double eb, T* d_out, DeviceStatus* st,
                            cudaStream_t s) {
  // What depends only on lengths is checked here, as validate() does; contents on the device.
  SCIZ_REQUIRE(std::isfinite(eb) && eb > 0, Status::corrupt_stream,
               "delta: error bound " + std::to_string(eb) + " must be finite and positive");
  check_layout(sec.mode, sec.row, n, sec.widths.size, sec.initial.size);
  const uint64_t L = layer_count(n), G = group_count(n);
  SCIZ_REQUIRE(L < (uint64_t(1) << 31), Status::corrupt_stream, "delta: too many layers for one launch");
  const runs::DeviceRuns<T> exact = runs::parse_device<T>(sec.exact.data, sec.exact.size, n, st, 4, s);
  if (L == 0) return;
  SCIZ_REQUIRE((reinterpret_cast<uintptr_t>(sec.payload.data) & 15) == 0, Status::internal,
               "delta: payload section not on a 16-byte boundary");
  dev::Buffer<uint64_t> layer_off(L + 1, s);
  {
    const lookback::Storage<3> look(L, s);
    look.reset(s);
    layer_offsets_kernel<<<static_cast<unsigned>(L), kLayerThreads, 0, s>>>(sec.widths.data, G, L, sec.payload.size,
                                                                           layer_off.get(), look.state(), st);
    SCIZ_CUDA_CHECK_LAUNCH("delta layer_offsets_kernel");
  }
  const Quant<T> p = make_quant<T>(eb);
  Timer t("decode kernel (device sections)", n * sizeof(T), s);
  decode_kernel<T><<<static_cast<unsigned>(L), 32 * kLayerWarps<T>, 0, s>>>(
      n, make_rows(sec.row), p, sec.widths.data, reinterpret_cast<const int32_t*>(sec.initial.data), sec.payload.data,
      layer_off.get(), d_out, st);
  SCIZ_CUDA_CHECK_LAUNCH("delta decode_kernel");
  t.stop();
  runs::scatter_device_mapped<T>(exact, d_out, st, SerpentineMap{sec.row}, s);
}

#define SCIZ_DELTA_INSTANTIATE(T)                                                          \
  template DeviceEncoded<T> encode_device<T>(const T*, uint64_t, double, cudaStream_t, uint64_t, RangeKeys*); \
  template Encoded download<T>(const DeviceEncoded<T>&, cudaStream_t, Stats*);            \
  template DeviceSections<T> upload<T>(const Sections&, uint64_t, double, cudaStream_t);  \
  template void decode_device<T>(const DeviceSections<T>&, T*, cudaStream_t);                 \
  template void decode_device_sections<T>(const DeviceSectionsIn&, uint64_t, double, T*, DeviceStatus*, cudaStream_t);
SCIZ_DELTA_INSTANTIATE(float)
SCIZ_DELTA_INSTANTIATE(double)
#undef SCIZ_DELTA_INSTANTIATE

}  // namespace sciz::delta
