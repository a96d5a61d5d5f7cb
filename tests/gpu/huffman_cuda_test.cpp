// huffman CUDA twin: same histogram, byte-identical blobs, exact decodes and the same refusals
// as the CPU twin.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cstring>
#include <random>

#include "gpu/gpu_util.hpp"
#include "lossless/huffman/huffman.hpp"

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
  // The CPU histogram of a small input stops at its largest symbol: bins past it count 0.
  ASSERT_LE(hc.size(), hg.size());
  for (uint32_t s = 0; s < alphabet; ++s) ASSERT_EQ(hg[s], s < hc.size() ? hc[s] : 0) << "bin " << s;
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
