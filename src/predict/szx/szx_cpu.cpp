// CPU twin of SZx: loops over blocks, calling szx_math.hpp for every decision so that its
// bytes are the ones a CUDA twin computes. Threads take contiguous runs of blocks and write
// their own buffers, which are then concatenated in block order (so the stream does not
// depend on the thread count).
#include <sciz/error.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/cpu_features.hpp"
#include "core/exact_runs.hpp"
#include "core/host_memory.hpp"
#include "core/omp_threads.hpp"
#include "predict/szx/szx.hpp"

namespace sciz::szx {

std::vector<uint8_t> write_params(const Params& p) {
  SCIZ_REQUIRE(valid_block(p.block), Status::invalid_argument,
               "szx: block size " + std::to_string(p.block) + " is not a multiple of 32 in 32..4096");
  SCIZ_REQUIRE(p.layout == kLayout1 || p.layout == kLayout2, Status::invalid_argument,
               "szx: unknown layout " + std::to_string(p.layout));
  std::vector<uint8_t> b(p.layout == kLayout1 ? 4 : 8, 0);
  std::memcpy(b.data(), &p.block, 4);
  if (p.layout != kLayout1) b[4] = static_cast<uint8_t>(p.layout);
  return b;
}

Params read_params(std::span<const uint8_t> params) {
  SCIZ_REQUIRE(params.size() == 4 || params.size() == 8, Status::corrupt_stream,
               "szx: params hold " + std::to_string(params.size()) + " bytes, expected 4 or 8");
  Params p;
  std::memcpy(&p.block, params.data(), 4);
  SCIZ_REQUIRE(valid_block(p.block), Status::corrupt_stream,
               "szx: block size " + std::to_string(p.block) + " is not a multiple of 32 in 32..4096");
  p.layout = kLayout1;
  if (params.size() == 8) {
    p.layout = params[4];
    SCIZ_REQUIRE(p.layout == kLayout2 && params[5] == 0 && params[6] == 0 && params[7] == 0, Status::corrupt_stream,
                 "szx: params name layout " + std::to_string(params[4]) + " (with reserved bytes " +
                     std::to_string(params[5] | params[6] << 8 | params[7] << 16) + "), expected layout 2 and 0");
  }
  return p;
}

namespace {

// A growable byte buffer without per-append bookkeeping: reserve() before a block, then
// write through data() + used. When it must grow, it grows to what the rest of the run
// would need at the rate seen so far (one regrowth copy at most on homogeneous data).
struct Buf {
  std::vector<uint8_t> v;
  size_t used = 0;
  uint8_t* reserve(size_t more, uint64_t done, uint64_t left) {
    if (used + more > v.size()) [[unlikely]] {
      const double rate = done ? static_cast<double>(used) / static_cast<double>(done) : 0.0;
      const size_t ahead = std::max(static_cast<size_t>(rate * 1.125 * static_cast<double>(left)), used / 4);
      grow_fresh(v, used + more + ahead + 4096, used);
    }
    return v.data() + used;
  }
};

template <class T>
struct Local {
  Buf codes, mid;
  std::vector<uint16_t> counts;
  std::vector<uint64_t> ei;
  std::vector<T> ev;
};

template <class T>
void push_nonfinite(const T* xb, uint32_t len, uint64_t base, Local<T>& o) {
  for (uint32_t i = 0; i < len; ++i)
    if (!is_finite(xb[i])) {
      o.ei.push_back(base + i);
      o.ev.push_back(xb[i]);
    }
}

// Leading identical bytes of k and prev capped at lcap: leading_bytes() of szx_math.hpp.
// (clz((k ^ prev) | 1) >> 3 counts the top bytes of k ^ prev that are zero, at most W - 1.)
template <class T>
inline uint32_t leading_l(typename Traits<T>::U k, typename Traits<T>::U prev, uint32_t lcap) {
  const uint32_t l = static_cast<uint32_t>(clz((k ^ prev) | 1u)) >> 3;
  return l < lcap ? l : lcap;
}

template <class T>
[[gnu::always_inline]] inline void encode_block(const T* __restrict xb, uint32_t len, uint64_t base, double ebc, int pe,
                                                int layout, uint8_t& kind, T& mu_out, Local<T>& o, uint64_t done,
                                                uint64_t left) {
  using Tr = Traits<T>;
  using U = typename Tr::U;
  using S = std::make_signed_t<U>;
  // Min and max over the finite values, as integer order keys (see order_key): branch-free
  // and vectorizable. Non-finite values take the neutral key of each reduction.
  S kmn = std::numeric_limits<S>::max(), kmx = std::numeric_limits<S>::min();
  uint32_t nfin = 0;
  for (uint32_t i = 0; i < len; ++i) {  // written as masks: GCC vectorizes this form
    U b;
    std::memcpy(&b, xb + i, sizeof(U));
    constexpr U kExp = static_cast<U>(Tr::kExpMax) << Tr::kMantBits;
    const U nf = (b & kExp) == kExp;  // 1 when NaN/Inf
    const S k = static_cast<S>(b ^ (static_cast<U>(static_cast<S>(b) >> (8 * sizeof(U) - 1)) >> 1));
    const S m = -static_cast<S>(nf);
    const S a = (k & ~m) | (std::numeric_limits<S>::max() & m), c = (k & ~m) | (std::numeric_limits<S>::min() & m);
    kmn = a < kmn ? a : kmn;
    kmx = c > kmx ? c : kmx;
    nfin += static_cast<uint32_t>(1 - nf);
  }
  const BlockPlan<T> p =
      plan_block<T>(from_order_key<T>(kmn), from_order_key<T>(kmx), nfin > 0, ebc, pe, layout);
  kind = p.kind;
  mu_out = p.base;
  const T mu = p.base;
  const int nb = p.nb;
  // Layout 2 stores the base in the payload, before the block's mid-bytes.
  // Slack for whole-word stores: the base's word, and 8-byte stores of mid-bytes.
  uint8_t* __restrict mp = o.mid.reserve(static_cast<size_t>(len) * nb + sizeof(U) + 8, done, left);
  if (p.base_bytes) {
    const U w = base_word(mu, p.base_bytes);
    std::memcpy(mp, &w, sizeof(U));
    mp += p.base_bytes;
    o.mid.used += p.base_bytes;
  }
  if (nb == 0) {  // constant block: every finite x is within the bound of the base
    if (nfin < len) push_nonfinite(xb, len, base, o);
    return;
  }
  const int pad = p.pad;
  const U maskR = bits_mask<T>(p.R);
  const uint32_t lcap = static_cast<uint32_t>(leading_cap(nb));
  uint8_t* __restrict cp = o.codes.reserve(code_bytes(len), done, left);

  // Pass 1 (vectorizable): every kept pattern and the bound check of its reconstruction.
  // The check is within() with its compare done on the bit patterns, so that the loop has no
  // mixed-width reduction (which GCC does not vectorize): with a = bits(|d|), d = double(x) -
  // double(x'), and e = bits(ebc) (ebc > 0 finite), !(|d| <= ebc) <=> a > e <=> e - a < 0,
  // since non-negative doubles order as their patterns and a NaN |d| has a above every finite
  // pattern; both lie in [0, 2^63), so e - a cannot overflow. The flag only decides whether
  // the misses are collected (with within() itself) below.
  alignas(64) U kbuf[kMaxBlock + 1];
  kbuf[0] = 0;  // k_{-1} = 0
  U* __restrict ks = kbuf + 1;
  const int64_t ebits = static_cast<int64_t>(to_bits(ebc));
  int64_t missed = 0;  // sign bit: some value outside the bound (rare, NaN/Inf included)
  for (uint32_t i = 0; i < len; ++i) {
    const T xi = xb[i];
    constexpr U kExp = static_cast<U>(Tr::kExpMax) << Tr::kMantBits;
    const T xs = (to_bits(xi) & kExp) != kExp ? xi : mu;  // is_finite: NaN/Inf enter the chain as mu (v = 0)
    const U kt = kept_top<T>(xs - mu, maskR);              // kept_pattern() << pad
    ks[i] = static_cast<U>(kt >> pad);
    const double d = static_cast<double>(xi) - static_cast<double>(mu + from_bits<T>(kt));  // reconstruct()
    missed |= ebits - static_cast<int64_t>(to_bits(d) & ~(uint64_t(1) << 63));
  }
  // Pass 2 (vectorizable): the codes, leading_bytes() of (k_i, k_{i-1}) capped at lcap <= 3,
  // as min(z, 3) = [z >= 1] + [z >= 2] + [z >= 3] for z the leading zero bytes of k_i ^ k_{i-1}
  // (equal to clz(d | 1) >> 3 capped at 3), then capped at lcap.
  alignas(64) uint32_t Ls[kMaxBlock];
  constexpr int kTop = 8 * Tr::kBytes;
  for (uint32_t i = 0; i < len; ++i) {
    const U d = ks[i] ^ kbuf[i];  // kbuf[i] = k_{i-1}
    const uint32_t l = static_cast<uint32_t>((d >> (kTop - 8)) == 0) + static_cast<uint32_t>((d >> (kTop - 16)) == 0) +
                       static_cast<uint32_t>((d >> (kTop - 24)) == 0);
    Ls[i] = l < lcap ? l : lcap;
  }
  // Pass 3 (serial over the mid-byte position): each value's mid-bytes stored as one whole
  // little-endian word (mid_word), advancing by its count.
  size_t pos = 0;
  auto step = [&](uint32_t i) -> uint32_t {
    const uint32_t L = Ls[i];
    const U w = mid_word<T>(ks[i], static_cast<int>(L));
    std::memcpy(mp + pos, &w, sizeof(U));
    pos += static_cast<size_t>(nb) - L;
    return L;
  };
  const uint32_t full = len & ~3u;
  if constexpr (sizeof(U) == 4) {
    // f32: two values per 8-byte store (a mid word holds nb - L <= 4 bytes, zeros after), so
    // half the stores and half the steps of the serial position chain.
    const uint64_t unb = static_cast<uint64_t>(nb);
    for (uint32_t i = 0; i < full; i += 4) {
      const uint32_t L0 = Ls[i], L1 = Ls[i + 1], L2 = Ls[i + 2], L3 = Ls[i + 3];
      const uint64_t c0 = unb - L0, c2 = unb - L2;
      const uint64_t w01 = static_cast<uint64_t>(mid_word<T>(ks[i], static_cast<int>(L0))) |
                           static_cast<uint64_t>(mid_word<T>(ks[i + 1], static_cast<int>(L1))) << (8 * c0);
      const uint64_t w23 = static_cast<uint64_t>(mid_word<T>(ks[i + 2], static_cast<int>(L2))) |
                           static_cast<uint64_t>(mid_word<T>(ks[i + 3], static_cast<int>(L3))) << (8 * c2);
      std::memcpy(mp + pos, &w01, 8);
      pos += c0 + (unb - L1);
      std::memcpy(mp + pos, &w23, 8);
      pos += c2 + (unb - L3);
      cp[i / 4] = static_cast<uint8_t>(L0 | L1 << 2 | L2 << 4 | L3 << 6);
    }
  } else {
    for (uint32_t i = 0; i < full; i += 4) {
      const uint32_t c0 = step(i), c1 = step(i + 1), c2 = step(i + 2), c3 = step(i + 3);
      cp[i / 4] = static_cast<uint8_t>(c0 | c1 << 2 | c2 << 4 | c3 << 6);
    }
  }
  if (full < len) {
    uint32_t byte = 0;
    for (uint32_t i = full; i < len; ++i) byte |= step(i) << (2 * (i - full));
    cp[full / 4] = static_cast<uint8_t>(byte);
  }
  if (missed < 0) [[unlikely]] {
    for (uint32_t i = 0; i < len; ++i) {
      const T xi = xb[i];
      if (!within(xi, reconstruct(mu, ks[i], pad), ebc)) {
        o.ei.push_back(base + i);
        o.ev.push_back(xi);
      }
    }
  }
  o.codes.used += code_bytes(len);
  o.mid.used += pos;
  o.counts.push_back(static_cast<uint16_t>(pos));
}

// What every block of a run shares. mus: layout 1's means section (null for layout 2).
template <class T>
struct Run {
  const T* x;
  uint64_t n;
  uint32_t block;
  double ebc;
  int pe, layout;
  uint8_t* kinds;
  uint8_t* mus;
};

// The blocks [b0, b1) of one thread. Compiled twice: for the baseline ISA and, on x86-64,
// for AVX2 (8 lanes and packed 32-bit min/max for the vectorized passes), picked at run time.
// Both compute the same bytes: the passes use exactly rounded IEEE operations only, and
// neither target enables FMA (contraction is off in any case).
template <class T>
[[gnu::always_inline]] inline void encode_run_impl(const Run<T>& a, uint64_t b0, uint64_t b1, Local<T>& o) {
  constexpr int W = Traits<T>::kBytes;
  for (uint64_t b = b0; b < b1; ++b) {
    const uint64_t base = b * a.block;
    const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(a.block, a.n - base));
    T mu;
    encode_block(a.x + base, len, base, a.ebc, a.pe, a.layout, a.kinds[b], mu, o, b - b0, b1 - b);
    if (a.mus) std::memcpy(a.mus + b * W, &mu, W);
  }
}

template <class T>
void encode_run_base(const Run<T>& a, uint64_t b0, uint64_t b1, Local<T>& o) {
  encode_run_impl(a, b0, b1, o);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define SCIZ_SZX_AVX2 1
template <class T>
__attribute__((target("avx2"))) void encode_run_avx2(const Run<T>& a, uint64_t b0, uint64_t b1, Local<T>& o) {
  encode_run_impl(a, b0, b1, o);
}
#endif

template <class T>
void encode_run(const Run<T>& a, uint64_t b0, uint64_t b1, Local<T>& o) {
#if defined(SCIZ_SZX_AVX2)
  // SCIZ_SZX_BASELINE_ISA forces the baseline build (the tests run both, tests/CMakeLists.txt).
  static const bool avx2 = avx2_allowed("SCIZ_SZX_BASELINE_ISA");
  if (avx2) return encode_run_avx2(a, b0, b1, o);
#endif
  encode_run_base(a, b0, b1, o);
}

// Per code byte: the sum of its four 2-bit codes and the largest of them.
struct CodeTables {
  uint8_t sum[256];
  uint8_t max[256];
};
constexpr CodeTables make_code_tables() {
  CodeTables t{};
  for (int b = 0; b < 256; ++b) {
    int s = 0, m = 0;
    for (int j = 0; j < 4; ++j) {
      const int c = (b >> (2 * j)) & 3;
      s += c;
      m = c > m ? c : m;
    }
    t.sum[b] = static_cast<uint8_t>(s);
    t.max[b] = static_cast<uint8_t>(m);
  }
  return t;
}
constexpr CodeTables kCodeTables = make_code_tables();

}  // namespace

template <class T>
Encoded encode_cpu(const T* x, uint64_t n, double eb, uint32_t block, Stats* stats, int layout) {
  using Tr = Traits<T>;
  constexpr int W = Tr::kBytes;
  SCIZ_REQUIRE(std::isfinite(eb) && eb > 0, Status::invalid_argument,
               "szx: error bound " + std::to_string(eb) + " must be finite and positive");
  SCIZ_REQUIRE(valid_block(block), Status::invalid_argument,
               "szx: block size " + std::to_string(block) + " is not a multiple of 32 in 32..4096");
  SCIZ_REQUIRE(n < (uint64_t(1) << 56), Status::invalid_argument, "szx: field of " + std::to_string(n) + " values");
  SCIZ_REQUIRE(layout == kLayout1 || layout == kLayout2, Status::invalid_argument,
               "szx: unknown layout " + std::to_string(layout));
  const double ebc = eb_check<T>(eb);
  const int pe = eb_exponent(ebc);
  const uint64_t nblocks = (n + block - 1) / block;

  Encoded e;
  e.block = block;
  e.layout = static_cast<uint8_t>(layout);
  e.kinds.resize(nblocks);
  if (layout == kLayout1) e.mus.resize(nblocks * W);
  const int nt = thread_count(nblocks, n * W);
  std::vector<Local<T>> loc(nt);
  std::vector<uint64_t> off_codes(nt + 1, 0), off_mid(nt + 1, 0), off_cnt(nt + 1, 0), off_ex(nt + 1, 0);
  std::vector<uint64_t> exact_idx;
  std::vector<T> exact_val;

#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const int tid = thread_id(), team = team_size();
    Local<T>& o = loc[tid];
    const auto [b0, b1] = thread_share(nblocks);
    grow_fresh(o.codes.v, (b1 - b0) * (block / 4) + 1, 0);
    // A first guess of 1 MiB (fresh zero-filled pages cost time); reserve() then sizes the
    // buffer from the rate seen over the blocks before.
    grow_fresh(o.mid.v, std::min<uint64_t>((b1 - b0) * block * W, 1 << 20) + 64, 0);
    o.counts.reserve(b1 - b0);
    encode_run(Run<T>{x, n, block, ebc, pe, layout, e.kinds.data(), layout == kLayout1 ? e.mus.data() : nullptr}, b0,
               b1, o);
#pragma omp barrier
#pragma omp single
    {
      for (int t = 0; t < nt; ++t) {
        off_codes[t + 1] = off_codes[t] + loc[t].codes.used;
        off_mid[t + 1] = off_mid[t] + loc[t].mid.used;
        off_cnt[t + 1] = off_cnt[t] + loc[t].counts.size();
        off_ex[t + 1] = off_ex[t] + loc[t].ei.size();
      }
      if (team == 1) {  // one thread: its buffers become the sections (no second allocation, no copy)
        e.codes = std::move(loc[0].codes.v);
        e.mid = std::move(loc[0].mid.v);
      }
      grow_fresh(e.codes, off_codes[nt], 0);  // huge pages before the (serial) first touch
      grow_fresh(e.mid, off_mid[nt], 0);
      e.mid_counts.resize(off_cnt[nt] * 2);
      exact_idx.resize(off_ex[nt]);
      exact_val.resize(off_ex[nt]);
    }
    if (team > 1 && o.codes.used) std::memcpy(e.codes.data() + off_codes[tid], o.codes.v.data(), o.codes.used);
    if (team > 1 && o.mid.used) std::memcpy(e.mid.data() + off_mid[tid], o.mid.v.data(), o.mid.used);
    if (!o.counts.empty()) std::memcpy(e.mid_counts.data() + off_cnt[tid] * 2, o.counts.data(), o.counts.size() * 2);
    std::copy(o.ei.begin(), o.ei.end(), exact_idx.begin() + off_ex[tid]);
    std::copy(o.ev.begin(), o.ev.end(), exact_val.begin() + off_ex[tid]);
  }
  e.exact = write_runs<T>(exact_idx, exact_val);
  if (stats) {
    stats->blocks = nblocks;
    stats->constant_blocks = nblocks - e.mid_counts.size() / 2;
    stats->exact_values = exact_idx.size();
  }
  return e;
}

