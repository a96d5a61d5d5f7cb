#include "refactor/mdr/split.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/bit_count.hpp"
#include "core/byteio.hpp"
#include "core/omp_threads.hpp"
#include "refactor/bitplanes/bitplanes.hpp"

namespace sciz::mdr {

namespace {

// Appends bit fields to whole u32 words, low bits first. The caller sizes `out` for every
// word the fields fill, plus one.
struct WordSink {
  uint8_t* out;
  uint64_t acc = 0;
  int fill = 0;
  uint64_t bits = 0;
  void put(uint32_t v, int k) {  // v has no bits at or above k
    acc |= static_cast<uint64_t>(v) << fill;
    fill += k;
    bits += static_cast<uint64_t>(k);
    if (fill >= 32) {
      const uint32_t w = static_cast<uint32_t>(acc);
      std::memcpy(out, &w, 4);
      out += 4, acc >>= 32, fill -= 32;
    }
  }
  void flush() {
    if (fill == 0) return;
    const uint32_t w = static_cast<uint32_t>(acc);
    std::memcpy(out, &w, 4);
    out += 4, acc = 0, fill = 0;
  }
};

// extract(src, mask): the bits of src at the set bits of mask, packed low (x86's PEXT, which
// the baseline target lacks). A table a mask byte, as DepositTable below.
struct ExtractTable {
  uint8_t t[256][256];
  uint8_t count[256];
  ExtractTable() {
    for (unsigned m = 0; m < 256; ++m) {
      count[m] = static_cast<uint8_t>(set_bits(m));
      for (unsigned v = 0; v < 256; ++v) {
        unsigned r = 0, k = 0;
        for (unsigned b = 0; b < 8; ++b)
          if ((m >> b) & 1) r |= ((v >> b) & 1u) << k++;
        t[m][v] = static_cast<uint8_t>(r);
      }
    }
  }
};
inline uint32_t extract(const ExtractTable& e, uint32_t src, uint32_t mask) {
  uint32_t r = 0;
  int at = 0;
  for (int b = 0; b < 32; b += 8) {
    const uint32_t m = (mask >> b) & 0xFF;
    r |= static_cast<uint32_t>(e.t[m][(src >> b) & 0xFF]) << at;
    at += e.count[m];
  }
  return r;
}

// The significance bitmap before digit `high` of words [0, pw): bit j of word w set when
// coefficient 32 w + j has a digit above `high` (none past n).
void significance_of(const uint8_t* widths, uint64_t n, int high, uint32_t* sig) {
  const uint64_t full = n / 32;
  const int t = high + 1;  // significant: width > high + 1
#if defined(__SSE2__)
  const __m128i lim = _mm_set1_epi8(static_cast<char>(t));  // widths <= 64: signed bytes compare right
  for (uint64_t w = 0; w < full; ++w) {
    const uint8_t* p = widths + 32 * w;
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
    const uint32_t lo = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi8(a, lim)));
    const uint32_t hi = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi8(b, lim)));
    sig[w] = lo | hi << 16;
  }
#else
  for (uint64_t w = 0; w < full; ++w) {
    uint32_t b = 0;
    for (int j = 0; j < 32; ++j) b |= static_cast<uint32_t>(widths[32 * w + j] > t) << j;
    sig[w] = b;
  }
#endif
  if (n % 32) {
    uint32_t b = 0;
    for (uint64_t i = 32 * full; i < n; ++i) b |= static_cast<uint32_t>(widths[i] > t) << (i % 32);
    sig[full] = b;
  }
}

// The streams' bits of one plane's words d[0, len), a word of 32 coefficients at a time: its
// insignificant digits packed to the first stream and the others to the second, then the
// word's ones made significant. last: the valid coefficients of word len - 1.
template <class Bits>
inline void split_words(const Bits& bits, const uint32_t* d, uint64_t len, uint32_t last, uint32_t* sig, WordSink& ins,
                        WordSink& sg) {
  for (uint64_t w = 0; w < len; ++w) {
    const uint32_t valid = w + 1 == len ? last : ~uint32_t(0), on = sig[w], off = ~on & valid, v = d[w];
    const int all = w + 1 == len ? bits.ones(valid) : 32;
    if (on == 0) {  // the top planes: every coefficient still insignificant
      ins.put(v, all);
    } else if (off == 0) {  // the low planes: every coefficient significant
      sg.put(v, all);
    } else {
      const int ka = bits.ones(off);
      ins.put(bits.extract(v, off), ka);
      sg.put(bits.extract(v, on), all - ka);
    }
    sig[w] = on | v;
  }
}

