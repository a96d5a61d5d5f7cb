// The huffman blob's header, layout and validation, shared by both twins.
#include <sciz/error.hpp>

#include <cstring>
#include <string>

#include "lossless/huffman/huffman.hpp"

namespace sciz::huffman {

namespace {
constexpr size_t kHeaderBytes = 32;
size_t pad4(size_t b) { return (b + 3) & ~size_t{3}; }
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
}  // namespace

Layout layout(size_t codebook_bytes, uint64_t chunks, uint64_t words) {
  Layout l;
  l.chunk_bits_at = pad4(kHeaderBytes + codebook_bytes);
  l.words_at = pad4(l.chunk_bits_at + chunks * 2);
  l.bytes = l.words_at + words * 4;
  return l;
}

std::vector<uint8_t> header_and_codebook(const Lengths& l, uint64_t n, uint32_t chunk, uint64_t total_bits) {
  ByteWriter cbw;
  write_codebook(cbw, l);
  ByteWriter w;
  w.put<uint64_t>(n);
  w.put<uint32_t>(chunk);
  w.put<uint32_t>(static_cast<uint32_t>(l.sym.size()));
  w.put<uint64_t>(total_bits);
  w.put<uint32_t>(static_cast<uint32_t>(cbw.size()));
  w.put<uint32_t>(0);
  w.bytes(cbw.buffer().data(), cbw.size());
  return std::move(w.buffer());
}

std::vector<uint8_t> header_and_codebook(const Codebook& cb, uint64_t n, uint32_t chunk, uint64_t total_bits) {
  return header_and_codebook(lengths_of(cb), n, chunk, total_bits);
}

uint64_t encoded_bytes(const Codebook& cb, uint64_t n, uint64_t bits, uint32_t chunk) {
  ByteWriter cbw;
  write_codebook(cbw, cb);
  return layout(cbw.size(), ceil_div(n, chunk), ceil_div(bits, 32)).bytes;
}

uint64_t blob_bytes(uint64_t n, uint64_t bits, uint64_t codebook_bytes, uint32_t chunk) {
  return layout(codebook_bytes, ceil_div(n, chunk), ceil_div(bits, 32)).bytes;
}

Parsed parse(std::span<const uint8_t> blob, uint64_t expected_n) {
  ByteReader r(blob.data(), blob.size(), "huffman stream");
  Parsed p;
  p.n = r.get<uint64_t>("symbol count");
  p.chunk = r.get<uint32_t>("chunk size");
  const uint32_t used = r.get<uint32_t>("codebook size");
  p.total_bits = r.get<uint64_t>("total bits");
  const uint32_t cb_bytes = r.get<uint32_t>("codebook bytes");
  r.get<uint32_t>("reserved");
  SCIZ_REQUIRE(p.n == expected_n, Status::corrupt_stream,
               "huffman stream: holds " + std::to_string(p.n) + " symbols, expected " + std::to_string(expected_n));
  SCIZ_REQUIRE(p.chunk >= 8 && p.chunk <= kMaxChunk && p.chunk % 8 == 0, Status::corrupt_stream,
               "huffman stream: chunk size " + std::to_string(p.chunk) + " is not a multiple of 8 in 8..4088");
  SCIZ_REQUIRE(p.total_bits <= p.n * kMaxLen && p.total_bits >= p.n, Status::corrupt_stream,
               "huffman stream: " + std::to_string(p.total_bits) + " bits cannot code " + std::to_string(p.n) + " symbols");
  SCIZ_REQUIRE((used == 0) == (p.n == 0), Status::corrupt_stream, "huffman stream: codebook does not match symbol count");
  ByteReader cbr(r.take(cb_bytes, "codebook"), cb_bytes, "huffman codebook");
  p.cb = read_codebook(cbr, used);
  SCIZ_REQUIRE(cbr.remaining() == 0, Status::corrupt_stream, "huffman codebook: trailing bytes");
  p.chunks = ceil_div(p.n, p.chunk);
  p.words = ceil_div(p.total_bits, 32);
  const Layout l = layout(cb_bytes, p.chunks, p.words);
  SCIZ_REQUIRE(l.bytes == blob.size(), Status::corrupt_stream,
               "huffman stream: " + std::to_string(blob.size()) + " bytes, layout needs " + std::to_string(l.bytes));
  p.chunk_bits_at = l.chunk_bits_at;
  p.words_at = l.words_at;
  // Every chunk's bit count within [symbols, 16 * symbols] and the counts summing to the total
  // keep every chunk's start and end inside the words.
  uint64_t sum = 0;
  const uint8_t* cbits = blob.data() + p.chunk_bits_at;
  for (uint64_t c = 0; c < p.chunks; ++c) {
    uint16_t b;
    std::memcpy(&b, cbits + 2 * c, 2);
    const uint64_t syms = c + 1 < p.chunks ? p.chunk : p.n - c * p.chunk;
    SCIZ_REQUIRE(b >= syms && b <= syms * kMaxLen, Status::corrupt_stream,
                 "huffman stream: chunk " + std::to_string(c) + " claims " + std::to_string(b) + " bits for " +
                     std::to_string(syms) + " symbols");
    sum += b;
  }
  SCIZ_REQUIRE(sum == p.total_bits, Status::corrupt_stream,
               "huffman stream: chunk bit counts sum to " + std::to_string(sum) + ", header says " +
                   std::to_string(p.total_bits));
  return p;
}

}  // namespace sciz::huffman
