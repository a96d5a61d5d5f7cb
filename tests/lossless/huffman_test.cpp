// huffman stage, CPU twin: exact round trips over awkward sizes and distributions, codebook
// properties (prefix code, length limit, near-entropy size) and refusal of damaged blobs.
#include <gtest/gtest.h>
#include <sciz/error.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "lossless/huffman/huffman.hpp"

using namespace sciz;
using namespace sciz::huffman;

namespace {

// Quant-code-like symbols: two-sided geometric around `centre` with decay `p`.
std::vector<uint16_t> geometric(uint64_t n, uint16_t centre, double p, uint32_t seed) {
  std::mt19937 rng(seed);
  std::geometric_distribution<int> g(p);
  std::vector<uint16_t> v(n);
  for (auto& s : v) {
    const int k = std::min(g(rng), 400);
    s = static_cast<uint16_t>(centre + ((rng() & 1) ? k : -k));
  }
  return v;
}

void expect_round_trip(const std::vector<uint16_t>& v, uint32_t chunk = kDefaultChunk) {
  const Codebook cb = build_codebook(histogram_cpu(v));
  const auto enc = encode_cpu(v, cb, chunk);
  EXPECT_EQ(enc.size(), encoded_bytes(cb, v.size(), coded_bits(cb, histogram_cpu(v)), chunk));
  std::vector<uint16_t> out(v.size(), 0xdead);
  decode_cpu(enc, out);
  ASSERT_EQ(out, v) << "n=" << v.size() << " chunk=" << chunk;
}

double entropy_bits(const std::vector<uint64_t>& h, uint64_t n) {
  double bits = 0;
  for (uint64_t c : h)
    if (c) bits -= static_cast<double>(c) * std::log2(static_cast<double>(c) / static_cast<double>(n));
  return bits;
}

void expect_status(Status st, const std::function<void()>& f) {
  try {
    f();
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), st) << e.what();
  }
}

}  // namespace

TEST(Huffman, RoundTripsAwkwardSizes) {
  for (uint64_t n : {0ull, 1ull, 7ull, 8ull, 9ull, 511ull, 512ull, 513ull, 4095ull, 100003ull})
    expect_round_trip(geometric(n, 512, 0.3, static_cast<uint32_t>(n)));
}

TEST(Huffman, RoundTripsEveryChunkSize) {
  const auto v = geometric(50000, 512, 0.5, 7);
  for (uint32_t chunk : {8u, 16u, 256u, 1024u, kMaxChunk}) expect_round_trip(v, chunk);
  EXPECT_THROW(encode_cpu(v, build_codebook(histogram_cpu(v)), 12), Error);
  EXPECT_THROW(encode_cpu(v, build_codebook(histogram_cpu(v)), 4096), Error);
}

TEST(Huffman, SingleAndTwoSymbolAlphabets) {
  expect_round_trip(std::vector<uint16_t>(10000, 512));
  expect_round_trip(std::vector<uint16_t>(1, 65535));
  std::vector<uint16_t> two(9999);
  for (size_t i = 0; i < two.size(); ++i) two[i] = i % 3 ? 0 : 65535;
  expect_round_trip(two);
  const Codebook cb = build_codebook(histogram_cpu(std::vector<uint16_t>(5, 7)));
  EXPECT_EQ(cb.used, 1u);
  EXPECT_EQ(cb.len[7], 1);
}

TEST(Huffman, FullAlphabetTakesSixteenBits) {
  std::vector<uint16_t> v(65536 * 3);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint16_t>(i * 40503u);
  const auto h = histogram_cpu(v);
  const Codebook cb = build_codebook(h);
  for (uint32_t s = 0; s < kAlphabet; ++s) ASSERT_EQ(cb.len[s], 16) << s;
  expect_round_trip(v);
}

