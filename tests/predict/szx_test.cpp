// SZx codec (src/predict/szx): every point within the bound, NaN/Inf bit for bit, the
// constant-block path, the shared math, determinism across thread counts, and corrupt
// sections refused with corrupt_stream, in both layouts (the encoder writes layout 2; it
// writes layout 1, byte for byte what earlier versions wrote, so that its decoders are tested
// beyond the goldens).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "core/container.hpp"
#include "core/exact_runs.hpp"
#include "predict/szx/szx.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

template <class T>
std::vector<T> decode(const szx::Encoded& e, uint64_t n) {
  std::vector<T> y(n);
  szx::decode_cpu<T>(szx::view(e), n, y.data());
  return y;
}

// Encode, decode, check every point; returns the encoded sections for further checks.
template <class T>
szx::Encoded roundtrip(const std::vector<T>& x, double eb, uint32_t block = szx::kDefaultBlock,
                       szx::Stats* st = nullptr, int layout = szx::kLayout2) {
  szx::Encoded e = szx::encode_cpu<T>(x.data(), x.size(), eb, block, st, layout);
  const auto y = decode<T>(e, x.size());
  EXPECT_EQ(test::check_bound(x, y, eb), "") << "n=" << x.size() << " eb=" << eb << " block=" << block
                                             << " layout=" << layout;
  return e;
}
// The same in both layouts.
template <class T>
void roundtrip_both(const std::vector<T>& x, double eb, uint32_t block = szx::kDefaultBlock) {
  for (int layout : {szx::kLayout1, szx::kLayout2}) roundtrip(x, eb, block, nullptr, layout);
}

using test::smooth_1d;

template <class T>
T from_u(typename szx::Traits<T>::U b) {
  return szx::from_bits<T>(b);
}

template <class T>
void sizes_case() {
  for (uint32_t block : {32u, 128u, 4096u})
    for (uint64_t n : {uint64_t(1), uint64_t(block - 1), uint64_t(block), uint64_t(block + 1), uint64_t(997),
                       uint64_t(10007), uint64_t(3 * block + 5)}) {
      auto x = smooth_1d<T>(n, 7);
      x.resize(n);
      for (double eb : {1e-1, 1e-3, 1e-6}) roundtrip_both(x, eb, block);
    }
}

template <class T>
void random_case() {
  for (double scale : {1e-3, 1.0, 1e6}) {
    const auto x = test::random_field<T>(20011, 11, scale);
    for (double rel : {1e-1, 1e-3, 1e-5}) roundtrip_both(x, rel * scale, 128);
  }
}

// Values on both sides of zero in the same block, with runs of +0 and -0.
template <class T>
void straddle_zero_case() {
  std::vector<T> x(4096);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(std::sin(i * 0.01) * 1e-2);
  for (size_t i = 100; i < 160; ++i) x[i] = (i & 1) ? T(0) : -T(0);
  for (double eb : {1e-2, 1e-4, 1e-7}) roundtrip_both(x, eb);
  std::vector<T> z(256);
  for (size_t i = 0; i < z.size(); ++i) z[i] = (i % 3) ? -T(0) : T(0);
  roundtrip_both(z, 1e-3);
}

template <class T>
void denormal_case() {
  const T dmin = std::numeric_limits<T>::denorm_min();
  std::vector<T> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = dmin * static_cast<T>(static_cast<int>(i % 37) - 18);
  x[500] = std::numeric_limits<T>::min();
  x[501] = -std::numeric_limits<T>::min();
  for (double eb : {static_cast<double>(dmin), static_cast<double>(dmin) * 3, 1e-30, 1.0}) roundtrip_both(x, eb);
  // eb below every representable float: nothing may move.
  if constexpr (sizeof(T) == 4) roundtrip_both(x, static_cast<double>(dmin) / 4);
}

template <class T>
void huge_range_case() {
  std::vector<T> x(300);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(std::cos(i * 0.1));
  x[10] = static_cast<T>(1e30);
  x[11] = static_cast<T>(-1e30);
  x[200] = std::numeric_limits<T>::max();
  x[201] = -std::numeric_limits<T>::max();
  x[202] = std::numeric_limits<T>::max();
  for (double eb : {1e-3, 1.0, 1e25}) roundtrip_both(x, eb);
  std::vector<T> y(128, std::numeric_limits<T>::max());
  y[5] = std::numeric_limits<T>::lowest();
  roundtrip_both(y, 1.0);
}

template <class T>
void special_case() {
  const auto x = test::special_values_1d<T>(5000, 3);
  for (double eb : {1e-1, 1e-3, 1e-6}) roundtrip_both(x, eb);
}

}  // namespace

// ---- shared math ----------------------------------------------------------------------

