// delta codec (src/predict/delta): every point within the bound, NaN/Inf bit for bit, the
// quantization limits, the chain and fill rule, the group packing, determinism across
// thread counts, and corrupt sections refused with corrupt_stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstring>
#include <limits>
#include <random>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "core/exact_runs.hpp"
#include "predict/delta/delta.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

template <class T>
std::vector<T> decode(const delta::Encoded& e, uint64_t n, double eb) {
  std::vector<T> y(n);
  delta::decode_cpu<T>(delta::view(e), n, eb, y.data());
  return y;
}

// Encode, decode, check every point; returns the sections for further checks.
template <class T>
delta::Encoded roundtrip(const std::vector<T>& x, double eb, delta::Stats* st = nullptr) {
  delta::Encoded e = delta::encode_cpu<T>(x.data(), x.size(), eb, st);
  const auto y = decode<T>(e, x.size(), eb);
  EXPECT_EQ(test::check_bound(x, y, eb), "") << "n=" << x.size() << " eb=" << eb;
  return e;
}

template <class T>
void sizes_case() {
  for (uint64_t n : {uint64_t(1), uint64_t(31), uint64_t(32), uint64_t(33), uint64_t(1023), uint64_t(1025),
                     uint64_t(32767), uint64_t(32768), uint64_t(32769), uint64_t(3 * 32768 + 1000 + 7)}) {
    const auto x = test::smooth_1d<T>(n, 7);
    for (double eb : {1e-1, 1e-3, 1e-6}) roundtrip(x, eb);
  }
}

template <class T>
void shapes_case() {
  for (const char* dims : {"70001", "37x1111", "9x31x129", "3x5x17x67"}) {
    const auto x = test::smooth_field<T>(Shape::parse(dims), 3);
    for (double eb : {1e-1, 1e-3, 1e-5}) roundtrip(x, eb);
  }
}

template <class T>
void random_case() {
  for (double scale : {1e-3, 1.0, 1e6}) {
    const auto x = test::random_field<T>(40011, 11, scale);
    for (double rel : {1e-1, 1e-3, 1e-5}) roundtrip(x, rel * scale);
  }
}

template <class T>
void denormal_case() {
  const T dmin = std::numeric_limits<T>::denorm_min();
  std::vector<T> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = dmin * static_cast<T>(static_cast<int>(i % 37) - 18);
  x[500] = std::numeric_limits<T>::min();
  x[501] = -std::numeric_limits<T>::min();
  x[502] = -T(0);
  for (double eb : {static_cast<double>(dmin), static_cast<double>(dmin) * 3, 1e-30, 1.0}) roundtrip(x, eb);
  if constexpr (sizeof(T) == 4) roundtrip(x, static_cast<double>(dmin) / 4);  // below every float
}

// Values around |x / 2eb| = 2^30, the chain's limit, and the type's extremes.
template <class T>
void huge_case() {
  const double eb = 0.5;  // 2eb = 1: q = round(x)
  std::vector<T> x;
  for (double v : {1073741823.0, 1073741824.0, 1073741825.0, 1073741760.0, 1073741700.0, 2e9, 1e30})
    for (double s : {1.0, -1.0}) x.push_back(static_cast<T>(s * v));
  x.push_back(std::numeric_limits<T>::max());
  x.push_back(std::numeric_limits<T>::lowest());
  for (int i = 0; i < 100; ++i) x.push_back(static_cast<T>(i));
  x.push_back(static_cast<T>(1073741000.0));  // a large delta from 99
  x.push_back(static_cast<T>(-1073741000.0));  // the largest delta the chain allows
  for (double e : {eb, 1e-3, 1.0, 1e25}) roundtrip(x, e);
}

template <class T>
void special_case() {
  const auto x = test::special_values_1d<T>(40000, 3);
  for (double eb : {1e-1, 1e-3, 1e-6}) roundtrip(x, eb);
}

}  // namespace

// ---- shared math ----------------------------------------------------------------------

