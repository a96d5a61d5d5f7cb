// The arithmetic of the `delta` codec (AATROX, Zhang et al., ICS '25), once, for both twins:
// prequantization and its bound check, the delta chain of a warp layer, the width of a
// 32-value group and its bit-plane packing. Everything that decides a stored bit lives here;
// the CPU twin loops over it, the CUDA twin maps it onto warps. docs/DELTA.md is normative.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/hd.hpp"

namespace sciz::delta {

// The hierarchy of the paper: a warp layer (one warp, one stored initial value, one entry of
// the compressor's look-back) is 32 iterations of 32 thread layers of 32 values. The group
// (thread layer) is the unit of one width; the layer is the unit of the delta chain.
inline constexpr uint32_t kGroup = 32;
inline constexpr uint32_t kIterGroups = 32;
inline constexpr uint32_t kLayerGroups = 1024;
inline constexpr uint32_t kLayer = kGroup * kLayerGroups;  // 32768 values
// Each layer's payload is padded to this many bytes so that every layer starts 16-byte
// aligned in the payload: a GPU warp can flush its output with vector stores.
inline constexpr uint32_t kLayerAlign = 16;
// |q| < 2^30 keeps every delta inside int32 (|d| <= 2^31 - 2) and every width <= 31.
inline constexpr int32_t kQLimit = int32_t(1) << 30;
inline constexpr uint32_t kMaxWidth = 31;

template <class T>
struct Quant {
  T inv_ebx2;   // T(1 / (2 eb)), computed in double and rounded to T once
  T ebx2;       // T(2 eb)
  double ebc;   // min(eb, double(T(eb))): the bound every point is checked against
};

// Host-side set-up; both twins pass the same struct to the functions below.
template <class T>
inline Quant<T> make_quant(double eb) {
  Quant<T> p;
  p.inv_ebx2 = static_cast<T>(1.0 / (2.0 * eb));
  p.ebx2 = static_cast<T>(2.0 * eb);
  const double t = static_cast<double>(static_cast<T>(eb));
  p.ebc = t < eb ? t : eb;
  return p;
}

// Exactly rounded multiply that no compiler may fuse with a neighbouring add.
SCIZ_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
SCIZ_HD double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
SCIZ_HD float round_even(float v) { return rintf(v); }
SCIZ_HD double round_even(double v) { return rint(v); }

// x' = T(q) * T(2 eb), one rounding in T: the decoder's value and the one the encoder checks.
template <class T>
SCIZ_HD T reconstruct(int32_t q, const Quant<T>& p) {
  return mul_rn(static_cast<T>(q), p.ebx2);
}

// The bound check every point gets (false for NaN/Inf x).
template <class T>
SCIZ_HD bool within(T x, T xr, double ebc) {
  return fabs(static_cast<double>(x) - static_cast<double>(xr)) <= ebc;
}

enum class Kind : int {
  kQuantized = 0,  // q reconstructs x within the bound
  kExactKeep = 1,  // q is right but T(q) * 2eb misses the bound by rounding: x is stored
                   // exactly and q stays in the chain (it still predicts its neighbours)
  kExactFill = 2,  // NaN/Inf or |x / 2eb| too large for the chain: x is stored exactly and
                   // its slot repeats the chain's previous q (a delta of 0)
};

// q = round_half_even(x * T(1/2eb)) in T, then the check in double against ebc. The q of a
// kExactFill value is unspecified here: the chain replaces it (fill_or).
template <class T>
SCIZ_HD Kind prequantize(T x, const Quant<T>& p, int32_t& q) {
  const T r = round_even(mul_rn(x, p.inv_ebx2));
  if (!(fabs(r) < static_cast<T>(kQLimit))) {  // also NaN and Inf
    q = 0;
    return Kind::kExactFill;
  }
  q = static_cast<int32_t>(r);
  return within(x, reconstruct(q, p), p.ebc) ? Kind::kQuantized : Kind::kExactKeep;
}

// The chain of a warp layer is its values in linear order. q_{-1} = q0, the layer's stored
// initial value: the q of the layer's first value, or 0 when that value is kExactFill. A
// kExactFill value takes the q of the last value before it that is not kExactFill (q0 when
// none), so its delta is 0 and the next real value's delta skips the gap. On the GPU this
// is a "last valid" warp scan per iteration; on the CPU it is the running previous q.
SCIZ_HD int32_t initial_q(bool first_is_fill, int32_t q0) { return first_is_fill ? 0 : q0; }
SCIZ_HD int32_t fill_or(bool is_fill, int32_t q, int32_t prev) { return is_fill ? prev : q; }

// d_i = q_i - q_{i-1}. Both lie in (-2^30, 2^30), so d fits int32 exactly. The paper's
// circular shift and tail rotation are only how a warp finds q_{i-1} for the first value of
// each thread layer (lane t-1's tail, or for lane 0 the previous iteration's lane-31 tail):
// the chain itself is plain linear order, which a CPU loop computes as is.
SCIZ_HD int32_t delta_of(int32_t q, int32_t prev) { return q - prev; }

// Sign plus magnitude, as the paper stores them.
SCIZ_HD uint32_t magnitude(int32_t d) {
  return d < 0 ? 0u - static_cast<uint32_t>(d) : static_cast<uint32_t>(d);
}
SCIZ_HD uint32_t sign_bit(int32_t d) { return d < 0 ? 1u : 0u; }

// Bits needed for the largest magnitude of a group (0 for an all-zero group, which stores
// nothing). The paper's ceil(log2 |d|) is one short for powers of two; this is bit length.
SCIZ_HD uint32_t width_of(uint32_t max_mag) {
#if defined(__CUDA_ARCH__)
  return 32u - static_cast<uint32_t>(__clz(static_cast<int>(max_mag)));
#else
  return max_mag ? 32u - static_cast<uint32_t>(__builtin_clz(max_mag)) : 0u;
#endif
}

// A group of width w stores a sign word and w magnitude planes, 4 bytes each.
SCIZ_HD uint32_t group_bytes(uint32_t w) { return w ? 4u * (w + 1u) : 0u; }
SCIZ_HD uint64_t align_layer(uint64_t bytes) { return (bytes + kLayerAlign - 1) / kLayerAlign * kLayerAlign; }

// Bit-plane layout of a group (the paper's bit transpose): word 0 holds the signs, bit i =
// value i is negative; word 1 + k holds bit k of every magnitude, bit i = value i. A GPU
// lane that owns the group builds each word from its registers (or a warp with a ballot
// per plane); bits of values past the field's end are 0.
SCIZ_HD uint32_t plane_bit(uint32_t mag, uint32_t k, uint32_t i) { return ((mag >> k) & 1u) << i; }
SCIZ_HD uint32_t from_plane(uint32_t word, uint32_t k, uint32_t i) { return ((word >> i) & 1u) << k; }

// 32 x 32 bit transpose in place: afterwards a[k] bit i = (before) a[i] bit k. Turns 32
// magnitudes into their bit planes (plane_bit over the whole group) in 5 x 16 swaps instead of
// 32 x 32 bit moves, and, being its own inverse, turns the planes back into magnitudes.
SCIZ_HD void transpose32(uint32_t (&a)[32]) {
  uint32_t m = 0x0000ffffu;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int j = 16; j != 0; j >>= 1, m ^= m << j) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int r = 0; r < 32; r = (r + j + 1) & ~j) {
      const uint32_t t = ((a[r] >> j) ^ a[r + j]) & m;
      a[r + j] ^= t;
      a[r] ^= t << j;
    }
  }
}