TEST(Huffman, DeepTreesAreLimitedToSixteenBits) {
  // Fibonacci frequencies make an unlimited Huffman tree as deep as the alphabet (30 here).
  std::vector<uint64_t> h(30);
  h[0] = h[1] = 1;
  for (size_t i = 2; i < h.size(); ++i) h[i] = h[i - 1] + h[i - 2];
  const Codebook cb = build_codebook(h);
  uint64_t kraft = 0;
  for (size_t s = 0; s < h.size(); ++s) {
    ASSERT_GE(cb.len[s], 1);
    ASSERT_LE(cb.len[s], kMaxLen);
    kraft += uint64_t{1} << (kMaxLen - cb.len[s]);
  }
  EXPECT_LE(kraft, uint64_t{1} << kMaxLen);
  EXPECT_EQ(cb.len[29], 1);  // the most frequent symbol keeps the shortest code
  std::vector<uint16_t> v;
  for (size_t s = 0; s < h.size(); ++s) v.insert(v.end(), std::min<uint64_t>(h[s], 3000), static_cast<uint16_t>(s));
  std::shuffle(v.begin(), v.end(), std::mt19937(3));
  expect_round_trip(v);
}

TEST(Huffman, SizeIsWithinOneBitOfEntropy) {
  for (double p : {0.05, 0.3, 0.7, 0.95}) {
    const auto v = geometric(200000, 512, p, 11);
    const auto h = histogram_cpu(v);
    const Codebook cb = build_codebook(h);
    const double H = entropy_bits(h, v.size());
    const double bits = static_cast<double>(coded_bits(cb, h));
    EXPECT_GE(bits, H) << "p=" << p;
    EXPECT_LE(bits, H + static_cast<double>(v.size())) << "p=" << p;
  }
}

TEST(Huffman, RefusesDamagedBlobs) {
  const auto v = geometric(20000, 512, 0.3, 5);
  const auto enc = encode_cpu(v);
  std::vector<uint16_t> out(v.size());
  // Truncated, extended, wrong count.
  for (size_t cut : {size_t{0}, size_t{10}, size_t{31}, enc.size() / 2, enc.size() - 1}) {
    std::vector<uint8_t> t(enc.begin(), enc.begin() + static_cast<std::ptrdiff_t>(cut));
    expect_status(Status::corrupt_stream, [&] { decode_cpu(t, out); });
  }
  auto longer = enc;
  longer.push_back(0);
  expect_status(Status::corrupt_stream, [&] { decode_cpu(longer, out); });
  std::vector<uint16_t> wrong(v.size() + 1);
  expect_status(Status::corrupt_stream, [&] { decode_cpu(enc, wrong); });
  // A chunk bit count off by one no longer sums to the total.
  const Parsed p = parse(enc, v.size());
  auto bad = enc;
  bad[p.chunk_bits_at] ^= 1;
  expect_status(Status::corrupt_stream, [&] { decode_cpu(bad, out); });
  // Two counts shifted by one each keep the sum but move a chunk's start: decoding there does
  // not end on the stated bit.
  bad = enc;
  uint16_t a, b;
  std::memcpy(&a, &bad[p.chunk_bits_at], 2);
  std::memcpy(&b, &bad[p.chunk_bits_at + 2], 2);
  ++a, --b;
  std::memcpy(&bad[p.chunk_bits_at], &a, 2);
  std::memcpy(&bad[p.chunk_bits_at + 2], &b, 2);
  expect_status(Status::corrupt_stream, [&] { decode_cpu(bad, out); });
  // Chunk size zero, not a multiple of 8.
  bad = enc;
  bad[8] = 0, bad[9] = 0;
  expect_status(Status::corrupt_stream, [&] { decode_cpu(bad, out); });
  bad = enc;
  bad[8] = 12, bad[9] = 0;
  expect_status(Status::corrupt_stream, [&] { decode_cpu(bad, out); });
}