TEST(DeltaMath, PrequantizeAndCheck) {
  const auto p = delta::make_quant<float>(0.5);
  int32_t q;
  EXPECT_EQ(delta::prequantize(2.4f, p, q), delta::Kind::kQuantized);
  EXPECT_EQ(q, 2);
  EXPECT_EQ(delta::prequantize(2.5f, p, q), delta::Kind::kQuantized);  // half to even
  EXPECT_EQ(q, 2);
  EXPECT_EQ(delta::prequantize(-3.5f, p, q), delta::Kind::kQuantized);
  EXPECT_EQ(q, -4);
  EXPECT_EQ(delta::prequantize(std::numeric_limits<float>::quiet_NaN(), p, q), delta::Kind::kExactFill);
  EXPECT_EQ(delta::prequantize(-std::numeric_limits<float>::infinity(), p, q), delta::Kind::kExactFill);
  EXPECT_EQ(delta::prequantize(1073741824.0f, p, q), delta::Kind::kExactFill);  // 2^30: over the limit
  EXPECT_EQ(delta::prequantize(1073741760.0f, p, q), delta::Kind::kQuantized);  // largest float below
  EXPECT_EQ(q, 1073741760);
  const auto pd = delta::make_quant<double>(0.5);
  EXPECT_EQ(delta::prequantize(1073741823.0, pd, q), delta::Kind::kQuantized);
  EXPECT_EQ(q, delta::kQLimit - 1);
  EXPECT_EQ(delta::prequantize(-1073741823.0, pd, q), delta::Kind::kQuantized);
  EXPECT_EQ(delta::prequantize(1073741823.6, pd, q), delta::Kind::kExactFill);
  // float: 1e6 + 0.03 at eb 0.02 rounds to a q whose reconstruction misses by an ulp of 1e6.
  const auto pf = delta::make_quant<float>(0.02);
  int misses = 0;
  for (int i = 0; i < 1000; ++i) {
    const float x = 1e6f + 0.0625f * static_cast<float>(i);
    const auto k = delta::prequantize(x, pf, q);
    if (k == delta::Kind::kExactKeep) ++misses;
    EXPECT_EQ(k == delta::Kind::kQuantized, delta::within(x, delta::reconstruct(q, pf), pf.ebc));
  }
  EXPECT_GT(misses, 0) << "eb below the float spacing must produce misses";
}

TEST(DeltaMath, WidthsAndPlanes) {
  EXPECT_EQ(delta::width_of(0), 0u);
  EXPECT_EQ(delta::width_of(1), 1u);
  EXPECT_EQ(delta::width_of(2), 2u);  // bit length, not ceil(log2)
  EXPECT_EQ(delta::width_of(4), 3u);
  EXPECT_EQ(delta::width_of(0x7ffffffeu), 31u);
  EXPECT_EQ(delta::group_bytes(0), 0u);
  EXPECT_EQ(delta::group_bytes(3), 16u);
  EXPECT_EQ(delta::align_layer(0), 0u);
  EXPECT_EQ(delta::align_layer(4), 16u);
  EXPECT_EQ(delta::align_layer(32), 32u);
  EXPECT_EQ(delta::magnitude(std::numeric_limits<int32_t>::min() + 2), 0x7ffffffeu);
  EXPECT_EQ(delta::signed_delta(0x2u, 1, 5), -5);
  EXPECT_EQ(delta::signed_delta(0x2u, 0, 5), 5);
  std::mt19937 rng(4);
  for (int t = 0; t < 200; ++t) {
    uint32_t mag[32], planes[32] = {};
    const uint32_t w = 1 + rng() % 31;
    for (uint32_t i = 0; i < 32; ++i) mag[i] = rng() & ((1u << w) - 1);
    for (uint32_t k = 0; k < w; ++k)
      for (uint32_t i = 0; i < 32; ++i) planes[k] |= delta::plane_bit(mag[i], k, i);
    for (uint32_t i = 0; i < 32; ++i) {
      uint32_t m = 0;
      for (uint32_t k = 0; k < w; ++k) m |= delta::from_plane(planes[k], k, i);
      ASSERT_EQ(m, mag[i]);
    }
  }
}

// The GPU kernels' shortcut transposes against transpose32 and against the bit-by-bit planes,
// for every K, on random matrices of the shape each assumes (and at their extremes).
template <int K>
void bounded_transposes_case(std::mt19937& rng) {
  for (int t = 0; t < 2000; ++t) {
    const uint32_t lim = K == 32 ? ~0u : (1u << K) - 1;
    const int kind = t % 4;  // random, all ones, one bit, zero
    uint32_t vals[32], rows[32] = {};
    for (uint32_t i = 0; i < 32; ++i)
      vals[i] = (kind == 0 ? rng() : kind == 1 ? ~0u : kind == 2 ? 1u << (rng() % K) : 0u) & lim;
    for (uint32_t k = 0; k < 32; ++k)
      for (uint32_t i = 0; i < 32; ++i) rows[k] |= delta::plane_bit(vals[i], k, i);
    uint32_t a[32], b[32];
    std::memcpy(a, vals, sizeof a);
    std::memcpy(b, vals, sizeof b);
    delta::transpose32(a);
    delta::transpose32_cols<K>(b);  // values of K bits -> planes
    for (uint32_t k = 0; k < 32; ++k) {
      ASSERT_EQ(a[k], rows[k]) << "K " << K << " plane " << k;
      ASSERT_EQ(b[k], rows[k]) << "K " << K << " plane " << k;
    }
    std::memcpy(b, rows, sizeof b);
    delta::transpose32_rows<K>(b);  // K planes -> values
    for (uint32_t i = 0; i < 32; ++i) ASSERT_EQ(b[i], vals[i]) << "K " << K << " value " << i;
  }
}

