// CPU twin of the Lorenzo predictor: loops over tiles, calling lorenzo_math.hpp for every
// decision so its output is bit-identical to the CUDA twin's.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <type_traits>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "core/cpu_features.hpp"
#include "core/omp_threads.hpp"
#include "core/round_cpu.hpp"
#include "predict/lorenzo/lorenzo.hpp"
#include "predict/lorenzo/lorenzo_cpu_ref.hpp"

namespace sciz::lorenzo {

template <class T>
QuantParams<T> make_params(double eb_abs, int32_t radius) {
  QuantParams<T> p;
  p.ebx2 = static_cast<T>(2.0 * eb_abs);
  p.inv_ebx2 = static_cast<T>(1.0 / (2.0 * eb_abs));
  // Hold the bound both as the double the user gave and as T(eb), whichever is tighter, so a
  // check done in either precision passes.
  p.eb_check = std::min(eb_abs, static_cast<double>(static_cast<T>(eb_abs)));
  p.radius = radius;
  return p;
}

namespace {

struct TileBox {  // a tile's origin and its valid extent (edge tiles are partial)
  uint64_t z0, y0, x0;
  uint32_t vz, vy, vx;
};

TileBox tile_box(uint64_t id, const Extent& e, const TileShape& c, const TileGrid& g) {
  const uint64_t ix = id % g.gx, iy = (id / g.gx) % g.gy, iz = id / (g.gx * g.gy);
  TileBox b{iz * c.cz, iy * c.cy, ix * c.cx, 0, 0, 0};
  b.vz = static_cast<uint32_t>(std::min<uint64_t>(c.cz, e.nz - b.z0));
  b.vy = static_cast<uint32_t>(std::min<uint64_t>(c.cy, e.ny - b.y0));
  b.vx = static_cast<uint32_t>(std::min<uint64_t>(c.cx, e.nx - b.x0));
  return b;
}

inline uint64_t linear(const Extent& e, const TileBox& b, uint32_t z, uint32_t y, uint32_t x) {
  return ((b.z0 + z) * e.ny + (b.y0 + y)) * e.nx + (b.x0 + x);
}

template <class T>
struct ThreadOut {
  std::vector<uint64_t> oi, ei;
  std::vector<int32_t> ov;
  std::vector<T> ev;
};
template <class T>
void merge_outs(std::vector<ThreadOut<T>>& outs, Sparse<T>& sp);

}  // namespace

// The per-value loop over lorenzo_math.hpp: the reference that compress_cpu below must match
// (LorenzoCpu tests), and the path for tile shapes the row loops do not take.
template <class T>
void compress_cpu_reference(const T* x, const Extent& e, const TileShape& c, const QuantParams<T>& p,
                            uint16_t* codes, Sparse<T>& sp) {
  const TileGrid g = tile_grid(e, c);
  const int64_t ntiles = static_cast<int64_t>(g.count());
  const int nthreads = thread_count(static_cast<uint64_t>(ntiles), e.count() * sizeof(T));
  std::vector<ThreadOut<T>> outs(nthreads);
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
  {
    ThreadOut<T>& o = outs[thread_id()];
    std::vector<int32_t> d(c.volume());
    std::vector<uint8_t> fill(c.cx);
    // Static schedule: thread t takes a contiguous run of tiles, so concatenating the
    // per-thread lists in thread order keeps outliers in tile-major order.
#pragma omp for schedule(static)
    for (int64_t id = 0; id < ntiles; ++id) {
      const TileBox b = tile_box(static_cast<uint64_t>(id), e, c, g);
      std::fill(d.begin(), d.end(), 0);
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y) {
          int32_t* row = &d[(z * c.cy + y) * c.cx];
          int64_t first_valid = -1;
          for (uint32_t xx = 0; xx < b.vx; ++xx) {
            const uint64_t gi = linear(e, b, z, y, xx);
            const Prequant pq = prequantize(x[gi], p, row[xx]);
            if (pq != Prequant::kQuantized) {
              o.ei.push_back(gi);
              o.ev.push_back(x[gi]);
            }
            fill[xx] = pq == Prequant::kExactFill;
            if (!fill[xx] && first_valid < 0) first_valid = xx;
          }
          int32_t carry = first_valid >= 0 ? row[first_valid] : 0;  // the row fill rule
          for (uint32_t xx = 0; xx < b.vx; ++xx) {
            if (fill[xx])
              row[xx] = carry;
            else
              carry = row[xx];
          }
        }
      auto at = [&](int z, int y, int xx) -> int32_t {
        return (z < 0 || y < 0 || xx < 0) ? 0 : d[(static_cast<uint32_t>(z) * c.cy + y) * c.cx + xx];
      };
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y)
          for (uint32_t xx = 0; xx < b.vx; ++xx) {
            const int32_t dl = delta(at, static_cast<int>(z), static_cast<int>(y), static_cast<int>(xx), e.ndim);
            uint16_t code;
            if (!to_code(dl, p.radius, code)) {
              o.oi.push_back(tile_major_index(static_cast<uint64_t>(id), c, z, y, static_cast<uint32_t>(xx)));
              o.ov.push_back(dl);
            }
            codes[linear(e, b, z, y, xx)] = code;
          }
    }
  }
  merge_outs(outs, sp);
}

