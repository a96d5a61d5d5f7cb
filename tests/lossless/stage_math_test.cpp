// The per-thread units the GPU twins of the stages are built from (shared headers), checked on
// the CPU against the per-symbol definitions: a CUDA kernel can only be as right as these.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "lossless/stages/bitshuffle_math.hpp"
#include "lossless/stages/eliminate_math.hpp"
#include "lossless/stages/tcms_math.hpp"

using namespace sciz;
using namespace sciz::stages;

namespace {

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed, int zero_percent) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(static_cast<int>(rng() % 100) < zero_percent ? 0 : rng());
  return v;
}

template <int W>
void tcms_words_match() {
  std::mt19937_64 rng(W);
  for (int i = 0; i < 20000; ++i) {
    uint64_t x = rng();
    if (i % 3 == 0) x &= 0x8181818181818181ull;  // sign bits and low bits of every lane
    uint64_t fwd = 0, inv = 0;
    for (int k = 0; k < 8 / W; ++k) {
      const uint_t<W> v = load_sym<W>(reinterpret_cast<const uint8_t*>(&x) + k * W);
      fwd |= static_cast<uint64_t>(tcms_forward(v)) << (8 * W * k);
      inv |= static_cast<uint64_t>(tcms_inverse(v)) << (8 * W * k);
    }
    ASSERT_EQ(tcms_forward_word<W>(x), fwd) << "W " << W << " x " << std::hex << x;
    ASSERT_EQ(tcms_inverse_word<W>(x), inv) << "W " << W << " x " << std::hex << x;
  }
}

// A full block through shuffle32 (thread by thread) against shuffle_group, and back.
template <int W>
void shuffle32_matches() {
  const auto in = random_bytes(kBlockBytes, 10 + W, 30);
  const uint32_t g = kBlockBytes / (8 * W);
  std::vector<uint8_t> ref(kBlockBytes), got(kBlockBytes), back(kBlockBytes);
  for (uint32_t j = 0; j < g; ++j)
    for (int q = 0; q < W; ++q) shuffle_group(in.data(), ref.data(), W, g, j, q);
  for (uint32_t t = 0; t < g / 4; ++t) {
    uint32_t a[8 * W], b[8 * W];
    std::memcpy(a, in.data() + 32 * W * t, 32 * W);
    shuffle32<W>(a, b);
    for (int p = 0; p < 8 * W; ++p) std::memcpy(got.data() + p * g + 4 * t, &b[p], 4);
    unshuffle32<W>(b, a);
    std::memcpy(back.data() + 32 * W * t, a, 32 * W);
  }
  EXPECT_EQ(got, ref) << "W " << W;
  EXPECT_EQ(back, in) << "W " << W;
}

// kept_bits64 over every 64-symbol unit of blocks of several sizes and densities, against the
// per-symbol rule.
template <Family F, int W>
void kept_bits_match() {
  for (uint32_t bytes : {16384u, 16383u, 1000u, 64u * W + 3, 7u, 1u})
    for (int zeros : {0, 50, 97, 100}) {
      auto in = random_bytes(bytes, bytes + zeros + W, zeros);
      if (zeros == 50)  // runs, so that RRE finds repeats
        for (size_t i = 1; i < in.size(); ++i)
          if (i % 7) in[i] = in[i - 1];
      const uint32_t m = bytes / W;
      for (uint32_t first = 0; first < m + 64; first += 64) {
        uint64_t want = 0;
        for (uint32_t i = first; i < first + 64 && i < m; ++i) want |= static_cast<uint64_t>(kept<F, W>(in.data(), i)) << (i - first);
        const uint64_t got = kept_bits64<F, W>(in.data(), m, first);
        ASSERT_EQ(got, want)
            << (F == Family::rre ? "rre" : "rze") << W << " bytes " << bytes << " first " << first;
      }
    }
}

}  // namespace

TEST(StageMath, TcmsWordsMapEveryLaneLikeTheSymbol) {
  tcms_words_match<1>();
  tcms_words_match<2>();
  tcms_words_match<4>();
  tcms_words_match<8>();
}

TEST(StageMath, Shuffle32IsTheGroupTransposeOf32Symbols) {
  shuffle32_matches<1>();
  shuffle32_matches<2>();
  shuffle32_matches<4>();
  shuffle32_matches<8>();
}

TEST(StageMath, NonzeroBytes8) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 100000; ++i) {
    uint64_t x = rng();
    x &= rng() | rng();  // zero bytes
    if (i % 4 == 0) x &= 0x8080808080808080ull;
    if (i % 5 == 0) x &= 0x0101010101010101ull;
    uint32_t want = 0;
    for (int k = 0; k < 8; ++k) want |= static_cast<uint32_t>(((x >> (8 * k)) & 0xFF) != 0) << k;
    ASSERT_EQ(nonzero_bytes8(x), want) << std::hex << x;
  }
}

TEST(StageMath, KeptBits64IsTheKeptRule) {
  kept_bits_match<Family::rre, 1>();
  kept_bits_match<Family::rze, 1>();
  kept_bits_match<Family::rre, 2>();
  kept_bits_match<Family::rze, 4>();
  kept_bits_match<Family::rre, 8>();
}

// The inline popcounts (no libgcc call per byte) against counting bit by bit.
TEST(StageMath, PopcountsCountSetBits) {
  for (int b = 0; b < 256; ++b) {
    int n = 0;
    for (int i = 0; i < 8; ++i) n += (b >> i) & 1;
    ASSERT_EQ(popcount8(static_cast<uint8_t>(b)), n) << b;
  }
  std::mt19937_64 rng(9);
  std::vector<uint64_t> words = {0, ~uint64_t{0}, uint64_t{1} << 63, 1, 0x8000000000000001ull};
  for (int i = 0; i < 2000; ++i) words.push_back(rng() & rng());
  for (const uint64_t w : words) {
    int n = 0;
    for (int i = 0; i < 64; ++i) n += static_cast<int>((w >> i) & 1);
    ASSERT_EQ(popcount64(w), n) << w;
  }
}
