// CPU twin of `delta`: loops over warp layers calling delta_math.hpp for every decision, so
// its bytes are the ones the CUDA twin computes. Threads take contiguous runs of layers and
// write their own buffers, concatenated in layer order afterwards: the stream does not depend
// on the thread count.
#include <sciz/error.hpp>

#include <algorithm>
#include <bit>
#include <type_traits>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SCIZ_DELTA_AVX2 1
#endif

#include "core/cpu_features.hpp"
#include "core/exact_runs.hpp"
#include "core/host_memory.hpp"
#include "core/omp_threads.hpp"
#include "core/round_cpu.hpp"
#include "predict/delta/delta.hpp"

namespace sciz::delta {

std::vector<uint8_t> write_params(uint8_t mode, uint64_t row) {
  SCIZ_REQUIRE(mode == kModeLinear || mode == kModeSerpentine, Status::invalid_argument,
               "delta: unknown chain mode " + std::to_string(mode));
  if (mode == kModeLinear) return {mode, 0, 0, 0};
  SCIZ_REQUIRE(row >= 2 && row <= kMaxRow, Status::invalid_argument, "delta: serpentine row of " + std::to_string(row));
  std::vector<uint8_t> p = {mode, 0, 0, 0};
  for (int i = 0; i < 8; ++i) p.push_back(static_cast<uint8_t>(row >> (8 * i)));
  return p;
}

Chain read_params(std::span<const uint8_t> params) {
  SCIZ_REQUIRE(params.size() >= 4 && params[1] == 0 && params[2] == 0 && params[3] == 0, Status::corrupt_stream,
               "delta: params of " + std::to_string(params.size()) + " bytes or reserved bytes not zero");
  const uint8_t mode = params[0];
  if (mode == kModeLinear) {
    SCIZ_REQUIRE(params.size() == 4, Status::corrupt_stream,
                 "delta: linear chain params hold " + std::to_string(params.size()) + " bytes, expected 4");
    return {mode, 0};
  }
  SCIZ_REQUIRE(mode == kModeSerpentine, Status::corrupt_stream, "delta: unknown chain mode " + std::to_string(mode));
  SCIZ_REQUIRE(params.size() == 12, Status::corrupt_stream,
               "delta: serpentine params hold " + std::to_string(params.size()) + " bytes, expected 12");
  uint64_t row = 0;
  for (int i = 0; i < 8; ++i) row |= uint64_t{params[4 + i]} << (8 * i);
  SCIZ_REQUIRE(row >= 2 && row <= kMaxRow, Status::corrupt_stream, "delta: serpentine row of " + std::to_string(row));
  return {mode, row};
}

Chain chain_for(uint64_t n, uint64_t row) {
  if (row < 2 || row >= n || row > kMaxRow) return {kModeLinear, 0};
  SCIZ_REQUIRE(n % row == 0, Status::invalid_argument,
               "delta: rows of " + std::to_string(row) + " values do not tile a field of " + std::to_string(n));
  return {kModeSerpentine, row};
}

namespace {

// The most payload bytes one layer can take: every group at width 31, plus the padding.
inline constexpr size_t kMaxLayerBytes = size_t(kLayerGroups) * 4 * (kMaxWidth + 1) + kLayerAlign;

template <class T>
struct Local {
  std::vector<uint8_t> payload;
  size_t used = 0;
  std::vector<uint64_t> ei;
  std::vector<T> ev;
  uint64_t zero_groups = 0;
  std::vector<T> chain;  // serpentine mode: the layer's values in chain order
};

// Calls f(offset, field index, count, backwards) for each row piece of chain values
// [c0, c0 + len) of a serpentine chain over rows of `row` values: chain values c0 + offset ..
// + count - 1 are field values index .. index + count - 1, in that order or (odd rows) the
// reverse. (serp_index per value, a row piece at a time.)
template <class F>
void for_each_row_piece(uint64_t c0, uint64_t len, uint64_t row, F&& f) {
  uint64_t r = c0 / row, at = c0 - r * row;
  for (uint64_t c = c0, end = c0 + len; c < end; ++r, at = 0) {
    const uint64_t cnt = std::min(end - c, row - at);
    if (r & 1)
      f(c - c0, r * row + (row - at - cnt), cnt, true);
    else
      f(c - c0, c, cnt, false);
    c += cnt;
  }
}

// What both layer encoders do around their loops. begin_layer: the layer's initial code q0, and
// room in the thread's buffer for the largest layer; returns where its payload starts.
// end_layer: the zero padding to 16 bytes after the payload that ends at out.
template <class T>
uint8_t* begin_layer(const T* xl, const Quant<T>& p, int32_t& q0, Local<T>& o) {
  int32_t qf;
  const Kind k0 = prequantize(xl[0], p, qf);
  q0 = initial_q(k0 == Kind::kExactFill, qf);
  if (o.used + kMaxLayerBytes > o.payload.size())
    grow_fresh(o.payload, std::max(o.payload.size() * 2, o.used + kMaxLayerBytes), o.used);
  return o.payload.data() + o.used;
}
template <class T>
void end_layer(uint8_t* out, Local<T>& o) {
  const size_t bytes = static_cast<size_t>(out - (o.payload.data() + o.used));
  const size_t padded = align_layer(bytes);
  std::memset(out, 0, padded - bytes);
  o.used += padded;
}

// dst[cnt - 1 - i] = src[i]: a loop the compiler vectorizes with a lane permute (std::reverse_copy
// stayed scalar, about a sixth of the serpentine decoder's time).
template <class T>
inline void copy_reversed(const T* __restrict src, uint64_t cnt, T* __restrict dst) {
  for (uint64_t i = 0; i < cnt; ++i) dst[cnt - 1 - i] = src[i];
}

// The layer's values in chain order: the field itself for the linear chain, else gathered.
template <class T>
const T* layer_values(const T* x, uint64_t n, uint64_t row, uint64_t l, Local<T>& o) {
  const uint64_t base = l * kLayer;
  if (!row) return x + base;
  o.chain.resize(kLayer);
  T* b = o.chain.data();
  for_each_row_piece(base, std::min<uint64_t>(kLayer, n - base), row, [&](uint64_t off, uint64_t f, uint64_t cnt, bool back) {
    if (back)
      copy_reversed(x + f, cnt, b + off);
    else
      std::memcpy(b + off, x + f, cnt * sizeof(T));
  });
  return b;
}

// Where a layer decodes to (the field, or a buffer in chain order), and the buffer's values to
// their places once decoded.
template <class T>
T* layer_out(T* out, uint64_t row, uint64_t l, std::vector<T>& buf) {
  if (!row) return out + l * kLayer;
  buf.resize(kLayer);
  return buf.data();
}
template <class T>
void layer_done(T* out, uint64_t n, uint64_t row, uint64_t l, const std::vector<T>& buf) {
  if (!row) return;
  const uint64_t base = l * kLayer;
  const T* b = buf.data();
  for_each_row_piece(base, std::min<uint64_t>(kLayer, n - base), row, [&](uint64_t off, uint64_t f, uint64_t cnt, bool back) {
    if (back)
      copy_reversed(b + off, cnt, out + f);
    else
      std::memcpy(out + f, b + off, cnt * sizeof(T));
  });
}

// ---- Portable build of the layer loops (any CPU; plain C++ that compilers auto-vectorize) ----
//
// Used where AVX2 is absent (ARM, older x86) or forced (SCIZ_DELTA_BASELINE_ISA). Same bytes as
// the per-value use of delta_math.hpp (prequantize, fill_or, delta_of, magnitude, sign_bit,
// transpose32 / plane_bit, signed_delta, wrap_add, reconstruct; the scalar reference of the
// DeltaTwin tests), by these equivalences:
//  * round_even: rint_ne (core/round_cpu.hpp, proved and tested there) equals rint.
//  * prequantize: q = int32(ok ? r : 0) with ok = |r| < 2^30 (fill = !ok), then the check in
//    double: the same operations as prequantize() and within() on the same values; a fill
//    slot's q (0) is replaced by the chain's previous q before its delta is taken (fill_or),
//    and special = fill | !within, as in encode_group.
//  * deltas: d = q_i - q_{i-1} in uint32 (= int32 subtraction, no overflow for |q| < 2^30),
//    magnitude = (d ^ s) - s with s = d >> 31 arithmetic (= magnitude()), sign = bit 31 of d
//    (= sign_bit()); slots past a short group's end repeat its last q (d = 0).
//  * planes (pack8): for a uint64 u whose 8 bytes are 0 or 1, (u * 0x0102040810204080) >> 56
//    has bit i = byte i. The multiplier is the sum over j = 0..7 of 2^(7j + 7); byte i's bit
//    sits at 8i, so term (i, j) lands at 8i + 7j + 7 = 7(i + j) + i + 7. Bit 56 + t is hit
//    exactly by i + j = 7, i = t (i + j = 8 needs j = 8; i + j <= 6 stays below 56), and the
//    positions below 56 (i + j <= 6) are pairwise distinct, so no sum of terms carries into
//    bit 56. So plane k of values 8j..8j+7 = pack8((byte slice >> k) & 0x0101...), which is
//    plane_bit over the group, i.e. what transpose32 leaves in word k.
//  * unpack8 (decoder): b * 0x0101010101010101 copies the byte b (< 256, no carries) into all
//    8 bytes; & 0x8040201008040201 keeps bit i in byte i (value 0 or 2^i <= 0x80); adding 0x7f
//    to each byte (no byte exceeds 0xff, so no carry between bytes) sets its top bit iff it was
//    non-zero; & 0x8080808080808080 keeps those. So byte i's top bit = bit i of b: from_plane
//    over the group, which transpose32 computes in the scalar decoder.
//  * decode: signed delta = (m ^ -s) + s with s = 0 or 1 (0u - m when the sign bit is set, as
//    signed_delta), the chain as wrap_add in order, reconstruct() on each value.

// GCC vectorizes the loops below only without -ftrapping-math (core/round_cpu.hpp says why that
// changes no value); the option is scoped to them.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif

// Quantizes n values: q (0 for fill), fill[i] = 1 for kExactFill (else 0), bad[i] = 1 when the
// bound check fails (else 0). Flags kept at the width of T / double so the loop vectorizes.
template <class T>
void quant_chunk_portable(const T* __restrict x, uint32_t n, const Quant<T>& p, int32_t* __restrict q,
                          T* __restrict fill, double* __restrict bad) {
  const T inv = p.inv_ebx2, e2 = p.ebx2, lim = static_cast<T>(kQLimit);
  const double ebc = p.ebc;
  for (uint32_t i = 0; i < n; ++i) {
    const T xi = x[i];
    const T r = rint_ne(xi * inv);
    const bool ok = fabs_nt(r) < lim;
    const int32_t qi = static_cast<int32_t>(ok ? r : T(0));
    q[i] = qi;
    const T xr = static_cast<T>(qi) * e2;
    const bool in = fabs_nt(static_cast<double>(xi) - static_cast<double>(xr)) <= ebc;
    fill[i] = ok ? T(0) : T(1);
    bad[i] = in ? 0.0 : 1.0;
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

// For the tests (DeltaTwin.PortableRint*): the rounding the portable loops use.
}  // namespace
namespace {

inline uint32_t pack8(uint64_t u) { return static_cast<uint32_t>((u * 0x0102040810204080ULL) >> 56); }
// 32 bytes (0 or 1 each, value order) to one word, bit i = byte i.
inline uint32_t pack32(const uint64_t (&u)[4], uint32_t k) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  return pack8((u[0] >> k) & kOnes) | pack8((u[1] >> k) & kOnes) << 8 | pack8((u[2] >> k) & kOnes) << 16 |
         pack8((u[3] >> k) & kOnes) << 24;
}
// Byte i's top bit = bit i of b (b < 256).
inline uint64_t unpack8(uint64_t b) {
  return (((b * 0x0101010101010101ULL) & 0x8040201008040201ULL) + 0x7f7f7f7f7f7f7f7fULL) & 0x8080808080808080ULL;
}

template <class T>
void encode_layer_portable(const T* xl, uint64_t n, uint64_t l, const Quant<T>& p, uint8_t* widths, int32_t& q0,
                           Local<T>& o) {
  constexpr uint32_t kChunk = kIterGroups * kGroup;  // 1024 values
  const uint64_t base = l * kLayer;
  const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(kLayer, n - base));
  uint8_t* out = begin_layer(xl, p, q0, o);
  alignas(64) int32_t qbuf[16 + kChunk];
  alignas(64) T fillv[kChunk];
  alignas(64) double badv[kChunk];
  int32_t* const q = qbuf + 16;
  q[-1] = q0;
  for (uint32_t c0 = 0; c0 < len; c0 += kChunk) {
    const uint32_t clen = std::min(kChunk, len - c0);
    const T* xc = xl + c0;
    const uint32_t ng = (clen + kGroup - 1) / kGroup;
    quant_chunk_portable(xc, clen, p, q, fillv, badv);
    for (uint32_t g = 0; g < ng; ++g) {
      int32_t* const qg = q + g * kGroup;
      const uint32_t glen = std::min<uint32_t>(kGroup, clen - g * kGroup);
      const uint64_t gb = base + c0 + g * kGroup;
      const T* const fg = fillv + g * kGroup;
      const double* const bg = badv + g * kGroup;
      uint64_t anyf = 0, anyb = 0;  // bit patterns: non-zero iff some flag is 1
      for (uint32_t j = 0; j < glen; ++j) {
        anyf |= std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>(fg[j]);
        anyb |= std::bit_cast<uint64_t>(bg[j]);
      }
      if (anyf | anyb) [[unlikely]] {
        for (uint32_t j = 0; j < glen; ++j) {
          const bool f = fg[j] != T(0);
          if (f) qg[j] = fill_or(true, qg[j], qg[static_cast<int>(j) - 1]);
          if (f || bg[j] != 0.0) {
            o.ei.push_back(gb + j);
            o.ev.push_back(xc[g * kGroup + j]);
          }
        }
      }
      for (uint32_t j = glen; j < kGroup; ++j) qg[j] = qg[glen - 1];
      alignas(64) uint32_t m[kGroup];
      alignas(16) uint8_t sb[kGroup];
      uint32_t any = 0;
      for (uint32_t i = 0; i < kGroup; ++i) {
        const uint32_t d = static_cast<uint32_t>(qg[i]) - static_cast<uint32_t>(qg[static_cast<int>(i) - 1]);
        const uint32_t s = 0u - (d >> 31);
        m[i] = (d ^ s) - s;
        sb[i] = static_cast<uint8_t>(d >> 31);
        any |= m[i];
      }
      const uint32_t w = width_of(any);
      widths[gb / kGroup] = static_cast<uint8_t>(w);
      if (w == 0) {
        ++o.zero_groups;
        continue;
      }
      uint64_t u[4];
      std::memcpy(u, sb, kGroup);
      const uint32_t sign = pack32(u, 0);
      std::memcpy(out, &sign, 4);
      uint8_t* pl = out + 4;
      for (uint32_t s = 0; 8 * s < w; ++s) {
        alignas(16) uint8_t bs[kGroup];
        for (uint32_t i = 0; i < kGroup; ++i) bs[i] = static_cast<uint8_t>(m[i] >> (8 * s));
        std::memcpy(u, bs, kGroup);
        const uint32_t cnt = std::min<uint32_t>(8, w - 8 * s);
        for (uint32_t k = 0; k < cnt; ++k) {
          const uint32_t word = pack32(u, k);
          std::memcpy(pl + 4 * (8 * s + k), &word, 4);
        }
      }
      out += group_bytes(w);
    }
    q[-1] = q[clen - 1];
  }
  end_layer(out, o);
}

template <class T>
void decode_layer_portable(const Sections& s, uint64_t n, uint64_t l, const uint8_t* pp, const Quant<T>& p, T* ol) {
  const uint64_t base = l * kLayer;
  const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(kLayer, n - base));
  int32_t acc;
  std::memcpy(&acc, s.initial.data() + 4 * l, 4);
  const T e2 = p.ebx2;
  for (uint32_t g = 0; g * kGroup < len; ++g) {
    const uint64_t gb = base + g * kGroup;
    const uint32_t glen = std::min<uint32_t>(kGroup, len - g * kGroup);
    const uint32_t w = s.widths[gb / kGroup];
    T* o = ol + (gb - base);
    if (w == 0) {
      std::fill(o, o + glen, reconstruct(acc, p));
      continue;
    }
    uint32_t sign;
    std::memcpy(&sign, pp, 4);
    const uint8_t* pl = pp + 4;
    pp += group_bytes(w);
    alignas(64) uint32_t m[kGroup] = {};
    for (uint32_t sl = 0; 8 * sl < w; ++sl) {
      const uint32_t cnt = std::min<uint32_t>(8, w - 8 * sl);
      uint64_t u[4] = {0, 0, 0, 0};  // byte slice sl of the magnitudes, top bit first filled
      for (uint32_t k = 0; k < cnt; ++k) {
        uint32_t word;
        std::memcpy(&word, pl + 4 * (8 * sl + k), 4);
        for (int j = 0; j < 4; ++j) u[j] |= unpack8((word >> (8 * j)) & 0xffu) >> (7 - k);
      }
      alignas(16) uint8_t bs[kGroup];
      std::memcpy(bs, u, kGroup);
      for (uint32_t i = 0; i < kGroup; ++i) m[i] |= static_cast<uint32_t>(bs[i]) << (8 * sl);
    }
    uint64_t su[4];
    for (int j = 0; j < 4; ++j) su[j] = unpack8((sign >> (8 * j)) & 0xffu) >> 7;
    alignas(16) uint8_t sb[kGroup];
    std::memcpy(sb, su, kGroup);
    alignas(64) int32_t qa[kGroup];
    for (uint32_t i = 0; i < kGroup; ++i) {
      const uint32_t sg = sb[i];
      qa[i] = static_cast<int32_t>((m[i] ^ (0u - sg)) + sg);  // signed_delta
    }
    for (uint32_t i = 0; i < kGroup; ++i) qa[i] = acc = wrap_add(acc, qa[i]);
    if (glen == kGroup) {
      for (uint32_t i = 0; i < kGroup; ++i) o[i] = static_cast<T>(qa[i]) * e2;
    } else {
      for (uint32_t i = 0; i < glen; ++i) o[i] = static_cast<T>(qa[i]) * e2;
      acc = qa[glen - 1];
    }
  }
}

#if defined(SCIZ_DELTA_AVX2)
// ---- AVX2 build of the layer loops (x86-64, picked at run time; never FMA) ----
//
// Same bytes as the scalar loops above, by the same IEEE operations on 8 (f32) or 4 (f64)
// lanes; the equivalences the vector code relies on, against delta_math.hpp:
//  * prequantize: r = round_even(x * inv) then q = int32(r) when |r| < 2^30, else kExactFill.
//    Here v = x * inv (mulps/mulpd: the same correctly rounded product) and qi = cvtps2dq(v)
//    / cvtpd2dq(v), which rounds by MXCSR.RC, the same current rounding mode rintf/rint use
//    (round-half-even by default), and returns that integer exactly whenever it lies in
//    [-2^31, 2^31); for NaN, +-Inf and |rint(v)| >= 2^31 it returns INT32_MIN. So
//    "|r| < 2^30" <=> -2^30 < qi < 2^30 (INT32_MIN lies outside; NaN/Inf give INT32_MIN and
//    are kExactFill on both sides), and then qi = int32(r) (-0 gives 0 either way).
//  * the bound check within(x, T(q) * T(2eb), ebc): T(q) by cvtdq2ps (rounding by the same
//    mode as static_cast<float>(int32)) or cvtdq2pd (exact), one mulps/mulpd, widening to
//    double (exact), subpd, clearing the sign bit (fabs), and an ordered <= compare (false on
//    NaN, as C's <=): the same operations on the same values.
//  * the chain: a kExactFill slot takes the previous slot's q (fill_or, in ascending order);
//    d = q_i - q_{i-1} (no overflow, |q| < 2^30); magnitude = |d| (vpabsd), sign = the sign
//    bit of d (movmskps); slots past a short group's end repeat its last q (d = 0, as the
//    scalar loop's zeroed magnitudes and sign bits).
//  * planes: byte s of every magnitude is gathered into one 32-byte vector in value order
//    (packs of values < 256 are exact, then a dword permute undoes the lane interleave);
//    movemask_epi8 of that vector, shifted left so bit k sits in each byte's top bit, is
//    the word transpose32 gives for plane 8s + k (bit i = bit 8s + k of magnitude i).
//  * decode: the inverse gather (bit k of plane word into byte i by pshufb + compare), the
//    signed delta as (m ^ s) - s with s = 0 or -1 (0u - m when the sign bit is set: wrap
//    arithmetic mod 2^32, as signed_delta), the chain as a wrapping prefix sum (addition mod
//    2^32 is associative, so the scan equals wrap_add applied in order), and reconstruct as
//    cvtdq2ps/cvtdq2pd then one multiply.

// Quantizes 8 values starting at x into q (kExactFill slots get 0); returns fill bits in the
// low byte and special (any non-kQuantized) bits in the next byte.
__attribute__((target("avx2"))) inline uint32_t quant8(const float* x, const Quant<float>& p, int32_t* q) {
  const __m256 xv = _mm256_loadu_ps(x);
  const __m256i qi = _mm256_cvtps_epi32(_mm256_mul_ps(xv, _mm256_set1_ps(p.inv_ebx2)));
  const __m256i ok = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(kQLimit), qi),
                                      _mm256_cmpgt_epi32(qi, _mm256_set1_epi32(-kQLimit)));
  const __m256i qv = _mm256_and_si256(qi, ok);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), qv);
  const __m256 xr = _mm256_mul_ps(_mm256_cvtepi32_ps(qv), _mm256_set1_ps(p.ebx2));
  const __m256d absmask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  const __m256d eb = _mm256_set1_pd(p.ebc);
  const __m256d d0 = _mm256_and_pd(_mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(xv)),
                                                 _mm256_cvtps_pd(_mm256_castps256_ps128(xr))), absmask);
  const __m256d d1 = _mm256_and_pd(_mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(xv, 1)),
                                                 _mm256_cvtps_pd(_mm256_extractf128_ps(xr, 1))), absmask);
  const uint32_t in = static_cast<uint32_t>(_mm256_movemask_pd(_mm256_cmp_pd(d0, eb, _CMP_LE_OQ))) |
                      static_cast<uint32_t>(_mm256_movemask_pd(_mm256_cmp_pd(d1, eb, _CMP_LE_OQ))) << 4;
  const uint32_t fill = ~static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(ok))) & 0xffu;
  return fill | ((fill | (~in & 0xffu)) << 8);
}