TEST(DeltaMath, BoundedTransposesEqualTranspose32) {
  std::mt19937 rng(11);
  bounded_transposes_case<4>(rng);
  bounded_transposes_case<8>(rng);
  bounded_transposes_case<16>(rng);
  bounded_transposes_case<32>(rng);
}

// The stream bytes for a tiny field, computed by hand from docs/DELTA.md.
TEST(DeltaMath, HandComputedStream) {
  // eb = 0.5: q = round(x). q = 5 6 4 4 NaN 7, then 27 zeros of delta at q = 7... (a 33rd value).
  std::vector<float> x = {5, 6, 4, 4, std::numeric_limits<float>::quiet_NaN(), 7};
  x.resize(33, 7.0f);
  x[32] = 8.0f;
  const auto e = delta::encode_cpu<float>(x.data(), x.size(), 0.5);
  // Deltas: 0 1 -2 0 0(fill) 3 0... | 1. Group 0: max 3 -> width 2; group 1: width 1.
  ASSERT_EQ(e.widths, (std::vector<uint8_t>{2, 1}));
  int32_t q0;
  std::memcpy(&q0, e.initial.data(), 4);
  EXPECT_EQ(q0, 5);
  ASSERT_EQ(e.payload.size(), 32u);  // 12 + 8 bytes, padded to 32
  uint32_t w[8];
  std::memcpy(w, e.payload.data(), 32);
  EXPECT_EQ(w[0], 1u << 2);                  // sign of value 2
  EXPECT_EQ(w[1], (1u << 1) | (1u << 5));    // bit 0 of 1 and 3
  EXPECT_EQ(w[2], (1u << 2) | (1u << 5));    // bit 1 of 2 and 3
  EXPECT_EQ(w[3], 0u);                       // group 1: no sign
  EXPECT_EQ(w[4], 1u);                       // value 32: delta 1
  EXPECT_EQ(w[5] | w[6] | w[7], 0u);         // padding
  std::vector<uint64_t> idx;
  std::vector<float> val;
  read_runs<float>(e.exact, x.size(), "test", idx, val);
  EXPECT_EQ(idx, std::vector<uint64_t>{4});
}

TEST(DeltaMath, LeadingFillStartsChainAtZero) {
  std::vector<double> x(100, 50.0);
  x[0] = std::numeric_limits<double>::infinity();
  x[1] = std::numeric_limits<double>::quiet_NaN();
  const auto e = roundtrip(x, 0.5);
  int32_t q0;
  std::memcpy(&q0, e.initial.data(), 4);
  EXPECT_EQ(q0, 0);
  EXPECT_EQ(e.widths[0], 6u);  // the jump 0 -> 50
  EXPECT_EQ(e.widths[1], 0u);
}

// ---- round trips ----------------------------------------------------------------------

TEST(DeltaRoundTrip, SizesF32) { sizes_case<float>(); }
TEST(DeltaRoundTrip, SizesF64) { sizes_case<double>(); }
TEST(DeltaRoundTrip, ShapesF32) { shapes_case<float>(); }
TEST(DeltaRoundTrip, ShapesF64) { shapes_case<double>(); }
TEST(DeltaRoundTrip, RandomF32) { random_case<float>(); }
TEST(DeltaRoundTrip, RandomF64) { random_case<double>(); }
TEST(DeltaRoundTrip, DenormalsF32) { denormal_case<float>(); }
TEST(DeltaRoundTrip, DenormalsF64) { denormal_case<double>(); }
TEST(DeltaRoundTrip, NearQuantLimitF32) { huge_case<float>(); }
TEST(DeltaRoundTrip, NearQuantLimitF64) { huge_case<double>(); }
TEST(DeltaRoundTrip, NanInfMixF32) { special_case<float>(); }
TEST(DeltaRoundTrip, NanInfMixF64) { special_case<double>(); }

TEST(DeltaRoundTrip, EmptyField) {
  std::vector<float> x;
  auto e = roundtrip(x, 1e-3);
  EXPECT_TRUE(e.widths.empty() && e.initial.empty() && e.payload.empty());
}

