// mdr's bitplanes: negabinary digits and their midpoints against brute force, the
// register-block layout against its definition, and the error table against the errors the
// decoder really makes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "refactor/bitplanes/bitplanes.hpp"
#include "support/test_data.hpp"

using namespace sciz::bitplanes;

namespace {
const std::vector<uint64_t> kCounts = {1, 2, 3, 17, 31, 32, 33, 97, 1023, 1024, 1025, 2048, 3001};
}

TEST(Bitplanes, TransposeSwapsRowsAndBits) {
  std::mt19937 rng(5);
  for (int rep = 0; rep < 20; ++rep) {
    uint32_t a[32], b[32];
    for (int i = 0; i < 32; ++i) a[i] = b[i] = rng();
    transpose32(b);
    for (int p = 0; p < 32; ++p)
      for (int j = 0; j < 32; ++j) ASSERT_EQ((b[p] >> j) & 1, (a[j] >> p) & 1);
  }
}

TEST(Bitplanes, NegabinaryRoundTripsTheWholeRange) {
  std::mt19937_64 rng(9);
  for (int digits : {32, 52}) {
    const int64_t lim = int64_t(1) << (digits - 2);
    for (int64_t v : {-lim, -lim + 1, int64_t(-1), int64_t(0), int64_t(1), lim - 1, lim}) {
      const uint64_t nb = to_negabinary(v, digits);
      EXPECT_LT(nb, uint64_t(1) << digits);
      EXPECT_EQ(from_negabinary(nb, digits), v);
    }
    for (int i = 0; i < 10000; ++i) {
      const int64_t v = static_cast<int64_t>(rng() % (2 * uint64_t(lim) + 1)) - lim;
      ASSERT_EQ(from_negabinary(to_negabinary(v, digits), digits), v);
    }
  }
}

// The unknown low part of k digits spans [lo_k, hi_k]; twice_mid is their sum.
TEST(Bitplanes, MidpointOfUnknownDigitsIsTheRangeCentre) {
  for (int k = 1; k <= 12; ++k) {
    int64_t lo = 0, hi = 0;
    for (uint64_t d = 0; d < (uint64_t(1) << k); ++d) {
      const int64_t v = from_negabinary(d, 64) ;
      lo = std::min(lo, v), hi = std::max(hi, v);
    }
    EXPECT_EQ(hi - lo, (int64_t(1) << k) - 1) << k;
    EXPECT_EQ(twice_mid(k), hi + lo) << k;
  }
}

TEST(Bitplanes, PlanesFollowTheRegisterBlockLayout) {
  std::mt19937_64 rng(2);
  for (uint64_t n : kCounts) {
    std::vector<uint32_t> nb(n);
    for (auto& v : nb) v = static_cast<uint32_t>(rng());
    const std::vector<uint32_t> w = encode_planes_cpu(nb.data(), n, 32);
    const uint64_t pw = plane_words(n);
    ASSERT_EQ(w.size(), 32 * pw);
    std::vector<int> seen(n, 0);
    for (uint64_t word = 0; word < pw; ++word) {
      // Region of 1024 coefficients, `threads` words of it; bit j: first + j threads.
      const uint64_t base = word / 32 * 1024, m = std::min<uint64_t>(1024, n - base), threads = (m + 31) / 32;
      const uint64_t first = base + word % 32;
      for (int j = 0; j < 32; ++j) {
        const uint64_t i = first + j * threads;
        for (int p = 0; p < 32; ++p) {
          const uint32_t bit = (w[p * pw + word] >> j) & 1;
          if (i >= n || i >= base + m) ASSERT_EQ(bit, 0u) << n;
          else ASSERT_EQ(bit, (nb[i] >> (31 - p)) & 1) << n << " word " << word;
        }
        if (i < n && i < base + m) ++seen[i];
      }
    }
    for (int s : seen) ASSERT_EQ(s, 1) << n;
  }
}

template <class W>
void planes_round_trip(int digits) {
  std::mt19937_64 rng(11);
  for (uint64_t n : kCounts) {
    std::vector<W> nb(n);
    for (auto& v : nb) v = static_cast<W>(rng() & ((uint64_t(1) << digits) - 1));
    const std::vector<uint32_t> w = encode_planes_cpu(nb.data(), n, digits);
    const uint64_t pw = plane_words(n);
    // Groups of 5 planes from the top, ORed in one after the other.
    std::vector<W> got(n, 0);
    for (int p = 0; p < digits; p += 5) {
      const int planes = std::min(5, digits - p);
      decode_planes_cpu(w.data() + p * pw, n, digits - 1 - p, planes, got.data());
      const int known = p + planes;
      for (uint64_t i = 0; i < n; ++i) {
        const W mask = static_cast<W>(((uint64_t(1) << digits) - 1) & ~((uint64_t(1) << (digits - known)) - 1));
        ASSERT_EQ(got[i], nb[i] & mask) << "n " << n << " after " << known << " planes";
      }
    }
  }
}
TEST(Bitplanes, PlanesRoundTripF32Words) { planes_round_trip<uint32_t>(32); }
TEST(Bitplanes, PlanesRoundTripF64Words) { planes_round_trip<uint64_t>(52); }