__attribute__((target("avx2"))) inline uint32_t quant4(const double* x, const Quant<double>& p, int32_t* q) {
  const __m256d xv = _mm256_loadu_pd(x);
  const __m128i qi = _mm256_cvtpd_epi32(_mm256_mul_pd(xv, _mm256_set1_pd(p.inv_ebx2)));
  const __m128i ok = _mm_and_si128(_mm_cmpgt_epi32(_mm_set1_epi32(kQLimit), qi),
                                   _mm_cmpgt_epi32(qi, _mm_set1_epi32(-kQLimit)));
  const __m128i qv = _mm_and_si128(qi, ok);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(q), qv);
  const __m256d xr = _mm256_mul_pd(_mm256_cvtepi32_pd(qv), _mm256_set1_pd(p.ebx2));
  const __m256d absmask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  const __m256d d = _mm256_and_pd(_mm256_sub_pd(xv, xr), absmask);
  const uint32_t in = static_cast<uint32_t>(_mm256_movemask_pd(_mm256_cmp_pd(d, _mm256_set1_pd(p.ebc), _CMP_LE_OQ)));
  const uint32_t fill = ~static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(ok))) & 0xfu;
  return fill | ((fill | (~in & 0xfu)) << 8);
}

__attribute__((target("avx2"))) inline uint32_t quant8(const double* x, const Quant<double>& p, int32_t* q) {
  const uint32_t a = quant4(x, p, q), b = quant4(x + 4, p, q + 4);
  return (a & 0xfu) | (b & 0xfu) << 4 | (a & 0xf00u) | (b & 0xf00u) << 4;
}