TEST(Huffman, CodebookIsHalfAByteALengthAndRejectsDirtyPadding) {
  const std::vector<uint16_t> v = {3, 3, 3, 9, 9, 700};  // three used symbols: one spare nibble
  const Codebook cb = build_codebook(histogram_cpu(v));
  ByteWriter w;
  write_codebook(w, cb);
  ASSERT_EQ(w.size(), 4u + 2u);  // gaps 3, 5 (a byte each) and 690 (two bytes); three nibbles
  std::vector<uint8_t> b = w.buffer();
  ByteReader ok(b.data(), b.size(), "codebook");
  EXPECT_EQ(read_codebook(ok, 3).len, cb.len);
  b.back() |= 0x30;
  ByteReader dirty(b.data(), b.size(), "codebook");
  expect_status(Status::corrupt_stream, [&] { read_codebook(dirty, 3); });
}

TEST(Huffman, RefusesCodebooksThatAreNotPrefixCodes) {
  std::vector<uint8_t> len(kAlphabet, 0);
  len[0] = len[1] = len[2] = 1;  // three 1-bit codes
  expect_status(Status::corrupt_stream, [&] { codebook_from_lengths(len); });
  len.assign(kAlphabet, 0);
  len[0] = 17;
  expect_status(Status::corrupt_stream, [&] { codebook_from_lengths(len); });
  // Lengths with unused code space (here "11") are a valid code; bits landing there are corrupt.
  len.assign(kAlphabet, 0);
  len[3] = 1, len[9] = 2;
  const Codebook cb = codebook_from_lengths(len);
  std::vector<uint8_t> blob = header_and_codebook(cb, 8, 8, 16);
  const Layout l = layout(blob.size() - 32, 1, 1);
  blob.resize(l.bytes, 0xff);
  const uint16_t bits = 16;
  std::memcpy(&blob[l.chunk_bits_at], &bits, 2);
  std::vector<uint16_t> out(8);
  expect_status(Status::corrupt_stream, [&] { decode_cpu(blob, out); });
}

TEST(Huffman, CodebooksListTheirUsedSymbols) {
  // Codebook::syms (what the table walks visit) is exactly the symbols with a length, in
  // increasing order, however the codebook was made; codes and decode tables match a codebook
  // built from the full length table.
  const auto v = geometric(50000, 30000, 0.05, 3);
  const Codebook a = build_codebook(histogram_cpu(v));
  std::vector<uint32_t> want;
  for (uint32_t s = 0; s < a.table(); ++s)
    if (a.len[s]) want.push_back(s);
  EXPECT_EQ(a.syms, want);
  EXPECT_EQ(a.used, want.size());
  // The tables end at the largest used symbol (a few pages, not 320 KB of zeros a call).
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(a.table(), want.back() + 1);
  EXPECT_EQ(a.code.size(), a.len.size());
  const Codebook b = codebook_from_lengths(a.len);
  EXPECT_EQ(b.syms, want);
  EXPECT_EQ(b.code, a.code);
  ByteWriter w;
  write_codebook(w, a);
  ByteReader r(w.buffer().data(), w.buffer().size(), "test");
  const Codebook c = read_codebook(r, a.used);
  EXPECT_EQ(c.syms, want);
  EXPECT_EQ(c.code, a.code);
  EXPECT_EQ(c.len, a.len);
  const DecodeTables ta = decode_tables(a), tc = decode_tables(c);
  EXPECT_EQ(ta.primary, tc.primary);
  EXPECT_EQ(ta.sorted, tc.sorted);
  const Lengths l = lengths_of(a);
  EXPECT_EQ(l.sym, want);
  EXPECT_EQ(coded_bits(a, histogram_cpu(v)), coded_bits(l, histogram_cpu(v)));
  // A length table holding a zero-length "used" symbol cannot come from the stream: lengths are
  // 1..16 there, and codebook_from_lengths only lists symbols with a length.
  std::vector<uint8_t> len(kAlphabet, 0);
  len[3] = 17;
  expect_status(Status::corrupt_stream, [&] { codebook_from_lengths(len); });
}


