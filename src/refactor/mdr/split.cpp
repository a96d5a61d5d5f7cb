#include "refactor/mdr/split.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "core/byteio.hpp"
#include "core/omp_threads.hpp"
#include "refactor/bitplanes/bitplanes.hpp"

namespace sciz::mdr {

namespace {

// Bits low first, padded with zeros to whole u32 words (the coders take words).
struct BitWriter {
  std::vector<uint8_t> bytes;
  uint64_t bits = 0;
  void put(unsigned b) {
    if (bits % 8 == 0) bytes.push_back(0);
    bytes.back() |= static_cast<uint8_t>(b << (bits % 8));
    ++bits;
  }
  std::vector<uint8_t>& padded() {
    bytes.resize((bits + 31) / 32 * 4, 0);
    return bytes;
  }
};

// "significant before digit d": a non-zero digit above d. Digits above the word are none.
template <class W>
bool above(W v, int d) {
  return d + 1 < static_cast<int>(8 * sizeof(W)) && (v >> (d + 1)) != 0;
}

}  // namespace

template <class W>
std::vector<uint8_t> encode_split(const W* nb, uint64_t n, int high, int planes, const HybridOptions& opt) {
  BitWriter ins, sig;
  std::vector<uint8_t> on(n);
  for (uint64_t i = 0; i < n; ++i) on[i] = above(nb[i], high);
  for (int p = 0; p < planes; ++p) {
    const int d = high - p;
    for (uint64_t i = 0; i < n; ++i) {
      const unsigned b = static_cast<unsigned>((nb[i] >> d) & 1u);
      (on[i] ? sig : ins).put(b);
      on[i] |= static_cast<uint8_t>(b);
    }
  }
  const uint64_t ins_bits = ins.bits;
  const std::vector<uint8_t> a = encode_group(ins.padded(), opt), b = encode_group(sig.padded(), opt);
  ByteWriter w;
  w.put<uint8_t>(static_cast<uint8_t>(Coding::split));
  put_varint(w, ins_bits);
  put_varint(w, a.size());
  w.bytes(a.data(), a.size());
  w.bytes(b.data(), b.size());
  return std::move(w.buffer());
}

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

// Set bits of a word. std::popcount is a libgcc call on the baseline x86-64 target (no POPCNT
// instruction), which took a seventh of a retrieval's time here; this is a dozen inline ops.
inline int ones(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
}

// deposit(src, mask): the low ones(mask) bits of src, in order, at the set bits of mask
// (x86's PDEP, which the baseline target lacks). A table a mask byte: 256 x 256 bytes and
// each mask byte's count, built once.
struct DepositTable {
  uint8_t t[256][256];
  uint8_t count[256];
  DepositTable() {
    for (unsigned m = 0; m < 256; ++m) {
      count[m] = static_cast<uint8_t>(ones(m));
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
  int ones(uint32_t x) const { return sciz::mdr::ones(x); }
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
bool fast_pdep() {
  static const bool yes = __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt") &&
                          !__builtin_cpu_is("znver1") && !__builtin_cpu_is("znver2");
  return yes;
}
#endif

}  // namespace

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
      c += ones(~sig[w] & (w + 1 == pw ? tail : ~uint32_t(0)));
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

template std::vector<uint8_t> encode_split<uint32_t>(const uint32_t*, uint64_t, int, int, const HybridOptions&);
template std::vector<uint8_t> encode_split<uint64_t>(const uint64_t*, uint64_t, int, int, const HybridOptions&);
template void decode_split<uint32_t>(std::span<const uint8_t>, uint32_t*, uint64_t, int, int, const std::string&);
template void decode_split<uint64_t>(std::span<const uint8_t>, uint64_t*, uint64_t, int, int, const std::string&);

}  // namespace sciz::mdr