// Byte s of 32 magnitudes (4 x 8 lanes, each below 2^31) in value order.
__attribute__((target("avx2"))) inline __m256i byte_slice(const __m256i (&m)[4], int s) {
  const __m128i sh = _mm_cvtsi32_si128(8 * s);
  const __m256i ff = _mm256_set1_epi32(0xff);
  const __m256i a0 = _mm256_and_si256(_mm256_srl_epi32(m[0], sh), ff), a1 = _mm256_and_si256(_mm256_srl_epi32(m[1], sh), ff);
  const __m256i a2 = _mm256_and_si256(_mm256_srl_epi32(m[2], sh), ff), a3 = _mm256_and_si256(_mm256_srl_epi32(m[3], sh), ff);
  const __m256i b = _mm256_packus_epi16(_mm256_packus_epi32(a0, a1), _mm256_packus_epi32(a2, a3));
  return _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

template <class T>
__attribute__((target("avx2"))) void encode_layer_avx2(const T* xl, uint64_t n, uint64_t l, const Quant<T>& p,
                                                       uint8_t* widths, int32_t& q0, Local<T>& o) {
  constexpr uint32_t kChunk = kIterGroups * kGroup;  // 1024 values
  const uint64_t base = l * kLayer;
  const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(kLayer, n - base));
  uint8_t* out = begin_layer(xl, p, q0, o);
  alignas(32) int32_t qbuf[8 + kChunk];
  int32_t* const q = qbuf + 8;
  q[-1] = q0;
  uint32_t fillm[kIterGroups], specm[kIterGroups];
  for (uint32_t c0 = 0; c0 < len; c0 += kChunk) {
    const uint32_t clen = std::min(kChunk, len - c0);
    const T* xc = xl + c0;
    const uint32_t ng = (clen + kGroup - 1) / kGroup;
    for (uint32_t g = 0; g < ng; ++g) fillm[g] = specm[g] = 0;
    uint32_t i = 0;
    for (; i + 8 <= clen; i += 8) {
      const uint32_t m = quant8(xc + i, p, q + i);
      fillm[i / 32] |= (m & 0xffu) << (i % 32);
      specm[i / 32] |= (m >> 8) << (i % 32);
    }
    for (; i < clen; ++i) {
      const Kind k = prequantize(xc[i], p, q[i]);
      fillm[i / 32] |= static_cast<uint32_t>(k == Kind::kExactFill) << (i % 32);
      specm[i / 32] |= static_cast<uint32_t>(k != Kind::kQuantized) << (i % 32);
    }
    for (uint32_t g = 0; g < ng; ++g) {
      int32_t* qg = q + g * kGroup;
      const uint32_t glen = std::min<uint32_t>(kGroup, clen - g * kGroup);
      const uint64_t gb = base + c0 + g * kGroup;
      if (specm[g]) [[unlikely]] {
        for (uint32_t f = fillm[g]; f; f &= f - 1) {
          const int j = __builtin_ctz(f);
          qg[j] = fill_or(true, qg[j], qg[j - 1]);
        }
        for (uint32_t sp = specm[g]; sp; sp &= sp - 1) {
          const int j = __builtin_ctz(sp);
          o.ei.push_back(gb + j);
          o.ev.push_back(xl[gb - base + j]);
        }
      }
      for (uint32_t j = glen; j < kGroup; ++j) qg[j] = qg[glen - 1];
      __m256i m[4];
      __m256i any = _mm256_setzero_si256();
      uint32_t sign = 0;
      for (int r = 0; r < 4; ++r) {
        const __m256i d = _mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(qg + 8 * r)),
                                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qg + 8 * r - 1)));
        m[r] = _mm256_abs_epi32(d);
        any = _mm256_or_si256(any, m[r]);
        sign |= static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(d))) << (8 * r);
      }
      __m128i a4 = _mm_or_si128(_mm256_castsi256_si128(any), _mm256_extracti128_si256(any, 1));
      a4 = _mm_or_si128(a4, _mm_shuffle_epi32(a4, 0x4e));
      a4 = _mm_or_si128(a4, _mm_shuffle_epi32(a4, 0xb1));
      const uint32_t w = width_of(static_cast<uint32_t>(_mm_cvtsi128_si32(a4)));
      widths[gb / kGroup] = static_cast<uint8_t>(w);
      if (w == 0) {
        ++o.zero_groups;
        continue;
      }
      std::memcpy(out, &sign, 4);
      uint8_t* pl = out + 4;
      for (uint32_t s = 0; 8 * s < w; ++s) {
        const uint32_t cnt = std::min<uint32_t>(8, w - 8 * s);
        __m256i b = _mm256_sll_epi16(byte_slice(m, static_cast<int>(s)), _mm_cvtsi32_si128(static_cast<int>(8 - cnt)));
        for (uint32_t k = cnt; k-- > 0;) {
          const uint32_t word = static_cast<uint32_t>(_mm256_movemask_epi8(b));
          std::memcpy(pl + 4 * (8 * s + k), &word, 4);
          b = _mm256_add_epi8(b, b);
        }
      }
      out += group_bytes(w);
    }
    q[-1] = q[clen - 1];
  }
  end_layer(out, o);
}

