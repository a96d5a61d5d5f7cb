// SZx codec (src/predict/szx): every point within the bound, NaN/Inf bit for bit, the
// constant-block path, the shared math, determinism across thread counts, and corrupt
// sections refused with corrupt_stream.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#if defined(_OPENMP)
#include <omp.h>
#endif

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
                       szx::Stats* st = nullptr) {
  szx::Encoded e = szx::encode_cpu<T>(x.data(), x.size(), eb, block, st);
  const auto y = decode<T>(e, x.size());
  EXPECT_EQ(test::check_bound(x, y, eb), "") << "n=" << x.size() << " eb=" << eb << " block=" << block;
  return e;
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
      for (double eb : {1e-1, 1e-3, 1e-6}) roundtrip(x, eb, block);
    }
}

template <class T>
void random_case() {
  for (double scale : {1e-3, 1.0, 1e6}) {
    const auto x = test::random_field<T>(20011, 11, scale);
    for (double rel : {1e-1, 1e-3, 1e-5}) roundtrip(x, rel * scale, 128);
  }
}

// Values on both sides of zero in the same block, with runs of +0 and -0.
template <class T>
void straddle_zero_case() {
  std::vector<T> x(4096);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(std::sin(i * 0.01) * 1e-2);
  for (size_t i = 100; i < 160; ++i) x[i] = (i & 1) ? T(0) : -T(0);
  for (double eb : {1e-2, 1e-4, 1e-7}) roundtrip(x, eb);
  std::vector<T> z(256);
  for (size_t i = 0; i < z.size(); ++i) z[i] = (i % 3) ? -T(0) : T(0);
  roundtrip(z, 1e-3);
}

template <class T>
void denormal_case() {
  const T dmin = std::numeric_limits<T>::denorm_min();
  std::vector<T> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = dmin * static_cast<T>(static_cast<int>(i % 37) - 18);
  x[500] = std::numeric_limits<T>::min();
  x[501] = -std::numeric_limits<T>::min();
  for (double eb : {static_cast<double>(dmin), static_cast<double>(dmin) * 3, 1e-30, 1.0}) roundtrip(x, eb);
  // eb below every representable float: nothing may move.
  if constexpr (sizeof(T) == 4) roundtrip(x, static_cast<double>(dmin) / 4);
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
  for (double eb : {1e-3, 1.0, 1e25}) roundtrip(x, eb);
  std::vector<T> y(128, std::numeric_limits<T>::max());
  y[5] = std::numeric_limits<T>::lowest();
  roundtrip(y, 1.0);
}

template <class T>
void special_case() {
  const auto x = test::special_values_1d<T>(5000, 3);
  for (double eb : {1e-1, 1e-3, 1e-6}) roundtrip(x, eb);
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
  // For every |v| <= radius, dropping the bytes below nb moves v by less than 2^pe.
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int pe : {-20, -10, -5, 0}) {
    for (float radius : {0.75f, 3.0f, 1000.0f}) {
      const int nb = szx::required_bytes<float>(radius, pe);
      const uint32_t keep = szx::top_mask<float>(nb);
      for (int i = 0; i < 2000; ++i) {
        const float v = static_cast<float>(u(rng)) * radius;
        const float t = from_u<float>(szx::kept_pattern(v, keep));
        EXPECT_LT(std::fabs(static_cast<double>(v) - t), std::ldexp(1.0, pe)) << v << " nb " << nb;
      }
    }
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
  for (double eb : {0.06, 0.0625, 0.07, 0.2}) roundtrip(x, eb);
}