void check_layout(uint32_t block, int layout, uint64_t n, int value_bytes, uint64_t kinds_bytes, uint64_t mus_bytes) {
  SCIZ_REQUIRE(valid_block(block), Status::corrupt_stream,
               "szx: block size " + std::to_string(block) + " is not a multiple of 32 in 32..4096");
  SCIZ_REQUIRE(layout == kLayout1 || layout == kLayout2, Status::corrupt_stream,
               "szx: unknown layout " + std::to_string(layout));
  SCIZ_REQUIRE(n < (uint64_t(1) << 56), Status::corrupt_stream, "szx: field of " + std::to_string(n) + " values");
  const uint64_t nblocks = (n + block - 1) / block;
  SCIZ_REQUIRE(kinds_bytes == nblocks, Status::corrupt_stream,
               "szx: block kinds section holds " + std::to_string(kinds_bytes) + " bytes, the field has " +
                   std::to_string(nblocks) + " blocks");
  const uint64_t mus_expected = layout == kLayout1 ? nblocks * value_bytes : 0;
  SCIZ_REQUIRE(mus_bytes == mus_expected, Status::corrupt_stream,
               "szx: block means section holds " + std::to_string(mus_bytes) + " bytes, expected " +
                   std::to_string(mus_expected));
}

template <class T>
Validated<T> validate(const Sections& s, uint64_t n) {
  using U = typename Traits<T>::U;
  constexpr int W = Traits<T>::kBytes;
  check_layout(s.block, s.layout, n, W, s.kinds.size(), s.mus.size());
  const bool l1 = s.layout == kLayout1;
  const uint32_t B = s.block;
  const uint64_t nblocks = (n + B - 1) / B;
  auto block_len = [&](uint64_t b) { return static_cast<uint32_t>(std::min<uint64_t>(B, n - b * B)); };
  Validated<T> v;
  v.kinds.resize(nblocks);
  uint64_t codes_expected = 0;
  for (uint64_t b = 0; b < nblocks; ++b) {
    const uint8_t k = s.kinds[b];
    SCIZ_REQUIRE(l1 ? k <= W : valid_kind<T>(k), Status::corrupt_stream,
                 "szx: block " + std::to_string(b) + " has kind byte " + std::to_string(k) + ", impossible for " +
                     std::to_string(W) + "-byte values");
    v.kinds[b] = l1 ? kind_of_layout1(k) : k;
    if (kind_bits(v.kinds[b])) {
      v.nc_block.push_back(b);
      codes_expected += code_bytes(block_len(b));
    }
  }
  const uint64_t K = v.nc_block.size();
  SCIZ_REQUIRE(s.mid_counts.size() == 2 * K, Status::corrupt_stream,
               "szx: mid-byte counts section holds " + std::to_string(s.mid_counts.size()) + " bytes for " +
                   std::to_string(K) + " non-constant blocks");
  SCIZ_REQUIRE(s.codes.size() == codes_expected, Status::corrupt_stream,
               "szx: codes section holds " + std::to_string(s.codes.size()) + " bytes, expected " +
                   std::to_string(codes_expected));
  // The payload, block by block: the base's bytes (layout 2), then a non-constant block's
  // mid-bytes; every read is checked against the section before it is made.
  v.base.resize(nblocks);
  v.mid_off.assign(K + 1, 0);
  v.mid_count.resize(K);
  uint64_t pos = 0, j = 0;
  for (uint64_t b = 0; b < nblocks; ++b) {
    if (l1) {
      std::memcpy(&v.base[b], s.mus.data() + b * W, W);
    } else {
      const uint64_t bb = base_bytes<T>(kind_code(v.kinds[b]));
      SCIZ_REQUIRE(pos + bb <= s.mid.size(), Status::corrupt_stream,
                   "szx: the payload section ends inside the base of block " + std::to_string(b));
      U w = 0;
      std::memcpy(&w, s.mid.data() + pos, bb);
      v.base[b] = from_bits<T>(bswap(w));
      pos += bb;
    }
    const int R = kind_bits(v.kinds[b]);
    if (!R) continue;
    uint16_t c;
    std::memcpy(&c, s.mid_counts.data() + 2 * j, 2);
    SCIZ_REQUIRE(c <= static_cast<uint64_t>(block_len(b)) * bytes_of_bits(R), Status::corrupt_stream,
                 "szx: block " + std::to_string(b) + " claims " + std::to_string(c) + " mid-bytes");
    v.mid_off[j] = pos;
    v.mid_count[j] = c;
    pos += c;
    ++j;
  }
  v.mid_off[K] = pos;
  SCIZ_REQUIRE(pos == s.mid.size(), Status::corrupt_stream,
               "szx: payload section holds " + std::to_string(s.mid.size()) + " bytes, the blocks account for " +
                   std::to_string(pos));
  read_runs<T>(s.exact, n, "szx exact values", v.exact_idx, v.exact_val);
  return v;
}

