#include "refactor/mdr/gap_code.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "core/bit_count.hpp"
#include "core/byteio.hpp"
#include "refactor/mdr/hybrid.hpp"

namespace sciz::mdr {

namespace {

// Runs of kEscape or more parameter steps are sent as their bit width and bits: a run across
// a region with no ones costs ~kEscape + 6 + log2(run) bits instead of a unary code as long
// as the run over 2^k.
constexpr uint64_t kEscape = 20;
constexpr int kMaxK = 62;
// How many recent runs the mean follows (the window's choice is the parameter byte's top two
// bits): short windows follow clusters of ones, long ones a stream whose ones are spread
// evenly. The encoder sizes all four and keeps the smallest.
constexpr std::array<uint64_t, 4> kWindows = {4, 16, 64, 512};

// The adaptive Rice parameter: the smallest k with N 2^k >= A (A the sum of the recent runs,
// N their count), as in JPEG-LS. Halving both every `window` runs forgets the old ones.
struct RunModel {
  uint64_t a, n = 1, window;
  RunModel(int k0, uint64_t w) : a(uint64_t(1) << k0), window(w) {}
  // The smallest k <= kMaxK with n 2^k >= a, from the operands' bit widths: n 2^k is as wide
  // as a at k = width(a) - width(n), and not below it one step later.
  int k() const {
    const int wa = 64 - __builtin_clzll(a | 1), wn = 64 - __builtin_clzll(n);
    int k = wa > wn ? wa - wn : 0;
    if ((n << k) < a) ++k;
    return k < kMaxK ? k : kMaxK;
  }
  void update(uint64_t run) {
    a += run;
    if (++n >= window) a = (a + 1) >> 1, n >>= 1;
  }
};

int width(uint64_t v) { return 64 - __builtin_clzll(v); }  // v > 0

uint64_t code_bits(uint64_t run, int k) {
  const uint64_t q = run >> k;
  return q < kEscape ? q + 1 + k : kEscape + 6 + (width(run) - 1);
}

// Calls f(run) for the zero run before each one, in stream order.
template <class F>
inline void for_each_run(std::span<const uint8_t> raw, F&& f) {
  uint64_t next = 0;  // the first bit after the last one
  for (uint64_t at = 0; at < raw.size(); at += 8) {
    uint64_t w = 0;
    std::memcpy(&w, raw.data() + at, std::min<uint64_t>(8, raw.size() - at));
    while (w) {
      const uint64_t p = at * 8 + static_cast<uint64_t>(__builtin_ctzll(w));
      f(p - next);
      next = p + 1;
      w &= w - 1;
    }
  }
}


// The start parameter: the mean run, which the model then follows.
int first_k(uint64_t ones, uint64_t bits) {
  const uint64_t mean = bits / (ones + 1);
  return mean ? std::min(width(mean) - 1, kMaxK) : 0;
}

using WindowBits = std::array<uint64_t, kWindows.size()>;
static_assert(kWindows.size() == 4);

// Every window sized in one walk over the runs (the walk, not the arithmetic, is what costs).
WindowBits window_bits_scalar(std::span<const uint8_t> raw, int k0) {
  std::array<RunModel, kWindows.size()> m{RunModel(k0, kWindows[0]), RunModel(k0, kWindows[1]),
                                          RunModel(k0, kWindows[2]), RunModel(k0, kWindows[3])};
  WindowBits bits{};
  for_each_run(raw, [&](uint64_t r) {
    for (size_t w = 0; w < kWindows.size(); ++w) {
      bits[w] += code_bits(r, m[w].k());
      m[w].update(r);
    }
  });
  return bits;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define SCIZ_GAPS_AVX2 1
// The four windows' models side by side in one 256-bit register, one lane each: the same
// integers as RunModel, about a fifth of the instructions. Widths come from the exponent of
// the value as a double (exact below 2^52; AVX2 has no leading-zero count), so the caller
// keeps every sum of runs below that (window_bits).
[[gnu::target("avx2")]] inline __m256i widths_avx2(__m256i x) {
  const __m256i magic = _mm256_set1_epi64x(0x4330000000000000ll);  // 2^52 as a double
  const __m256d d = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, magic)), _mm256_castsi256_pd(magic));
  return _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(d), 52), _mm256_set1_epi64x(1022));
}

