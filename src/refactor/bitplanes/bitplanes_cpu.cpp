// CPU twin of mdr's bitplanes. A word of the register-block layout gathers the 32 values one
// GPU thread would hold; a 32 x 32 bit transpose (bitplanes_math.hpp) turns them into that
// thread's plane words.
#include "refactor/bitplanes/bitplanes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/omp_threads.hpp"

namespace sciz::bitplanes {

namespace {

template <class W>
inline constexpr int kHalves = sizeof(W) / 4;  // 32-bit halves of a digit word

// ldexp(x, s) as a product: with 2^s a normal double, x 2^s rounds once either way (exactly
// where no bits are lost), so the product is ldexp's value, without a libm call a coefficient
// (a twentieth of a refactoring here). Other s keep ldexp.
struct Scaling {
  int s;
  double unit;
  explicit Scaling(int shift) : s(shift), unit(shift >= -1022 && shift <= 1023 ? std::ldexp(1.0, shift) : 0.0) {}
  double operator()(double x) const { return unit != 0.0 ? x * unit : std::ldexp(x, s); }
};

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
  const Scaling to_fixed(scale - lv.exponent);
#pragma omp parallel for num_threads(nt) reduction(| : any) schedule(static) if (nt > 1)
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t nb = to_negabinary(static_cast<int64_t>(rint(to_fixed(c[i]))), digits);  // quantize()
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
  const Scaling to_fixed(scale - lv.exponent);
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    std::vector<double> loc(groups + 1, 0.0);
    double y[kBlock];
#pragma omp for schedule(static)
    for (uint64_t b = 0; b < blocks; ++b) {
      const uint64_t i0 = b * kBlock, m = std::min(kBlock, n - i0);
      // y and every reconstruction are exact doubles, so |y - recon| rounds at most once.
      for (uint64_t i = 0; i < m; ++i) y[i] = to_fixed(c[i0 + i]);
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
void reconstruct_run_cpu(const W* nb, uint64_t n, int unknown, int digits, int exponent, int scale, bool read, double* c) {
  if (!read) {
    std::fill(c, c + n, 0.0);  // reconstruct()'s value without a group read
    return;
  }
  const int k = exponent - scale - 1;
  if (k < -1022 || k > 1023) {
    for (uint64_t i = 0; i < n; ++i) c[i] = reconstruct(nb[i], unknown, digits, exponent, scale, read);
    return;
  }
  // reconstruct() is ldexp(v, k) of an integer v: v 2^k rounded once. With 2^k a normal double
  // the product by it is that same rounding, without a libm call a coefficient.
  const double unit = std::ldexp(1.0, k);
  for (uint64_t i = 0; i < n; ++i) c[i] = static_cast<double>(recon_half_units(nb[i], unknown, digits)) * unit;
}

template <class W>
void reconstruct_cpu(const W* nb, uint64_t n, int unknown, int digits, int exponent, int scale, bool read, double* c) {
  constexpr uint64_t kRun = 4096;
  const uint64_t runs = (n + kRun - 1) / kRun;
  const int nt = thread_count(runs, n * 8);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (uint64_t r = 0; r < runs; ++r) {
    const uint64_t i0 = r * kRun;
    reconstruct_run_cpu(nb + i0, std::min(kRun, n - i0), unknown, digits, exponent, scale, read, c + i0);
  }
}

namespace {

// Region r of plane p to o.
void order_region(const uint32_t* words, uint64_t n, uint64_t p, uint64_t r, uint32_t* o) {
  const uint64_t pw = plane_words(n), full = n / kRegion;
  const uint32_t* in = words + p * pw + 32 * r;
  if (r < full) {
    // Word t of a full region holds coefficient 1024 r + t + 32 j in bit j: the region's 32
    // words are a 32 x 32 bit matrix whose transpose is the coefficient order.
    uint32_t a[32];
    for (int t = 0; t < 32; ++t) a[t] = in[t];
    transpose32(a);
    for (int c = 0; c < 32; ++c) o[c] = a[c];
    return;
  }
  const uint64_t m = n - r * kRegion, threads = (m + 31) / 32;  // the short last region
  for (uint64_t c = 0; c < threads; ++c) o[c] = 0;
  for (uint64_t t = 0; t < threads; ++t)
    for (uint64_t j = 0, i = t; j < 32 && i < m; ++j, i += threads) o[i / 32] |= ((in[t] >> j) & 1u) << (i % 32);
}

}  // namespace

void coefficient_order_cpu(const uint32_t* words, uint64_t n, int planes, uint32_t* out) {
  const uint64_t pw = plane_words(n), regions = (n + kRegion - 1) / kRegion;
  const uint64_t items = regions * static_cast<uint64_t>(planes);
  const int nt = thread_count(items, pw * 4 * planes);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (uint64_t it = 0; it < items; ++it) {
    const uint64_t p = it / regions, r = it % regions;
    order_region(words, n, p, r, out + p * pw + 32 * r);
  }
}

void coefficient_order_regions_cpu(const uint32_t* words, uint64_t n, int planes, uint64_t r0, uint64_t r1,
                                   uint32_t* out, uint64_t stride) {
  for (uint64_t p = 0; p < static_cast<uint64_t>(planes); ++p)
    for (uint64_t r = r0; r < r1; ++r) order_region(words, n, p, r, out + p * stride + 32 * (r - r0));
}

template <class W>
void significance_cpu(const W* nb, uint64_t n, int high, uint32_t* bits) {
  const uint64_t pw = plane_words(n);
  const int nt = threads_for(pw, 32 * sizeof(W));
  const int shift = high + 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (uint64_t w = 0; w < pw; ++w) {
    uint32_t b = 0;
    if (shift < static_cast<int>(8 * sizeof(W))) {
      const uint64_t end = std::min<uint64_t>(n, 32 * w + 32);
      for (uint64_t i = 32 * w; i < end; ++i) b |= static_cast<uint32_t>((nb[i] >> shift) != 0) << (i % 32);
    }
    bits[w] = b;
  }
}

namespace {

// Four u32 words side by side: GCC/Clang vector extensions, SSE2 on baseline x86-64.
using Lanes = uint32_t __attribute__((vector_size(16)));

// transpose32 on four matrices at once, one in each lane.
inline void transpose32x4(Lanes a[32]) {
  uint32_t m = 0x0000FFFFu;
  for (int j = 16; j != 0; j >>= 1, m ^= m << j) {
    const Lanes mm = {m, m, m, m};
    for (int k = 0; k < 32; k = ((k | j) + 1) & ~j) {
      const Lanes t = ((a[k] >> j) ^ a[k | j]) & mm;
      a[k] ^= t << j;
      a[k | j] ^= t;
    }
  }
}

// Words [w0, w0 + count) of the planes (count <= 4) into their coefficients' digits.
template <class W>
void or_words(const uint32_t* bits, uint64_t n, uint64_t pw, int high, int planes, uint64_t w0, int count, W* nb,
              bool fresh) {
  Lanes half[kHalves<W>][32] = {};
  Lanes any = {};
  for (int p = 0; p < planes; ++p) {
    const int d = high - p;
    Lanes x = {};
    std::memcpy(&x, bits + p * pw + w0, 4 * static_cast<size_t>(count));
    half[d / 32][d % 32] = x;
    any |= x;
  }
  const uint64_t first = 32 * w0, last = std::min<uint64_t>(n, 32 * (w0 + count));
  if ((any[0] | any[1] | any[2] | any[3]) == 0) {  // the top planes of a level are mostly zero words
    if (fresh) std::fill(nb + first, nb + last, W(0));
    return;
  }
  // Row d held digit d of 32 coefficients; transposed, row j is coefficient j's digits.
  for (int h = 0; h < kHalves<W>; ++h) transpose32x4(half[h]);
  for (uint64_t i = first; i < last; ++i) {
    const uint64_t lane = (i - first) / 32, j = (i - first) % 32;
    uint64_t v = 0;
    for (int h = 0; h < kHalves<W>; ++h) v |= static_cast<uint64_t>(half[h][j][lane]) << (32 * h);
    nb[i] = static_cast<W>(v) | (fresh ? W(0) : nb[i]);
  }
}

}  // namespace

template <class W>
void or_planes_cpu(const uint32_t* bits, uint64_t n, int high, int planes, W* nb, bool fresh) {
  // Four words at a time: the transposes take a quarter of the instructions.
  const uint64_t pw = plane_words(n), quads = (pw + 3) / 4;
  const int nt = threads_for(quads, 4 * (4 * static_cast<uint64_t>(planes) + 32 * sizeof(W)));
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (uint64_t q = 0; q < quads; ++q)
    or_words(bits, n, pw, high, planes, 4 * q, static_cast<int>(std::min<uint64_t>(4, pw - 4 * q)), nb, fresh);
}

#define SCIZ_BITPLANES(W)                                                                                  \
  template Level<W> quantize_cpu<W>(const double*, uint64_t, int, int);                                    \
  template std::vector<double> level_errors_cpu<W>(const double*, const Level<W>&, int, int, int);         \
  template std::vector<uint32_t> encode_planes_cpu<W>(const W*, uint64_t, int);                            \
  template void decode_planes_cpu<W>(const uint32_t*, uint64_t, int, int, W*);                             \
  template void reconstruct_cpu<W>(const W*, uint64_t, int, int, int, int, bool, double*);                 \
  template void reconstruct_run_cpu<W>(const W*, uint64_t, int, int, int, int, bool, double*);             \
  template void significance_cpu<W>(const W*, uint64_t, int, uint32_t*);                                   \
  template void or_planes_cpu<W>(const uint32_t*, uint64_t, int, int, W*, bool);
SCIZ_BITPLANES(uint32_t)
SCIZ_BITPLANES(uint64_t)
#undef SCIZ_BITPLANES

}  // namespace sciz::bitplanes