// Retrieval's coefficient-order planes: the register-block words reordered hold digit d of
// coefficient i at bit i % 32 of word i / 32; ORed back they give the digits, and the
// significance bitmap names the coefficients with a digit above any plane.
template <class W>
void coefficient_order_round_trip(int digits) {
  std::mt19937_64 rng(12);
  std::vector<uint64_t> counts = kCounts;
  counts.push_back(70001);  // many full regions and a short last one
  for (uint64_t n : counts) {
    std::vector<W> nb(n);
    for (auto& v : nb) v = static_cast<W>((rng() & ((uint64_t(1) << digits) - 1)) >> (rng() % digits));
    const std::vector<uint32_t> w = encode_planes_cpu(nb.data(), n, digits);
    const uint64_t pw = plane_words(n);
    std::vector<uint32_t> bits(w.size(), 0xdeadbeef);
    coefficient_order_cpu(w.data(), n, digits, bits.data());
    for (int p = 0; p < digits; ++p)
      for (uint64_t i = 0; i < pw * 32; ++i) {
        const unsigned expect = i < n ? static_cast<unsigned>((nb[i] >> (digits - 1 - p)) & 1) : 0;
        ASSERT_EQ((bits[p * pw + i / 32] >> (i % 32)) & 1, expect) << "n " << n << " plane " << p << " coefficient " << i;
      }
    std::vector<W> got(n, 0);
    std::vector<uint32_t> sig(pw);
    for (int p = 0; p < digits; p += 5) {
      const int planes = std::min(5, digits - p), high = digits - 1 - p;
      significance_cpu(got.data(), n, high, sig.data());
      for (uint64_t i = 0; i < pw * 32; ++i)
        ASSERT_EQ((sig[i / 32] >> (i % 32)) & 1, i < n && got[i] != 0 ? 1u : 0u) << "n " << n << " coefficient " << i;
      or_planes_cpu(bits.data() + p * pw, n, high, planes, got.data());
      const W mask = static_cast<W>(((uint64_t(1) << digits) - 1) & ~((uint64_t(1) << (high - planes + 1)) - 1));
      for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], nb[i] & mask) << "n " << n << " after plane " << p + planes;
    }
  }
}
TEST(Bitplanes, CoefficientOrderPlanesRoundTripF32Words) { coefficient_order_round_trip<uint32_t>(32); }
TEST(Bitplanes, CoefficientOrderPlanesRoundTripF64Words) { coefficient_order_round_trip<uint64_t>(52); }

// reconstruct_run_cpu (a product by 2^k where that is a normal double) gives reconstruct()'s
// ldexp bit for bit, subnormal and huge results included.
template <class W>
void runs_reconstruct_alike(int scale, int digits) {
  std::mt19937_64 rng(13);
  std::vector<W> nb(3001);
  for (auto& v : nb) v = static_cast<W>((rng() & ((uint64_t(1) << digits) - 1)) >> (rng() % digits));
  std::vector<double> got(nb.size());
  for (int e : {-1073, -1060, -1030, -1000, -990, -5, 0, 1, 40, 990, 1024})
    for (int k : {0, 1, 7, digits - 1}) {
      for (bool read : {false, true}) {
        reconstruct_run_cpu(nb.data(), nb.size(), k, digits, e, scale, read, got.data());
        for (size_t i = 0; i < nb.size(); ++i) {
          const double expect = reconstruct(nb[i], k, digits, e, scale, read);
          ASSERT_EQ(std::memcmp(&got[i], &expect, 8), 0) << "e " << e << " k " << k << " value " << i;
        }
      }
    }
}
TEST(Bitplanes, RunsReconstructLikeTheSharedMathF32) { runs_reconstruct_alike<uint32_t>(30, 32); }
TEST(Bitplanes, RunsReconstructLikeTheSharedMathF64) { runs_reconstruct_alike<uint64_t>(50, 52); }

