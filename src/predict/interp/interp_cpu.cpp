// CPU twin of the interp predictor: the anchor levels over the anchor grid, then every block
// on its own (OpenMP over blocks). Codes land at closed-form positions and exact values are
// sorted at the end, so the output does not depend on the thread count or schedule.
#include <sciz/error.hpp>

#include <algorithm>
#include <cstdlib>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstring>
#include <memory>
#include <numeric>
#include <string>

#include "core/omp_threads.hpp"
#include "predict/interp/interp.hpp"
#include "predict/interp/interp_rows_avx2.hpp"
#include "predict/interp/interp_walk.hpp"

// Lambdas called per point from the row loops: inlined into them.
#define SCIZ_HOT_LAMBDA __attribute__((always_inline))

namespace sciz::interp {

std::vector<double> level_bounds(double eb, int levels, double alpha, double beta) {
  std::vector<double> out(levels);
  const double cap = beta > 1 ? beta : 1;
  double a = 1;  // alpha^(l-1)
  for (int l = 1; l <= levels; ++l) {
    out[l - 1] = eb / (a < cap ? a : cap);
    if (a < cap) a = a * alpha;
  }
  return out;
}

Layout layout_of(const Extent& e) { return make_layout(e.nz, e.ny, e.nx); }

namespace {

// The anchor grid: the field's points whose coordinates are all multiples of 16.
struct AnchorGrid {
  int64_t n[3];
  int64_t pitch[3];
  uint64_t count() const { return static_cast<uint64_t>(n[0] * n[1] * n[2]); }
};

AnchorGrid anchor_grid(const Layout& L) {
  AnchorGrid a;
  for (int k = 0; k < 3; ++k) a.n[k] = static_cast<int64_t>((L.n[k] - 1) / kAnchorStride + 1);
  a.pitch[2] = 1, a.pitch[1] = a.n[2], a.pitch[0] = a.n[1] * a.n[2];
  return a;
}

inline uint64_t field_index(const Layout& L, uint64_t z, uint64_t y, uint64_t x) { return (z * L.n[1] + y) * L.n[2] + x; }

inline uint64_t anchor_field_index(const Layout& L, const int64_t c[3]) {
  return field_index(L, c[0] * kAnchorStride, c[1] * kAnchorStride, c[2] * kAnchorStride);
}

// What one thread found beside the codes: exact values by field index, outliers by code
// position; merged and sorted at the end, so threads and schedule leave no trace.
template <class T>
struct Sink {
  std::vector<uint64_t> exact_idx;
  std::vector<T> exact_val;
  std::vector<std::pair<uint64_t, int32_t>> outliers;
  void note(uint8_t code, uint64_t field_idx, T x, uint64_t code_pos, int32_t q) {
    if (code == kExactCode) {
      exact_idx.push_back(field_idx);
      exact_val.push_back(x);
    } else if (code == kOutlierCode) {
      outliers.emplace_back(code_pos, q);
    }
  }
};

template <class T>
void merge_sinks(std::vector<Sink<T>>& parts, Sparse<T>& sp) {
  std::vector<std::pair<uint64_t, T>> ex;
  std::vector<std::pair<uint64_t, int32_t>> ol;
  for (auto& p : parts) {
    for (size_t i = 0; i < p.exact_idx.size(); ++i) ex.emplace_back(p.exact_idx[i], p.exact_val[i]);
    ol.insert(ol.end(), p.outliers.begin(), p.outliers.end());
  }
  std::sort(ex.begin(), ex.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::sort(ol.begin(), ol.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  sp.exact_idx.resize(ex.size());
  sp.exact_val.resize(ex.size());
  for (size_t i = 0; i < ex.size(); ++i) sp.exact_idx[i] = ex[i].first, sp.exact_val[i] = ex[i].second;
  sp.outliers.resize(ol.size());
  for (size_t i = 0; i < ol.size(); ++i) sp.outliers[i] = ol[i].second;
}

// Runs the passes of anchor level l over the anchor grid A, calling on_point(off, c, pred, tid)
// for every point whose skip(off) is false, rows spread over threads (points of a pass are
// independent); tid is the index of the thread in this function's team, 0 where one thread
// runs the pass without a region (thread_id() would then be the caller's own team's index).
template <class T, class Skip, class F>
void anchor_level(const AnchorGrid& a, T* A, const Choice& ch, int l, Skip&& skip, F&& on_point) {
  const int64_t s = int64_t{1} << (l - 1 - kBlockLevels);
  const LevelConfig cfg = ch.config[l - 1];
  Pass passes[7];
  const int np = level_passes(cfg.scheme, passes);
  for (int pi = 0; pi < np; ++pi) {
    const PassGrid g = pass_grid(passes[pi], s, a.n);
    if (g.points() == 0) continue;
    const Stencil st = make_stencil(passes[pi].pred, s, a.pitch, cfg.spline, cfg.scheme == kCross);
    const int64_t rows = g.cnt[0] * g.cnt[1];
    const int nt = thread_count(static_cast<uint64_t>(g.points() / 4096 + 1), static_cast<uint64_t>(g.points()) * sizeof(T));
    if (nt == 1) {  // no region: even one that starts no thread allocates and frees a team
      run_rows(A, a.pitch, a.n, g, st, s, 0, rows, 0, g.cnt[2], skip,
               [&](int64_t off, const int64_t* c, T pred) { on_point(off, c, pred, 0); });
      continue;
    }
#pragma omp parallel num_threads(nt)
    {
      const int tid = thread_id();
      auto op = [&, tid](int64_t off, const int64_t* c, T pred) { on_point(off, c, pred, tid); };
      if (rows >= team_size()) {
        const Share sh = thread_share(static_cast<uint64_t>(rows));
        run_rows(A, a.pitch, a.n, g, st, s, static_cast<int64_t>(sh.lo), static_cast<int64_t>(sh.hi), 0, g.cnt[2], skip,
                 op);
      } else {  // few long rows (1-D fields): split each row
        const Share sh = thread_share(static_cast<uint64_t>(g.cnt[2]));
        for (int64_t r = 0; r < rows; ++r)
          run_rows(A, a.pitch, a.n, g, st, s, r, r + 1, static_cast<int64_t>(sh.lo), static_cast<int64_t>(sh.hi), skip,
                   op);
      }
    }
  }
}

inline uint64_t anchor_code_index(const Layout& L, int l, const AnchorGrid& a, const int64_t c[3]) {
  const int64_t s = int64_t{1} << (l - 1 - kBlockLevels);
  uint64_t m[3], i[3];
  for (int k = 0; k < 3; ++k) m[k] = static_cast<uint64_t>((a.n[k] - 1) / s + 1), i[k] = static_cast<uint64_t>(c[k] / s);
  return L.base[l] + level_rank(m, i);
}

// The block levels' rows in AVX2 lanes (interp_rows_avx2.hpp) where the CPU has it;
// SCIZ_INTERP_BASELINE_ISA forces the scalar loops (ctest InterpBaselineIsa runs both).
bool use_lanes() {
#if defined(SCIZ_INTERP_AVX2)
  return lanes_enabled();
#else
  return false;
#endif
}

// Box buffers: kRowPad spare elements on either side for the lanes' reads.
template <class E>
struct PaddedBox {
  std::unique_ptr<E[]> mem = std::make_unique<E[]>(kBoxVolume + 2 * kPad);
  E* get() { return mem.get() + kPad; }
#if defined(SCIZ_INTERP_AVX2)
  static constexpr int64_t kPad = kRowPad;
#else
  static constexpr int64_t kPad = 0;
#endif
};

template <class T>
std::vector<LevelQuant<T>> quants(const Choice& ch) {
  std::vector<LevelQuant<T>> q;
  for (double e : ch.eb) q.push_back(level_quant<T>(e));
  return q;
}

}  // namespace

template <class T>
void compress_cpu(const T* x, const Layout& L, const Choice& ch, double eb, uint8_t* codes, Sparse<T>& sp) {
  const double ebc = eb_check<T>(eb);
  const auto q = quants<T>(ch);
  const AnchorGrid a = anchor_grid(L);
  std::vector<T> A(a.count());
  for (int64_t z = 0; z < a.n[0]; ++z)
    for (int64_t y = 0; y < a.n[1]; ++y)
      for (int64_t xx = 0; xx < a.n[2]; ++xx) {
        const int64_t c[3] = {z, y, xx};
        A[(z * a.n[1] + y) * a.n[2] + xx] = x[anchor_field_index(L, c)];
      }
  std::vector<Sink<T>> parts(thread_count(~uint64_t{0}));
  {  // the root, predicted as 0
    T rec;
    int32_t big = 0;
    const uint64_t pos = L.base[L.levels];
    codes[pos] = quantize<T>(A[0], T(0), q[L.levels - 1], ebc, rec, big);
    parts[0].note(codes[pos], 0, A[0], pos, big);
    A[0] = rec;
  }
  for (int l = L.levels - 1; l > kBlockLevels; --l) {
    anchor_level<T>(a, A.data(), ch, l, NoSkip{}, [&](int64_t off, const int64_t* c, T pred, int tid) {
      T rec;
      int32_t big = 0;
      const uint64_t pos = anchor_code_index(L, l, a, c);
      codes[pos] = quantize<T>(A[off], pred, q[l - 1], ebc, rec, big);
      parts[tid].note(codes[pos], anchor_field_index(L, c), A[off], pos, big);
      A[off] = rec;
    });
  }

  const uint64_t nblocks = L.g[0] * L.g[1] * L.g[2];
  const int nt = thread_count(nblocks, nblocks * kBoxVolume * sizeof(T));
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    PaddedBox<T> box;
    PaddedBox<uint8_t> bcode;
    PaddedBox<int32_t> bq;
    const bool lanes = use_lanes();
    Sink<T>& mine = parts[thread_id()];
#pragma omp for schedule(dynamic, 16)
    for (int64_t id = 0; id < static_cast<int64_t>(nblocks); ++id) {
      const BoxGeom g = box_geom(L, static_cast<uint64_t>(id));
      T* v = box.get();
      for (int64_t z = 0; z < g.w[0]; ++z)
        for (int64_t y = 0; y < g.w[1]; ++y) {
          const T* src = x + field_index(L, g.o[0] + z, g.o[1] + y, g.o[2]);
          T* dst = v + z * kBoxPitch[0] + y * kBoxPitch[1];
          if (g.w[2] == kBox)  // a constant size: vector moves, not a rep movs of a variable length
            std::memcpy(dst, src, kBox * sizeof(T));
          else
            std::memcpy(dst, src, static_cast<size_t>(g.w[2]) * sizeof(T));
        }
      for (int64_t z = 0; z < g.w[0]; z += kAnchorStride)
        for (int64_t y = 0; y < g.w[1]; y += kAnchorStride)
          for (int64_t xx = 0; xx < g.w[2]; xx += kAnchorStride) {
            const int64_t c[3] = {static_cast<int64_t>(g.b[0]) + z / kAnchorStride,
                                  static_cast<int64_t>(g.b[1]) + y / kAnchorStride,
                                  static_cast<int64_t>(g.b[2]) + xx / kAnchorStride};
            v[z * kBoxPitch[0] + y * kBoxPitch[1] + xx] = A[(c[0] * a.n[1] + c[1]) * a.n[2] + c[2]];
          }
      for (int l = kBlockLevels; l >= 1; --l) {
        const int64_t s = int64_t{1} << (l - 1);
        const LevelQuant<T> ql = q[l - 1];
#if defined(SCIZ_INTERP_AVX2)
        if (lanes) {
          avx2::run_level_lanes<T>(v, kBoxPitch, g.w, s, ch.config[l - 1],
                                   avx2::QuantizeRows<T>{v, bcode.get(), bq.get(), ql, ebc});
        } else
#endif
        {
          uint8_t* bc = bcode.get();
          int32_t* bqq = bq.get();
          run_level(v, kBoxPitch, g.w, s, ch.config[l - 1], NoSkip{}, [&](int64_t off, const int64_t*, T pred) SCIZ_HOT_LAMBDA {
            bc[off] = quantize<T>(v[off], pred, ql, ebc, v[off], bqq[off]);
          });
        }
        // walk_owned's order, written out with pointers in locals (as in decompress_cpu).
        const uint64_t start = block_level_start(L, l, g.b);
        uint8_t* dst = codes + start;
        const uint8_t* bc = bcode.get();
        uint64_t k = 0;
        for (int64_t z = 0; z < g.own[0]; z += s)
          for (int64_t y = 0; y < g.own[1]; y += s) {
            const bool zy_coarse = ((z | y) & s) == 0;
            const int64_t x0 = zy_coarse ? s : 0, dx = zy_coarse ? 2 * s : s;
            const int64_t at = z * kBoxPitch[0] + y * kBoxPitch[1];
#if defined(__SSE2__)
            // Level 1's full rows as one vector: 16 codes, or the 8 at odd x of a coarse row
            // (even bytes of the 16 from x = 1); the rare 0 and 255 then take the loop below.
            if (s == 1 && g.own[2] == kAnchorStride) {
              const __m128i zero = _mm_setzero_si128();
              __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bc + at + x0));
              const int64_t cnt = dx == 1 ? 16 : 8;
              if (dx == 1) {
                _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + k), c);
              } else {
                c = _mm_packus_epi16(_mm_and_si128(c, _mm_set1_epi16(0x00FF)), zero);
                _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + k), c);
              }
              const int special = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(c, zero), _mm_cmpeq_epi8(c, _mm_set1_epi8(-1)))) &
                                  (dx == 1 ? 0xFFFF : 0xFF);
              if (!special) {
                k += cnt;
                continue;
              }
            }