template <class T>
void decode_cpu(const Sections& s, uint64_t n, T* out) {
  using Tr = Traits<T>;
  using U = typename Tr::U;
  constexpr int W = Tr::kBytes;
  const Validated<T> v = validate<T>(s, n);
  const std::vector<uint64_t>& nc_block = v.nc_block;
  const std::vector<uint64_t>& mid_off = v.mid_off;
  const uint32_t B = s.block;
  const uint64_t nblocks = (n + B - 1) / B, K = nc_block.size();
  auto block_len = [&](uint64_t b) { return static_cast<uint32_t>(std::min<uint64_t>(B, n - b * B)); };

  // Each non-constant block's codes must account for its mid-byte count exactly, with no code
  // above min(3, nb) and zero padding: then every mid-byte read stays inside its block.
  std::atomic<int64_t> bad{-1};
  const int nt = thread_count(nblocks, n * W);
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    std::vector<uint8_t> pad_buf(static_cast<size_t>(B) * W + W, 0);
#pragma omp for schedule(static)
    for (int64_t bi = 0; bi < static_cast<int64_t>(nblocks); ++bi) {
      const uint64_t b = static_cast<uint64_t>(bi);
      if (kind_bits(v.kinds[b]) != 0) continue;
      std::fill(out + b * B, out + b * B + block_len(b), v.base[b]);
    }
#pragma omp for schedule(static)
    for (int64_t ji = 0; ji < static_cast<int64_t>(K); ++ji) {
      const uint64_t j = static_cast<uint64_t>(ji);
      const uint64_t b = nc_block[j];
      const uint32_t len = block_len(b);
      const int R = kind_bits(v.kinds[b]), nb = bytes_of_bits(R), pad = pad_bits(R);
      const uint8_t* cp = s.codes.data() + j * (B / 4);
      const uint32_t ncb = code_bytes(len);
      uint32_t sum = 0, mx = 0;
      for (uint32_t q = 0; q < ncb; ++q) {
        sum += kCodeTables.sum[cp[q]];
        mx = std::max<uint32_t>(mx, kCodeTables.max[cp[q]]);
      }
      const bool pad_ok = (len & 3) == 0 || (cp[ncb - 1] >> (2 * (len & 3))) == 0;
      const uint64_t count = v.mid_count[j];
      if (!pad_ok || mx > static_cast<uint32_t>(leading_cap(nb)) ||
          static_cast<uint64_t>(len) * nb - sum != count) {
        int64_t expect = -1;
        bad.compare_exchange_strong(expect, static_cast<int64_t>(b));
        continue;
      }
      const uint8_t* mp = s.mid.data() + mid_off[j];
      if (mid_off[j] + count + W > s.mid.size()) {  // near the end: whole-word loads from a padded copy
        std::fill(pad_buf.begin(), pad_buf.end(), 0);
        if (count) std::memcpy(pad_buf.data(), mp, count);
        mp = pad_buf.data();
      }
      const T mu = v.base[b];
      const U keep = top_mask<T>(nb);
      // merge_pattern() with its two masks per code looked up: hi[L] = top_mask(L), lo[L] =
      // ~top_mask(L) & keep. Pass 1 resolves the chain of kept patterns (serial), pass 2
      // reconstructs (vectorizable).
      const U hi[4] = {top_mask<T>(0), top_mask<T>(1), top_mask<T>(2), top_mask<T>(3)};
      const U lo[4] = {static_cast<U>(~hi[0] & keep), static_cast<U>(~hi[1] & keep), static_cast<U>(~hi[2] & keep),
                       static_cast<U>(~hi[3] & keep)};
      alignas(64) U ks[kMaxBlock];
      U prev = 0;
      size_t pos = 0;
      auto step = [&](uint32_t i, uint32_t L) {
        U w;
        std::memcpy(&w, mp + pos, sizeof(U));
        const U k = (prev & hi[L]) | (static_cast<U>(bswap(w) >> (8 * L)) & lo[L]);
        pos += static_cast<size_t>(nb) - L;
        prev = k;
        ks[i] = k;
      };
      const uint32_t full = len & ~3u;
      for (uint32_t i = 0; i < full; i += 4) {
        const uint32_t c = cp[i >> 2];
        step(i, c & 3);
        step(i + 1, (c >> 2) & 3);
        step(i + 2, (c >> 4) & 3);
        step(i + 3, c >> 6);
      }
      for (uint32_t i = full; i < len; ++i) step(i, static_cast<uint32_t>(code_at(cp[i >> 2], i)));
      T* __restrict ob = out + b * B;
      for (uint32_t i = 0; i < len; ++i) ob[i] = reconstruct(mu, ks[i], pad);
    }
  }
  SCIZ_REQUIRE(bad.load() < 0, Status::corrupt_stream,
               "szx: the leading-byte codes of block " + std::to_string(bad.load()) +
                   " do not match its kept bytes and mid-byte count");
  for (size_t q = 0; q < v.exact_idx.size(); ++q) out[v.exact_idx[q]] = v.exact_val[q];
}

template Encoded encode_cpu<float>(const float*, uint64_t, double, uint32_t, Stats*, int);
template Encoded encode_cpu<double>(const double*, uint64_t, double, uint32_t, Stats*, int);
template Validated<float> validate<float>(const Sections&, uint64_t);
template Validated<double> validate<double>(const Sections&, uint64_t);
template void decode_cpu<float>(const Sections&, uint64_t, float*);
template void decode_cpu<double>(const Sections&, uint64_t, double*);

}  // namespace sciz::szx