namespace {


// Concatenates the per-thread lists in thread order (tile-major outliers) and sorts the
// exactly stored values by field index.
template <class T>
void merge_outs(std::vector<ThreadOut<T>>& outs, Sparse<T>& sp) {
  sp = Sparse<T>{};
  std::vector<std::pair<uint64_t, T>> exact;
  for (auto& o : outs) {
    sp.outlier_idx.insert(sp.outlier_idx.end(), o.oi.begin(), o.oi.end());
    sp.outlier_val.insert(sp.outlier_val.end(), o.ov.begin(), o.ov.end());
    for (size_t i = 0; i < o.ei.size(); ++i) exact.emplace_back(o.ei[i], o.ev[i]);
  }
  std::sort(exact.begin(), exact.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  sp.exact_idx.reserve(exact.size());
  sp.exact_val.reserve(exact.size());
  for (auto& [i, v] : exact) {
    sp.exact_idx.push_back(i);
    sp.exact_val.push_back(v);
  }
}

// ---- Row loops of compress_cpu (plain C++ that compilers auto-vectorize) ----
//
// Same codes and sparse lists as compress_cpu_reference, by these equivalences:
//  * round_even: rint_ne (core/round_cpu.hpp, proved and tested there) equals rint.
//  * prequantize: fill = !(|r| <= 2^27) (NaN included), d = int32(fill ? 0 : r), and the check
//    |double(x) - double(T(d) * ebx2)| <= eb_check: the operations of prequantize() on the same
//    values; a fill's status wins over the check, as prequantize() returns before it.
//  * delta: the rows of d sit in a buffer padded with a zero plane, row and column in front, so
//    the 3-D formula of delta() reads 0 for every negative index. For 2-D fields (tile depth 1)
//    the z - 1 terms read the zero plane and the formula is delta()'s 2-D one; for 1-D (tile
//    1 x 1 x cx) the y - 1 terms vanish too. Integers are exact (|d| <= 2^27, 8 terms < 2^31),
//    so the order of the terms does not matter. Positions outside a partial tile are never
//    read: a valid position only reads positions at or before it in every axis.
//  * to_code: the same comparisons, as a select.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif

// Prequantizes a row of n values into d; st[i] = the Prequant value (0 quantized, 1 keep,
// 2 fill), kept at the width of T so that the loop vectorizes. Returns whether any st != 0.
template <class T>
[[gnu::always_inline]] inline bool quant_row(const T* __restrict x, uint32_t n, const QuantParams<T>& p, int32_t* __restrict d,
               T* __restrict st) {
  const T inv = p.inv_ebx2, e2 = p.ebx2, lim = static_cast<T>(kMaxPrequant);
  const double ebc = p.eb_check;
  T any = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const T xi = x[i];
    const T r = rint_ne(xi * inv);
    const bool ok = fabs_nt(r) <= lim;
    const int32_t di = static_cast<int32_t>(ok ? r : T(0));
    d[i] = di;
    const T rec = static_cast<T>(di) * e2;
    const bool in = fabs_nt(static_cast<double>(xi) - static_cast<double>(rec)) <= ebc;
    const T si = ok ? (in ? T(0) : T(1)) : T(2);
    st[i] = si;
    any = any > si ? any : si;
  }
  return any != T(0);
}

#if defined(__x86_64__) && defined(__GNUC__)
// quant_row for float in AVX2, eight values a step: GCC leaves the loop above scalar for float
// (its float -> double check widens the vectors), and it was 60 % of run_tiles' time on a
// 200 KB cut. The same operations on the same values: rint_ne is rint in round-to-nearest-even
// (round_cpu.hpp), which roundps with _MM_FROUND_TO_NEAREST_INT computes; the select of r or
// +0 by the ok mask, the truncating conversion of an integral value, float products and the
// check's double difference are each the scalar loop's exactly rounded operation; comparisons
// are ordered (false on NaN) as <= is. A separate function, not inlined: its target is AVX2.
// |double(a) - double(b)| <= eb_check, four lanes. A function of its own, not a lambda: clang
// does not give a lambda its enclosing function's target.
__attribute__((target("avx2"))) inline __m256d within4(__m128 a, __m128 b, __m256d abs_mask_d, __m256d ebc) {
  const __m256d diff = _mm256_sub_pd(_mm256_cvtps_pd(a), _mm256_cvtps_pd(b));
  return _mm256_cmp_pd(_mm256_and_pd(diff, abs_mask_d), ebc, _CMP_LE_OQ);
}

__attribute__((target("avx2"))) bool quant_row_avx2(const float* __restrict x, uint32_t n,
                                                    const QuantParams<float>& p, int32_t* __restrict d,
                                                    float* __restrict st) {
  const __m256 inv = _mm256_set1_ps(p.inv_ebx2), e2 = _mm256_set1_ps(p.ebx2);
  const __m256 lim = _mm256_set1_ps(static_cast<float>(kMaxPrequant));
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256d abs_mask_d = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  const __m256d ebc = _mm256_set1_pd(p.eb_check);
  const __m256 one = _mm256_set1_ps(1.f), two = _mm256_set1_ps(2.f);
  __m256 any = _mm256_setzero_ps();
  uint32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 xi = _mm256_loadu_ps(x + i);
    const __m256 r = _mm256_round_ps(_mm256_mul_ps(xi, inv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256 ok = _mm256_cmp_ps(_mm256_and_ps(r, abs_mask), lim, _CMP_LE_OQ);
    const __m256i di = _mm256_cvttps_epi32(_mm256_and_ps(r, ok));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), di);
    const __m256 rec = _mm256_mul_ps(_mm256_cvtepi32_ps(di), e2);
    const __m256d lo = within4(_mm256_castps256_ps128(xi), _mm256_castps256_ps128(rec), abs_mask_d, ebc);
    const __m256d hi = within4(_mm256_extractf128_ps(xi, 1), _mm256_extractf128_ps(rec, 1), abs_mask_d, ebc);
    // The two four-lane 64-bit masks as one eight-lane 32-bit mask, in lane order.
    const __m256i lo32 = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(lo), _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    const __m256i hi32 = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(hi), _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    const __m256 in = _mm256_castsi256_ps(_mm256_blend_epi32(lo32, hi32, 0xF0));
    const __m256 si = _mm256_blendv_ps(two, _mm256_andnot_ps(in, one), ok);
    _mm256_storeu_ps(st + i, si);
    any = _mm256_or_ps(any, si);
  }
  bool tail = false;
  if (i < n) tail = quant_row<float>(x + i, n - i, p, d + i, st + i);
  return tail || _mm256_movemask_ps(_mm256_cmp_ps(any, _mm256_setzero_ps(), _CMP_NEQ_OQ)) != 0;
}
#endif