#endif
            for (int64_t x = x0; x < g.own[2]; x += dx, ++k) {
              const uint8_t c = bc[at + x];
              dst[k] = c;
              if (c == kExactCode || c == kOutlierCode) [[unlikely]]
                mine.note(c, field_index(L, g.o[0] + z, g.o[1] + y, g.o[2] + x), v[at + x], start + k, bq.get()[at + x]);
            }
          }
      }
    }
  }
  merge_sinks(parts, sp);
}

template <class T>
OutlierRanks check_sparse(const uint8_t* codes, const Layout& L, const Sparse<T>& sp) {
  OutlierRanks r;
  r.before.resize(L.total / 256 + 2);
  uint64_t zeros = 0, outl = 0;
  // Runs of 256 codes, each counted by a loop the compiler vectorizes (the per-code test of
  // a run's start had kept this loop scalar: 6 % of sciz_small_bench interp-tp).
  for (uint64_t b = 0; b * 256 < L.total; ++b) {
    r.before[b] = outl;
    const uint64_t end = std::min<uint64_t>(L.total, b * 256 + 256);
    uint32_t z = 0, o = 0;
    for (uint64_t i = b * 256; i < end; ++i) {
      z += codes[i] == kExactCode;
      o += codes[i] == kOutlierCode;
    }
    zeros += z, outl += o;
  }
  r.before[L.total / 256 + 1] = outl;
  SCIZ_REQUIRE(zeros == sp.exact_idx.size(), Status::corrupt_stream,
               "interp: " + std::to_string(zeros) + " points are marked exact but the exact-values section holds " +
                   std::to_string(sp.exact_idx.size()));
  SCIZ_REQUIRE(outl == sp.outliers.size(), Status::corrupt_stream,
               "interp: " + std::to_string(outl) + " points are marked outliers but the outliers section holds " +
                   std::to_string(sp.outliers.size()));
  for (uint64_t k = 0; k < sp.exact_idx.size(); ++k) {
    const uint64_t i = sp.exact_idx[k];
    const uint64_t c[3] = {i / (L.n[1] * L.n[2]), (i / L.n[2]) % L.n[1], i % L.n[2]};
    SCIZ_REQUIRE(i < L.total && codes[code_index(L, c)] == kExactCode, Status::corrupt_stream,
                 "interp: exact value at index " + std::to_string(i) + " belongs to a point that has a quant code");
  }
  return r;
}