TEST(SzxMath, RequiredBytesFollowFormula4) {
  // radius 1.0 (exponent 0), eb 2^-10: 10 mantissa bits + sign + 8 exponent = 19 bits -> 3 bytes.
  EXPECT_EQ(szx::required_bytes<float>(1.0f, -10), 3);
  EXPECT_EQ(szx::required_bytes<float>(1.0f, -7), 2);    // 16 bits exactly
  EXPECT_EQ(szx::required_bytes<float>(1.0f, 0), 2);     // m = 0: sign + exponent
  EXPECT_EQ(szx::required_bytes<float>(1.0f, 5), 2);     // m < 0 clamps to 0
  EXPECT_EQ(szx::required_bytes<float>(1.0f, -40), 4);   // capped at the width
  EXPECT_EQ(szx::required_bytes<float>(std::numeric_limits<float>::infinity(), 0), 4);
  EXPECT_EQ(szx::required_bytes<double>(1.0, -4), 2);    // 1 + 11 + 4 = 16
  EXPECT_EQ(szx::required_bytes<double>(1.0, -5), 3);
  EXPECT_EQ(szx::required_bytes<double>(1.0, -60), 8);
  EXPECT_EQ(szx::eb_exponent(1.0), 0);
  EXPECT_EQ(szx::eb_exponent(0.06), -5);
  EXPECT_EQ(szx::eb_exponent(0.0), -1075);
  EXPECT_EQ(szx::eb_exponent(std::ldexp(1.0, -1060)), -1075);  // subnormal: conservative
}

TEST(SzxMath, EbExponentMatchesFrexp) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-300, 300);
  for (int i = 0; i < 10000; ++i) {
    const double e = std::pow(10.0, u(rng));
    EXPECT_EQ(szx::eb_exponent(e), std::ilogb(e)) << e;
  }
}

TEST(SzxMath, TruncationStaysBelowTwoToPe) {
  // For every |v| <= radius, keeping R bits (layout 2, moved down by pad and back) or the nb
  // bytes holding them (layout 1) moves v by less than 2^pe.
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int pe : {-20, -10, -5, 0}) {
    for (float radius : {0.75f, 3.0f, 1000.0f}) {
      const int R = szx::required_bits<float>(radius, pe), nb = szx::bytes_of_bits(R), pad = szx::pad_bits(R);
      ASSERT_EQ(8 * nb - R, pad);
      ASSERT_LT(pad, 8);
      const uint32_t keep = szx::top_mask<float>(nb);
      for (int i = 0; i < 2000; ++i) {
        const float v = static_cast<float>(u(rng)) * radius;
        const uint32_t k = szx::kept_pattern(v, pad, keep);
        if (pad) EXPECT_EQ(k >> (32 - pad), 0u) << "the top pad bits are zero";
        const float t2 = szx::reconstruct(0.0f, k, pad), t1 = szx::reconstruct(0.0f, szx::kept_pattern(v, 0, keep), 0);
        EXPECT_LT(std::fabs(static_cast<double>(v) - t2), std::ldexp(1.0, pe)) << v << " R " << R;
        EXPECT_LT(std::fabs(static_cast<double>(v) - t1), std::ldexp(1.0, pe)) << v << " nb " << nb;
        EXPECT_LE(std::fabs(static_cast<double>(v) - t1), std::fabs(static_cast<double>(v) - t2));
      }
    }
  }
}

TEST(SzxMath, ShortcutsMatchTheirDefinitions) {
  // The encoders' two shortcuts: a float radius taken in float is the rounded double radius,
  // and the kept bits masked in place are the kept pattern moved back up.
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int t = 0; t < 200000; ++t) {
    const float a = static_cast<float>(std::ldexp(u(rng), static_cast<int>(rng() % 60) - 30));
    const float b = static_cast<float>(std::ldexp(u(rng), static_cast<int>(rng() % 60) - 30));
    const float c = static_cast<float>(std::ldexp(u(rng), static_cast<int>(rng() % 60) - 30));
    const float mn = std::min(a, b), mx = std::max(a, b);
    const float d1 = mx - c, d2 = c - mn;
    ASSERT_EQ(szx::to_bits(d1 > d2 ? d1 : d2), szx::to_bits(static_cast<float>(szx::block_radius(mn, mx, c))));
    const int R = 9 + static_cast<int>(rng() % 24), pad = szx::pad_bits(R);
    const uint32_t keep = szx::top_mask<float>(szx::bytes_of_bits(R));
    const uint32_t kt = szx::kept_top<float>(a, szx::bits_mask<float>(R));
    ASSERT_EQ(kt >> pad, szx::kept_pattern<float>(a, pad, keep));
    ASSERT_EQ(szx::to_bits(c + szx::from_bits<float>(kt)), szx::to_bits(szx::reconstruct(c, kt >> pad, pad)));
  }
  const float big = std::numeric_limits<float>::max();
  EXPECT_EQ(szx::to_bits(big - (-big)), szx::to_bits(static_cast<float>(szx::block_radius(-big, big, -big))));
}

