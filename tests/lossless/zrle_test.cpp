// Zero-run coding, CPU twin: exact tokens against a one-code-at-a-time reference, the forced
// tokens at tile ends, round trips, and refusal of token lists that do not cover the output.
#include <gtest/gtest.h>
#include <sciz/error.hpp>

#include <random>

#include "lossless/zrle/zrle.hpp"

using namespace sciz;
using namespace sciz::zrle;

namespace {

Tokens reference(const std::vector<uint16_t>& v, uint16_t centre) {
  Tokens t;
  uint64_t run = 0;
  for (uint64_t i = 0; i < v.size(); ++i) {
    if (v[i] == centre && i % 65536 != 65535) {
      ++run;
      continue;
    }
    t.value.push_back(v[i]);
    t.zrun.push_back(static_cast<uint16_t>(run));
    run = 0;
  }
  t.tail = static_cast<uint32_t>(run);
  return t;
}

std::vector<uint16_t> sparse_codes(uint64_t n, double p_other, uint32_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution other(p_other);
  std::vector<uint16_t> v(n, 512);
  for (auto& c : v)
    if (other(rng)) c = static_cast<uint16_t>(rng() % 1024);
  return v;
}

void expect_exact(const std::vector<uint16_t>& v, uint16_t centre) {
  const Tokens t = tokens_cpu(v, centre), r = reference(v, centre);
  ASSERT_EQ(t.value, r.value) << "n=" << v.size();
  ASSERT_EQ(t.zrun, r.zrun) << "n=" << v.size();
  ASSERT_EQ(t.tail, r.tail) << "n=" << v.size();
  std::vector<uint16_t> out(v.size(), 7);
  expand_cpu(t.value, t.zrun, t.tail, centre, out);
  ASSERT_EQ(out, v);
}

}  // namespace

TEST(Zrle, TokensMatchTheReference) {
  for (uint64_t n : {0ull, 1ull, 2ull, 65535ull, 65536ull, 65537ull, 131072ull, 300001ull})
    for (double p : {0.0, 0.001, 0.3, 1.0}) expect_exact(sparse_codes(n, p, static_cast<uint32_t>(n + 1000 * p)), 512);
}

TEST(Zrle, ForcedTokensBoundEveryRun) {
  const std::vector<uint16_t> v(200000, 512);  // all centre: only forced tokens
  const Tokens t = tokens_cpu(v, 512);
  ASSERT_EQ(t.value.size(), 3u);  // at 65535, 131071, 196607
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(t.value[k], 512);
    EXPECT_EQ(t.zrun[k], 65535);
  }
  EXPECT_EQ(t.tail, 200000u - 196608u);
  expect_exact(v, 512);
  std::vector<uint16_t> w(70000, 3);  // no centre at all: every code a token, runs of 0
  const Tokens u = tokens_cpu(w, 512);
  EXPECT_EQ(u.value.size(), w.size());
  EXPECT_EQ(u.tail, 0u);
  for (uint16_t z : u.zrun) ASSERT_EQ(z, 0);
}

TEST(Zrle, ExpandRefusesTokensThatDoNotCoverTheOutput) {
  const auto v = sparse_codes(100000, 0.05, 3);
  Tokens t = tokens_cpu(v, 512);
  std::vector<uint16_t> out(v.size(), 7);
  const auto untouched = out;
  auto expect_corrupt = [&](const Tokens& bad, size_t size) {
    std::vector<uint16_t> o(size, 7);
    try {
      expand_cpu(bad.value, bad.zrun, bad.tail, 512, o);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
    }
    EXPECT_TRUE(std::all_of(o.begin(), o.end(), [](uint16_t c) { return c == 7; })) << "wrote before failing";
  };
  expect_corrupt(t, v.size() + 1);
  expect_corrupt(t, v.size() - 1);
  Tokens more = t;
  ++more.tail;
  expect_corrupt(more, v.size());
  Tokens shorter = t;
  shorter.zrun.pop_back();
  expect_corrupt(shorter, v.size());
  EXPECT_EQ(out, untouched);
}