template <class T>
__attribute__((target("avx2"))) void encode_run_avx2(const T* x, uint64_t n, uint64_t row, uint64_t l0, uint64_t l1,
                                                     const Quant<T>& p, uint8_t* widths, int32_t* q0, Local<T>& o) {
  for (uint64_t l = l0; l < l1; ++l) encode_layer_avx2(layer_values(x, n, row, l, o), n, l, p, widths, q0[l], o);
}

// One group's 32 signed deltas from its sign word and w planes, as 4 x 8 lanes.
__attribute__((target("avx2"))) inline void group_deltas(const uint8_t* pp, uint32_t w, __m256i (&d)[4]) {
  uint32_t sign;
  std::memcpy(&sign, pp, 4);
  const uint8_t* pl = pp + 4;
  const __m256i rep = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3,
                                       3, 3, 3, 3, 3);
  const __m256i bitsel = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ULL));
  __m256i m[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  for (uint32_t s = 0; 8 * s < w; ++s) {
    const uint32_t cnt = std::min<uint32_t>(8, w - 8 * s);
    __m256i b = _mm256_setzero_si256();
    for (uint32_t k = cnt; k-- > 0;) {
      int32_t word;
      std::memcpy(&word, pl + 4 * (8 * s + k), 4);
      const __m256i t = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32(word), rep), bitsel);
      b = _mm256_sub_epi8(_mm256_add_epi8(b, b), _mm256_cmpeq_epi8(t, bitsel));
    }
    const __m128i lo = _mm256_castsi256_si128(b), hi = _mm256_extracti128_si256(b, 1);
    const __m128i sh = _mm_cvtsi32_si128(static_cast<int>(8 * s));
    m[0] = _mm256_or_si256(m[0], _mm256_sll_epi32(_mm256_cvtepu8_epi32(lo), sh));
    m[1] = _mm256_or_si256(m[1], _mm256_sll_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(lo, 8)), sh));
    m[2] = _mm256_or_si256(m[2], _mm256_sll_epi32(_mm256_cvtepu8_epi32(hi), sh));
    m[3] = _mm256_or_si256(m[3], _mm256_sll_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(hi, 8)), sh));
  }
  const __m256i sv = _mm256_set1_epi32(static_cast<int32_t>(sign));
  for (int r = 0; r < 4; ++r) {
    const __m256i bit = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_setr_epi32(8 * r, 8 * r + 1, 8 * r + 2, 8 * r + 3,
                                                                                  8 * r + 4, 8 * r + 5, 8 * r + 6, 8 * r + 7));
    const __m256i neg = _mm256_cmpeq_epi32(_mm256_and_si256(sv, bit), bit);
    d[r] = _mm256_sub_epi32(_mm256_xor_si256(m[r], neg), neg);
  }
}