TEST(SzxMath, KindBytes) {
  for (int R = 2; R <= 64; ++R)
    for (int c = 0; c < 4; ++c) {
      const uint8_t k = szx::make_kind(R, c);
      EXPECT_EQ(szx::kind_bits(k), R);
      EXPECT_EQ(szx::kind_code(k), c);
      EXPECT_EQ(szx::valid_kind<double>(k), true);
      EXPECT_EQ(szx::valid_kind<float>(k), R <= 32);
      EXPECT_EQ(szx::kind_bits(szx::make_kind(0, c)), 0);
      EXPECT_EQ(szx::kind_code(szx::make_kind(0, c)), c);
    }
  for (uint8_t nb = 0; nb <= 8; ++nb) {
    EXPECT_EQ(szx::kind_bits(szx::kind_of_layout1(nb)), 8 * nb);
    EXPECT_EQ(szx::kind_code(szx::kind_of_layout1(nb)), 0);
  }
  EXPECT_EQ(szx::base_bytes<float>(0), 0);
  EXPECT_EQ(szx::base_bytes<float>(1), 1);
  EXPECT_EQ(szx::base_bytes<float>(2), 2);
  EXPECT_EQ(szx::base_bytes<float>(3), 4);
  EXPECT_EQ(szx::base_bytes<double>(1), 2);
  EXPECT_EQ(szx::base_bytes<double>(2), 4);
  EXPECT_EQ(szx::base_bytes<double>(3), 8);
}

template <class T>
void bases_case() {
  // Random blocks [mn, mx]: every base code that qualifies keeps its promise, code 3 always
  // qualifies, a code that qualifies stays qualified at the wider codes (so "the first that
  // qualifies" is the shortest), and plan_block picks the first.
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(-1, 1);
  int shorter = 0;
  for (int t = 0; t < 20000; ++t) {
    const double centre = std::ldexp(u(rng), static_cast<int>(rng() % 40) - 20);
    const double width = std::ldexp(std::fabs(u(rng)), static_cast<int>(rng() % 40) - 30);
    T mn = static_cast<T>(centre - width), mx = static_cast<T>(centre + width);
    if (mx < mn) std::swap(mn, mx);
    const double eb = std::ldexp(std::fabs(u(rng)) + 0.01, static_cast<int>(rng() % 40) - 30);
    const double ebc = szx::eb_check<T>(eb);
    const int pe = szx::eb_exponent(ebc);
    const T mu = szx::block_mu(mn, mx);
    const double r = szx::block_radius(mn, mx, mu);
    bool ok_before = false;
    if (r <= ebc) {
      for (int c = 0; c < 4; ++c) {
        T b;
        const bool ok = szx::constant_base(mn, mx, mu, ebc, c, b);
        if (c == 3) ASSERT_TRUE(ok);
        if (ok_before) ASSERT_TRUE(ok) << "code " << c;
        if (ok) {
          ASSERT_LE(static_cast<double>(mx) - static_cast<double>(b), ebc);
          ASSERT_LE(static_cast<double>(b) - static_cast<double>(mn), ebc);
          ASSERT_EQ(szx::truncated(b, szx::base_bytes<T>(c)), b) << "stored in its bytes";
        }
        ok_before = ok;
      }
    } else {
      const int R = szx::required_bits(static_cast<T>(r), pe);
      for (int c = 0; c < 4; ++c) {
        T b;
        const bool ok = szx::nonconstant_base(mn, mx, mu, R, pe, c, b);
        if (c == 3) ASSERT_TRUE(ok);
        if (ok_before) ASSERT_TRUE(ok) << "code " << c;
        if (ok) {
          ASSERT_EQ(szx::required_bits(static_cast<T>(szx::block_radius(mn, mx, b)), pe), R);
          ASSERT_EQ(szx::truncated(b, szx::base_bytes<T>(c)), b);
        }
        ok_before = ok;
      }
    }
    const auto p = szx::plan_block<T>(mn, mx, true, ebc, pe, szx::kLayout2);
    shorter += p.base_bytes < static_cast<int>(sizeof(T));
    T b;
    const bool first = r <= ebc ? szx::constant_base(mn, mx, mu, ebc, szx::kind_code(p.kind), b)
                                : szx::nonconstant_base(mn, mx, mu, p.R, pe, szx::kind_code(p.kind), b);
    ASSERT_TRUE(first);
    ASSERT_EQ(szx::to_bits(b), szx::to_bits(p.base));
    if (szx::kind_code(p.kind) > 0) {
      const bool earlier = r <= ebc ? szx::constant_base(mn, mx, mu, ebc, szx::kind_code(p.kind) - 1, b)
                                    : szx::nonconstant_base(mn, mx, mu, p.R, pe, szx::kind_code(p.kind) - 1, b);
      ASSERT_FALSE(earlier);
    }
    const auto p1 = szx::plan_block<T>(mn, mx, true, ebc, pe, szx::kLayout1);
    ASSERT_EQ(szx::to_bits(p1.base), szx::to_bits(mu));
    ASSERT_EQ(p1.kind, r <= ebc ? 0 : szx::required_bytes(static_cast<T>(r), pe));
  }
  EXPECT_GT(shorter, 10000) << "most bases fit in fewer bytes than a value";
}