[[gnu::target("avx2")]] WindowBits window_bits_avx2(std::span<const uint8_t> raw, int k0) {
  __m256i a = _mm256_set1_epi64x(static_cast<long long>(uint64_t(1) << k0)), n = _mm256_set1_epi64x(1);
  __m256i bits = _mm256_setzero_si256();
  const __m256i last = _mm256_set_epi64x(static_cast<long long>(kWindows[3] - 1), static_cast<long long>(kWindows[2] - 1),
                                         static_cast<long long>(kWindows[1] - 1), static_cast<long long>(kWindows[0] - 1));
  const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256();
  const __m256i below_escape = _mm256_set1_epi64x(static_cast<long long>(kEscape - 1));
  // for_each_run's walk written out: a lambda's body would not be compiled for AVX2.
  uint64_t next = 0;
  for (uint64_t at = 0; at < raw.size(); at += 8) {
    uint64_t word = 0;
    std::memcpy(&word, raw.data() + at, std::min<uint64_t>(8, raw.size() - at));
    for (; word; word &= word - 1) {
      const uint64_t p = at * 8 + static_cast<uint64_t>(__builtin_ctzll(word)), r = p - next;
      next = p + 1;
      // k: the smallest with n 2^k >= a, from the widths, then one step up where short.
      __m256i k = _mm256_sub_epi64(widths_avx2(_mm256_or_si256(a, one)), widths_avx2(n));
      k = _mm256_andnot_si256(_mm256_cmpgt_epi64(zero, k), k);
      k = _mm256_sub_epi64(k, _mm256_cmpgt_epi64(a, _mm256_sllv_epi64(n, k)));
      const __m256i rv = _mm256_set1_epi64x(static_cast<long long>(r));
      const __m256i q = _mm256_srlv_epi64(rv, k);
      const __m256i rice = _mm256_add_epi64(_mm256_add_epi64(q, one), k);
      const __m256i escape = _mm256_set1_epi64x(static_cast<long long>(r < kEscape ? 0 : code_bits(r, 0)));
      bits = _mm256_add_epi64(bits, _mm256_blendv_epi8(rice, escape, _mm256_cmpgt_epi64(q, below_escape)));
      // update: the run added; every `window` runs both halved.
      a = _mm256_add_epi64(a, rv);
      n = _mm256_add_epi64(n, one);
      const __m256i full = _mm256_cmpgt_epi64(n, last);
      a = _mm256_blendv_epi8(a, _mm256_srli_epi64(_mm256_add_epi64(a, one), 1), full);
      n = _mm256_blendv_epi8(n, _mm256_srli_epi64(n, 1), full);
    }
  }
  WindowBits out;
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.data()), bits);
  return out;
}
#endif

// The four windows' sizes in bits. The vector path needs every model's sum below 2^52: it
// is at most the start plus `window` runs of the stream's length, halved as it goes.
WindowBits window_bits(std::span<const uint8_t> raw, int k0, bool portable) {
#if defined(SCIZ_GAPS_AVX2)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  const uint64_t bits = raw.size() * 8;
  if (!portable && avx2 && k0 < 50 && bits < (uint64_t(1) << 40)) return window_bits_avx2(raw, k0);
#endif
  (void)portable;
  return window_bits_scalar(raw, k0);
}

struct BitSink {
  std::vector<uint8_t>& out;
  uint64_t acc = 0;
  int fill = 0;
  void put(uint64_t v, int k) {  // k <= 32
    acc |= (v & ((uint64_t(1) << k) - 1)) << fill;
    fill += k;
    while (fill >= 8) out.push_back(static_cast<uint8_t>(acc)), acc >>= 8, fill -= 8;
  }
  void put_wide(uint64_t v, int k) {  // k <= 64
    for (; k > 32; k -= 32, v >>= 32) put(v, 32);
    put(v, k);
  }
  void ones(uint64_t q) {
    for (; q >= 32; q -= 32) put(~uint64_t(0), 32);
    put(~uint64_t(0), static_cast<int>(q));
  }
  void flush() {
    if (fill) out.push_back(static_cast<uint8_t>(acc));
    acc = 0, fill = 0;
  }
};

struct BitSource {
  const uint8_t* p;
  uint64_t size_bits, at = 0;
  const std::string& what;
  [[noreturn]] void past_end() const {
    fail(Status::corrupt_stream, what + ": gap-coded stream ends inside a code (" + std::to_string(size_bits) + " bits)");
  }
  unsigned bit() {
    if (at >= size_bits) past_end();
    const unsigned b = (p[at >> 3] >> (at & 7)) & 1u;
    ++at;
    return b;
  }
  uint64_t get(int k) {  // k <= 64
    if (static_cast<uint64_t>(k) > size_bits - at) past_end();
    uint64_t v = 0;
    for (int i = 0; i < k; ++i) v |= static_cast<uint64_t>((p[(at + i) >> 3] >> ((at + i) & 7)) & 1u) << i;
    at += k;
    return v;
  }
};

}  // namespace

