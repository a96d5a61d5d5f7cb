// digest::chunked_device: the device's chunked digests equal chunked_xxh64 on the host, for
// every length class of the xxh64 paths (short, stripes, tails), block edges, alignments, and
// many ranges of one call.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "core/checksum.hpp"
#include "core/device.hpp"
#include "core/digest_cuda.hpp"
#include "gpu/gpu_util.hpp"

using namespace sciz;

namespace {

std::vector<unsigned char> random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> b(n);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t w = rng();
    for (size_t k = 0; k < 8 && i + k < n; ++k) b[i + k] = static_cast<unsigned char>(w >> (8 * k));
  }
  return b;
}

struct Span {
  size_t at, len;
};

// Digests of spans of host (copied to the device once) in one call, against the CPU.
void expect_matches(const std::vector<unsigned char>& host, const std::vector<Span>& spans, size_t block) {
  auto d = test::upload(host);
  std::vector<digest::Range> ranges;
  for (const Span& s : spans) ranges.push_back({d.get() + s.at, s.len});
  dev::Buffer<uint64_t> out(spans.size(), nullptr);
  digest::chunked_device(ranges.data(), ranges.size(), block, out.get(), nullptr);
  // The call copied the ranges: the host array may change (or go) before the kernels run.
  std::fill(ranges.begin(), ranges.end(), digest::Range{nullptr, 0});
  ranges.clear();
  ranges.shrink_to_fit();
  const auto got = test::download(out.get(), spans.size());
  for (size_t i = 0; i < spans.size(); ++i)
    ASSERT_EQ(got[i], chunked_xxh64(host.data() + spans[i].at, spans[i].len, block))
        << "range " << i << " of " << spans.size() << ": offset " << spans[i].at << ", " << spans[i].len
        << " bytes, block " << block;
}

std::vector<size_t> lengths_for(size_t block) {
  return {0,          1,          7,         8,         31,        32,         33,
          63,         64,         65,        100,       block - 1, block,      block + 1,
          block + 31, block + 32, 2 * block, 3 * block + 17, 17 * block + 5, 70 * block + 33};
}

}  // namespace

TEST(DigestCuda, EveryLengthClassAndAlignment) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (size_t block : {kDigestBlockV4, kChecksumChunk}) {
    const auto lengths = lengths_for(block);
    const size_t longest = *std::max_element(lengths.begin(), lengths.end());
    const auto host = random_bytes(longest + 64, block);
    // One call per alignment (offsets 0..7 and 16), each with every length.
    for (size_t at : {0, 1, 2, 3, 4, 5, 6, 7, 16}) {
      std::vector<Span> spans;
      for (size_t len : lengths) spans.push_back({at, len});
      expect_matches(host, spans, block);
    }
  }
}

TEST(DigestCuda, SmallestBlocks) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto host = random_bytes(300000, 7);
  for (size_t block : {size_t{32}, size_t{64}, size_t{96}, size_t{4096}}) {
    std::vector<Span> spans;
    for (size_t len : {size_t{0}, size_t{5}, size_t{32}, size_t{33}, size_t{1000}, size_t{4097}, size_t{299990}})
      for (size_t at : {0, 3, 8})
        spans.push_back({at, len});
    expect_matches(host, spans, block);
  }
}

// Ranges that end at the end of their allocation, at every alignment of start and end: the
// kernels must not read past the last byte (compute-sanitizer memcheck sees it).
TEST(DigestCuda, RangesEndingAtTheAllocationEnd) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (size_t size : {size_t{16384 + 13}, size_t{3 * 16384 + 7}, size_t{100}, size_t{40}}) {
    const auto host = random_bytes(size, size);
    std::vector<Span> spans;
    for (size_t at = 0; at < 8 && at < size; ++at) spans.push_back({at, size - at});
    expect_matches(host, spans, kDigestBlockV4);
  }
}

// A chunked stream's call: hundreds of ranges (more than one launch's worth of parameters),
// empty ones among them, of mixed sizes and alignments, some overlapping.
TEST(DigestCuda, ManyRangesInOneCall) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto host = random_bytes(8 << 20, 99);
  std::mt19937_64 rng(5);
  for (size_t k : {size_t{1}, size_t{31}, size_t{32}, size_t{33}, size_t{600}, size_t{1024}, size_t{2600}}) {
    std::vector<Span> spans;
    for (size_t i = 0; i < k; ++i) {
      const size_t cls = rng() % 6;
      const size_t len = cls == 0   ? 0
                         : cls == 1 ? rng() % 64
                         : cls == 2 ? rng() % 40000
                         : cls == 3 ? kDigestBlockV4 * (1 + rng() % 4)
                         : cls == 4 ? rng() % 300000
                                    : rng() % (3 << 20);
      spans.push_back({static_cast<size_t>(rng() % (host.size() - len + 1)), len});
    }
    expect_matches(host, spans, kDigestBlockV4);
  }
}

// Sections totalling more than the GPU's first wave: one big range and a chunked set of them.
TEST(DigestCuda, LargeRanges) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto host = random_bytes((96 << 20) + 5, 11);
  expect_matches(host, {{0, host.size()}}, kDigestBlockV4);
  expect_matches(host, {{5, host.size() - 5}}, kDigestBlockV4);
  std::vector<Span> spans;
  for (size_t at = 0; at + (6 << 20) <= host.size(); at += (6 << 20) + 3) spans.push_back({at, 6 << 20});
  expect_matches(host, spans, kDigestBlockV4);
  expect_matches(host, {{0, host.size()}, {1, 40 << 20}}, kChecksumChunk);
}

TEST(DigestCuda, RefusesBadBlocks) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  dev::Buffer<uint64_t> out(1, nullptr);
  const digest::Range r{out.get(), 8};
  for (size_t block : {size_t{0}, size_t{16}, size_t{33}, size_t{1000}})
    EXPECT_THROW(digest::chunked_device(&r, 1, block, out.get(), nullptr), Error) << block;
  EXPECT_NO_THROW(digest::chunked_device(&r, 0, kDigestBlockV4, out.get(), nullptr));  // nothing to do
}