TEST(SzxMath, BasesKeepTheirPromiseF32) { bases_case<float>(); }
TEST(SzxMath, BasesKeepTheirPromiseF64) { bases_case<double>(); }

TEST(SzxMath, BaseWordRoundTrip) {
  for (float v : {0.0f, 3.5f, -1234.5f, 1e-30f, std::numeric_limits<float>::max()})
    for (int w : {0, 1, 2, 4}) {
      const uint32_t word = szx::base_word(v, w);
      if (w < 4) EXPECT_EQ(word >> (8 * w), 0u) << "only the low w bytes are set";
      EXPECT_EQ(szx::from_bits<float>(szx::bswap(word)), szx::truncated(v, w));
    }
}

TEST(SzxMath, MidWordAndMergeAreInverse) {
  std::mt19937_64 rng(3);
  for (int nb = 1; nb <= 8; ++nb) {
    const uint64_t keep = szx::top_mask<double>(nb);
    uint64_t prev = 0;
    for (int i = 0; i < 1000; ++i) {
      uint64_t k = rng() & keep;
      if (i % 3 == 0) k = (prev & szx::top_mask<double>(2)) | (k & ~szx::top_mask<double>(2));
      const int L = szx::leading_bytes<double>(k, prev, szx::leading_cap(nb));
      ASSERT_LE(L, std::min(nb, 3));
      ASSERT_EQ(k & szx::top_mask<double>(L), prev & szx::top_mask<double>(L));
      // Only nb - L bytes of the word are "real"; the decoder must ignore the rest.
      uint64_t w = szx::mid_word<double>(k, L);
      uint8_t bytes[16];
      std::memcpy(bytes, &w, 8);
      for (int q = nb - L; q < 8; ++q) bytes[q] = static_cast<uint8_t>(rng());
      std::memcpy(&w, bytes, 8);
      EXPECT_EQ(szx::merge_pattern<double>(prev, w, L, keep), k);
      prev = k;
    }
  }
  EXPECT_EQ(szx::leading_bytes<float>(0x12345600u, 0x12345600u, 3), 3);
  EXPECT_EQ(szx::leading_bytes<float>(0x12340000u, 0x12340000u, 2), 2);
  EXPECT_EQ(szx::leading_bytes<float>(0x12340000u, 0x12350000u, 3), 1);
  EXPECT_EQ(szx::leading_bytes<float>(0x92340000u, 0x12340000u, 3), 0);
}

// The kernel's count with the cap as a set bit is leading_bytes() for every cap, on patterns
// that agree in 0 to all of their bytes (equal patterns included).
template <class U>
void capped_count_case() {
  using T = std::conditional_t<sizeof(U) == 4, float, double>;
  std::mt19937_64 rng(17);
  for (int lcap = 0; lcap <= 3; ++lcap) {
    const U bit = szx::lead_cap_bit<T>(lcap);
    for (int i = 0; i < 20000; ++i) {
      const U a = static_cast<U>(rng());
      const int same = static_cast<int>(rng() % (sizeof(U) + 1));  // leading bytes forced equal
      const U keep = same == 0 ? U(0) : szx::top_mask<T>(same);
      const U b = (a & keep) | (static_cast<U>(rng()) & ~keep);
      ASSERT_EQ(szx::leading_bytes_capped<T>(a, b, bit), szx::leading_bytes<T>(a, b, lcap)) << lcap << " " << a << " " << b;
    }
  }
}

TEST(SzxMath, CappedLeadingCountIsTheCappedMinimum) {
  capped_count_case<uint32_t>();
  capped_count_case<uint64_t>();
}

TEST(SzxMath, BlockMuIsSignCanonical) {
  EXPECT_FALSE(std::signbit(szx::block_mu(-0.0f, -0.0f)));
  EXPECT_FALSE(std::signbit(szx::block_mu(-0.0, 0.0)));
  const float big = std::numeric_limits<float>::max();
  EXPECT_EQ(szx::block_mu(big, big), big);  // halving first: no overflow
  EXPECT_EQ(szx::block_mu(-big, big), 0.0f);
}

// ---- round trips ----------------------------------------------------------------------

TEST(SzxRoundTrip, SizesAndBlocksF32) { sizes_case<float>(); }
TEST(SzxRoundTrip, SizesAndBlocksF64) { sizes_case<double>(); }
TEST(SzxRoundTrip, RandomF32) { random_case<float>(); }
TEST(SzxRoundTrip, RandomF64) { random_case<double>(); }
TEST(SzxRoundTrip, StraddleZeroF32) { straddle_zero_case<float>(); }
TEST(SzxRoundTrip, StraddleZeroF64) { straddle_zero_case<double>(); }
TEST(SzxRoundTrip, DenormalsF32) { denormal_case<float>(); }
TEST(SzxRoundTrip, DenormalsF64) { denormal_case<double>(); }
TEST(SzxRoundTrip, HugeRangeF32) { huge_range_case<float>(); }
TEST(SzxRoundTrip, HugeRangeF64) { huge_range_case<double>(); }
TEST(SzxRoundTrip, NanInfMixF32) { special_case<float>(); }
TEST(SzxRoundTrip, NanInfMixF64) { special_case<double>(); }