struct PortableExtract {
  const ExtractTable* table;
  int ones(uint32_t x) const { return set_bits(x); }
  uint32_t extract(uint32_t src, uint32_t mask) const { return sciz::mdr::extract(*table, src, mask); }
};

void split_words_portable(const uint32_t* d, uint64_t len, uint32_t last, uint32_t* sig, WordSink& ins, WordSink& sg) {
  static const ExtractTable table;
  split_words(PortableExtract{&table}, d, len, last, sig, ins, sg);
}

}  // namespace

SplitStreams read_split(std::span<const uint8_t> seg, uint64_t n, int planes, const std::string& what,
                        uint16_t version) {
  SCIZ_REQUIRE(!seg.empty() && seg[0] == static_cast<uint8_t>(Coding::split), Status::internal,
               what + ": not a split segment");
  ByteReader r(seg.data() + 1, seg.size() - 1, what.c_str());
  const uint64_t total = n * static_cast<uint64_t>(planes);
  SplitStreams s;
  s.ins_bits = get_varint(r, "insignificant bit count");
  SCIZ_REQUIRE(s.ins_bits <= total, Status::corrupt_stream,
               what + ": " + std::to_string(s.ins_bits) + " insignificant digits of " + std::to_string(total));
  const uint64_t a_len = get_varint(r, "first stream length");
  SCIZ_REQUIRE(a_len > 0 && a_len < r.remaining(), Status::corrupt_stream,
               what + ": first stream of " + std::to_string(a_len) + " bytes in " + std::to_string(r.remaining()));
  s.sig_bits = total - s.ins_bits;
  const std::span<const uint8_t> rest = seg.subspan(1 + r.pos());
  s.ins = decode_group(rest.first(a_len), (s.ins_bits + 31) / 32 * 4, what + " (insignificant digits)", version);
  s.sig = decode_group(rest.subspan(a_len), (s.sig_bits + 31) / 32 * 4, what + " (significant digits)", version);
  return s;
}