// Codes of a row: c the row of d, yb / zb / zyb the rows at y - 1, z - 1 and both, each with
// a readable element at index -1. Returns the number of out-of-range residuals.
[[gnu::always_inline]] inline uint32_t code_row(const int32_t* __restrict c, const int32_t* __restrict yb, const int32_t* __restrict zb,
                         const int32_t* __restrict zyb, uint32_t n, int32_t radius, uint16_t* __restrict out) {
  uint32_t bad = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {  // signed: i - 1 is read
    const int32_t dl = c[i] - c[i - 1] - yb[i] - zb[i] + yb[i - 1] + zb[i - 1] + zyb[i] - zyb[i - 1];
    const bool in = dl >= -radius && dl < radius;
    out[i] = static_cast<uint16_t>(in ? dl + radius : radius);
    bad += in ? 0u : 1u;
  }
  return bad;
}
// One thread's tiles [lo, hi) in order; dp and st are its scratch (see compress_cpu).
template <class T>
struct RowCtx {
  const T* x;
  const Extent& e;
  const TileShape& c;
  const TileGrid& g;
  const QuantParams<T>& p;
  uint16_t* codes;
  ThreadOut<T>& o;
  int32_t* dp;
  T* st;
};

template <bool kAvx2, class T>
[[gnu::always_inline]] inline void run_tiles_body(int64_t lo, int64_t hi, const RowCtx<T>& k) {
  const T* x = k.x;
  const Extent& e = k.e;
  const TileShape& c = k.c;
  const QuantParams<T>& p = k.p;
  uint16_t* codes = k.codes;
  ThreadOut<T>& o = k.o;
  int32_t* dp = k.dp;
  T* st = k.st;
  const uint32_t px = c.cx + 1, py = c.cy + 1;  // padded row length and rows per plane
  for (int64_t id = lo; id < hi; ++id) {
    const TileBox b = tile_box(static_cast<uint64_t>(id), e, c, k.g);
    for (uint32_t z = 0; z < b.vz; ++z)
      for (uint32_t y = 0; y < b.vy; ++y) {
        int32_t* row = &dp[((z + 1) * py + y + 1) * px + 1];
        const uint64_t gi0 = linear(e, b, z, y, 0);
        bool special;
#if defined(__x86_64__) && defined(__GNUC__)
        if constexpr (kAvx2 && std::is_same_v<T, float>)
          special = quant_row_avx2(x + gi0, b.vx, p, row, st);
        else
#endif
          special = quant_row(x + gi0, b.vx, p, row, st);
        if (!special) continue;
        int64_t first_valid = -1;
        for (uint32_t xx = 0; xx < b.vx; ++xx) {
          if (st[xx] != T(0)) {
            o.ei.push_back(gi0 + xx);
            o.ev.push_back(x[gi0 + xx]);
          }
          if (st[xx] != T(2) && first_valid < 0) first_valid = xx;
        }
        int32_t carry = first_valid >= 0 ? row[first_valid] : 0;  // the row fill rule
        for (uint32_t xx = 0; xx < b.vx; ++xx) {
          if (st[xx] == T(2))
            row[xx] = carry;
          else
            carry = row[xx];
        }
      }
    for (uint32_t z = 0; z < b.vz; ++z)
      for (uint32_t y = 0; y < b.vy; ++y) {
        const int32_t* row = &dp[((z + 1) * py + y + 1) * px + 1];
        const int32_t* zrow = row - py * px;
        uint16_t* out = codes + linear(e, b, z, y, 0);
        if (!code_row(row, row - px, zrow, zrow - px, b.vx, p.radius, out)) continue;
        const int64_t sx = px;  // signed offsets: negative indices are read
        for (int64_t xx = 0; xx < static_cast<int64_t>(b.vx); ++xx) {
          const int32_t dl = row[xx] - row[xx - 1] - row[xx - sx] - zrow[xx] + row[xx - sx - 1] + zrow[xx - 1] +
                             zrow[xx - sx] - zrow[xx - sx - 1];
          if (!(dl >= -p.radius && dl < p.radius)) {
            o.oi.push_back(tile_major_index(static_cast<uint64_t>(id), c, z, y, static_cast<uint32_t>(xx)));
            o.ov.push_back(dl);
          }
        }
      }
  }
}