TEST(SzxRoundTrip, EmptyField) {
  std::vector<float> x;
  auto e = roundtrip(x, 1e-3);
  EXPECT_TRUE(e.kinds.empty());
  EXPECT_TRUE(e.mid.empty());
}

TEST(SzxRoundTrip, EbNearUlpF32) {
  // float ulp at 1e6 is 0.0625: an eb of 0.06 is below it; points that cannot be honoured
  // must come back exactly, never outside the bound.
  std::vector<float> x(10000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(1e6 + 300 * std::sin(i * 0.003) + (i % 7) * 0.01);
  for (double eb : {0.06, 0.0625, 0.07, 0.2}) roundtrip_both(x, eb);
}

TEST(SzxRoundTrip, EbNearUlpF64) {
  std::vector<double> x(10000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1e15 + 3e3 * std::sin(i * 0.003) + (i % 7) * 0.125;
  for (double eb : {0.1, 0.125, 0.13, 1.0}) roundtrip_both(x, eb);
}

TEST(SzxRoundTrip, AllNan) {
  std::vector<float> x(1000, std::numeric_limits<float>::quiet_NaN());
  szx::Stats st;
  auto e = roundtrip(x, 1e-2, 128, &st);
  EXPECT_EQ(st.constant_blocks, st.blocks);
  EXPECT_EQ(st.exact_values, 1000u);
  // A NaN field is one run in the exact list.
  EXPECT_LT(e.payload_bytes(), 200u);
  std::vector<double> xd(300, -std::numeric_limits<double>::infinity());
  roundtrip(xd, 1e-2);
}

TEST(SzxRoundTrip, ConstantFieldTakesConstantPath) {
  std::vector<float> x(100000, 3.5f);
  szx::Stats st;
  auto e = roundtrip(x, 1e-4, 128, &st);
  EXPECT_EQ(st.constant_blocks, st.blocks);
  EXPECT_EQ(st.exact_values, 0u);
  EXPECT_TRUE(e.codes.empty() && e.mid_counts.empty());
  // 3.5 needs the top 2 bytes of its pattern: 3 bytes per 512-byte block + the exact header.
  EXPECT_EQ(e.mid.size(), 2 * e.kinds.size());
  EXPECT_LT(e.payload_bytes(), x.size() * 4 / 150);
  // A field that varies by less than eb is constant too, and decodes to mu.
  std::vector<double> y(5000);
  for (size_t i = 0; i < y.size(); ++i) y[i] = 10.0 + 1e-5 * std::sin(i * 0.1);
  auto ey = roundtrip(y, 1e-4, 128, &st);
  EXPECT_EQ(st.constant_blocks, st.blocks);
}

TEST(SzxRoundTrip, SmoothFieldCompresses) {
  const auto x = test::smooth_field<float>(Shape::parse("64x64x64"), 1);
  float mn = x[0], mx = x[0];
  for (float v : x) mn = std::min(mn, v), mx = std::max(mx, v);
  szx::Stats st;
  auto e = roundtrip(x, 1e-3 * (mx - mn), 128, &st);
  // SZx keeps at least sign + exponent (2 bytes for float) of every non-constant value, so
  // ratios are modest; this only guards against a regression to no compression at all.
  EXPECT_LT(e.payload_bytes() * 3, x.size() * 4 * 2) << "ratio below 1.5 on a smooth field";
  EXPECT_LT(st.exact_values, x.size() / 100);
}

TEST(SzxRoundTrip, SameBytesForAnyThreadCount) {
#if defined(_OPENMP)
  auto x = test::random_field<float>(100003, 4, 10.0);
  for (size_t i = 0; i < x.size(); i += 997) x[i] = std::numeric_limits<float>::quiet_NaN();
  const int saved = omp_get_max_threads();
  for (int layout : {szx::kLayout1, szx::kLayout2}) {
    omp_set_num_threads(1);
    const auto a = szx::encode_cpu<float>(x.data(), x.size(), 1e-2, 64, nullptr, layout);
    omp_set_num_threads(std::max(2, saved));
    const auto b = szx::encode_cpu<float>(x.data(), x.size(), 1e-2, 64, nullptr, layout);
    omp_set_num_threads(3);
    const auto c = szx::encode_cpu<float>(x.data(), x.size(), 1e-2, 64, nullptr, layout);
    for (const auto* o : {&b, &c}) {
      EXPECT_EQ(a.kinds, o->kinds);
      EXPECT_EQ(a.mus, o->mus);
      EXPECT_EQ(a.mid_counts, o->mid_counts);
      EXPECT_EQ(a.codes, o->codes);
      EXPECT_EQ(a.mid, o->mid);
      EXPECT_EQ(a.exact, o->exact);
    }
  }
  omp_set_num_threads(saved);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

TEST(SzxRoundTrip, RejectsBadArguments) {
  std::vector<float> x(10, 1.0f);
  auto status = [&](double eb, uint32_t block) {
    try {
      szx::encode_cpu<float>(x.data(), x.size(), eb, block);
    } catch (const Error& e) {
      return e.status();
    }
    return Status::ok;
  };
  EXPECT_EQ(status(0.0, 128), Status::invalid_argument);
  EXPECT_EQ(status(-1.0, 128), Status::invalid_argument);
  EXPECT_EQ(status(std::numeric_limits<double>::quiet_NaN(), 128), Status::invalid_argument);
  EXPECT_EQ(status(std::numeric_limits<double>::infinity(), 128), Status::invalid_argument);
  EXPECT_EQ(status(1e-3, 100), Status::invalid_argument);
  EXPECT_EQ(status(1e-3, 0), Status::invalid_argument);
  EXPECT_EQ(status(1e-3, 8192), Status::invalid_argument);
  EXPECT_EQ(status(1e-3, 4096), Status::ok);
  EXPECT_THROW(szx::encode_cpu<float>(x.data(), x.size(), 1e-3, 128, nullptr, 3), Error);
}

TEST(SzxRoundTrip, Layout2StoresLessThanLayout1) {
  // The bit-aligned patterns and short bases of layout 2 (docs/SZX.md), on real data.
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / "isabel_cut_20x50x50.f32");
  std::vector<float> x(raw.size() / 4);
  std::memcpy(x.data(), raw.data(), raw.size());
  float mn = x[0], mx = x[0];
  for (float v : x) mn = std::min(mn, v), mx = std::max(mx, v);
  for (double rel : {1e-2, 1e-3, 1e-4}) {
    const auto e1 = roundtrip(x, rel * (mx - mn), 128, nullptr, szx::kLayout1);
    const auto e2 = roundtrip(x, rel * (mx - mn), 128, nullptr, szx::kLayout2);
    EXPECT_LT(e2.payload_bytes() * 105, e1.payload_bytes() * 100) << rel;
    EXPECT_TRUE(e2.mus.empty());
    EXPECT_EQ(e1.mus.size(), e1.kinds.size() * 4);
  }
}

TEST(SzxRoundTrip, ZeroBlocksStoreNoBase) {
  // A masked region of zeros: constant blocks whose base is +0, stored in no bytes at all.
  std::vector<float> x(128 * 40, 0.0f);
  for (size_t i = 128 * 20; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(i * 0.01));
  const auto e = roundtrip(x, 1e-3);
  for (size_t b = 0; b < 20; ++b) EXPECT_EQ(e.kinds[b], 0) << b;
  const auto d = decode<float>(e, x.size());
  for (size_t i = 0; i < 128 * 20; ++i) ASSERT_EQ(szx::to_bits(d[i]), 0u);
}

TEST(SzxRoundTrip, Layout1EncoderWritesTheGoldenBytes) {
  // Layout 1 as the encoder writes it today is what format 2 to 4 streams hold: the goldens'
  // sections, chunk by chunk, byte for byte.
  struct G {
    const char* golden;
    const char* fixture;
  };
  const G gs[] = {{"szx_v4_isabel_f32_rel1e-3", "isabel_cut_20x50x50.f32"},
                  {"szx_v2_mpas_f64_rel1e-4", "mpas_pressure_cut_20011.f64"},
                  {"szx_v2_s3d_f32_rel1e-2_block1024", "s3d_chi_cut_25x25x25.f32"},
                  {"szx_v4_ocean_nan_f32_rel1e-2_chunks", "ocean_nanland_cut_1x4x45x90.f32"}};
  const auto dir = std::filesystem::path(SCIZ_FIXTURES_DIR);
  for (const G& g : gs) {
    SCOPED_TRACE(g.golden);
    const auto stream = test::read_file(dir.parent_path() / "golden" / (std::string(g.golden) + ".sciz"));
    const auto raw = test::read_file(dir / g.fixture);
    const ParsedStream ps = read_stream(stream);
    const bool f64 = ps.header.dtype == DType::f64;
    const size_t w = f64 ? 8 : 4;
    uint64_t at = 0;
    for (const ParsedChunk& c : ps.chunks) {
      const szx::Params p = szx::read_params(c.header.params);
      ASSERT_EQ(p.layout, szx::kLayout1);
      const uint64_t n = c.header.shape.count();
      const szx::Encoded e =
          f64 ? szx::encode_cpu<double>(reinterpret_cast<const double*>(raw.data()) + at, n, ps.header.eb_abs, p.block,
                                        nullptr, szx::kLayout1)
              : szx::encode_cpu<float>(reinterpret_cast<const float*>(raw.data()) + at, n, ps.header.eb_abs, p.block,
                                       nullptr, szx::kLayout1);
      const std::vector<uint8_t>* mine[] = {&e.kinds, &e.mus, &e.mid_counts, &e.codes, &e.mid, &e.exact};
      for (uint32_t id = 1; id <= 6; ++id) {
        const auto& sec = c.section(id, "szx").bytes;
        EXPECT_TRUE(std::equal(sec.begin(), sec.end(), mine[id - 1]->begin(), mine[id - 1]->end())) << "section " << id;
      }
      at += n;
    }
    EXPECT_EQ(at * w, raw.size());
  }
}

// ---- corrupt streams ------------------------------------------------------------------

namespace {

Status decode_status(const szx::Encoded& e, uint64_t n) {
  std::vector<float> y(n);
  try {
    szx::decode_cpu<float>(szx::view(e), n, y.data());
  } catch (const Error& err) {
    return err.status();
  }
  return Status::ok;
}

szx::Encoded mixed_stream(std::vector<float>& x, int layout) {
  x = smooth_1d<float>(1000, 2);  // 8 blocks, the last partial (104 values)
  for (size_t i = 0; i < 128; ++i) x[i] = 1.0f;  // one constant block
  x[300] = std::numeric_limits<float>::quiet_NaN();
  return szx::encode_cpu<float>(x.data(), x.size(), 1e-3, 128, nullptr, layout);
}

// The sections in the order docs/SZX.md numbers them (layout 2 has no section 2).
std::vector<std::vector<uint8_t>*> sections_of(szx::Encoded& c) {
  if (c.layout == szx::kLayout1) return {&c.kinds, &c.mus, &c.mid_counts, &c.codes, &c.mid, &c.exact};
  return {&c.kinds, &c.mid_counts, &c.codes, &c.mid, &c.exact};
}

}  // namespace

TEST(SzxCorrupt, Params) {
  for (int layout : {szx::kLayout1, szx::kLayout2}) {
    const auto p = szx::read_params(szx::write_params({256, layout}));
    EXPECT_EQ(p.block, 256u);
    EXPECT_EQ(p.layout, layout);
    EXPECT_EQ(szx::write_params({256, layout}).size(), layout == szx::kLayout1 ? 4u : 8u);
  }
  for (uint32_t b : {0u, 16u, 100u, 8192u}) {
    for (size_t size : {4u, 8u}) {
      std::vector<uint8_t> p(size);
      std::memcpy(p.data(), &b, 4);
      if (size == 8) p[4] = 2;
      EXPECT_THROW(szx::read_params(p), Error);
    }
  }
  EXPECT_THROW(szx::read_params(std::vector<uint8_t>(3)), Error);
  EXPECT_THROW(szx::read_params(std::vector<uint8_t>(5)), Error);
  for (int q = 4; q < 8; ++q)
    for (uint8_t v : {uint8_t(1), uint8_t(3), uint8_t(0x80)}) {
      auto p = szx::write_params({128, szx::kLayout2});
      p[q] = q == 4 ? v : static_cast<uint8_t>(v | 1);  // an unknown layout, or a reserved byte set
      EXPECT_THROW(szx::read_params(p), Error) << q << " " << int(v);
    }
  EXPECT_THROW(szx::write_params({128, 3}), Error);
}

TEST(SzxCorrupt, TruncatedOrExtendedSections) {
  for (int layout : {szx::kLayout1, szx::kLayout2}) {
    SCOPED_TRACE(layout);
    std::vector<float> x;
    auto e = mixed_stream(x, layout);
    ASSERT_EQ(decode_status(e, x.size()), Status::ok);
    for (auto* sec : sections_of(e)) ASSERT_FALSE(sec->empty());
    const size_t nsec = sections_of(e).size();
    for (size_t s = 0; s < nsec; ++s) {
      for (int delta : {-1, +1}) {
        auto c = e;
        auto secs = sections_of(c);
        if (delta < 0)
          secs[s]->pop_back();
        else
          secs[s]->push_back(0);
        EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream) << "section " << s << " delta " << delta;
      }
      auto c = e;
      sections_of(c)[s]->clear();
      EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream) << "section " << s << " emptied";
    }
    if (layout == szx::kLayout2) {
      auto c = e;  // means a layout-2 stream does not have
      c.mus.assign(c.kinds.size() * 4, 0);
      EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
      c = e;  // read as the other layout
      c.layout = szx::kLayout1;
      EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
    }
    // The wrong field size for otherwise intact sections.
    EXPECT_EQ(decode_status(e, x.size() + 128), Status::corrupt_stream);
    EXPECT_EQ(decode_status(e, x.size() - 128), Status::corrupt_stream);
    auto bad_block = e;
    bad_block.block = 96;  // a multiple of 32, but not the block size of these sections
    EXPECT_EQ(decode_status(bad_block, x.size()), Status::corrupt_stream);
    bad_block.block = 100;
    EXPECT_EQ(decode_status(bad_block, x.size()), Status::corrupt_stream);
  }
}