namespace {

// The k <= 32 bits of a stream from bit `at` on (the caller keeps at + k within the stream).
inline uint32_t take_bits(const std::vector<uint8_t>& s, uint64_t at, int k) {
  if (k == 0) return 0;
  const uint64_t byte = at >> 3;
  uint64_t v = 0;
  if (byte + 8 <= s.size()) std::memcpy(&v, s.data() + byte, 8);
  else std::memcpy(&v, s.data() + byte, s.size() - byte);
  return static_cast<uint32_t>((v >> (at & 7)) & ((uint64_t(1) << k) - 1));
}

// deposit(src, mask): the low ones(mask) bits of src, in order, at the set bits of mask
// (x86's PDEP, which the baseline target lacks). A table a mask byte: 256 x 256 bytes and
// each mask byte's count, built once.
struct DepositTable {
  uint8_t t[256][256];
  uint8_t count[256];
  DepositTable() {
    for (unsigned m = 0; m < 256; ++m) {
      count[m] = static_cast<uint8_t>(set_bits(m));
      for (unsigned v = 0; v < 256; ++v) {
        unsigned r = 0, k = 0;
        for (unsigned b = 0; b < 8; ++b)
          if ((m >> b) & 1) r |= ((v >> k++) & 1u) << b;
        t[m][v] = static_cast<uint8_t>(r);
      }
    }
  }
};
inline uint32_t deposit(const DepositTable& d, uint32_t src, uint32_t mask) {
  uint32_t r = 0;
  for (int b = 0; b < 32; b += 8) {
    const uint32_t m = (mask >> b) & 0xFF;
    r |= static_cast<uint32_t>(d.t[m][src & 0xFF]) << b;
    src >>= d.count[m];
  }
  return r;
}

// The bit operations of the walk on any target.
struct PortableBits {
  const DepositTable* table;
  int ones(uint32_t x) const { return set_bits(x); }
  uint32_t deposit(uint32_t src, uint32_t mask) const { return sciz::mdr::deposit(*table, src, mask); }
};

constexpr uint64_t kBlockWords = 1024;  // the unit of parallel work: 32768 coefficients

// One plane of one block, words [w0, w1) of pw: the digits to o, the significance updated, the
// streams read from ai and as. Returns the block's insignificant coefficients after the plane.
template <class Bits>
inline uint64_t walk_block(const Bits& bits, const SplitStreams& s, uint32_t* sig, uint32_t* o, uint64_t w0, uint64_t w1,
                           uint64_t pw, uint32_t tail, uint64_t ai, uint64_t as) {
  uint64_t next = 0;
  for (uint64_t w = w0; w < w1; ++w) {
    const uint32_t v = w + 1 == pw ? tail : ~uint32_t(0), on = sig[w], off = ~on & v;
    const int ka = bits.ones(off), ks = (w + 1 == pw ? bits.ones(v) : 32) - ka;
    uint32_t d;
    if (on == 0) d = take_bits(s.ins, ai, ka);
    else if (off == 0) d = take_bits(s.sig, as, ks);
    else d = bits.deposit(take_bits(s.ins, ai, ka), off) | bits.deposit(take_bits(s.sig, as, ks), on);
    ai += ka, as += ks;
    o[w] = d;
    sig[w] = on | d;
    next += ka - bits.ones(d & off);  // the insignificant ones that stayed so
  }
  return next;
}

uint64_t walk_block_portable(const SplitStreams& s, uint32_t* sig, uint32_t* o, uint64_t w0, uint64_t w1, uint64_t pw,
                             uint32_t tail, uint64_t ai, uint64_t as) {
  static const DepositTable table;
  return walk_block(PortableBits{&table}, s, sig, o, w0, w1, pw, tail, ai, as);
}

// x86-64 with BMI2: PDEP and POPCNT halved the walks' time on Isabel (Zen 4). The block is
// compiled for that target alone (flatten inlines the walk and both instructions into it) and
// called only where the CPU has them; Zen 1 and 2 run PDEP in microcode, slower than the table.
#if defined(__x86_64__) && defined(__GNUC__)
#define SCIZ_SPLIT_BMI2 1
struct Bmi2Bits {
  [[gnu::target("bmi2,popcnt")]] int ones(uint32_t x) const { return __builtin_popcount(x); }
  [[gnu::target("bmi2,popcnt")]] uint32_t deposit(uint32_t src, uint32_t mask) const { return _pdep_u32(src, mask); }
};
[[gnu::target("bmi2,popcnt"), gnu::flatten]] uint64_t walk_block_bmi2(const SplitStreams& s, uint32_t* sig, uint32_t* o,
                                                                       uint64_t w0, uint64_t w1, uint64_t pw, uint32_t tail,
                                                                       uint64_t ai, uint64_t as) {
  return walk_block(Bmi2Bits{}, s, sig, o, w0, w1, pw, tail, ai, as);
}
struct Bmi2Extract {
  [[gnu::target("bmi2,popcnt")]] int ones(uint32_t x) const { return __builtin_popcount(x); }
  [[gnu::target("bmi2,popcnt")]] uint32_t extract(uint32_t src, uint32_t mask) const { return _pext_u32(src, mask); }
};
[[gnu::target("bmi2,popcnt"), gnu::flatten]] void split_words_bmi2(const uint32_t* d, uint64_t len, uint32_t last,
                                                                   uint32_t* sig, WordSink& ins, WordSink& sg) {
  split_words(Bmi2Extract{}, d, len, last, sig, ins, sg);
}
bool fast_pdep() {
  static const bool yes = __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt") &&
                          !__builtin_cpu_is("znver1") && !__builtin_cpu_is("znver2");
  return yes;
}
#endif

// PEXT where walk_split takes PDEP (the same CPUs run both fast), the table elsewhere.
void split_words_any(const uint32_t* d, uint64_t len, uint32_t last, uint32_t* sig, WordSink& ins, WordSink& sg,
                     bool portable) {
#if defined(SCIZ_SPLIT_BMI2)
  if (!portable && fast_pdep()) return split_words_bmi2(d, len, last, sig, ins, sg);
#endif
  (void)portable;
  split_words_portable(d, len, last, sig, ins, sg);
}

// Appends the first `bits` bits of src (whole u32 words, low bits first) to the sink.
void append_bits(WordSink& to, const std::vector<uint32_t>& src, uint64_t from_word, uint64_t bits) {
  const uint32_t* w = src.data() + from_word;
  // Whole words at the sink's fixed offset: put()'s bookkeeping a word was most of the join.
  const uint64_t words = bits / 32;
  uint64_t acc = to.acc;
  for (uint64_t k = 0; k < words; ++k) {
    acc |= static_cast<uint64_t>(w[k]) << to.fill;
    const uint32_t v = static_cast<uint32_t>(acc);
    std::memcpy(to.out + 4 * k, &v, 4);
    acc >>= 32;
  }
  to.acc = acc, to.out += 4 * words, to.bits += 32 * words;
  if (bits % 32) to.put(w[words] & ((uint32_t(1) << (bits % 32)) - 1), static_cast<int>(bits % 32));
}

}  // namespace