TEST(SzxRoundTrip, EbNearUlpF64) {
  std::vector<double> x(10000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1e15 + 3e3 * std::sin(i * 0.003) + (i % 7) * 0.125;
  for (double eb : {0.1, 0.125, 0.13, 1.0}) roundtrip(x, eb);
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
  EXPECT_TRUE(e.codes.empty() && e.mid.empty() && e.mid_counts.empty());
  EXPECT_LT(e.payload_bytes(), x.size() * 4 / 90);  // 5 bytes per 512-byte block + the exact header
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
  omp_set_num_threads(1);
  const auto a = szx::encode_cpu<float>(x.data(), x.size(), 1e-2, 64);
  omp_set_num_threads(std::max(2, saved));
  const auto b = szx::encode_cpu<float>(x.data(), x.size(), 1e-2, 64);
  omp_set_num_threads(3);
  const auto c = szx::encode_cpu<float>(x.data(), x.size(), 1e-2, 64);
  omp_set_num_threads(saved);
  for (const auto* o : {&b, &c}) {
    EXPECT_EQ(a.kinds, o->kinds);
    EXPECT_EQ(a.mus, o->mus);
    EXPECT_EQ(a.mid_counts, o->mid_counts);
    EXPECT_EQ(a.codes, o->codes);
    EXPECT_EQ(a.mid, o->mid);
    EXPECT_EQ(a.exact, o->exact);
  }
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

szx::Encoded mixed_stream(std::vector<float>& x) {
  x = smooth_1d<float>(1000, 2);  // 8 blocks, the last partial (104 values)
  for (size_t i = 0; i < 128; ++i) x[i] = 1.0f;  // one constant block
  x[300] = std::numeric_limits<float>::quiet_NaN();
  return szx::encode_cpu<float>(x.data(), x.size(), 1e-3, 128);
}

}  // namespace

TEST(SzxCorrupt, Params) {
  EXPECT_EQ(szx::read_params(szx::write_params(256)), 256u);
  for (uint32_t b : {0u, 16u, 100u, 8192u}) {
    std::vector<uint8_t> p(4);
    std::memcpy(p.data(), &b, 4);
    EXPECT_THROW(szx::read_params(p), Error);
  }
  EXPECT_THROW(szx::read_params(std::vector<uint8_t>(3)), Error);
  EXPECT_THROW(szx::read_params(std::vector<uint8_t>(5)), Error);
}

TEST(SzxCorrupt, TruncatedOrExtendedSections) {
  std::vector<float> x;
  const auto e = mixed_stream(x);
  ASSERT_EQ(decode_status(e, x.size()), Status::ok);
  ASSERT_FALSE(e.kinds.empty() || e.mus.empty() || e.mid_counts.empty() || e.codes.empty() || e.mid.empty());
  for (int s = 0; s < 6; ++s) {
    for (int delta : {-1, +1}) {
      auto c = e;
      std::vector<uint8_t>* secs[] = {&c.kinds, &c.mus, &c.mid_counts, &c.codes, &c.mid, &c.exact};
      if (delta < 0)
        secs[s]->pop_back();
      else
        secs[s]->push_back(0);
      EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream) << "section " << s + 1 << " delta " << delta;
    }
    auto c = e;
    std::vector<uint8_t>* secs[] = {&c.kinds, &c.mus, &c.mid_counts, &c.codes, &c.mid, &c.exact};
    secs[s]->clear();
    EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream) << "section " << s + 1 << " emptied";
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

TEST(SzxCorrupt, WrongCountsAndCodes) {
  std::vector<float> x;
  const auto e = mixed_stream(x);
  ASSERT_EQ(e.kinds[0], 0);
  {
    auto c = e;  // more kept bytes than the type has
    c.kinds[1] = 5;
    EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
  }
  {
    auto c = e;  // one kept byte more: codes and mid-bytes no longer add up
    c.kinds[1] = static_cast<uint8_t>(c.kinds[1] == 4 ? 3 : c.kinds[1] + 1);
    EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
  }
  {
    auto c = e;  // a non-constant block turned constant: section sizes no longer fit
    c.kinds[1] = 0;
    EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
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
    auto c = e;  // nonzero padding codes in the last, partial block (104 values: 26 code bytes)
    ASSERT_NE(c.kinds.back(), 0);
    // 1000 = 7*128 + 104: 104 % 4 == 0, so make a 1001-value field instead.
    std::vector<float> x2 = x;
    x2.push_back(0.5f);
    auto e2 = szx::encode_cpu<float>(x2.data(), x2.size(), 1e-3, 128);
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

TEST(SzxCorrupt, RandomByteFlipsNeverCrash) {
  // Any single-byte change either decodes (to some values) or throws corrupt_stream.
  std::vector<float> x;
  const auto e = mixed_stream(x);
  std::mt19937 rng(17);
  for (int t = 0; t < 3000; ++t) {
    auto c = e;
    std::vector<uint8_t>* secs[] = {&c.kinds, &c.mus, &c.mid_counts, &c.codes, &c.mid, &c.exact};
    auto* s = secs[t % 6];
    if (s->empty()) continue;
    (*s)[rng() % s->size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    const Status st = decode_status(c, x.size());
    EXPECT_TRUE(st == Status::ok || st == Status::corrupt_stream) << static_cast<int>(st);
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