TEST(DeltaRoundTrip, EbNearUlp) {
  std::vector<float> x(40000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(1e6 + 300 * std::sin(i * 0.003) + (i % 7) * 0.01);
  for (double eb : {0.03, 0.06, 0.0625, 0.07, 0.2}) roundtrip(x, eb);
  std::vector<double> y(40000);
  for (size_t i = 0; i < y.size(); ++i) y[i] = 1e15 + 3e3 * std::sin(i * 0.003) + (i % 7) * 0.125;
  for (double eb : {0.06, 0.125, 0.13, 1.0}) roundtrip(y, eb);
}

TEST(DeltaRoundTrip, AllNanIsAllZeroGroups) {
  std::vector<float> x(70000, std::numeric_limits<float>::quiet_NaN());
  delta::Stats st;
  auto e = roundtrip(x, 1e-2, &st);
  EXPECT_EQ(st.zero_groups, st.groups);
  EXPECT_EQ(st.exact_values, x.size());
  EXPECT_TRUE(e.payload.empty());
  EXPECT_LT(e.exact.size(), 64u);  // one run
}

TEST(DeltaRoundTrip, ConstantFieldStoresNoPayload) {
  std::vector<float> x(100000, 3.5f);
  delta::Stats st;
  auto e = roundtrip(x, 1e-4, &st);
  EXPECT_EQ(st.zero_groups, st.groups);
  EXPECT_EQ(st.exact_values, 0u);
  EXPECT_TRUE(e.payload.empty());
  EXPECT_LT(e.payload_bytes(), x.size() * 4 / 100);
}

TEST(DeltaRoundTrip, ZeroGroupsAmidData) {
  auto x = test::smooth_1d<double>(50000, 5);
  for (size_t i = 3200; i < 9600; ++i) x[i] = 1.25;  // 200 constant groups
  delta::Stats st;
  roundtrip(x, 1e-3, &st);
  EXPECT_GE(st.zero_groups, 198u);
}

TEST(DeltaRoundTrip, SmoothFieldCompresses) {
  const auto x = test::smooth_field<float>(Shape::parse("64x64x64"), 1);
  float mn = x[0], mx = x[0];
  for (float v : x) mn = std::min(mn, v), mx = std::max(mx, v);
  delta::Stats st;
  auto e = roundtrip(x, 1e-3 * (mx - mn), &st);
  EXPECT_LT(e.payload_bytes() * 4, x.size() * 4) << "ratio below 4 on a smooth field";
  EXPECT_LT(st.exact_values, x.size() / 100);
}

TEST(DeltaRoundTrip, SameBytesForAnyThreadCount) {
#if defined(_OPENMP)
  auto x = test::random_field<float>(5 * 32768 + 77, 4, 10.0);
  for (size_t i = 0; i < x.size(); i += 997) x[i] = std::numeric_limits<float>::quiet_NaN();
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto a = delta::encode_cpu<float>(x.data(), x.size(), 1e-2);
  omp_set_num_threads(std::max(2, saved));
  const auto b = delta::encode_cpu<float>(x.data(), x.size(), 1e-2);
  omp_set_num_threads(3);
  const auto c = delta::encode_cpu<float>(x.data(), x.size(), 1e-2);
  omp_set_num_threads(saved);
  for (const auto* o : {&b, &c}) {
    EXPECT_EQ(a.widths, o->widths);
    EXPECT_EQ(a.initial, o->initial);
    EXPECT_EQ(a.payload, o->payload);
    EXPECT_EQ(a.exact, o->exact);
  }
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

TEST(DeltaRoundTrip, RejectsBadArguments) {
  std::vector<float> x(10, 1.0f);
  for (double eb : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
    EXPECT_THROW(delta::encode_cpu<float>(x.data(), x.size(), eb), Error) << eb;
}

// ---- corrupt streams ------------------------------------------------------------------

namespace {

Status decode_status(const delta::Encoded& e, uint64_t n, double eb = 1e-3) {
  std::vector<float> y(n);
  try {
    delta::decode_cpu<float>(delta::view(e), n, eb, y.data());
  } catch (const Error& err) {
    return err.status();
  }
  return Status::ok;
}

// Two layers (the second partial), a constant stretch, NaNs, and a partial last group.
delta::Encoded mixed_stream(std::vector<float>& x) {
  x = test::smooth_1d<float>(32768 + 1000 + 5, 2);
  for (size_t i = 0; i < 640; ++i) x[i] = 1.0f;
  x[300] = std::numeric_limits<float>::quiet_NaN();
  x[40000 % x.size()] = std::numeric_limits<float>::infinity();
  return delta::encode_cpu<float>(x.data(), x.size(), 1e-3);
}

}  // namespace

TEST(DeltaCorrupt, Params) {
  EXPECT_EQ(delta::read_params(delta::write_params(0, 0)).mode, delta::kModeLinear);
  const delta::Chain c = delta::read_params(delta::write_params(1, 0x12345678));
  EXPECT_EQ(c.mode, delta::kModeSerpentine);
  EXPECT_EQ(c.row, 0x12345678u);
  EXPECT_EQ(delta::write_params(1, 300), (std::vector<uint8_t>{1, 0, 0, 0, 0x2c, 1, 0, 0, 0, 0, 0, 0}));
  EXPECT_THROW(delta::write_params(2, 0), Error);
  EXPECT_THROW(delta::write_params(1, 1), Error);
  EXPECT_THROW(delta::write_params(1, delta::kMaxRow + 1), Error);
  EXPECT_THROW(delta::read_params(std::vector<uint8_t>{1, 0, 0, 0}), Error);  // serpentine without its row
  EXPECT_THROW(delta::read_params(std::vector<uint8_t>{2, 0, 0, 0}), Error);
  EXPECT_THROW(delta::read_params(std::vector<uint8_t>{0, 0, 1, 0}), Error);
  EXPECT_THROW(delta::read_params(std::vector<uint8_t>(3)), Error);
  EXPECT_THROW(delta::read_params(std::vector<uint8_t>(5)), Error);
  EXPECT_THROW(delta::read_params(std::vector<uint8_t>(12)), Error);  // linear with a row
  for (uint64_t row : {uint64_t(0), uint64_t(1), delta::kMaxRow + 1}) {
    std::vector<uint8_t> p = {1, 0, 0, 0};
    for (int i = 0; i < 8; ++i) p.push_back(static_cast<uint8_t>(row >> (8 * i)));
    EXPECT_THROW(delta::read_params(p), Error) << row;
  }
  std::vector<uint8_t> p = delta::write_params(1, 100);
  p.push_back(0);
  EXPECT_THROW(delta::read_params(p), Error);
}

// ---- serpentine chain -------------------------------------------------------------------

namespace {
// The field in chain order, by the definition (serp_index); the mapping is its own inverse.
template <class T>
std::vector<T> serpentine(const std::vector<T>& x, uint64_t row) {
  std::vector<T> y(x.size());
  for (uint64_t c = 0; c < x.size(); ++c) y[c] = x[delta::serp_index(c, row)];
  return y;
}

template <class T>
void serpentine_case() {
  for (auto [rows, row] : test::row_shapes()) {
    const uint64_t n = rows * row;
    const auto x = test::row_edge_field<T>(rows, row, 5);  // fills and exact values at the edges
    for (double eb : {1e-1, 1e-4}) {
      SCOPED_TRACE(testing::Message() << "row " << row << " n " << n << " eb " << eb);
      delta::Encoded e = delta::encode_cpu<T>(x.data(), n, eb, nullptr, row);
      ASSERT_EQ(e.mode, delta::kModeSerpentine);
      ASSERT_EQ(e.row, row);
      const auto y = decode<T>(e, n, eb);
      EXPECT_EQ(test::check_bound(x, y, eb), "");
      // The serpentine stream is the linear stream of the field in chain order, section by
      // section (exact values are listed by chain index in both).
      const auto xs = serpentine(x, row);
      const delta::Encoded lin = delta::encode_cpu<T>(xs.data(), n, eb);
      EXPECT_EQ(lin.mode, delta::kModeLinear);
      EXPECT_TRUE(e.widths == lin.widths);
      EXPECT_TRUE(e.initial == lin.initial);
      EXPECT_TRUE(e.payload == lin.payload);
      EXPECT_TRUE(e.exact == lin.exact);
    }
  }
}
}  // namespace

TEST(DeltaSerpentine, RoundTripAndEqualsLinearOfChainOrderF32) { serpentine_case<float>(); }
TEST(DeltaSerpentine, RoundTripAndEqualsLinearOfChainOrderF64) { serpentine_case<double>(); }

TEST(DeltaSerpentine, SerpIndexIsAnInvolutionOverRows) {
  for (uint64_t row : {2u, 3u, 7u, 100u}) {
    const uint64_t n = row * 9;
    std::vector<int> seen(n, 0);
    for (uint64_t c = 0; c < n; ++c) {
      const uint64_t f = delta::serp_index(c, row);
      ASSERT_LT(f, n);
      EXPECT_EQ(f / row, c / row) << "stays in its row";
      EXPECT_EQ(delta::serp_index(f, row), c);
      ++seen[f];
      if (c % row == 0 && c) EXPECT_EQ(delta::serp_index(c - 1, row) % row, f % row) << "neighbours across rows";
    }
    for (int v : seen) EXPECT_EQ(v, 1);
  }
}

TEST(DeltaSerpentine, ChainChoice) {
  EXPECT_EQ(delta::chain_for(1000, 0).mode, delta::kModeLinear);
  EXPECT_EQ(delta::chain_for(1000, 1000).mode, delta::kModeLinear);  // one row
  EXPECT_EQ(delta::chain_for(1000, 1).mode, delta::kModeLinear);
  EXPECT_EQ(delta::chain_for(1000, 10).mode, delta::kModeSerpentine);
  EXPECT_EQ(delta::chain_for(1000, 10).row, 10u);
  EXPECT_THROW(delta::chain_for(1000, 7), Error);  // rows must tile the field
  const uint64_t big = delta::kMaxRow + 1;
  EXPECT_EQ(delta::chain_for(big * 2, big).mode, delta::kModeLinear);
}

TEST(DeltaSerpentine, ShortRowsCompressBetterOnRealData) {
  // The Isabel cut (rows of 50): the serpentine chain steps between vertical neighbours where
  // the linear one jumps back a row; measured on ../shared/data, x 1.1 - 1.6 on short rows.
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / "isabel_cut_20x50x50.f32");
  std::vector<float> x(raw.size() / 4);
  std::memcpy(x.data(), raw.data(), raw.size());
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  for (double rel : {1e-2, 1e-3}) {
    const double eb = rel * (*hi - *lo);
    const auto lin = delta::encode_cpu<float>(x.data(), x.size(), eb);
    const auto ser = delta::encode_cpu<float>(x.data(), x.size(), eb, nullptr, 50);
    EXPECT_EQ(test::check_bound(x, decode<float>(ser, x.size(), eb), eb), "");
    EXPECT_LT(static_cast<double>(ser.payload_bytes()), 0.97 * static_cast<double>(lin.payload_bytes())) << rel;
  }
}

TEST(DeltaCorrupt, SerpentineRowsMustTileTheField) {
  std::vector<float> x(6000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.01 * static_cast<double>(i)));
  delta::Encoded e = delta::encode_cpu<float>(x.data(), x.size(), 1e-3, nullptr, 60);
  std::vector<float> y(x.size());
  for (uint64_t row : {uint64_t(0), uint64_t(1), uint64_t(7), uint64_t(6000), uint64_t(12000)}) {
    delta::Sections s = delta::view(e);
    s.row = row;
    EXPECT_THROW(delta::decode_cpu<float>(s, x.size(), 1e-3, y.data()), Error) << row;
  }
  delta::Sections s = delta::view(e);
  s.mode = delta::kModeLinear;  // a linear stream carries no row
  EXPECT_THROW(delta::decode_cpu<float>(s, x.size(), 1e-3, y.data()), Error);
}

TEST(DeltaCorrupt, TruncatedOrExtendedSections) {
  std::vector<float> x;
  const auto e = mixed_stream(x);
  ASSERT_EQ(decode_status(e, x.size()), Status::ok);
  for (int s = 0; s < 4; ++s) {
    for (int d : {-1, +1, -16, +16}) {
      auto c = e;
      std::vector<uint8_t>* secs[] = {&c.widths, &c.initial, &c.payload, &c.exact};
      if (d < 0 && secs[s]->size() < static_cast<size_t>(-d)) continue;
      if (d < 0)
        secs[s]->resize(secs[s]->size() - static_cast<size_t>(-d));
      else
        secs[s]->resize(secs[s]->size() + static_cast<size_t>(d), 0);
      EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream) << "section " << s + 1 << " delta " << d;
    }
    auto c = e;
    std::vector<uint8_t>* secs[] = {&c.widths, &c.initial, &c.payload, &c.exact};
    secs[s]->clear();
    EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream) << "section " << s + 1 << " emptied";
  }
  EXPECT_EQ(decode_status(e, x.size() + 32), Status::corrupt_stream);
  EXPECT_EQ(decode_status(e, x.size() - 32), Status::corrupt_stream);
  EXPECT_EQ(decode_status(e, x.size(), 0.0), Status::corrupt_stream);
  auto m = e;
  m.mode = 1;
  EXPECT_EQ(decode_status(m, x.size()), Status::corrupt_stream);
}