// Inclusive wrapping prefix sum of 8 lanes plus carry (a broadcast vector).
__attribute__((target("avx2"))) inline __m256i scan8(__m256i v, __m256i carry) {
  v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
  v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
  const __m256i t = _mm256_shuffle_epi32(v, 0xff);
  v = _mm256_add_epi32(v, _mm256_permute2x128_si256(t, t, 0x08));
  return _mm256_add_epi32(v, carry);
}

__attribute__((target("avx2"))) inline void store_rec(float* o, __m256i q, const Quant<float>& p) {
  _mm256_storeu_ps(o, _mm256_mul_ps(_mm256_cvtepi32_ps(q), _mm256_set1_ps(p.ebx2)));
}
__attribute__((target("avx2"))) inline void store_rec(double* o, __m256i q, const Quant<double>& p) {
  const __m256d e = _mm256_set1_pd(p.ebx2);
  _mm256_storeu_pd(o, _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(q)), e));
  _mm256_storeu_pd(o + 4, _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(q, 1)), e));
}

template <class T>
__attribute__((target("avx2"))) void decode_layer_avx2(const Sections& s, uint64_t n, uint64_t l, const uint8_t* pp,
                                                       const Quant<T>& p, T* ol) {
  const uint64_t base = l * kLayer;
  const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(kLayer, n - base));
  int32_t acc;
  std::memcpy(&acc, s.initial.data() + 4 * l, 4);
  for (uint32_t g = 0; g * kGroup < len; ++g) {
    const uint64_t gb = base + g * kGroup;
    const uint32_t glen = std::min<uint32_t>(kGroup, len - g * kGroup);
    const uint32_t w = s.widths[gb / kGroup];
    T* o = ol + (gb - base);
    if (w == 0) {
      std::fill(o, o + glen, reconstruct(acc, p));
      continue;
    }
    __m256i d[4];
    group_deltas(pp, w, d);
    pp += group_bytes(w);
    __m256i carry = _mm256_set1_epi32(acc);
    if (glen == kGroup) {
      for (int r = 0; r < 4; ++r) {
        const __m256i v = scan8(d[r], carry);
        store_rec(o + 8 * r, v, p);
        carry = _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7));
      }
    } else {
      alignas(32) T tmp[kGroup];
      for (int r = 0; r < 4; ++r) {
        const __m256i v = scan8(d[r], carry);
        store_rec(tmp + 8 * r, v, p);
        carry = _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7));
      }
      std::memcpy(o, tmp, glen * sizeof(T));
    }
    acc = _mm256_cvtsi256_si32(carry);
  }
}

