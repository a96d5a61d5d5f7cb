// huffman CUDA twin: same histogram, byte-identical blobs, exact decodes and the same refusals
// as the CPU twin.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <algorithm>
#include <cstring>
#include <random>

#include "gpu/gpu_util.hpp"
#include "lossless/huffman/huffman.hpp"
#include "lossless/huffman/huffman_cuda.cuh"

using namespace sciz;
using namespace sciz::huffman;

namespace {

std::vector<uint16_t> mixed(uint64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::geometric_distribution<int> g(0.4);
  std::vector<uint16_t> v(n);
  uint64_t i = 0;
  while (i < n) {  // smooth stretches (one symbol) between noisy ones
    const uint64_t len = 1 + rng() % 3000;
    const bool smooth = rng() & 1;
    for (uint64_t k = 0; k < len && i < n; ++k, ++i)
      v[i] = static_cast<uint16_t>(smooth ? 512 : 512 + ((rng() & 1) ? g(rng) : -g(rng)));
  }
  if (n > 10) v[n / 2] = 1023, v[1] = 0;
  return v;
}

void expect_twins(const std::vector<uint16_t>& v, uint32_t alphabet) {
  auto d = test::upload(v);
  const auto hc = histogram_cpu(v);
  const auto hg = histogram_cuda(d.get(), v.size(), alphabet, nullptr);
  ASSERT_EQ(hg.size(), alphabet);
  // The CPU histogram of a small input stops at its largest symbol, a large input's covers all
  // 65536: bins past either table's end count 0.
  for (size_t s = 0; s < std::max(hc.size(), hg.size()); ++s)
    ASSERT_EQ(s < hg.size() ? hg[s] : 0, s < hc.size() ? hc[s] : 0) << "bin " << s;
  const Codebook cb = build_codebook(hc);
  // The GPU pipeline builds its book from the full-width histogram: it must be the same book.
  ASSERT_TRUE(encode_cpu(v, build_codebook(hg)) == encode_cpu(v, cb)) << "books differ, n=" << v.size();
  const auto cpu = encode_cpu(v, cb);
  const auto gpu = encode_cuda(d.get(), v.size(), cb, nullptr);
  ASSERT_EQ(cpu.size(), gpu.size()) << "n=" << v.size();
  ASSERT_TRUE(cpu == gpu) << "blobs differ, n=" << v.size();
  dev::Buffer<uint16_t> out(v.size(), nullptr);
  decode_cuda(gpu, out.get(), v.size(), nullptr);
  EXPECT_TRUE(test::download(out.get(), v.size()) == v) << "n=" << v.size();
}

}  // namespace

TEST(HuffmanCuda, MatchesCpuOnAwkwardSizes) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (uint64_t n : {1ull, 7ull, 8ull, 9ull, 511ull, 512ull, 513ull, 65537ull, 1000003ull, 4000000ull})
    expect_twins(mixed(n, static_cast<uint32_t>(n)), 1024);
}

TEST(HuffmanCuda, LargeAlphabetsAndSingleSymbols) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::vector<uint16_t> v(65536 * 5 + 3);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint16_t>(i * 40503u);
  expect_twins(v, 65536);
  expect_twins(std::vector<uint16_t>(1000000, 512), 1024);
  expect_twins(std::vector<uint16_t>(3, 65535), 65536);
}

TEST(HuffmanCuda, EmptyInput) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  dev::Buffer<uint16_t> d(0, nullptr);
  const auto gpu = encode_cuda(d.get(), 0, 1024, nullptr);
  EXPECT_TRUE(gpu == encode_cpu(std::vector<uint16_t>{}));
  decode_cuda(gpu, d.get(), 0, nullptr);
}

TEST(HuffmanCuda, SymbolOutsideAlphabetIsAnError) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::vector<uint16_t> v(1000, 5);
  v[777] = 4000;
  auto d = test::upload(v);
  EXPECT_THROW(histogram_cuda(d.get(), v.size(), 1024, nullptr), Error);
}

TEST(HuffmanCuda, RefusesDamagedBlobs) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto v = mixed(100000, 9);
  const auto enc = encode_cpu(v);
  dev::Buffer<uint16_t> out(v.size(), nullptr);
  std::vector<uint8_t> cut(enc.begin(), enc.end() - 1);
  EXPECT_THROW(decode_cuda(cut, out.get(), v.size(), nullptr), Error);
  const Parsed p = parse(enc, v.size());
  auto bad = enc;
  uint16_t a, b;
  std::memcpy(&a, &bad[p.chunk_bits_at], 2);
  std::memcpy(&b, &bad[p.chunk_bits_at + 2], 2);
  ++a, --b;
  std::memcpy(&bad[p.chunk_bits_at], &a, 2);
  std::memcpy(&bad[p.chunk_bits_at + 2], &b, 2);
  try {
    decode_cuda(bad, out.get(), v.size(), nullptr);
    ADD_FAILURE() << "shifted chunk start decoded silently";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
  }
}