// transpose32 when most of the matrix is known to be zero, in about a quarter (K = 4) to a
// half (K = 16) of its operations: the GPU kernels pick K from the widest group of the warp.
// The five rounds of transpose32 each swap one bit of the row index with the same bit of the
// column index, so they commute and may run in any order; a round whose pairs hold a zero row
// on one side only moves bits (2-3 operations instead of 5), and pairs of two zero rows are
// skipped. Both return exactly transpose32's result (tested on random matrices).
namespace transpose_detail {
SCIZ_HD constexpr uint32_t round_mask(int j) {  // the low j bits of every 2j-bit block
  uint32_t m = 0;
  for (int b = 0; b < 32; ++b)
    if (b % (2 * j) < j) m |= 1u << b;
  return m;
}
template <int J, int Rows>  // the full round on rows [0, Rows), the rows past them being zero
SCIZ_HD void swap_round(uint32_t (&a)[32]) {
  constexpr uint32_t m = round_mask(J);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int r = 0; r < Rows; r = (r + J + 1) & ~J) {
    const uint32_t t = ((a[r] >> J) ^ a[r + J]) & m;
    a[r + J] ^= t;
    a[r] ^= t << J;
  }
}
template <int J>  // rows [J, 2J) are zero: each row r < J gives them its high halves
SCIZ_HD void spread_round(uint32_t (&a)[32]) {
  constexpr uint32_t m = round_mask(J);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int r = 0; r < J; ++r) {
    const uint32_t t = (a[r] >> J) & m;
    a[r + J] = t;
    a[r] ^= t << J;
  }
}
template <int J>  // rows r + J hold only low halves, rows r only low halves: r + J moves into r
SCIZ_HD void gather_round(uint32_t (&a)[32]) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int r = 0; r < J; ++r) {
    a[r] |= a[r + J] << J;
    a[r + J] = 0;
  }
}
}  // namespace transpose_detail