// The same loops built for the baseline ISA and for AVX2 (no FMA: -ffp-contract=off, and
// every float operation is the same exactly rounded one), chosen at run time; the bytes are the
// same (both builds run the LorenzoCpu and Golden tests, ctest LorenzoBaselineIsa).
template <class T>
void run_tiles_base(int64_t lo, int64_t hi, const RowCtx<T>& k) {
  run_tiles_body<false>(lo, hi, k);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <class T>
__attribute__((target("avx2"))) void run_tiles_avx2(int64_t lo, int64_t hi, const RowCtx<T>& k) {
  run_tiles_body<true>(lo, hi, k);
}
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

// SCIZ_LORENZO_BASELINE_ISA forces the baseline loops (the tests run both, tests/CMakeLists.txt).
bool use_avx2() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool v = avx2_allowed("SCIZ_LORENZO_BASELINE_ISA");
  return v;
#else
  return false;
#endif
}

}  // namespace

template <class T>
bool prequantize_row(const T* x, uint32_t n, const QuantParams<T>& p, int32_t* d, T* st) {
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (std::is_same_v<T, float>)
    if (use_avx2()) return quant_row_avx2(x, n, p, d, st);
#endif
  return quant_row(x, n, p, d, st);
}

// For the tests: the rounding the row loops use.