template <class W>
std::vector<uint8_t> digit_widths(const W* nb, uint64_t n) {
  std::vector<uint8_t> wd(n);
  const int nt = thread_count(n, n * sizeof(W));
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (uint64_t i = 0; i < n; ++i)
    wd[i] = nb[i] ? static_cast<uint8_t>(8 * sizeof(unsigned long long) - __builtin_clzll(nb[i])) : uint8_t(0);
  return wd;
}

SplitBits split_streams(const uint8_t* widths, const uint32_t* co, uint64_t n, int high, int planes, bool portable) {
  const uint64_t pw = bitplanes::plane_words(n);
  const uint32_t tail = n % 32 ? (uint32_t(1) << (n % 32)) - 1 : ~uint32_t(0);
  std::vector<uint32_t> sig(pw);
  significance_of(widths, n, high, sig.data());
  // Each stream takes at most every digit: room for all of them and the sink's last word.
  const uint64_t room = (static_cast<uint64_t>(planes) * n + 31) / 32 * 4 + 4;
  SplitBits s;
  s.ins.resize(room);
  s.sig.resize(room);
  WordSink a{s.ins.data()}, b{s.sig.data()};
  for (int p = 0; p < planes; ++p) split_words_any(co + static_cast<uint64_t>(p) * pw, pw, tail, sig.data(), a, b, portable);
  a.flush();
  b.flush();
  s.ins_bits = a.bits;
  s.ins.resize((a.bits + 31) / 32 * 4);
  s.sig.resize((b.bits + 31) / 32 * 4);
  return s;
}