template <class T>
void decompress_cpu(const uint8_t* codes, const Sparse<T>& sp, const OutlierRanks& ranks, const Layout& L,
                    const Choice& ch, T* out) {
  const auto q = quants<T>(ch);
  for (size_t k = 0; k < sp.exact_idx.size(); ++k) out[sp.exact_idx[k]] = sp.exact_val[k];
  // The residual of the point whose code sits at pos (code known not to be exact).
  auto residual = [&](uint64_t pos) {
    const uint8_t c = codes[pos];
    return c == kOutlierCode ? sp.outliers[ranks.rank(codes, pos)] : code_residual(c);
  };
  const AnchorGrid a = anchor_grid(L);
  std::vector<T> A(a.count(), T(0));
  for (size_t k = 0; k < sp.exact_idx.size(); ++k) {  // exactly stored anchors are known up front
    const uint64_t i = sp.exact_idx[k];
    const uint64_t z = i / (L.n[1] * L.n[2]), y = (i / L.n[2]) % L.n[1], x = i % L.n[2];
    if (((z | y | x) & (kAnchorStride - 1)) == 0)
      A[((z / kAnchorStride) * a.n[1] + y / kAnchorStride) * a.n[2] + x / kAnchorStride] = sp.exact_val[k];
  }
  {
    const uint64_t pos = L.base[L.levels];
    if (codes[pos] != kExactCode) A[0] = reconstruct<T>(residual(pos), T(0), q[L.levels - 1]);
  }
  for (int l = L.levels - 1; l > kBlockLevels; --l) {
    anchor_level<T>(
        a, A.data(), ch, l,
        [&](int64_t, const int64_t* c) { return codes[anchor_code_index(L, l, a, c)] == kExactCode; },
        [&](int64_t off, const int64_t* c, T pred, int) {
          A[off] = reconstruct<T>(residual(anchor_code_index(L, l, a, c)), pred, q[l - 1]);
        });
  }
  for (int64_t z = 0; z < a.n[0]; ++z)
    for (int64_t y = 0; y < a.n[1]; ++y)
      for (int64_t xx = 0; xx < a.n[2]; ++xx) {
        const int64_t c[3] = {z, y, xx};
        out[anchor_field_index(L, c)] = A[(z * a.n[1] + y) * a.n[2] + xx];
      }

  const uint64_t nblocks = L.g[0] * L.g[1] * L.g[2];
  const int nt = thread_count(nblocks, nblocks * kBoxVolume * sizeof(T));
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    PaddedBox<T> box;
    PaddedBox<uint8_t> bcode;
    PaddedBox<int32_t> bqbox;
    int32_t* bq = bqbox.get();
    const bool lanes = use_lanes();
    std::vector<int64_t> exact_off;  // box offsets of the exactly stored points
    exact_off.reserve(kBoxVolume);
#pragma omp for schedule(dynamic, 16)
    for (int64_t id = 0; id < static_cast<int64_t>(nblocks); ++id) {
      const BoxGeom g = box_geom(L, static_cast<uint64_t>(id));
      T* v = box.get();
      uint8_t* bc = bcode.get();
      // Codes of the whole box: owned points in section order, far faces from the neighbours.
      // Written out rather than through walk_owned's callback, with pointers in locals: a code
      // byte's store may alias anything, and the callback's captures were read again after
      // each one (the gather was a quarter of the decoder's time on the 200 KB cut). A
      // level's outliers in a block are consecutive in code order, so their ranks are counted
      // from the first one's instead of being looked up per point.
      exact_off.clear();
      for (int l = kBlockLevels; l >= 1; --l) {
        const int64_t s = int64_t{1} << (l - 1);
        const uint64_t start = block_level_start(L, l, g.b);
        const uint8_t* src = codes + start;
        uint64_t k = 0, rank = ~uint64_t{0};
        for (int64_t z = 0; z < g.own[0]; z += s)
          for (int64_t y = 0; y < g.own[1]; y += s) {
            const bool zy_coarse = ((z | y) & s) == 0;
            const int64_t x0 = zy_coarse ? s : 0, dx = zy_coarse ? 2 * s : s;
            const int64_t at = z * kBoxPitch[0] + y * kBoxPitch[1];
            const int64_t cnt = x0 < g.own[2] ? ((g.own[2] - 1 - x0) >> __builtin_ctzll(static_cast<uint64_t>(dx))) + 1 : 0;
            uint8_t* bcr = bc + at + x0;
            int32_t* bqr = bq + at + x0;
            const uint8_t* sr = src + k;
            // Branch-free first (the compiler vectorizes the unit-stride rows), then the rare
            // outliers and exact values of the row, if any.
            bool special = false;
#if defined(__SSE2__)
            if (dx == 1 && cnt == kAnchorStride) {  // a full row of level 1: one vector of codes
              const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sr));
              _mm_storeu_si128(reinterpret_cast<__m128i*>(bcr), c);
              const __m128i zero = _mm_setzero_si128(), centre = _mm_set1_epi32(kCentre);
              const __m128i lo = _mm_unpacklo_epi8(c, zero), hi = _mm_unpackhi_epi8(c, zero);
              _mm_storeu_si128(reinterpret_cast<__m128i*>(bqr), _mm_sub_epi32(_mm_unpacklo_epi16(lo, zero), centre));
              _mm_storeu_si128(reinterpret_cast<__m128i*>(bqr + 4), _mm_sub_epi32(_mm_unpackhi_epi16(lo, zero), centre));
              _mm_storeu_si128(reinterpret_cast<__m128i*>(bqr + 8), _mm_sub_epi32(_mm_unpacklo_epi16(hi, zero), centre));
              _mm_storeu_si128(reinterpret_cast<__m128i*>(bqr + 12), _mm_sub_epi32(_mm_unpackhi_epi16(hi, zero), centre));
              special = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(c, zero), _mm_cmpeq_epi8(c, _mm_set1_epi8(-1)))) != 0;
            } else