namespace {

// Symbols whose codes span every length up to kMaxLen: a geometric core (short codes, several
// to a primary-table window) and rare symbols seen once or twice (codes of 13-16 bits: the
// canonical search), around `base`.
std::vector<uint16_t> long_codes(uint64_t n, uint32_t base, uint32_t seed) {
  std::mt19937 rng(seed);
  std::geometric_distribution<int> g(0.3);
  std::vector<uint16_t> v(n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t r = rng() % 1000;
    v[i] = static_cast<uint16_t>(r < 3 ? base + 2000 + rng() % 3000 : base + ((rng() & 1) ? g(rng) : -g(rng)) + 100);
  }
  return v;
}

// Both GPU decoders (the host-parsed blob and the device-resident one) against the input.
void expect_decoders(const std::vector<uint16_t>& v, uint32_t chunk, const char* what) {
  const auto blob = encode_cpu(v, build_codebook(histogram_cpu(v)), chunk);
  std::vector<uint16_t> back(v.size());
  decode_cpu(blob, back);
  ASSERT_TRUE(back == v) << what << " cpu, n=" << v.size() << " chunk=" << chunk;
  dev::Buffer<uint16_t> out(v.size() + 8, nullptr);
  decode_cuda(blob, out.get(), v.size(), nullptr);
  ASSERT_TRUE(test::download(out.get(), v.size()) == v) << what << " blob path, n=" << v.size() << " chunk=" << chunk;
  std::vector<uint8_t> padded = blob;
  padded.resize((blob.size() + 3) / 4 * 4);
  auto d_blob = test::upload(padded);
  auto st = test::upload(std::vector<DeviceStatus>{DeviceStatus{}});
  // Guards past the output: the flushes of 16 symbols must stop at n.
  std::vector<uint16_t> guard(v.size() + 8, 0xbeef);
  dev::Buffer<uint16_t> out2 = test::upload(guard);
  cuda::decode_blob(d_blob.get(), cuda::BlobRef{0, blob.size(), v.size()}, out2.get(), st.get(), 0, nullptr);
  const auto got = test::download(out2.get(), v.size() + 8);
  ASSERT_EQ(test::download(st.get(), 1)[0].code, 0u) << what << " device path, n=" << v.size() << " chunk=" << chunk;
  ASSERT_TRUE(std::equal(v.begin(), v.end(), got.begin())) << what << " device path, n=" << v.size() << " chunk=" << chunk;
  for (size_t i = v.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0xbeef) << what << " guard " << i - v.size();
}

}  // namespace

// Long codes next to short ones, small and large symbols, one-symbol books, chunk sizes that
// end anywhere in a 16-symbol store and counts with odd tails, through both GPU decoders.
TEST(HuffmanCuda, DecodersOnLongCodesLargeSymbolsAndChunkEnds) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (uint32_t chunk : {8u, 24u, 512u, 520u, 4088u})
    for (uint64_t n : {1ull, 2ull, 3ull, 15ull, 16ull, 17ull, 33ull, 521ull, 100003ull}) {
      const uint32_t seed = static_cast<uint32_t>(n * 31 + chunk);
      expect_decoders(long_codes(n, 512, seed), chunk, "long codes");
      expect_decoders(long_codes(n, 8100, seed), chunk, "around 8192");
      expect_decoders(long_codes(n, 40000, seed), chunk, "large symbols");
      expect_decoders(std::vector<uint16_t>(n, 7), chunk, "one symbol");
    }
  // Codes of exactly 16 bits must occur for the test to mean anything.
  const auto v = long_codes(100003, 512, 5);
  const Codebook cb = build_codebook(histogram_cpu(v));
  uint32_t longest = 0;
  for (uint32_t s = 0; s < cb.table(); ++s) longest = std::max<uint32_t>(longest, cb.len[s]);
  EXPECT_GE(longest, 14u);
}

TEST(HuffmanCuda, DevicePathRefusesCorruptChunks) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto v = long_codes(50000, 512, 77);
  const auto blob = encode_cpu(v, build_codebook(histogram_cpu(v)), 512);
  const Parsed p = parse(blob, v.size());
  // Flip bits inside the words: a chunk then decodes to other codes, a wrong bit count or an
  // unknown code. The device path must refuse exactly what the CPU decoder refuses (what
  // neither can tell, a code swapped for one of the same length, the container's checksums
  // catch), and decode to the CPU's symbols otherwise.
  uint32_t refused = 0;
  for (uint64_t k = 0; k < 40; ++k) {
    auto bad = blob;
    const uint64_t at = p.words_at + (k * 7919) % (blob.size() - p.words_at);
    bad[at] ^= static_cast<uint8_t>(1u << (k % 8));
    std::vector<uint16_t> cpu(v.size());
    bool cpu_refused = false;
    try {
      decode_cpu(bad, cpu);
    } catch (const Error&) {
      cpu_refused = true;
    }
    bad.resize((bad.size() + 3) / 4 * 4);
    auto d_blob = test::upload(bad);
    auto st = test::upload(std::vector<DeviceStatus>{DeviceStatus{}});
    dev::Buffer<uint16_t> out(v.size(), nullptr);
    cuda::decode_blob(d_blob.get(), cuda::BlobRef{0, blob.size(), v.size()}, out.get(), st.get(), 0, nullptr);
    const bool gpu_refused = test::download(st.get(), 1)[0].code != 0;
    ASSERT_EQ(gpu_refused, cpu_refused) << "flip " << k;
    if (!gpu_refused) ASSERT_TRUE(test::download(out.get(), v.size()) == cpu) << "flip " << k;
    refused += gpu_refused;
  }
  EXPECT_GT(refused, 0u);
}