// err[t] is what the decoder's reconstruction misses by, at most (never less: it is a bound)
// and at least (no slack beyond its upward rounding, or the 2^-20 of a saturated scan), and
// within the 2^(k-1) unit worst case.
template <class W>
void errors_are_measured(int scale, int digits) {
  uint32_t seed = 21;
  for (uint64_t n : kCounts) {
    for (double mag : {1.0, 1e-40, 1e12}) {
      std::vector<double> c = sciz::test::random_field<double>(n, ++seed, mag);
      if (n > 3) c[1] = 0, c[2] = -c[0];
      const Level<W> lv = quantize_cpu<W>(c.data(), n, scale, digits);
      ASSERT_GT(lv.top, 0);
      ASSERT_LE(lv.top, digits);
      for (int g : {1, 3, 4, 7}) {
        const std::vector<double> err = level_errors_cpu<W>(c.data(), lv, scale, digits, g);
        ASSERT_EQ(static_cast<int>(err.size()), group_count(lv.top, g) + 1);
        const uint64_t pw = plane_words(n);
        const std::vector<uint32_t> w = encode_planes_cpu(lv.nb.data(), n, lv.top);
        std::vector<W> acc(n, 0);
        std::vector<double> rec(n);
        for (int t = 0; t < static_cast<int>(err.size()); ++t) {
          if (t > 0) {
            const int high = lv.top - 1 - (t - 1) * g, planes = std::min(g, lv.top - (t - 1) * g);
            decode_planes_cpu(w.data() + (t - 1) * g * pw, n, high, planes, acc.data());
          }
          const int k = unknown_digits(lv.top, g, t);
          reconstruct_cpu(acc.data(), n, k, digits, lv.exponent, scale, t > 0, rec.data());
          double actual = 0;
          for (uint64_t i = 0; i < n; ++i) actual = std::max(actual, std::fabs(c[i] - rec[i]));
          ASSERT_LE(actual, err[t]) << "n " << n << " g " << g << " t " << t;
          ASSERT_LE(err[t], actual * (1 + 0x1p-19) + 1e-300) << "n " << n << " g " << g << " t " << t;
          if (t > 0) ASSERT_LE(err[t], std::ldexp(1.0, k - 1 + lv.exponent - scale) * (1 + 1e-15)) << t;
        }
      }
    }
  }
}
TEST(Bitplanes, ErrorTableIsTheDecodersErrorF32) { errors_are_measured<uint32_t>(30, 32); }
TEST(Bitplanes, ErrorTableIsTheDecodersErrorF64) { errors_are_measured<uint64_t>(50, 52); }

TEST(Bitplanes, AllZeroLevelHasNoPlanes) {
  std::vector<double> c(100, 0.0);
  const Level<uint32_t> lv = quantize_cpu<uint32_t>(c.data(), c.size(), 30, 32);
  EXPECT_EQ(lv.top, 0);
  EXPECT_EQ(level_errors_cpu<uint32_t>(c.data(), lv, 30, 32, 4), std::vector<double>{0.0});
}

namespace {

// quantize_cpu and level_errors_cpu scale by a product where 2^(scale - e) is a normal
// double and by ldexp elsewhere: the digits and the table must be the shared math's (ldexp
// throughout, every coefficient scanned) for levels of any magnitude, subnormal ones included.
template <class W>
void scaling_is_ldexps(int scale, int digits) {
  std::mt19937_64 rng(17);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (int e2 : {-1074, -1060, -1040, -1000, -600, -60, 0, 60, 600, 1000, 1020}) {
    std::vector<double> c(5000);
    for (auto& v : c) v = std::ldexp(nd(rng), e2);
    c[17] = std::ldexp(1.0, e2) * 0.999999;  // near a power of two
    const Level<W> q = quantize_cpu<W>(c.data(), c.size(), scale, digits);
    double mx = 0;
    for (double v : c) mx = std::max(mx, std::fabs(v));
    if (mx == 0) continue;
    int e = 0;
    std::frexp(mx, &e);
    ASSERT_EQ(q.exponent, e) << e2;
    for (size_t i = 0; i < c.size(); ++i)
      ASSERT_EQ(static_cast<uint64_t>(q.nb[i]), to_negabinary(quantize(c[i], e, scale), digits)) << e2 << " at " << i;
    for (int g : {1, 3}) {
      const std::vector<double> err = level_errors_cpu<W>(c.data(), q, scale, digits, g);
      const int groups = group_count(q.top, g);
      ASSERT_EQ(err.size(), static_cast<size_t>(groups + 1));
      for (int t = 1; t <= groups; ++t) {
        const int k = unknown_digits(q.top, g, t);
        const uint64_t keep = ~((uint64_t(1) << k) - 1);
        double m = 0;
        for (size_t i = 0; i < c.size(); ++i)
          m = std::max(m, std::fabs(std::ldexp(c[i], scale - e) -
                                    0.5 * static_cast<double>(recon_half_units(static_cast<uint64_t>(q.nb[i]) & keep, k, digits))));
        EXPECT_EQ(err[t], error_from_units(settle(m, k), e, scale)) << e2 << " group count " << t;
      }
    }
  }
}

}  // namespace

TEST(Bitplanes, ScalingIsLdexpsAtEveryMagnitudeF32) { scaling_is_ldexps<uint32_t>(30, 32); }
TEST(Bitplanes, ScalingIsLdexpsAtEveryMagnitudeF64) { scaling_is_ldexps<uint64_t>(50, 52); }