// Rows [K, 32) are zero (decoder: K bit planes give 32 magnitudes).
template <int K>
SCIZ_HD void transpose32_rows(uint32_t (&a)[32]) {
  using namespace transpose_detail;
  static_assert(K == 4 || K == 8 || K == 16 || K == 32);
  if constexpr (K > 1) swap_round<1, K>(a);
  if constexpr (K > 2) swap_round<2, K>(a);
  if constexpr (K > 4) swap_round<4, K>(a);
  if constexpr (K > 8) swap_round<8, K>(a);
  if constexpr (K > 16) swap_round<16, K>(a);
  // Rounds j >= K: row r + j is still zero, so its half comes over and nothing goes back.
  if constexpr (K <= 4) spread_round<4>(a);
  if constexpr (K <= 8) spread_round<8>(a);
  if constexpr (K <= 16) spread_round<16>(a);
}

// Every row holds only bits [0, K) (encoder: 32 magnitudes of at most K bits give K planes).
template <int K>
SCIZ_HD void transpose32_cols(uint32_t (&a)[32]) {
  using namespace transpose_detail;
  static_assert(K == 4 || K == 8 || K == 16 || K == 32);
  // Rounds j >= K, widest first: row r + j's bits all lie in the low half of their blocks and
  // row r's high halves are empty, so row r + j moves up into row r and becomes zero.
  if constexpr (K <= 16) gather_round<16>(a);
  if constexpr (K <= 8) gather_round<8>(a);
  if constexpr (K <= 4) gather_round<4>(a);
  if constexpr (K > 16) swap_round<16, K>(a);
  if constexpr (K > 8) swap_round<8, K>(a);
  if constexpr (K > 4) swap_round<4, K>(a);
  if constexpr (K > 2) swap_round<2, K>(a);
  if constexpr (K > 1) swap_round<1, K>(a);
}

// Serpentine chain: chain index c -> field index, over rows of `row` values with every odd
// row walked backwards. Its own inverse.
SCIZ_HD uint64_t serp_index(uint64_t c, uint64_t row) {
  const uint64_t r = c / row, at = c - r * row;
  return r & 1 ? r * row + (row - 1 - at) : c;
}

// Decoder side: the signed delta of value i from its sign word and magnitude. Wrapping add of
// the chain (acc += d) keeps a crafted stream from undefined behaviour; a real stream never
// wraps because every partial sum is a difference of two q's.
SCIZ_HD int32_t signed_delta(uint32_t sign_word, uint32_t i, uint32_t mag) {
  return static_cast<int32_t>(((sign_word >> i) & 1u) ? 0u - mag : mag);
}
SCIZ_HD int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

}  // namespace sciz::delta