#endif
            if (dx == 1) {
              for (int64_t j = 0; j < cnt; ++j) {
                const uint8_t c = sr[j];
                bcr[j] = c;
                bqr[j] = code_residual(c);
                special |= static_cast<uint8_t>(c + 1) <= 1;  // 0 or 255
              }
            } else {
              for (int64_t j = 0; j < cnt; ++j) {
                const uint8_t c = sr[j];
                bcr[j * dx] = c;
                bqr[j * dx] = code_residual(c);
                special |= static_cast<uint8_t>(c + 1) <= 1;
              }
            }
            if (special) [[unlikely]] {
              for (int64_t j = 0; j < cnt; ++j) {
                const uint8_t c = sr[j];
                if (c == kOutlierCode) {
                  if (rank == ~uint64_t{0}) rank = ranks.rank(codes, start + k + j);
                  bqr[j * dx] = sp.outliers[rank++];
                } else if (c == kExactCode) {
                  exact_off.push_back(at + x0 + j * dx);
                }
              }
            }
            k += cnt;
          }
      }
      // A far-face point is an owned point of the neighbour past that face (e: which faces),
      // at the same local coordinates mod 16: its code sits at that block's level start plus its
      // level_rank there (code_index's result, without its per-point block arithmetic).
      struct FarLevel {
        uint64_t start, m[3];
      };
      FarLevel far[8][kBlockLevels];
      for (int e = 1; e < 8; ++e) {
        const int64_t de[3] = {e >> 2 & 1, e >> 1 & 1, e & 1};
        if ((de[0] && g.w[0] < kBox) || (de[1] && g.w[1] < kBox) || (de[2] && g.w[2] < kBox)) continue;
        const uint64_t nb[3] = {g.b[0] + de[0], g.b[1] + de[1], g.b[2] + de[2]};
        for (int l = 1; l <= kBlockLevels; ++l) {
          const uint64_t s = uint64_t{1} << (l - 1);
          far[e][l - 1].start = block_level_start(L, l, nb);
          for (int k = 0; k < 3; ++k) far[e][l - 1].m[k] = (owned(L, k, nb[k]) + s - 1) / s;
        }
      }
      auto far_point = [&](int64_t off, uint64_t pos) SCIZ_HOT_LAMBDA {
        const uint8_t c = codes[pos];
        bc[off] = c;
        if (c != kExactCode) bq[off] = residual(pos);
        else exact_off.push_back(off);
      };
      auto far_pos = [&](int e, const uint64_t lu[3]) SCIZ_HOT_LAMBDA {
        const int l0 = __builtin_ctzll(lu[0] | lu[1] | lu[2]);  // not an anchor: some bit is set
        const FarLevel& f = far[e][l0];
        const uint64_t i[3] = {lu[0] >> l0, lu[1] >> l0, lu[2] >> l0};
        return f.start + level_rank(f.m, i);
      };
      // walk_far's points row by row. Along a row of a z or y face, the points of one level
      // have consecutive ranks in the neighbour's code range (fixed z and y indices), so
      // level_rank is evaluated once per level and row, not per point.
      for (int64_t z = 0; z < g.w[0]; ++z)
        for (int64_t y = 0; y < g.w[1]; ++y) {
          const uint64_t lz = static_cast<uint64_t>(z) & (kAnchorStride - 1), ly = static_cast<uint64_t>(y) & (kAnchorStride - 1);
          const int64_t at = z * kBoxPitch[0] + y * kBoxPitch[1];
          if (z == kAnchorStride || y == kAnchorStride) {
            const int e = (z == kAnchorStride) << 2 | (y == kAnchorStride) << 1;
            uint64_t next[kBlockLevels] = {0, 0, 0, 0};  // 0: not met in this row yet
            const int64_t xend = g.w[2] < kAnchorStride ? g.w[2] : kAnchorStride;
            for (int64_t x = 0; x < xend; ++x) {
              const uint64_t lu[3] = {lz, ly, static_cast<uint64_t>(x)};
              if ((lz | ly | lu[2]) == 0) continue;  // an anchor
              const int l0 = __builtin_ctzll(lz | ly | lu[2]);
              const uint64_t pos = next[l0] ? next[l0] : far_pos(e, lu);
              next[l0] = pos + 1;
              far_point(at + x, pos);
            }
          }
          if (g.w[2] == kBox && (lz | ly) != 0) {  // the x face (its anchors skipped)
            const int e = (z == kAnchorStride) << 2 | (y == kAnchorStride) << 1 | 1;
            const uint64_t lu[3] = {lz, ly, 0};
            far_point(at + kAnchorStride, far_pos(e, lu));
          }
        }
      // Values known before any prediction: anchors (the box's corners) and exactly stored
      // points, from the lists instead of a test of every point of the box.
      for (int64_t z = 0; z < g.w[0]; z += kAnchorStride)
        for (int64_t y = 0; y < g.w[1]; y += kAnchorStride)
          for (int64_t xx = 0; xx < g.w[2]; xx += kAnchorStride)
            v[z * kBoxPitch[0] + y * kBoxPitch[1] + xx] = out[field_index(L, g.o[0] + z, g.o[1] + y, g.o[2] + xx)];
      for (const int64_t off : exact_off) {
        const int64_t z = off / kBoxPitch[0], y = off % kBoxPitch[0] / kBoxPitch[1], xx = off % kBoxPitch[1];
        v[off] = out[field_index(L, g.o[0] + z, g.o[1] + y, g.o[2] + xx)];
      }
      for (int l = kBlockLevels; l >= 1; --l) {
        const int64_t s = int64_t{1} << (l - 1);
        const LevelQuant<T> ql = q[l - 1];
#if defined(SCIZ_INTERP_AVX2)
        if (lanes) {
          avx2::run_level_lanes<T>(v, kBoxPitch, g.w, s, ch.config[l - 1], avx2::ReconstructRows<T>{v, bc, bq, ql, !exact_off.empty()});
          continue;
        }
#endif
        run_level(
            v, kBoxPitch, g.w, s, ch.config[l - 1],
            [&](int64_t off, const int64_t*) SCIZ_HOT_LAMBDA { return bc[off] == kExactCode; },
            [&](int64_t off, const int64_t*, T pred) SCIZ_HOT_LAMBDA { v[off] = reconstruct<T>(bq[off], pred, ql); });
      }
      // The owned points, row by row once all levels are done: the block's anchor (its local
      // origin) and exactly stored points are skipped, as other blocks read them from out.
      // Without exactly stored points a row is one copy.
      const bool any_exact = !exact_off.empty();
      for (int64_t z = 0; z < g.own[0]; ++z)
        for (int64_t y = 0; y < g.own[1]; ++y) {
          T* row = out + field_index(L, g.o[0] + z, g.o[1] + y, g.o[2]);
          const int64_t at = z * kBoxPitch[0] + y * kBoxPitch[1];
          const int64_t x0 = (z | y) == 0 ? 1 : 0;
          if (!any_exact) {
            if (x0 == 0 && g.own[2] == kAnchorStride)  // a constant size: vector moves, no call
              std::memcpy(row, v + at, kAnchorStride * sizeof(T));
            else
              std::memcpy(row + x0, v + at + x0, static_cast<size_t>(g.own[2] - x0) * sizeof(T));
            continue;
          }
          for (int64_t xx = x0; xx < g.own[2]; ++xx)
            if (bc[at + xx] != kExactCode) row[xx] = v[at + xx];
        }
    }
  }
}