TEST(DeltaCorrupt, WrongWidths) {
  std::vector<float> x;
  const auto e = mixed_stream(x);
  ASSERT_EQ(e.widths[0], 0u);
  for (uint8_t w : {32, 33, 200, 255}) {
    auto c = e;
    c.widths[30] = w;
    EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream) << int(w);
  }
  {
    auto c = e;  // widths moved between groups of one layer: sizes agree, decode must not crash
    std::swap(c.widths[25], c.widths[26]);
    const Status st = decode_status(c, x.size());
    EXPECT_TRUE(st == Status::ok || st == Status::corrupt_stream);
  }
  {
    auto c = e;  // one width raised: the payload no longer matches
    c.widths[100] = static_cast<uint8_t>(c.widths[100] + 1);
    EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
  }
  {
    auto c = e;  // every width 31: the payload would have to be huge
    std::fill(c.widths.begin(), c.widths.end(), 31);
    EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
  }
  {
    auto c = e;  // exact values past the field
    std::vector<uint64_t> idx = {5, x.size()};
    std::vector<float> val = {1.0f, 2.0f};
    c.exact = write_runs<float>(idx, val);
    EXPECT_EQ(decode_status(c, x.size()), Status::corrupt_stream);
  }
}

TEST(DeltaCorrupt, RandomByteFlipsNeverCrash) {
  std::vector<float> x;
  const auto e = mixed_stream(x);
  std::mt19937 rng(17);
  for (int t = 0; t < 4000; ++t) {
    auto c = e;
    std::vector<uint8_t>* secs[] = {&c.widths, &c.initial, &c.payload, &c.exact};
    auto* s = secs[t % 4];
    if (s->empty()) continue;
    (*s)[rng() % s->size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    const Status st = decode_status(c, x.size());
    EXPECT_TRUE(st == Status::ok || st == Status::corrupt_stream) << static_cast<int>(st);
  }
}

// ---- a real field, when the shared data is present -------------------------------------

TEST(DeltaRoundTrip, SharedIsabelField) {
  const auto dir = test::shared_data_dir();
  const auto path = dir ? *dir / "isabel_TCf25_downsampled5xy_100x100x100.f32" : std::filesystem::path();
  if (!dir || !std::filesystem::exists(path)) GTEST_SKIP() << "no shared data";
  const auto raw = test::read_file(path);
  std::vector<float> x(raw.size() / 4);
  std::memcpy(x.data(), raw.data(), x.size() * 4);
  float mn = std::numeric_limits<float>::infinity(), mx = -mn;
  for (float v : x)
    if (std::isfinite(v)) mn = std::min(mn, v), mx = std::max(mx, v);
  const double expect[] = {13.0, 6.8, 4.0};  // measured 13.55 / 7.12 / 4.20
  int k = 0;
  for (double rel : {1e-2, 1e-3, 1e-4}) {
    auto e = roundtrip(x, rel * (mx - mn));
    EXPECT_GT(static_cast<double>(x.size() * 4) / e.payload_bytes(), expect[k++]) << rel;
  }
}

// The CPU twin has vectorized loops (an AVX2 build picked at run time, SCIZ_DELTA_BASELINE_ISA
// forces the scalar one) that restate prequantize's rounding, limit and bound check, the
// chain and the plane packing with other instructions. Against a reference that calls only
// delta_math.hpp value by value, on random bit patterns (NaN payloads, denormals, huge values)
// and edge values (ties, |q| next to 2^30, +-0, +-Inf, eb near ulp), every section and every
// decoded bit must agree.
namespace {

template <class T>
delta::Encoded reference_encode(const std::vector<T>& x, double eb) {
  const delta::Quant<T> p = delta::make_quant<T>(eb);
  const uint64_t n = x.size(), L = delta::layer_count(n);
  delta::Encoded e;
  e.widths.assign(delta::group_count(n), 0);
  std::vector<uint64_t> ei;
  std::vector<T> ev;
  for (uint64_t l = 0; l < L; ++l) {
    const uint64_t base = l * delta::kLayer, end = std::min<uint64_t>(n, base + delta::kLayer);
    int32_t q;
    const bool fill0 = delta::prequantize(x[base], p, q) == delta::Kind::kExactFill;
    int32_t prev = delta::initial_q(fill0, q);
    const uint32_t q0 = static_cast<uint32_t>(prev);
    for (int b = 0; b < 4; ++b) e.initial.push_back(static_cast<uint8_t>(q0 >> (8 * b)));
    const size_t start = e.payload.size();
    for (uint64_t gb = base; gb < end; gb += delta::kGroup) {
      uint32_t mag[32] = {}, sign = 0, any = 0;
      for (uint32_t i = 0; i < delta::kGroup && gb + i < end; ++i) {
        const delta::Kind k = delta::prequantize(x[gb + i], p, q);
        if (k != delta::Kind::kQuantized) {
          ei.push_back(gb + i);
          ev.push_back(x[gb + i]);
        }
        const int32_t qi = delta::fill_or(k == delta::Kind::kExactFill, q, prev);
        const int32_t d = delta::delta_of(qi, prev);
        prev = qi;
        mag[i] = delta::magnitude(d);
        sign |= delta::sign_bit(d) << i;
        any |= mag[i];
      }
      const uint32_t w = delta::width_of(any);
      e.widths[gb / delta::kGroup] = static_cast<uint8_t>(w);
      if (!w) continue;
      uint32_t words[33] = {sign};
      for (uint32_t k = 0; k < w; ++k)
        for (uint32_t i = 0; i < 32; ++i) words[1 + k] |= delta::plane_bit(mag[i], k, i);
      const auto* bytes = reinterpret_cast<const uint8_t*>(words);
      e.payload.insert(e.payload.end(), bytes, bytes + delta::group_bytes(w));
    }
    e.payload.resize(start + delta::align_layer(e.payload.size() - start), 0);
  }
  e.exact = write_runs<T>(ei, ev);
  return e;
}

template <class T, class U>
void twin_matches_reference_case() {
  std::mt19937_64 rng(20261122);
#if defined(_OPENMP)
  const int saved = omp_get_max_threads();
#endif
  const T edge[] = {std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::quiet_NaN(),
                    std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(), T(0), T(-0.0),
                    std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
                    std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), -std::numeric_limits<T>::max()};
  for (double eb : {1e-300, 1e-40, 1e-7, 1e-3, 0.5, 0.3, 1.0, 7.0 / 3.0, 1e6, 1e30, 1e300}) {
    const uint64_t n = 3 * delta::kLayer + 1000 + 13;
    std::vector<T> x(n);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t r = rng();
      switch (r % 8) {
        case 0: {  // any bit pattern
          const U u = static_cast<U>(rng());
          std::memcpy(&x[i], &u, sizeof(T));
          break;
        }
        case 1: x[i] = edge[(r >> 8) % 11]; break;
        case 2: {  // |q| next to 2^30, ties and near-ties
          const double k = std::ldexp(1.0, 30) - 40 + static_cast<double>((r >> 8) % 80);
          const double f = ((r >> 20) % 4) * 0.25;
          x[i] = static_cast<T>(((r >> 30) & 1 ? -1 : 1) * (k + f) * 2 * eb);
          break;
        }
        case 3: {  // ties at small q
          x[i] = static_cast<T>((static_cast<double>(static_cast<int64_t>((r >> 8) % 2001) - 1000) + 0.5) * 2 * eb);
          break;
        }
        case 4: {  // values whose reconstruction sits right at the bound
          const double q = static_cast<double>(static_cast<int64_t>((r >> 8) % 200001) - 100000);
          const T xr = static_cast<T>(q) * static_cast<T>(2 * eb);
          T v = static_cast<T>(static_cast<double>(xr) + ((r >> 40) & 1 ? eb : -eb));
          for (uint64_t s = (r >> 41) % 3; s; --s) v = std::nextafter(v, (r >> 43) & 1 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity());
          x[i] = v;
          break;
        }
        default: {  // a smooth walk, so groups have varied widths
          const double prev = i ? static_cast<double>(x[i - 1]) : 0.0;
          const double step = std::ldexp(static_cast<double>(static_cast<int64_t>((r >> 8) % 2001) - 1000),
                                         static_cast<int>((r >> 20) % 24)) * eb;
          x[i] = static_cast<T>(std::isfinite(prev) && std::fabs(prev) < 1e30 ? prev + step : step);
        }
      }
    }
    // Runs of fills at a layer start and across group and layer boundaries.
    for (uint64_t i = 0; i < 45; ++i) x[i] = edge[0];
    for (uint64_t i = delta::kLayer - 7; i < delta::kLayer + 40; ++i) x[i] = edge[2];
    const delta::Encoded ref = reference_encode(x, eb);
    for (int threads : {1, 2}) {
#if defined(_OPENMP)
      omp_set_num_threads(threads);
#endif
      const delta::Encoded e = delta::encode_cpu<T>(x.data(), n, eb);
      EXPECT_EQ(e.widths, ref.widths) << "eb=" << eb << " threads=" << threads;
      EXPECT_EQ(e.initial, ref.initial) << "eb=" << eb;
      EXPECT_EQ(e.payload, ref.payload) << "eb=" << eb;
      EXPECT_EQ(e.exact, ref.exact) << "eb=" << eb;
      // Decode against reconstruct() value by value (exact values restored bit for bit).
      const auto y = decode<T>(e, n, eb);
      const delta::Quant<T> p = delta::make_quant<T>(eb);
      std::vector<uint64_t> ei;
      std::vector<T> ev;
      read_runs<T>(ref.exact, n, "ref", ei, ev);
      size_t next = 0, bad = 0;
      for (uint64_t l = 0; l < delta::layer_count(n); ++l) {
        int32_t acc;
        std::memcpy(&acc, ref.initial.data() + 4 * l, 4);
        const delta::Quant<T> pq = p;
        int32_t prev = acc;
        for (uint64_t i = l * delta::kLayer; i < std::min<uint64_t>(n, (l + 1) * delta::kLayer); ++i) {
          int32_t q;
          const delta::Kind k = delta::prequantize(x[i], pq, q);
          prev = delta::fill_or(k == delta::Kind::kExactFill, q, prev);
          T want = delta::reconstruct(prev, pq);
          if (next < ei.size() && ei[next] == i) want = ev[next++];
          if (std::memcmp(&want, &y[i], sizeof(T)) != 0 && bad++ < 5) ADD_FAILURE() << "value " << i << " eb=" << eb;
        }
      }
    }
  }
#if defined(_OPENMP)
  omp_set_num_threads(saved);
#endif
}

}  // namespace

TEST(DeltaTwin, MatchesScalarReferenceF32) { twin_matches_reference_case<float, uint32_t>(); }
TEST(DeltaTwin, MatchesScalarReferenceF64) { twin_matches_reference_case<double, uint64_t>(); }