// Found by the stages fuzz run: symbol gaps are summed in 64 bits, so a huge gap wraps to a
// smaller symbol; the reader accepts that (as the device reader does), and its tables must be
// sized by the largest symbol, not the last one listed (the last one indexed past them).
TEST(Huffman, CodebookWhoseSymbolSumWrapsIsReadInBounds) {
  std::vector<uint8_t> b;
  auto varint = [&](uint64_t x) {
    do {
      b.push_back(static_cast<uint8_t>((x & 0x7f) | (x > 0x7f ? 0x80 : 0)));
      x >>= 7;
    } while (x);
  };
  varint(100);                       // symbol 100
  varint(~uint64_t{0} - 50);         // 101 + 2^64 - 51 wraps to symbol 50
  b.push_back(0x00);                 // both of length 1
  ByteReader r(b.data(), b.size(), "codebook");
  const Codebook cb = read_codebook(r, 2);
  EXPECT_EQ(cb.table(), 101u);
  EXPECT_EQ(cb.len[50], 1);
  EXPECT_EQ(cb.len[100], 1);
}

// A symbol past the codebook's table (or inside it without a code) is refused, not read past
// the table's end.
TEST(Huffman, SymbolsBeyondTheCodebookAreRefused) {
  const std::vector<uint16_t> made = {3, 5, 5, 7, 3};
  const Codebook cb = build_codebook(histogram_cpu(made));
  ASSERT_EQ(cb.table(), 8u);
  for (uint16_t bad : {uint16_t{8}, uint16_t{4}, uint16_t{65535}}) {
    std::vector<uint16_t> v = made;
    v.push_back(bad);
    try {
      (void)encode_cpu(v, cb);
      ADD_FAILURE() << "symbol " << bad << " was encoded";
    } catch (const sciz::Error& e) {
      EXPECT_EQ(e.status(), sciz::Status::internal) << e.what();
    }
  }
}

// Inputs below 2^18 symbols are encoded in one pass by one writer; the blob must be the bytes
// of the chunked two-pass path (chunks sized, then written in threads), for every chunk size,
// sizes around chunk and word boundaries, one-symbol and skewed alphabets; and a symbol
// without a code is refused by both.
TEST(Huffman, OnePassEqualsTheChunkedPath) {
  for (uint32_t chunk : {8u, 24u, 1024u, kDefaultChunk, 4088u})
    for (uint64_t n : {0ull, 1ull, 2ull, 7ull, 8ull, 9ull, 31ull, 33ull, 1023ull, 4089ull, 50000ull, 262143ull}) {
      for (double p : {0.9, 0.3, 0.02}) {
        const std::vector<uint16_t> v = geometric(n, 512, p, static_cast<uint32_t>(n + chunk));
        const Codebook cb = build_codebook(histogram_cpu(v));
        ASSERT_EQ(encode_cpu(v, cb, chunk), encode_cpu_chunked(v, cb, chunk)) << "n=" << n << " chunk=" << chunk;
      }
      const std::vector<uint16_t> one(n, 7);
      const Codebook cb1 = build_codebook(histogram_cpu(one));
      ASSERT_EQ(encode_cpu(one, cb1, chunk), encode_cpu_chunked(one, cb1, chunk)) << "n=" << n;
    }
  std::vector<uint16_t> v = geometric(5000, 512, 0.3, 4);
  const Codebook cb = build_codebook(histogram_cpu(v));
  v[4321] = 9000;  // beyond the codebook's table
  expect_status(Status::internal, [&] { encode_cpu(v, cb); });
  expect_status(Status::internal, [&] { encode_cpu_chunked(v, cb); });
  v[4321] = 100;  // inside the table, without a code
  expect_status(Status::internal, [&] { encode_cpu(v, cb); });
}