template <class T>
__attribute__((target("avx2"))) void decode_run_avx2(const Sections& s, uint64_t n, uint64_t l0, uint64_t l1,
                                                     const uint64_t* layer_off, const Quant<T>& p, T* out,
                                                     std::vector<T>& buf) {
  for (uint64_t l = l0; l < l1; ++l) {
    decode_layer_avx2(s, n, l, s.payload.data() + layer_off[l], p, layer_out(out, s.row, l, buf));
    layer_done(out, n, s.row, l, buf);
  }
}
#endif

// SCIZ_DELTA_BASELINE_ISA forces the baseline loops (the tests run both, tests/CMakeLists.txt).
bool use_avx2() {
#if defined(SCIZ_DELTA_AVX2)
  static const bool v = avx2_allowed("SCIZ_DELTA_BASELINE_ISA");
  return v;
#else
  return false;
#endif
}

}  // namespace

template <class T>
Encoded encode_cpu(const T* x, uint64_t n, double eb, Stats* stats, uint64_t row_hint) {
  SCIZ_REQUIRE(std::isfinite(eb) && eb > 0, Status::invalid_argument,
               "delta: error bound " + std::to_string(eb) + " must be finite and positive");
  SCIZ_REQUIRE(n < (uint64_t(1) << 56), Status::invalid_argument, "delta: field of " + std::to_string(n) + " values");
  const Quant<T> p = make_quant<T>(eb);
  const uint64_t L = layer_count(n), G = group_count(n);
  const Chain chain = chain_for(n, row_hint);
  const uint64_t row = chain.row;
  Encoded e;
  e.mode = chain.mode;
  e.row = row;
  e.widths.resize(G);
  std::vector<int32_t> q0(L);
  const int nt = thread_count(L, n * sizeof(T));
  std::vector<Local<T>> loc(nt);
  std::vector<uint64_t> off_pay(nt + 1, 0), off_ex(nt + 1, 0);
  std::vector<uint64_t> exact_idx;
  std::vector<T> exact_val;
  const bool avx2 = use_avx2();
  (void)avx2;

#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const int tid = thread_id(), team = team_size();
    Local<T>& o = loc[tid];
    const auto [l0, l1] = thread_share(L);
    // Room for about 12 bits a value before any regrowth (plus one layer at its largest).
    grow_fresh(o.payload, static_cast<size_t>(std::min<uint64_t>(n, (l1 - l0) * kLayer)) * 3 / 2 + kMaxLayerBytes, 0);
#if defined(SCIZ_DELTA_AVX2)
    if (avx2)
      encode_run_avx2(x, n, row, l0, l1, p, e.widths.data(), q0.data(), o);
    else
#endif
      for (uint64_t l = l0; l < l1; ++l)
        encode_layer_portable(layer_values(x, n, row, l, o), n, l, p, e.widths.data(), q0[l], o);
#pragma omp barrier
#pragma omp single
    {
      for (int t = 0; t < nt; ++t) {
        off_pay[t + 1] = off_pay[t] + loc[t].used;
        off_ex[t + 1] = off_ex[t] + loc[t].ei.size();
      }
      if (team == 1) {  // one thread: its buffer becomes the section (no copy)
        loc[0].payload.resize(loc[0].used);
        e.payload.swap(loc[0].payload);
      } else {
        grow_fresh(e.payload, off_pay[nt], 0);
      }
      exact_idx.resize(off_ex[nt]);
      exact_val.resize(off_ex[nt]);
    }
    if (team > 1 && o.used) std::memcpy(e.payload.data() + off_pay[tid], o.payload.data(), o.used);
    std::copy(o.ei.begin(), o.ei.end(), exact_idx.begin() + off_ex[tid]);
    std::copy(o.ev.begin(), o.ev.end(), exact_val.begin() + off_ex[tid]);
  }
  e.initial.resize(L * 4);
  if (L) std::memcpy(e.initial.data(), q0.data(), L * 4);
  e.exact = write_runs<T>(exact_idx, exact_val);
  if (stats) {
    stats->layers = L;
    stats->groups = G;
    stats->zero_groups = 0;
    for (const auto& o : loc) stats->zero_groups += o.zero_groups;
    stats->exact_values = exact_idx.size();
  }
  return e;
}

