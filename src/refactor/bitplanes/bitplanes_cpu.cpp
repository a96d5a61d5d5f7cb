// CPU twin of mdr's bitplanes. A word of the register-block layout gathers the 32 values one
// GPU thread would hold; a 32 x 32 bit transpose (bitplanes_math.hpp) turns them into that
// thread's plane words.
#include "refactor/bitplanes/bitplanes.hpp"

#include <algorithm>
#include <cmath>

#include "core/omp_threads.hpp"

namespace sciz::bitplanes {

namespace {

template <class W>
inline constexpr int kHalves = sizeof(W) / 4;  // 32-bit halves of a digit word

// Bytes of work above which a loop gets threads (core/omp_threads.hpp).
inline int threads_for(uint64_t n, uint64_t bytes_per_item) { return thread_count(n, n * bytes_per_item); }

}  // namespace

template <class W>
Level<W> quantize_cpu(const double* c, uint64_t n, int scale, int digits) {
  Level<W> lv;
  double mx = 0;
  const int nt = threads_for(n, 8);
#pragma omp parallel for num_threads(nt) reduction(max : mx) schedule(static) if (nt > 1)
  for (uint64_t i = 0; i < n; ++i) mx = std::max(mx, std::fabs(c[i]));
  lv.max_abs = mx;
  lv.nb.assign(n, 0);
  if (mx == 0) return lv;
  std::frexp(mx, &lv.exponent);  // mx = f 2^e, f in [0.5, 1): mx < 2^e
  uint64_t any = 0;
#pragma omp parallel for num_threads(nt) reduction(| : any) schedule(static) if (nt > 1)
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t nb = to_negabinary(quantize(c[i], lv.exponent, scale), digits);
    lv.nb[i] = static_cast<W>(nb);
    any |= nb;
  }
  lv.top = any ? 64 - __builtin_clzll(any) : 0;
  return lv;
}

template <class W>
std::vector<double> level_errors_cpu(const double* c, const Level<W>& lv, int scale, int digits, int g) {
  const int groups = group_count(lv.top, g);
  std::vector<double> err(groups + 1, 0.0);
  err[0] = lv.max_abs;  // nothing read: c' = 0
  if (groups == 0) return err;
  const uint64_t n = lv.nb.size();
  std::vector<double> mx(groups + 1, 0.0), cap(groups + 1, 0.0);
  for (int t = 1; t <= groups; ++t) cap[t] = saturation(unknown_digits(lv.top, g, t));
  constexpr uint64_t kBlock = 2048;
  const uint64_t blocks = (n + kBlock - 1) / kBlock;
  const int nt = threads_for(blocks, n * 8 * groups / blocks);
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    std::vector<double> loc(groups + 1, 0.0);
    double y[kBlock];
#pragma omp for schedule(static)
    for (uint64_t b = 0; b < blocks; ++b) {
      const uint64_t i0 = b * kBlock, m = std::min(kBlock, n - i0);
      // y and every reconstruction are exact doubles, so |y - recon| rounds at most once.
      for (uint64_t i = 0; i < m; ++i) y[i] = std::ldexp(c[i0 + i], scale - lv.exponent);
      for (int t = 1; t <= groups; ++t) {
        if (loc[t] >= cap[t]) continue;  // this plane count has reached its worst case
        const int k = unknown_digits(lv.top, g, t);
        const uint64_t keep = ~((uint64_t(1) << k) - 1);
        double e = loc[t];
        for (uint64_t i = 0; i < m; ++i) {
          const uint64_t known = static_cast<uint64_t>(lv.nb[i0 + i]) & keep;
          e = std::max(e, std::fabs(y[i] - 0.5 * static_cast<double>(recon_half_units(known, k, digits))));
        }
        loc[t] = e;
      }
    }
#pragma omp critical
    for (int t = 1; t <= groups; ++t) mx[t] = std::max(mx[t], loc[t]);
  }
  for (int t = 1; t <= groups; ++t) err[t] = error_from_units(settle(mx[t], unknown_digits(lv.top, g, t)), lv.exponent, scale);
  return err;
}

template <class W>
std::vector<uint32_t> encode_planes_cpu(const W* nb, uint64_t n, int top) {
  const uint64_t pw = plane_words(n);
  std::vector<uint32_t> out(pw * top);
  const int nt = threads_for(pw, 32 * sizeof(W));
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (uint64_t w = 0; w < pw; ++w) {
    uint32_t half[kHalves<W>][32];
    gather_planes<W>(slot_of(w, n), n, [&](uint64_t i) { return nb[i]; }, half);
    for (int p = 0; p < top; ++p) {
      const int d = top - 1 - p;
      out[p * pw + w] = half[d / 32][d % 32];
    }
  }
  return out;
}

template <class W>
void decode_planes_cpu(const uint32_t* words, uint64_t n, int high, int planes, W* nb) {
  const uint64_t pw = plane_words(n);
  const int nt = threads_for(pw, 32 * sizeof(W));
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (uint64_t w = 0; w < pw; ++w) {
    const WordSlot s = slot_of(w, n);
    uint32_t half[kHalves<W>][32] = {};
    uint32_t any = 0;
    for (int p = 0; p < planes; ++p) {
      const int d = high - p;
      half[d / 32][d % 32] = words[p * pw + w];
      any |= words[p * pw + w];
    }
    if (!any) continue;  // the top planes of a level are mostly zero words
    for (int h = 0; h < kHalves<W>; ++h) transpose32(half[h]);
    for (int j = 0; j < 32; ++j) {
      const uint64_t i = s.first + j * s.threads;
      if (i >= n) break;
      uint64_t v = 0;
      for (int h = 0; h < kHalves<W>; ++h) v |= static_cast<uint64_t>(half[h][j]) << (32 * h);
      nb[i] |= static_cast<W>(v);
    }
  }
}

template <class W>
void reconstruct_cpu(const W* nb, uint64_t n, int unknown, int digits, int exponent, int scale, bool read, double* c) {
  const int nt = threads_for(n, 8);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (uint64_t i = 0; i < n; ++i) c[i] = reconstruct(nb[i], unknown, digits, exponent, scale, read);
}

#define SCIZ_BITPLANES(W)                                                                                  \
  template Level<W> quantize_cpu<W>(const double*, uint64_t, int, int);                                    \
  template std::vector<double> level_errors_cpu<W>(const double*, const Level<W>&, int, int, int);         \
  template std::vector<uint32_t> encode_planes_cpu<W>(const W*, uint64_t, int);                            \
  template void decode_planes_cpu<W>(const uint32_t*, uint64_t, int, int, W*);                             \
  template void reconstruct_cpu<W>(const W*, uint64_t, int, int, int, int, bool, double*);
SCIZ_BITPLANES(uint32_t)
SCIZ_BITPLANES(uint64_t)
#undef SCIZ_BITPLANES

}  // namespace sciz::bitplanes