std::vector<uint8_t> write_outliers(const std::vector<int32_t>& q) {
  std::vector<uint8_t> out(8);
  const uint64_t n = q.size();
  std::memcpy(out.data(), &n, 8);
  for (int32_t v : q) {
    uint32_t w = outlier_word(v);
    do {
      out.push_back(static_cast<uint8_t>((w & 127u) | (w > 127u ? 128u : 0u)));
      w >>= 7;
    } while (w);
  }
  return out;
}

void read_outliers(std::span<const uint8_t> sec, uint64_t max_count, std::vector<int32_t>& q) {
  SCIZ_REQUIRE(sec.size() >= 8, Status::corrupt_stream, "interp outliers section: shorter than its count");
  uint64_t n;
  std::memcpy(&n, sec.data(), 8);
  // Every outlier takes at least a byte, which caps a hostile count before any allocation.
  SCIZ_REQUIRE(n <= max_count && n <= sec.size() - 8, Status::corrupt_stream,
               "interp outliers section: " + std::to_string(n) + " outliers do not fit");
  q.resize(n);
  size_t at = 8;
  for (uint64_t k = 0; k < n; ++k) {
    uint32_t w = 0;
    for (int shift = 0;; shift += 7) {
      SCIZ_REQUIRE(at < sec.size() && shift <= 28, Status::corrupt_stream,
                   "interp outliers section: outlier " + std::to_string(k) + " is truncated or too long");
      const uint8_t b = sec[at++];
      w |= static_cast<uint32_t>(b & 127u) << shift;
      if (!(b & 128u)) break;
    }
    // The word is checked before it is decoded: a larger one would overflow the decoding.
    SCIZ_REQUIRE(w < 2u * static_cast<uint32_t>(kMaxOutlier), Status::corrupt_stream,
                 "interp outliers section: outlier " + std::to_string(k) + " out of range");
    const int32_t v = outlier_of_word(w);
    SCIZ_REQUIRE((v > kMaxQ || v < kMinQ) && v < kMaxOutlier && v > -kMaxOutlier, Status::corrupt_stream,
                 "interp outliers section: outlier " + std::to_string(k) + " out of range");
    q[k] = v;
  }
  SCIZ_REQUIRE(at == sec.size(), Status::corrupt_stream, "interp outliers section: trailing bytes");
}

#define SCIZ_INTERP_INSTANTIATE(T)                                                                           \
  template void compress_cpu<T>(const T*, const Layout&, const Choice&, double, uint8_t*, Sparse<T>&);        \
  template OutlierRanks check_sparse<T>(const uint8_t*, const Layout&, const Sparse<T>&);                    \
  template void decompress_cpu<T>(const uint8_t*, const Sparse<T>&, const OutlierRanks&, const Layout&, const Choice&, T*);
SCIZ_INTERP_INSTANTIATE(float)
SCIZ_INTERP_INSTANTIATE(double)
#undef SCIZ_INTERP_INSTANTIATE

}  // namespace sciz::interp