SplitBits split_planes(const uint8_t* widths, const uint32_t* words, uint64_t n, int high, int planes,
                       uint64_t piece_words, bool portable) {
  const uint64_t pw = bitplanes::plane_words(n);
  const uint32_t tail = n % 32 ? (uint32_t(1) << (n % 32)) - 1 : ~uint32_t(0);
  piece_words = std::max<uint64_t>(32, piece_words / 32 * 32);  // whole regions of coefficient order
  const uint64_t pieces = std::max<uint64_t>(1, (pw + piece_words - 1) / piece_words);
  if (pieces == 1) {  // nothing to join: the group's order whole, its streams written in place
    std::vector<uint32_t> co(static_cast<uint64_t>(planes) * pw);
    bitplanes::coefficient_order_regions_cpu(words, n, planes, 0, (pw + 31) / 32, co.data(), pw);
    return split_streams(widths, co.data(), n, high, planes, portable);
  }
  // A piece's streams, plane after plane, each plane's from word p * (len + 1) (room for every
  // digit and the sink's last word), and their bit counts.
  struct Piece {
    std::vector<uint32_t> ins, sig;
    std::vector<uint64_t> ins_bits, sig_bits;
  };
  std::vector<Piece> part(pieces);
  for (uint64_t c = 0; c < pieces; ++c) {
#pragma omp task default(none) firstprivate(c) shared(part, widths, words, n, high, planes, piece_words, pw, tail, portable)
    {
      const uint64_t w0 = c * piece_words, len = std::min(pw, w0 + piece_words) - w0;
      const uint32_t last = w0 + len == pw ? tail : ~uint32_t(0);
      std::vector<uint32_t> co(static_cast<uint64_t>(planes) * len), sig(len);
      bitplanes::coefficient_order_regions_cpu(words, n, planes, w0 / 32, (w0 + len + 31) / 32, co.data(), len);
      significance_of(widths + 32 * w0, std::min(n, 32 * (w0 + len)) - 32 * w0, high, sig.data());
      Piece& pc = part[c];
      pc.ins.resize(static_cast<uint64_t>(planes) * (len + 1));
      pc.sig.resize(pc.ins.size());
      for (int p = 0; p < planes; ++p) {
        WordSink a{reinterpret_cast<uint8_t*>(pc.ins.data() + p * (len + 1))};
        WordSink b{reinterpret_cast<uint8_t*>(pc.sig.data() + p * (len + 1))};
        split_words_any(co.data() + p * len, len, last, sig.data(), a, b, portable);
        a.flush(), b.flush();
        pc.ins_bits.push_back(a.bits), pc.sig_bits.push_back(b.bits);
      }
    }
  }
#pragma omp taskwait
  // The streams hold plane after plane, each plane's pieces in order.
  uint64_t ins_bits = 0, sig_bits = 0;
  for (const Piece& pc : part)
    for (int p = 0; p < planes; ++p) ins_bits += pc.ins_bits[p], sig_bits += pc.sig_bits[p];
  SplitBits s;
  s.ins.resize((ins_bits + 31) / 32 * 4);
  s.sig.resize((sig_bits + 31) / 32 * 4);
  s.ins_bits = ins_bits;
  WordSink a{s.ins.data()}, b{s.sig.data()};
  for (int p = 0; p < planes; ++p)
    for (uint64_t c = 0; c < pieces; ++c) {
      const uint64_t at = p * (std::min(pw, (c + 1) * piece_words) - c * piece_words + 1);
      append_bits(a, part[c].ins, at, part[c].ins_bits[p]);
      append_bits(b, part[c].sig, at, part[c].sig_bits[p]);
    }
  a.flush(), b.flush();
  return s;
}

uint64_t split_segment_bytes(const SplitBits& s, const GroupPlan& ins, const GroupPlan& sig) {
  return 1 + varint_bytes(s.ins_bits) + varint_bytes(ins.bytes) + ins.bytes + sig.bytes;
}

std::vector<uint8_t> encode_split(const SplitBits& s, const HybridOptions& opt) {
  return encode_split(s, plan_group(s.ins, opt), plan_group(s.sig, opt));
}

std::vector<uint8_t> encode_split(const SplitBits& s, const GroupPlan& ins, const GroupPlan& sig) {
  return split_segment(s.ins_bits, encode_planned(s.ins, ins), encode_planned(s.sig, sig));
}

std::vector<uint8_t> split_segment(uint64_t ins_bits, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  ByteWriter w;
  w.put<uint8_t>(static_cast<uint8_t>(Coding::split));
  put_varint(w, ins_bits);
  put_varint(w, a.size());
  w.bytes(a.data(), a.size());
  w.bytes(b.data(), b.size());
  return std::move(w.buffer());
}

template <class W>
std::vector<uint8_t> encode_split(const W* nb, uint64_t n, int high, int planes, const HybridOptions& opt) {
  const uint64_t pw = bitplanes::plane_words(n);
  std::vector<uint32_t> co(pw * static_cast<uint64_t>(planes), 0);
  for (int p = 0; p < planes; ++p)
    for (uint64_t i = 0; i < n; ++i) co[p * pw + i / 32] |= static_cast<uint32_t>((nb[i] >> (high - p)) & 1u) << (i % 32);
  return encode_split(split_streams(digit_widths(nb, n).data(), co.data(), n, high, planes), opt);
}