GapPlan plan_gaps(std::span<const uint8_t> raw, bool portable) {
  GapPlan p;
  p.ones = set_bits_in(raw);
  p.k0 = first_k(p.ones, raw.size() * 8);
  const WindowBits bits = window_bits(raw, p.k0, portable);
  uint64_t best = ~uint64_t(0);
  for (int w = 0; w < static_cast<int>(kWindows.size()); ++w)
    if (bits[w] < best) best = bits[w], p.window = w;
  p.bytes = 2 + varint_bytes(p.ones) + (best + 7) / 8;
  return p;
}

uint64_t gap_segment_bytes(std::span<const uint8_t> raw) { return plan_gaps(raw).bytes; }

std::vector<uint8_t> encode_gaps(std::span<const uint8_t> raw) { return write_gaps(raw, plan_gaps(raw)); }

std::vector<uint8_t> write_gaps(std::span<const uint8_t> raw, const GapPlan& p) {
  ByteWriter w;
  w.put<uint8_t>(static_cast<uint8_t>(Coding::gaps));
  w.put<uint8_t>(static_cast<uint8_t>(p.window << 6 | p.k0));
  put_varint(w, p.ones);
  std::vector<uint8_t> out = std::move(w.buffer());
  out.reserve(p.bytes);
  BitSink s{out};
  RunModel m(p.k0, kWindows[p.window]);
  for_each_run(raw, [&](uint64_t r) {
    const int k = m.k();
    const uint64_t q = r >> k;
    if (q < kEscape) {
      s.ones(q);
      s.put(0, 1);
      s.put_wide(r, k);
    } else {
      s.ones(kEscape);
      s.put(static_cast<uint64_t>(width(r) - 1), 6);
      s.put_wide(r, width(r) - 1);  // below the leading one
    }
    m.update(r);
  });
  s.flush();
  return out;
}

std::vector<uint8_t> decode_gaps(std::span<const uint8_t> seg, uint64_t raw_bytes, const std::string& what) {
  SCIZ_REQUIRE(!seg.empty() && seg[0] == static_cast<uint8_t>(Coding::gaps), Status::internal,
               what + ": not a gap-coded segment");
  ByteReader r(seg.data() + 1, seg.size() - 1, what + " (gap coding)");
  const uint8_t param = r.get<uint8_t>("gap parameter");
  const int k0 = param & 63;
  SCIZ_REQUIRE(k0 <= kMaxK, Status::corrupt_stream, what + ": gap start parameter " + std::to_string(k0));
  const uint64_t ones = get_varint(r, "gap count");
  const uint64_t total = raw_bytes * 8;
  SCIZ_REQUIRE(raw_bytes <= (~uint64_t(0) >> 3) && ones <= total, Status::corrupt_stream,
               what + ": " + std::to_string(ones) + " ones in " + std::to_string(raw_bytes) + " bytes");
  const uint64_t payload = r.remaining();
  BitSource src{seg.data() + 1 + r.pos(), payload * 8, 0, what};
  std::vector<uint8_t> out(raw_bytes, 0);
  RunModel m(k0, kWindows[param >> 6]);
  uint64_t next = 0;
  for (uint64_t i = 0; i < ones; ++i) {
    const int k = m.k();
    uint64_t q = 0;
    while (q < kEscape && src.bit()) ++q;
    uint64_t run;
    if (q < kEscape) {
      SCIZ_REQUIRE(k == 0 || q <= (~uint64_t(0) >> k), Status::corrupt_stream, what + ": gap code out of range");
      run = (q << k) | src.get(k);
    } else {
      const int wd = static_cast<int>(src.get(6)) + 1;
      run = (uint64_t(1) << (wd - 1)) | src.get(wd - 1);
    }
    SCIZ_REQUIRE(run < total - next, Status::corrupt_stream,
                 what + ": a zero run of " + std::to_string(run) + " from bit " + std::to_string(next) + " passes the " +
                     std::to_string(total) + "-bit stream's end");
    const uint64_t p = next + run;
    out[p >> 3] |= static_cast<uint8_t>(1u << (p & 7));
    next = p + 1;
    m.update(run);
  }
  SCIZ_REQUIRE((src.at + 7) / 8 == payload && src.get(static_cast<int>(src.size_bits - src.at)) == 0,
               Status::corrupt_stream,
               what + ": gap-coded stream of " + std::to_string(payload) + " bytes, its codes end at bit " +
                   std::to_string(src.at));
  return out;
}

}  // namespace sciz::mdr
