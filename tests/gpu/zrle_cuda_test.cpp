// Zero-run coding, CUDA twin: the same tokens as the CPU twin and exact expansion.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <random>

#include "gpu/gpu_util.hpp"
#include "lossless/zrle/zrle.hpp"

using namespace sciz;
using namespace sciz::zrle;

namespace {
std::vector<uint16_t> sparse_codes(uint64_t n, double p_other, uint32_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution other(p_other);
  std::vector<uint16_t> v(n, 512);
  for (auto& c : v)
    if (other(rng)) c = static_cast<uint16_t>(rng() % 1024);
  return v;
}
}  // namespace

TEST(ZrleCuda, MatchesCpu) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (uint64_t n : {1ull, 7ull, 2047ull, 2048ull, 65535ull, 65536ull, 65537ull, 1000003ull, 5000000ull})
    for (double p : {0.0, 0.002, 0.3, 1.0}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " p=" + std::to_string(p));
      const auto v = sparse_codes(n, p, static_cast<uint32_t>(n * 7 + 1000 * p));
      const Tokens c = tokens_cpu(v, 512);
      auto d = test::upload(v);
      const DeviceTokens g = tokens_cuda(d.get(), n, 512, nullptr);
      ASSERT_EQ(g.count, c.value.size());
      ASSERT_EQ(g.tail, c.tail);
      ASSERT_TRUE(test::download(g.value.get(), g.count) == c.value);
      ASSERT_TRUE(test::download(g.zrun.get(), g.count) == c.zrun);
      // Eight guard codes after the output: the expansion writes whole 16-byte vectors inside
      // and must stop at n.
      auto out = test::upload(std::vector<uint16_t>(n + 8, 0xabcd));
      expand_cuda(g.value.get(), g.zrun.get(), g.count, g.tail, 512, out.get(), n, nullptr);
      const auto got = test::download(out.get(), n + 8);
      ASSERT_TRUE(std::vector<uint16_t>(got.begin(), got.begin() + n) == v);
      ASSERT_TRUE(std::vector<uint16_t>(got.begin() + n, got.end()) == std::vector<uint16_t>(8, 0xabcd));
    }
}

TEST(ZrleCuda, RefusesTokensThatDoNotCover) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto v = sparse_codes(100000, 0.05, 9);
  const Tokens c = tokens_cpu(v, 512);
  auto dv = test::upload(c.value);
  auto dz = test::upload(c.zrun);
  dev::Buffer<uint16_t> out(v.size() + 1, nullptr);
  EXPECT_THROW(expand_cuda(dv.get(), dz.get(), c.value.size(), c.tail + 1, 512, out.get(), v.size(), nullptr), Error);
  EXPECT_THROW(expand_cuda(dv.get(), dz.get(), c.value.size(), c.tail, 512, out.get(), v.size() + 1, nullptr), Error);
}