// The digits of one plane split by significance are, 32 coefficients at a time, a run of the
// first stream deposited at the insignificant ones and a run of the second at the others; a
// plane's significance is fixed before it (a digit 1 counts from the next plane on), so the
// bit counts of the bitmap give every block of coefficients its place in both streams and the
// blocks of a plane decode in parallel.
void walk_split(const SplitStreams& s, uint64_t n, int planes, uint32_t* sig, uint32_t* out, const std::string& what,
                bool portable) {
  const uint64_t pw = (n + 31) / 32, blocks = (pw + kBlockWords - 1) / kBlockWords;
  const uint32_t tail = n % 32 ? (uint32_t(1) << (n % 32)) - 1 : ~uint32_t(0);
  auto walk = walk_block_portable;
#if defined(SCIZ_SPLIT_BMI2)
  if (!portable && fast_pdep()) walk = walk_block_bmi2;
#endif
  (void)portable;
  // ins[b]: the insignificant coefficients of block b in the plane about to be walked.
  std::vector<uint64_t> ins(blocks), at_ins(blocks), at_sig(blocks);
  const int nt = thread_count(blocks, n);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (uint64_t b = 0; b < blocks; ++b) {
    uint64_t c = 0;
    for (uint64_t w = b * kBlockWords; w < std::min(pw, (b + 1) * kBlockWords); ++w)
      c += set_bits(~sig[w] & (w + 1 == pw ? tail : ~uint32_t(0)));
    ins[b] = c;
  }
  uint64_t used_ins = 0, used_sig = 0;
  for (int p = 0; p < planes; ++p) {
    uint64_t a = used_ins, bsig = used_sig;
    for (uint64_t b = 0; b < blocks; ++b) {
      at_ins[b] = a, at_sig[b] = bsig;
      const uint64_t coeffs = std::min<uint64_t>(n, (b + 1) * kBlockWords * 32) - b * kBlockWords * 32;
      a += ins[b], bsig += coeffs - ins[b];
    }
    // Each stream holds exactly its declared bits: overrunning one means a damaged segment.
    SCIZ_REQUIRE(a <= s.ins_bits && bsig <= s.sig_bits, Status::corrupt_stream,
                 what + ": the digits do not match the declared split");
    uint32_t* o = out + static_cast<uint64_t>(p) * pw;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (uint64_t b = 0; b < blocks; ++b)
      ins[b] = walk(s, sig, o, b * kBlockWords, std::min(pw, (b + 1) * kBlockWords), pw, tail, at_ins[b], at_sig[b]);
    used_ins = a, used_sig = bsig;
  }
  SCIZ_REQUIRE(used_ins == s.ins_bits && used_sig == s.sig_bits, Status::corrupt_stream,
               what + ": the digits do not match the declared split");
}

template <class W>
void decode_split(std::span<const uint8_t> seg, W* digits, uint64_t n, int high, int planes, const std::string& what) {
  const SplitStreams s = read_split(seg, n, planes, what);
  const uint64_t pw = bitplanes::plane_words(n);
  std::vector<uint32_t> sig(pw), bits(pw * static_cast<uint64_t>(planes));
  bitplanes::significance_cpu(digits, n, high, sig.data());
  walk_split(s, n, planes, sig.data(), bits.data(), what);
  bitplanes::or_planes_cpu(bits.data(), n, high, planes, digits);
}

template std::vector<uint8_t> digit_widths<uint32_t>(const uint32_t*, uint64_t);
template std::vector<uint8_t> digit_widths<uint64_t>(const uint64_t*, uint64_t);
template std::vector<uint8_t> encode_split<uint32_t>(const uint32_t*, uint64_t, int, int, const HybridOptions&);
template std::vector<uint8_t> encode_split<uint64_t>(const uint64_t*, uint64_t, int, int, const HybridOptions&);
template void decode_split<uint32_t>(std::span<const uint8_t>, uint32_t*, uint64_t, int, int, const std::string&);
template void decode_split<uint64_t>(std::span<const uint8_t>, uint64_t*, uint64_t, int, int, const std::string&);

}  // namespace sciz::mdr