void check_layout(uint8_t mode, uint64_t row, uint64_t n, uint64_t widths_bytes, uint64_t initial_bytes) {
  SCIZ_REQUIRE(n < (uint64_t(1) << 56), Status::corrupt_stream, "delta: field of " + std::to_string(n) + " values");
  if (mode == kModeLinear) {
    SCIZ_REQUIRE(row == 0, Status::corrupt_stream, "delta: a linear chain with a row length");
  } else {
    SCIZ_REQUIRE(mode == kModeSerpentine, Status::corrupt_stream, "delta: unknown chain mode " + std::to_string(mode));
    SCIZ_REQUIRE(row >= 2 && row <= kMaxRow && row < n && n % row == 0, Status::corrupt_stream,
                 "delta: serpentine rows of " + std::to_string(row) + " values do not tile a field of " +
                     std::to_string(n));
  }
  const uint64_t L = layer_count(n), G = group_count(n);
  SCIZ_REQUIRE(widths_bytes == G, Status::corrupt_stream,
               "delta: widths section holds " + std::to_string(widths_bytes) + " bytes, the field has " +
                   std::to_string(G) + " groups of 32");
  SCIZ_REQUIRE(initial_bytes == 4 * L, Status::corrupt_stream,
               "delta: initial values section holds " + std::to_string(initial_bytes) + " bytes, expected " +
                   std::to_string(4 * L));
}