TEST(SzxCorrupt, WrongCountsAndCodes) {
  for (int layout : {szx::kLayout1, szx::kLayout2}) {
    SCOPED_TRACE(layout);
    const bool l1 = layout == szx::kLayout1;
    std::vector<float> x;
    const auto e = mixed_stream(x, layout);
    ASSERT_EQ(szx::kind_bits(l1 ? szx::kind_of_layout1(e.kinds[0]) : e.kinds[0]), 0);
    const int R1 = l1 ? 8 * e.kinds[1] : szx::kind_bits(e.kinds[1]), code1 = l1 ? 0 : szx::kind_code(e.kinds[1]);
    ASSERT_GT(R1, 0);
    auto with_kind = [&](int R, int code) {
      auto c = e;
      c.kinds[1] = l1 ? static_cast<uint8_t>(R / 8) : szx::make_kind(R, code);
      return decode_status(c, x.size());
    };
    EXPECT_EQ(with_kind(40, code1), Status::corrupt_stream) << "more kept bits than the type has";
    EXPECT_EQ(with_kind(R1 > 24 ? R1 - 8 : R1 + 8, code1), Status::corrupt_stream) << "codes and mid-bytes disagree";
    EXPECT_EQ(with_kind(0, code1), Status::corrupt_stream) << "a non-constant block turned constant";
    if (!l1) {
      auto c = e;  // 64 bits in a float block: beyond the type, though within the kind byte
      c.kinds[1] = szx::make_kind(64, code1);
      EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
      for (int code = 0; code < 4; ++code)
        if (szx::base_bytes<float>(code) != szx::base_bytes<float>(code1))
          EXPECT_EQ(with_kind(R1, code), Status::corrupt_stream) << "base bytes no longer add up, code " << code;
    }
    {
      auto c = e;  // mid-byte counts moved between blocks: the sum is intact, the codes are not
      uint16_t a, b;
      std::memcpy(&a, &c.mid_counts[0], 2);
      std::memcpy(&b, &c.mid_counts[2], 2);
      ++a, --b;
      std::memcpy(&c.mid_counts[0], &a, 2);
      std::memcpy(&c.mid_counts[2], &b, 2);
      EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
    }
    {
      auto c = e;  // a mid-byte count above len * nb
      const uint16_t big = 60000;
      std::memcpy(&c.mid_counts[0], &big, 2);
      EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
    }
    {
      // Nonzero padding codes in the last, partial block: 1000 = 7*128 + 104 and 104 % 4 == 0,
      // so make a 1001-value field instead.
      std::vector<float> x2 = x;
      x2.push_back(0.5f);
      auto e2 = szx::encode_cpu<float>(x2.data(), x2.size(), 1e-3, 128, nullptr, layout);
      ASSERT_NE(e2.kinds.back(), 0);
      ASSERT_EQ(decode_status(e2, x2.size()), Status::ok);
      e2.codes.back() |= 0xc0;
      EXPECT_EQ(decode_status(e2, x2.size()), Status::corrupt_stream);
    }
    {
      auto c = e;  // every code of a block raised to 3 where nb allows less, or the sum is off
      for (size_t q = 0; q < 32; ++q) c.codes[q] = 0xff;
      EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
    }
    {
      auto c = e;  // exact-values list reaching past the field
      std::vector<uint64_t> idx = {5, 2000};
      std::vector<float> val = {1.0f, 2.0f};
      c.exact = write_runs<float>(idx, val);
      EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
    }
  }
}