template <class T>
void compress_cpu(const T* x, const Extent& e, const TileShape& c, const QuantParams<T>& p, uint16_t* codes,
                  Sparse<T>& sp) {
  if (!((e.ndim >= 3 || c.cz == 1) && (e.ndim >= 2 || c.cy == 1))) return compress_cpu_reference(x, e, c, p, codes, sp);
  const TileGrid g = tile_grid(e, c);
  const int64_t ntiles = static_cast<int64_t>(g.count());
  const int nthreads = thread_count(static_cast<uint64_t>(ntiles), e.count() * sizeof(T));
  std::vector<ThreadOut<T>> outs(nthreads);
  const bool avx2 = use_avx2();
  (void)avx2;
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
  {
    // d with a zero front plane, row and column.
    std::vector<int32_t> dp(static_cast<size_t>(c.cz + 1) * (c.cy + 1) * (c.cx + 1), 0);
    std::vector<T> st(c.cx);
    // Thread t takes a contiguous run of tiles, in thread order, so concatenating the
    // per-thread lists in thread order keeps outliers in tile-major order.
    const Share sh = thread_share(static_cast<uint64_t>(ntiles));
    const int64_t lo = static_cast<int64_t>(sh.lo), hi = static_cast<int64_t>(sh.hi);
    const RowCtx<T> k{x, e, c, g, p, codes, outs[thread_id()], dp.data(), st.data()};
#if defined(__x86_64__) && defined(__GNUC__)
    if (avx2)
      run_tiles_avx2(lo, hi, k);
    else
#endif
      run_tiles_base(lo, hi, k);
  }
  merge_outs(outs, sp);
}

