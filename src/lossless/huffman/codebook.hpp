// Canonical Huffman codebook, built on the host from a histogram (the GPU path copies the
// histogram back: 1,024 bins for default quant codes, measured in bench as "codebook"), and
// the tables both twins decode with.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/byteio.hpp"
#include "lossless/huffman/huffman_math.hpp"

namespace sciz::huffman {

inline constexpr uint32_t kAlphabet = 65536;

// The per-symbol tables cover symbols [0, table()) only, up to the largest used symbol: quant
// codes use a few hundred of the 65536 symbols, and zeroing full tables cost a small field's
// call 80 page faults. A symbol at or past table() has no code.
struct Codebook {
  std::vector<uint8_t> len;    // per symbol [0, table()); 0 = unused
  std::vector<uint32_t> code;  // pack_code(code, len) per symbol, the encoders' table
  uint32_t table() const { return static_cast<uint32_t>(len.size()); }
  uint32_t used = 0;
  std::vector<uint32_t> syms;  // the used symbols, ascending: what the table walks visit
};

// The code lengths of the used symbols only, in increasing symbol order: all that sizing a
// candidate needs, without the 65536-entry tables of a Codebook (the stage choice sizes several
// candidates and encodes one).
struct Lengths {
  std::vector<uint32_t> sym;
  std::vector<uint8_t> len;
};

// Length-limited (kMaxLen) Huffman lengths, deterministic for a given histogram: ties break by
// symbol. A histogram with one used symbol gives it a 1-bit code; an empty one, no codes.
Lengths code_lengths(std::span<const uint64_t> hist);
Codebook codebook_from(const Lengths& l);
inline Codebook build_codebook(std::span<const uint64_t> hist) { return codebook_from(code_lengths(hist)); }
// Total code bits for symbols with this histogram, and the bytes write_codebook() takes.
uint64_t coded_bits(const Lengths& l, std::span<const uint64_t> hist);
uint64_t codebook_bytes(const Lengths& l);
// Assigns canonical codes from lengths (per symbol, at most 65536 of them); throws
// corrupt_stream if the lengths over-fill the code space (Kraft sum > 1) or exceed kMaxLen.
Codebook codebook_from_lengths(std::vector<uint8_t> len);

// Total code bits for symbols with this histogram.
uint64_t coded_bits(const Codebook& cb, std::span<const uint64_t> hist);

// Serialized as: per used symbol, in increasing order, a LEB128 gap to the previous one
// (minus one); then the code lengths minus one as 4-bit nibbles, low nibble first, the last
// byte's spare nibble zero. Half a byte per length instead of one keeps small fields small.
void write_codebook(ByteWriter& w, const Lengths& l);
void write_codebook(ByteWriter& w, const Codebook& cb);
Lengths lengths_of(const Codebook& cb);
Codebook read_codebook(ByteReader& r, uint32_t used);

struct DecodeTables {
  std::vector<uint32_t> primary;  // 1 << kTableBits entries
  uint32_t limit[kMaxLen + 1], first[kMaxLen + 1], offset[kMaxLen + 1];
  std::vector<uint16_t> sorted;
  SlowTables slow() const { return {limit, first, offset, sorted.data()}; }
};
DecodeTables decode_tables(const Codebook& cb);

}  // namespace sciz::huffman