TEST(SzxCorrupt, RandomByteFlipsNeverCrash) {
  // Any single-byte change either decodes (to some values) or throws corrupt_stream.
  for (int layout : {szx::kLayout1, szx::kLayout2}) {
    std::vector<float> x;
    const auto e = mixed_stream(x, layout);
    std::mt19937 rng(17);
    for (int t = 0; t < 3000; ++t) {
      auto c = e;
      auto secs = sections_of(c);
      auto* s = secs[t % secs.size()];
      (*s)[rng() % s->size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      const Status st = decode_status(c, x.size());
      EXPECT_TRUE(st == Status::ok || st == Status::corrupt_stream) << static_cast<int>(st);
    }
  }
}

// ---- a real field, when the shared data is present -------------------------------------

TEST(SzxRoundTrip, SharedIsabelField) {
  const auto dir = test::shared_data_dir();
  const auto path = dir ? *dir / "isabel_TCf25_downsampled5xy_100x100x100.f32" : std::filesystem::path();
  if (!dir || !std::filesystem::exists(path)) GTEST_SKIP() << "no shared data";
  const auto raw = test::read_file(path);
  std::vector<float> x(raw.size() / 4);
  std::memcpy(x.data(), raw.data(), x.size() * 4);
  float mn = std::numeric_limits<float>::infinity(), mx = -mn;
  for (float v : x)
    if (std::isfinite(v)) mn = std::min(mn, v), mx = std::max(mx, v);
  for (double rel : {1e-2, 1e-3, 1e-4}) {
    auto e = roundtrip(x, rel * (mx - mn));
    EXPECT_LT(e.payload_bytes(), x.size() * 4);
  }
}