// Per tile: codes -> residuals, outliers added, N-D partial sums one axis at a time (x, then
// y, then z; cuSZ+ IV-B), reconstruct. Row loops (the y and z passes and the conversions
// vectorize); wrap_add is a uint32 add, so any order of lanes gives the same integers.
template <class T>
void decompress_cpu(const uint16_t* codes, const Sparse<T>& sp, const Extent& e, const TileShape& c,
                    const QuantParams<T>& p, T* out) {
  const TileGrid g = tile_grid(e, c);
  const int64_t ntiles = static_cast<int64_t>(g.count());
  const uint32_t V = c.volume();
  const int32_t radius = p.radius;
  const T ebx2 = p.ebx2;
  const int nthreads = thread_count(static_cast<uint64_t>(ntiles), e.count() * sizeof(T));
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
  {
    std::vector<int32_t> qv(V);
    int32_t* q = qv.data();
#pragma omp for schedule(static)
    for (int64_t id = 0; id < ntiles; ++id) {
      const TileBox b = tile_box(static_cast<uint64_t>(id), e, c, g);
      std::fill(qv.begin(), qv.end(), 0);
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y) {
          const uint16_t* cr = codes + linear(e, b, z, y, 0);
          int32_t* row = q + (z * c.cy + y) * c.cx;
          for (uint32_t x = 0; x < b.vx; ++x) row[x] = from_code(cr[x], radius);
        }
      // Fuse outliers into the residuals before reconstruction (cuSZ+ Alg. 1 line 9).
      const uint64_t lo = static_cast<uint64_t>(id) * V;
      auto it = std::lower_bound(sp.outlier_idx.begin(), sp.outlier_idx.end(), lo);
      for (; it != sp.outlier_idx.end() && *it < lo + V; ++it)
        q[*it - lo] = wrap_add(q[*it - lo], sp.outlier_val[it - sp.outlier_idx.begin()]);
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y) {
          int32_t* row = q + (z * c.cy + y) * c.cx;
          for (uint32_t x = 1; x < b.vx; ++x) row[x] = wrap_add(row[x], row[x - 1]);
        }
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 1; y < b.vy; ++y) {
          int32_t* __restrict row = q + (z * c.cy + y) * c.cx;
          const int32_t* __restrict up = row - c.cx;
          for (uint32_t x = 0; x < b.vx; ++x) row[x] = wrap_add(row[x], up[x]);
        }
      for (uint32_t z = 1; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y) {
          int32_t* __restrict row = q + (z * c.cy + y) * c.cx;
          const int32_t* __restrict below = row - c.cy * c.cx;
          for (uint32_t x = 0; x < b.vx; ++x) row[x] = wrap_add(row[x], below[x]);
        }
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y) {
          const int32_t* row = q + (z * c.cy + y) * c.cx;
          T* o = out + linear(e, b, z, y, 0);
          for (uint32_t x = 0; x < b.vx; ++x) o[x] = reconstruct(row[x], ebx2);
        }
    }
  }
  for (size_t i = 0; i < sp.exact_idx.size(); ++i) out[sp.exact_idx[i]] = sp.exact_val[i];
}

#define SCIZ_INSTANTIATE(T)                                                                                   \
  template QuantParams<T> make_params<T>(double, int32_t);                                                    \
  template bool prequantize_row<T>(const T*, uint32_t, const QuantParams<T>&, int32_t*, T*);                  \
  template void compress_cpu<T>(const T*, const Extent&, const TileShape&, const QuantParams<T>&, uint16_t*, \
                                Sparse<T>&);                                                                  \
  template void compress_cpu_reference<T>(const T*, const Extent&, const TileShape&, const QuantParams<T>&,   \
                                          uint16_t*, Sparse<T>&);                                             \
  template void decompress_cpu<T>(const uint16_t*, const Sparse<T>&, const Extent&, const TileShape&,       \
                                  const QuantParams<T>&, T*);
SCIZ_INSTANTIATE(float)
SCIZ_INSTANTIATE(double)
#undef SCIZ_INSTANTIATE

}  // namespace sciz::lorenzo
