// Canonical Huffman math shared by the CPU and CUDA twins: the bit order, the writer's step,
// the per-chunk bit reader and the table-driven decode step. Both twins call only these, so they
// cannot drift apart.
//
// Bits are packed MSB-first into 32-bit words: the first code of the stream occupies the high
// bits of word 0. A left-justified 64-bit window then turns "peek the next 16 bits" into one
// shift, and canonical codes compare as plain integers in that window.
#pragma once
#include <cstdint>

#include "core/hd.hpp"

namespace sciz::huffman {

inline constexpr int kMaxLen = 16;            // longest code; lengths are limited to this
inline constexpr int kTableBits = 12;         // primary decode table: 4096 entries
inline constexpr uint32_t kDefaultChunk = 512;  // symbols per independently decodable chunk
inline constexpr uint32_t kMaxChunk = 4088;   // chunk bits (<= 16 * chunk) must fit a u16

// Encode table entry: code in the high bits, length in the low byte (0 = symbol unused).
SCIZ_HD uint32_t pack_code(uint32_t code, uint32_t len) { return code << 8 | len; }
SCIZ_HD uint32_t code_len(uint32_t e) { return e & 0xffu; }
SCIZ_HD uint32_t code_bits(uint32_t e) { return e >> 8; }

// Decode entry: symbol in the high bits, code length in the low byte (0 = not resolved by the
// primary table: a longer code, or code space no symbol uses).
SCIZ_HD uint32_t pack_entry(uint32_t sym, uint32_t len) { return sym << 8 | len; }
SCIZ_HD uint32_t entry_sym(uint32_t e) { return e >> 8; }
SCIZ_HD uint32_t entry_len(uint32_t e) { return e & 0xffu; }

// Codes longer than kTableBits: canonical codes of one length are consecutive and follow the
// shorter ones in left-justified order, so the length of the code at the front of a 16-bit
// window v is the first l with v < limit[l].
struct SlowTables {
  const uint32_t* limit;   // [kMaxLen + 1], left-justified exclusive upper bound of length l
  const uint32_t* first;   // [kMaxLen + 1], first code of length l
  const uint32_t* offset;  // [kMaxLen + 1], rank of that code among all symbols
  const uint16_t* sorted;  // symbols ordered by (length, symbol)
};

// Returns pack_entry(sym, len), or 0 when v starts with no valid code (a corrupt stream).
SCIZ_HD uint32_t decode_slow(uint32_t v16, const SlowTables& t) {
  for (int l = kTableBits + 1; l <= kMaxLen; ++l) {
    if (v16 < t.limit[l]) {
      const uint32_t rank = t.offset[l] + ((v16 >> (kMaxLen - l)) - t.first[l]);
      return pack_entry(t.sorted[rank], static_cast<uint32_t>(l));
    }
  }
  return 0;
}

// The writer's step: len bits (nb + len <= 63, so two codes at once fit) go after the nb bits
// pending in acc (left-justified) for word w; the current word is handed to store(w, value)
// at every step, complete once the step fills it, and the position moves on by the carry.
// No branch per word: a word fills at irregular codes, which a CPU mispredicts. The two shifts
// keep len == 0 defined. The GPU encoder writes the same words but stores only complete ones
// (LaneWriter in huffman_cuda.cu): a store per step costs it memory traffic, not branches.
template <class Store>
SCIZ_HD void word_step(uint64_t& acc, uint32_t& nb, uint64_t& w, uint64_t bits, uint32_t len, Store&& store) {
  acc |= bits << (63 - nb - len) << 1;
  nb += len;
  store(w, static_cast<uint32_t>(acc >> 32));
  const uint32_t carry = nb >> 5;
  w += carry;
  acc <<= 32 * carry;
  nb &= 31;
}

// Reads a chunk from an arbitrary bit. load(i) returns word i, or 0 past the end, so a corrupt
// chunk can never read outside the stream. Invariant: at least 33 valid bits in the window.
template <class Load>
struct BitReader {
  uint64_t buf;
  uint32_t avail;
  uint64_t next;
  Load load;

  SCIZ_HD BitReader(uint64_t start_bit, Load ld) : load(ld) {
    const uint64_t w = start_bit >> 5;
    const uint32_t r = static_cast<uint32_t>(start_bit & 31);
    buf = (static_cast<uint64_t>(load(w)) << 32 | load(w + 1)) << r;
    avail = 64 - r;
    next = w + 2;
  }
  SCIZ_HD uint32_t peek16() const { return static_cast<uint32_t>(buf >> 48); }
  SCIZ_HD void consume(uint32_t len) {
    drop(len);
    refill();
  }
  // drop() and refill() apart: after a refill (>= 33 bits) two codes of <= 16 bits may be
  // dropped before the next one, which a decoder uses to test for a refill once per two codes
  // (the test is taken at irregular symbols, so it mispredicts on a CPU).
  SCIZ_HD void drop(uint32_t len) {
    buf <<= len;
    avail -= len;
  }
  SCIZ_HD void refill() {
    if (avail <= 32) {
      buf |= static_cast<uint64_t>(load(next++)) << (32 - avail);
      avail += 32;
    }
  }
};

// A BitReader seen through drop(): decode_symbol() on it consumes without refilling.
template <class Reader>
struct NoRefill {
  Reader& r;
  SCIZ_HD uint32_t peek16() const { return r.peek16(); }
  SCIZ_HD void consume(uint32_t len) { r.drop(len); }
};

// One symbol: primary table first, canonical search for long codes. On a code the tables do
// not know, returns false and consumes kMaxLen bits so the caller's loop stays bounded.
template <class Reader>
SCIZ_HD bool decode_symbol(Reader& r, const uint32_t* primary, const SlowTables& slow, uint32_t& sym,
                           uint32_t& len) {
  const uint32_t v = r.peek16();
  uint32_t e = primary[v >> (kMaxLen - kTableBits)];
  if (entry_len(e) == 0) e = decode_slow(v, slow);
  const bool ok = entry_len(e) != 0;
  sym = entry_sym(e);
  len = ok ? entry_len(e) : static_cast<uint32_t>(kMaxLen);
  r.consume(len);
  return ok;
}

}  // namespace sciz::huffman
