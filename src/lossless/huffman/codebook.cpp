#include "lossless/huffman/codebook.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <numeric>
#include <string>

namespace sciz::huffman {

namespace {

// Depth of every leaf in a Huffman tree over weights sorted ascending. Two queues (leaves in
// order, merged nodes in creation order, whose weights never decrease) replace a heap.
std::vector<uint32_t> leaf_depths(const std::vector<uint64_t>& w_sorted) {
  const size_t m = w_sorted.size();
  std::vector<uint64_t> w(2 * m - 1);
  std::vector<uint32_t> parent(2 * m - 1, 0);
  std::copy(w_sorted.begin(), w_sorted.end(), w.begin());
  size_t leaf = 0, merged = m, next = m;
  auto pick = [&] {
    if (leaf < m && (merged >= next || w[leaf] <= w[merged])) return leaf++;
    return merged++;
  };
  for (; next < 2 * m - 1; ++next) {
    const size_t a = pick(), b = pick();
    w[next] = w[a] + w[b];
    parent[a] = parent[b] = static_cast<uint32_t>(next);
  }
  std::vector<uint32_t> depth(2 * m - 1, 0);
  for (size_t i = 2 * m - 1; i-- > 0;)  // parents sit after their children
    if (i != 2 * m - 2) depth[i] = depth[parent[i]] + 1;
  depth.resize(m);
  return depth;
}

// Clamps depths to kMaxLen, then pushes the deepest leaves that are not yet at the limit one
// level down until the Kraft sum fits again. Works on counts per length only: which symbol
// gets which length is decided afterwards by frequency rank.
void limit_lengths(uint64_t (&count)[64]) {
  for (int d = kMaxLen + 1; d < 64; ++d) {
    count[kMaxLen] += count[d];
    count[d] = 0;
  }
  uint64_t kraft = 0;
  for (int l = 1; l <= kMaxLen; ++l) kraft += count[l] << (kMaxLen - l);
  while (kraft > (uint64_t{1} << kMaxLen)) {
    int l = kMaxLen - 1;
    while (count[l] == 0) --l;
    --count[l];
    ++count[l + 1];
    kraft -= uint64_t{1} << (kMaxLen - l - 1);
  }
}

}  // namespace

Lengths code_lengths(std::span<const uint64_t> hist) {
  SCIZ_REQUIRE(hist.size() <= kAlphabet, Status::internal, "huffman: histogram over more than 65536 symbols");
  Lengths out;
  // Quant codes fill a few hundred of the 65536 bins: empty groups of 16 are skipped with one
  // (vectorized) test, so a small field does not pay for the whole alphabet bin by bin.
  constexpr uint32_t kGroup = 16;
  const uint32_t size = static_cast<uint32_t>(hist.size()), whole = size / kGroup * kGroup;
  for (uint32_t g = 0; g < whole; g += kGroup) {
    uint64_t any = 0;
    for (uint32_t k = 0; k < kGroup; ++k) any |= hist[g + k];
    if (!any) continue;
    for (uint32_t s = g; s < g + kGroup; ++s)
      if (hist[s]) out.sym.push_back(s);
  }
  for (uint32_t s = whole; s < size; ++s)
    if (hist[s]) out.sym.push_back(s);
  const size_t m = out.sym.size();
  out.len.assign(m, 0);
  if (m == 1) out.len[0] = 1;
  if (m >= 2) {
    // Ranks of the symbols by (count, symbol); rank[i] is the position of out.sym[i].
    std::vector<uint32_t> by_count(m);
    std::iota(by_count.begin(), by_count.end(), 0u);
    std::sort(by_count.begin(), by_count.end(), [&](uint32_t a, uint32_t b) {
      const uint64_t ha = hist[out.sym[a]], hb = hist[out.sym[b]];
      return ha != hb ? ha < hb : a < b;  // a < b: symbols are in increasing order
    });
    std::vector<uint64_t> w(m);
    for (size_t i = 0; i < m; ++i) w[i] = hist[out.sym[by_count[i]]];
    const std::vector<uint32_t> depth = leaf_depths(w);
    uint64_t count[64] = {};
    for (uint32_t d : depth) ++count[std::min<uint32_t>(d, 63)];
    limit_lengths(count);
    // The most frequent symbols (the end of by_count) take the shortest lengths.
    size_t i = m;
    for (int l = 1; l <= kMaxLen; ++l)
      for (uint64_t k = 0; k < count[l]; ++k) out.len[by_count[--i]] = static_cast<uint8_t>(l);
  }
  return out;
}

namespace {

// A codebook's per-symbol tables end at its largest used symbol (syms ascending).
// The largest symbol, not the last: a stream's symbol gaps are summed in 64 bits and may wrap,
// which read_codebook() accepts as the device reader does (the last length given to a symbol
// counts), so a stream's list need not ascend (a fuzzed codebook indexed past a table sized by
// its last symbol).
size_t table_size(const std::vector<uint32_t>& syms) {
  return syms.empty() ? 0 : size_t{*std::max_element(syms.begin(), syms.end())} + 1;
}

// Canonical codes for the used symbols `syms` (ascending) of the length table `len`: within a
// length, codes rise with the symbol, so visiting the used symbols in order is visiting the
// table in order. Throws corrupt_stream if a length exceeds kMaxLen or the Kraft sum exceeds 1.
Codebook assign_codes(std::vector<uint8_t> len, std::vector<uint32_t> syms) {
  uint32_t count[kMaxLen + 1] = {};
  Codebook cb;
  for (uint32_t s : syms) {
    const uint8_t l = len[s];
    SCIZ_REQUIRE(l >= 1 && l <= kMaxLen, Status::corrupt_stream,
                 "huffman codebook: code length " + std::to_string(l) + " outside 1..16");
    ++count[l];
  }
  cb.used = static_cast<uint32_t>(syms.size());
  uint64_t kraft = 0;
  for (int l = 1; l <= kMaxLen; ++l) kraft += uint64_t{count[l]} << (kMaxLen - l);
  SCIZ_REQUIRE(kraft <= (uint64_t{1} << kMaxLen), Status::corrupt_stream,
               "huffman codebook: code lengths over-fill the code space (not a prefix code)");
  uint32_t next[kMaxLen + 2] = {};
  for (int l = 1; l <= kMaxLen; ++l) next[l] = (next[l - 1] + count[l - 1]) << 1;
  const size_t table = table_size(syms);
  cb.code.assign(table, 0);
  for (uint32_t s : syms) cb.code[s] = pack_code(next[len[s]]++, len[s]);
  len.resize(table);  // callers size it to the table already; never drops a used symbol
  cb.len = std::move(len);
  cb.syms = std::move(syms);
  return cb;
}

}  // namespace

Codebook codebook_from(const Lengths& l) {
  std::vector<uint8_t> len(table_size(l.sym), 0);
  for (size_t i = 0; i < l.sym.size(); ++i) len[l.sym[i]] = l.len[i];
  return assign_codes(std::move(len), l.sym);
}

uint64_t coded_bits(const Lengths& l, std::span<const uint64_t> hist) {
  uint64_t bits = 0;
  for (size_t i = 0; i < l.sym.size(); ++i) bits += hist[l.sym[i]] * l.len[i];
  return bits;
}

uint64_t codebook_bytes(const Lengths& l) {
  uint64_t bytes = (l.sym.size() + 1) / 2, expect = 0;  // the length nibbles, then the LEB128 gaps
  for (uint32_t s : l.sym) {
    for (uint64_t v = s - expect; v >= 0x80; v >>= 7) ++bytes;
    ++bytes;
    expect = uint64_t{s} + 1;
  }
  return bytes;
}

Codebook codebook_from_lengths(std::vector<uint8_t> len) {
  SCIZ_REQUIRE(len.size() <= kAlphabet, Status::internal, "huffman: length table beyond 65536 symbols");
  std::vector<uint32_t> syms;
  for (uint32_t s = 0; s < len.size(); ++s)
    if (len[s]) syms.push_back(s);
  return assign_codes(std::move(len), std::move(syms));
}

uint64_t coded_bits(const Codebook& cb, std::span<const uint64_t> hist) {
  uint64_t bits = 0;
  for (uint32_t s : cb.syms)
    if (s < hist.size()) bits += hist[s] * cb.len[s];
  return bits;
}

Lengths lengths_of(const Codebook& cb) {
  Lengths l;
  l.sym = cb.syms;
  l.len.reserve(cb.syms.size());
  for (uint32_t s : cb.syms) l.len.push_back(cb.len[s]);
  return l;
}

void write_codebook(ByteWriter& w, const Lengths& l) {
  uint32_t expect = 0;
  for (uint32_t s : l.sym) {
    put_varint(w, s - expect);
    expect = s + 1;
  }
  const size_t m = l.len.size();
  for (size_t k = 0; k < m; k += 2)
    w.put<uint8_t>(static_cast<uint8_t>((l.len[k] - 1) | (k + 1 < m ? (l.len[k + 1] - 1) << 4 : 0)));
}

void write_codebook(ByteWriter& w, const Codebook& cb) { write_codebook(w, lengths_of(cb)); }

Codebook read_codebook(ByteReader& r, uint32_t used) {
  SCIZ_REQUIRE(used <= kAlphabet, Status::corrupt_stream, "huffman codebook: more than 65536 symbols");
  std::vector<uint32_t> syms(used);
  uint64_t s = 0;
  for (uint32_t k = 0; k < used; ++k) {
    s += get_varint(r, "huffman codebook symbol");
    SCIZ_REQUIRE(s < kAlphabet, Status::corrupt_stream,
                 "huffman codebook: entry " + std::to_string(k) + " names symbol " + std::to_string(s));
    syms[k] = static_cast<uint32_t>(s++);
  }
  std::vector<uint8_t> len(table_size(syms), 0);
  for (uint32_t k = 0; k < used; k += 2) {
    const uint8_t b = r.get<uint8_t>("huffman codebook lengths");
    len[syms[k]] = static_cast<uint8_t>((b & 15) + 1);
    if (k + 1 < used)
      len[syms[k + 1]] = static_cast<uint8_t>((b >> 4) + 1);
    else
      SCIZ_REQUIRE(b >> 4 == 0, Status::corrupt_stream, "huffman codebook: padding nibble is not zero");
  }
  return assign_codes(std::move(len), std::move(syms));  // as read: ascending unless the gaps wrapped
}

DecodeTables decode_tables(const Codebook& cb) {
  DecodeTables t;
  uint32_t count[kMaxLen + 1] = {};
  for (uint32_t s : cb.syms) ++count[cb.len[s]];
  t.limit[0] = t.first[0] = t.offset[0] = 0;
  for (int l = 1; l <= kMaxLen; ++l) {
    t.first[l] = (t.first[l - 1] + count[l - 1]) << 1;
    t.offset[l] = t.offset[l - 1] + count[l - 1];
    t.limit[l] = (t.first[l] + count[l]) << (kMaxLen - l);
  }
  t.sorted.resize(cb.used);
  uint32_t rank[kMaxLen + 1];
  std::copy(t.offset, t.offset + kMaxLen + 1, rank);
  t.primary.assign(1u << kTableBits, 0);
  for (uint32_t s : cb.syms) {
    const uint32_t l = cb.len[s];
    t.sorted[rank[l]++] = static_cast<uint16_t>(s);
    if (l <= kTableBits) {
      const uint32_t lo = code_bits(cb.code[s]) << (kTableBits - l), span = 1u << (kTableBits - l);
      std::fill_n(t.primary.begin() + lo, span, pack_entry(s, l));
    }
  }
  return t;
}

}  // namespace sciz::huffman