template <class T>
Validated<T> validate(const Sections& s, uint64_t n) {
  check_layout(s.mode, s.row, n, s.widths.size(), s.initial.size());
  const uint64_t L = layer_count(n), G = group_count(n);
  Validated<T> v;
  v.layer_off.assign(L + 1, 0);
  for (uint64_t l = 0; l < L; ++l) {
    const uint64_t g1 = std::min<uint64_t>(G, (l + 1) * kLayerGroups);
    uint64_t bytes = 0;
    uint32_t wmax = 0;
    for (uint64_t g = l * kLayerGroups; g < g1; ++g) {
      wmax = std::max<uint32_t>(wmax, s.widths[g]);
      bytes += group_bytes(s.widths[g]);
    }
    if (wmax > kMaxWidth) [[unlikely]] {
      uint64_t g = l * kLayerGroups;
      while (s.widths[g] <= kMaxWidth) ++g;
      fail(Status::corrupt_stream, "delta: group " + std::to_string(g) + " claims width " +
                                       std::to_string(s.widths[g]) + ", more than " + std::to_string(kMaxWidth));
    }
    v.layer_off[l + 1] = v.layer_off[l] + align_layer(bytes);
  }
  SCIZ_REQUIRE(v.layer_off[L] == s.payload.size(), Status::corrupt_stream,
               "delta: payload section holds " + std::to_string(s.payload.size()) + " bytes, the widths call for " +
                   std::to_string(v.layer_off[L]));
  read_runs<T>(s.exact, n, "delta exact values", v.exact_idx, v.exact_val);
  return v;
}

template <class T>
void decode_cpu(const Sections& s, uint64_t n, double eb, T* out) {
  SCIZ_REQUIRE(std::isfinite(eb) && eb > 0, Status::corrupt_stream,
               "delta: error bound " + std::to_string(eb) + " must be finite and positive");
  const Validated<T> v = validate<T>(s, n);
  const Quant<T> p = make_quant<T>(eb);
  const uint64_t L = layer_count(n);
  const int nt = thread_count(L, n * sizeof(T));
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const auto [l0, l1] = thread_share(L);
    std::vector<T> buf;  // serpentine mode: one layer in chain order
#if defined(SCIZ_DELTA_AVX2)
    if (use_avx2()) {
      decode_run_avx2(s, n, l0, l1, v.layer_off.data(), p, out, buf);
    } else
#endif
    {
      for (uint64_t l = l0; l < l1; ++l) {
        decode_layer_portable(s, n, l, s.payload.data() + v.layer_off[l], p, layer_out(out, s.row, l, buf));
        layer_done(out, n, s.row, l, buf);
      }
    }
  }
  // Exact values are listed by chain index.
  if (s.row) {
    for (size_t q = 0; q < v.exact_idx.size(); ++q) out[serp_index(v.exact_idx[q], s.row)] = v.exact_val[q];
  } else {
    for (size_t q = 0; q < v.exact_idx.size(); ++q) out[v.exact_idx[q]] = v.exact_val[q];
  }
}

template Encoded encode_cpu<float>(const float*, uint64_t, double, Stats*, uint64_t);
template Encoded encode_cpu<double>(const double*, uint64_t, double, Stats*, uint64_t);
template Validated<float> validate<float>(const Sections&, uint64_t);
template Validated<double> validate<double>(const Sections&, uint64_t);
template void decode_cpu<float>(const Sections&, uint64_t, double, float*);
template void decode_cpu<double>(const Sections&, uint64_t, double, double*);

}  // namespace sciz::delta
