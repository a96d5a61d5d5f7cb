// interp_math.hpp and the CPU twin below the pipeline: the code layout is a bijection onto
// [0, n) whose level ranges hold exactly their levels' points, for awkward extents; the
// interior fast path equals the guarded prediction bit for bit (NaN and Inf neighbours
// included); the spline rule's boundary and NaN cases; outlier words; the quantizer at its
// edges; the twin's round trip with forced configurations and its independence from threads.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <algorithm>
#include <filesystem>
#include <set>
#include <span>

#include "core/omp_threads.hpp"
#include "predict/interp/interp.hpp"
#include "predict/interp/interp_walk.hpp"
#include "predict/lorenzo/lorenzo.hpp"
#include "support/test_data.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

using namespace sciz;
using namespace sciz::interp;

namespace {

const std::vector<std::array<uint64_t, 3>>& extents() {
  static const std::vector<std::array<uint64_t, 3>> v = {
      {1, 1, 1},  {1, 1, 2},   {1, 1, 16},  {1, 1, 17},  {1, 1, 18},  {1, 1, 33},   {1, 1, 1031}, {1, 2, 2},
      {1, 17, 17}, {1, 18, 35}, {1, 5, 200}, {2, 3, 5},   {17, 17, 17}, {18, 18, 18}, {16, 33, 7},  {31, 2, 49},
      {3, 40, 1}, {37, 1, 19}};
  return v;
}

}  // namespace

TEST(InterpLayout, CodePositionsAreABijectionOrderedByLevel) {
  for (const auto& e : extents()) {
    SCOPED_TRACE(std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]));
    const Layout L = make_layout(e[0], e[1], e[2]);
    ASSERT_EQ(L.total, e[0] * e[1] * e[2]);
    std::vector<uint8_t> seen(L.total, 0);
    for (uint64_t z = 0; z < e[0]; ++z)
      for (uint64_t y = 0; y < e[1]; ++y)
        for (uint64_t x = 0; x < e[2]; ++x) {
          const uint64_t c[3] = {z, y, x};
          const uint64_t p = code_index(L, c);
          ASSERT_LT(p, L.total);
          ASSERT_EQ(seen[p], 0) << "two points share code position " << p;
          seen[p] = 1;
          const int l = level_of(L, c);
          ASSERT_GE(p, L.base[l]);
          ASSERT_LT(p, L.base[l] + L.count[l]);
        }
  }
}

TEST(InterpLayout, OwnedWalkMatchesClosedForm) {
  // The encoder writes a block's codes by walking its owned points; the decoder finds far-face
  // codes by code_index: both must agree.
  for (const auto& e : extents()) {
    const Layout L = make_layout(e[0], e[1], e[2]);
    for (uint64_t id = 0; id < L.g[0] * L.g[1] * L.g[2]; ++id) {
      const BoxGeom g = box_geom(L, id);
      for (int l = kBlockLevels; l >= 1; --l) {
        uint64_t k = block_level_start(L, l, g.b);
        walk_owned(g, int64_t{1} << (l - 1), [&](int64_t, const int64_t* u) {
          const uint64_t c[3] = {g.o[0] + u[0], g.o[1] + u[1], g.o[2] + u[2]};
          ASSERT_EQ(code_index(L, c), k++);
        });
      }
    }
  }
}

TEST(InterpMath, OutlierWordsRoundTrip) {
  for (int32_t q : {127, 128, -128, -129, 1000, -1000, kMaxOutlier - 1, -kMaxOutlier + 1, 254, -255}) {
    EXPECT_EQ(outlier_of_word(outlier_word(q)), q) << q;
  }
  EXPECT_EQ(outlier_word(127), 0u);
  EXPECT_EQ(outlier_word(-128), 1u);
}

// Found by fuzzing (decompress-interp-cr, chunk-interp-cr, chunk-interp-tp): a damaged
// outlier word near 2^32 was decoded before it was range-checked, and decoding it overflowed
// an int (UBSan). Every word from the edge of the valid range up is refused by name.
TEST(InterpMath, HugeOutlierWordsAreRefusedBeforeDecoding) {
  for (uint32_t w : {2u * static_cast<uint32_t>(interp::kMaxOutlier), 0x7fffffe0u, 0xfffffffeu, 0xffffffffu}) {
    std::vector<uint8_t> sec(8, 0);
    sec[0] = 1;  // one outlier
    uint32_t v = w;
    do {
      sec.push_back(static_cast<uint8_t>((v & 127u) | (v > 127u ? 128u : 0u)));
      v >>= 7;
    } while (v);
    std::vector<int32_t> q;
    try {
      interp::read_outliers(sec, 1, q);
      ADD_FAILURE() << "word " << w << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::corrupt_stream);
      EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
    }
  }
  // The largest valid words still decode.
  for (int32_t q0 : {interp::kMaxOutlier - 1, -interp::kMaxOutlier + 1}) {
    std::vector<uint8_t> sec(8, 0);
    sec[0] = 1;
    uint32_t v = interp::outlier_word(q0);
    do {
      sec.push_back(static_cast<uint8_t>((v & 127u) | (v > 127u ? 128u : 0u)));
      v >>= 7;
    } while (v);
    std::vector<int32_t> q;
    interp::read_outliers(sec, 1, q);
    ASSERT_EQ(q.size(), 1u);
    EXPECT_EQ(q[0], q0);
  }
}

TEST(InterpMath, SplineRuleLowersOrderWhereNeighboursAreMissing) {
  int o = 0;
  EXPECT_EQ(spline_rule<double>(kCubic, 1, 2, 3, 4, true, true, true, true, o), (-1 + 9 * 2 + 9 * 3 - 4) / 16.0);
  EXPECT_EQ(o, 3);
  EXPECT_EQ(spline_rule<double>(kCubic, 1, 2, 3, 4, true, true, true, false, o), (-1 + 6 * 2 + 3 * 3) / 8.0);
  EXPECT_EQ(o, 2);
  EXPECT_EQ(spline_rule<double>(kCubic, 1, 2, 3, 4, false, true, true, true, o), (3 * 2 + 6 * 3 - 4) / 8.0);
  EXPECT_EQ(o, 2);
  EXPECT_EQ(spline_rule<double>(kCubic, 1, 2, 3, 4, false, true, true, false, o), 2.5);
  EXPECT_EQ(o, 1);
  EXPECT_EQ(spline_rule<double>(kLinear, 1, 2, 3, 4, true, true, true, true, o), 2.5);
  EXPECT_EQ(spline_rule<double>(kCubic, 1, 2, 3, 4, true, false, true, true, o), 3.0);  // nearest usable
  EXPECT_EQ(o, 0);
  EXPECT_EQ(spline_rule<double>(kCubic, 1, 2, 3, 4, true, false, false, true, o), 0.0);
  EXPECT_EQ(o, -1);
}

TEST(InterpMath, QuantizerKeepsTheBoundOrStoresExactly) {
  const double eb = 0.01;
  const LevelQuant<float> q = level_quant<float>(eb);
  const double ebc = eb_check<float>(eb);
  float rec;
  int32_t big = 0;
  EXPECT_EQ(quantize<float>(1.0f, 1.0f, q, ebc, rec, big), kCentre);
  EXPECT_EQ(rec, 1.0f);
  const uint8_t c = quantize<float>(1.5f, 1.0f, q, ebc, rec, big);  // q = 25
  EXPECT_EQ(c, kCentre + 25);
  EXPECT_LE(std::fabs(double(rec) - 1.5), eb);
  EXPECT_EQ(quantize<float>(4.0f, 1.0f, q, ebc, rec, big), kOutlierCode);  // q = 150
  EXPECT_EQ(big, 150);
  EXPECT_LE(std::fabs(double(rec) - 4.0), eb);
  EXPECT_EQ(quantize<float>(1e30f, 1.0f, q, ebc, rec, big), kExactCode);  // beyond the outliers
  EXPECT_EQ(rec, 1e30f);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(quantize<float>(nan, 1.0f, q, ebc, rec, big), kExactCode);
  EXPECT_TRUE(std::isnan(rec));
  EXPECT_EQ(quantize<float>(1.0f, nan, q, ebc, rec, big), kExactCode);
  EXPECT_EQ(quantize<float>(1.0f, inf, q, ebc, rec, big), kExactCode);
  EXPECT_EQ(rec, 1.0f);
  // A bound below the value's ulp: only an exact prediction is kept.
  const LevelQuant<float> tiny = level_quant<float>(1e-12);
  EXPECT_EQ(quantize<float>(100.0f, 100.0f, tiny, eb_check<float>(1e-12), rec, big), kCentre);
  // Off by an ulp: a huge outlier whose reconstruction must land on the value itself, or exact.
  const uint8_t off = quantize<float>(100.0f, std::nextafter(100.0f, 0.0f), tiny, eb_check<float>(1e-12), rec, big);
  EXPECT_TRUE(off == kExactCode || off == kOutlierCode);
  EXPECT_EQ(rec, 100.0f);
}

// predict_interior is only a faster predict_point: equal bit for bit on every point where the
// row runner takes it, NaN/Inf neighbours included (where it must hand over).
template <class T>
void interior_equals_guarded(uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0, 1);
  std::vector<T> v(kBoxVolume);
  for (auto& x : v) x = static_cast<T>(g(rng) * 10);
  for (int i = 0; i < 80; ++i) {
    const int at = static_cast<int>(rng() % kBoxVolume);
    v[at] = i % 3 == 0 ? std::numeric_limits<T>::quiet_NaN() : i % 3 == 1 ? std::numeric_limits<T>::infinity()
                                                                        : static_cast<T>(3e30);
  }
  const int64_t n[3] = {kBox, kBox, kBox};
  for (int scheme = 0; scheme < kSchemes; ++scheme)
    for (int spline = 0; spline < kSplines; ++spline)
      for (int l = 1; l <= kBlockLevels; ++l) {
        const int64_t s = int64_t{1} << (l - 1);
        Pass passes[7];
        const int np = level_passes(scheme, passes);
        for (int pi = 0; pi < np; ++pi) {
          const Stencil st = make_stencil(passes[pi].pred, s, kBoxPitch, spline, scheme == kCross);
          const PassGrid pg = pass_grid(passes[pi], s, n);
          uint64_t checked = 0;
          run_rows(v.data(), kBoxPitch, n, pg, st, s, 0, pg.cnt[0] * pg.cnt[1], 0, pg.cnt[2], NoSkip{},
                   [&](int64_t off, const int64_t* c, T pred) {
                     const T ref = predict_point<T>(v.data(), off, c, n, s, st);
                     ASSERT_EQ(std::memcmp(&ref, &pred, sizeof(T)), 0)
                         << "scheme " << scheme << " spline " << spline << " level " << l << " at " << c[0] << ","
                         << c[1] << "," << c[2];
                     ++checked;
                   });
          EXPECT_EQ(checked, static_cast<uint64_t>(pg.points()));
        }
      }
}

TEST(InterpMath, InteriorPathEqualsGuardedPrediction) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    interior_equals_guarded<float>(seed);
    interior_equals_guarded<double>(seed);
  }
}

// A route to a point's prediction (predict_box, predict_edge) is predict_point bit for bit on
// every point of every pass, scheme, spline and level, in boxes of the given extents (cut at the
// field's end), with NaN, Inf and overflowing neighbours, in offsets of type I. route(st, v,
// off, c, n, s) returns the route's prediction.
template <class T, class I, class Route>
void route_equals_guarded(uint32_t seed, const std::vector<std::array<I, 3>>& shapes, Route&& route) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0, 1);
  std::vector<T> v(kBoxVolume);
  for (auto& x : v) x = static_cast<T>(g(rng) * 10);
  for (int i = 0; i < 120; ++i) {
    const int at = static_cast<int>(rng() % kBoxVolume);
    v[at] = i % 4 == 0   ? std::numeric_limits<T>::quiet_NaN()
            : i % 4 == 1 ? std::numeric_limits<T>::infinity()
            : i % 4 == 2 ? -std::numeric_limits<T>::infinity()
                         : std::numeric_limits<T>::max() / 2;
  }
  const I pitch[3] = {kBoxPlane, kBox, 1};
  uint64_t checked = 0;
  for (const auto& w : shapes)
    for (int scheme = 0; scheme < kSchemes; ++scheme)
      for (int spline = 0; spline < kSplines; ++spline)
        for (int l = 1; l <= kBlockLevels; ++l) {
          const I s = I{1} << (l - 1);
          const I n[3] = {w[0], w[1], w[2]};
          Pass passes[7];
          const int np = level_passes(scheme, passes);
          for (int pi = 0; pi < np; ++pi) {
            const StencilT<I> st = make_stencil<I>(passes[pi].pred, s, pitch, spline, scheme == kCross);
            const PassGridT<I> pg = pass_grid<I>(passes[pi], s, n);
            for (I z = 0; z < pg.cnt[0]; ++z)
              for (I y = 0; y < pg.cnt[1]; ++y)
                for (I x = 0; x < pg.cnt[2]; ++x) {
                  const I c[3] = {pg.start[0] + z * pg.step[0], pg.start[1] + y * pg.step[1],
                                  pg.start[2] + x * pg.step[2]};
                  const I off = c[0] * kBoxPlane + c[1] * kBox + c[2];
                  const T got = route(st, v.data(), off, c, n, s);
                  const T ref = predict_point<T, I>(v.data(), off, c, n, s, st);
                  ASSERT_EQ(std::memcmp(&ref, &got, sizeof(T)), 0)
                      << "box " << w[0] << "x" << w[1] << "x" << w[2] << " scheme " << scheme << " spline " << spline
                      << " level " << l << " pass " << pi << " at " << c[0] << "," << c[1] << "," << c[2];
                  ++checked;
                }
          }
        }
  EXPECT_GT(checked, 50000u);
}

// predict_box: the GPU block loop's route (cross stencil, predict_coord, predict_point), in
// the 32-bit offsets the GPU uses.
template <class T>
void box_route_equals_guarded(uint32_t seed) {
  route_equals_guarded<T, int32_t>(
      seed, {{17, 17, 17}, {17, 9, 5}, {3, 17, 12}, {1, 1, 17}, {1, 17, 16}},
      [](const StencilT<int32_t>& st, const T* v, int32_t off, const int32_t* c, const int32_t* n, int32_t s) {
        T got{};
        with_stencil_shape(st, [&]<int K, int SPLINE, bool CROSS>() { got = predict_box<T, K, CROSS, int32_t>(v, off, c, n, s, st); });
        return got;
      });
}

TEST(InterpMath, GpuBoxRouteEqualsGuardedPrediction) {
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    box_route_equals_guarded<float>(seed);
    box_route_equals_guarded<double>(seed);
  }
}

// predict_edge: the CPU row loops' route for points whose stencil leaves the box (and for a
// non-finite interior result), cross stencils with either fallback spline.
template <class T>
void edge_route_equals_guarded(uint32_t seed) {
  route_equals_guarded<T, int64_t>(
      seed, {{17, 17, 17}, {17, 9, 5}, {3, 17, 12}, {1, 1, 17}, {1, 17, 16}, {17, 17, 2}, {17, 2, 2}},
      [](const Stencil& st, const T* v, int64_t off, const int64_t* c, const int64_t* n, int64_t s) {
        T got{};
        with_stencil_shape(st, [&]<int K, int SPLINE, bool CROSS>() {
          got = predict_edge<T, K, SPLINE, CROSS, int64_t>(v, off, c, n, s, st);
        });
        return got;
      });
}

TEST(InterpMath, EdgePathEqualsGuardedPrediction) {
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    edge_route_equals_guarded<float>(seed);
    edge_route_equals_guarded<double>(seed);
  }
}

namespace {

template <class T>
Choice forced(const Layout& L, double eb, int spline, int scheme, double alpha, double beta) {
  TuneRequest r;
  r.spline = spline;
  r.scheme = scheme;
  r.alpha = alpha;
  r.beta = beta;
  std::vector<T> dummy(L.total, T(1));
  return tune_cpu<T>(dummy.data(), L, eb, r);
}

template <class T>
std::vector<T> round_trip_twin(const std::vector<T>& x, const Layout& L, const Choice& ch, double eb,
                               std::vector<uint8_t>* codes_out = nullptr, Sparse<T>* sp_out = nullptr) {
  std::vector<uint8_t> codes(L.total);
  Sparse<T> sp;
  compress_cpu<T>(x.data(), L, ch, eb, codes.data(), sp);
  const OutlierRanks rk = check_sparse<T>(codes.data(), L, sp);
  std::vector<T> y(L.total);
  decompress_cpu<T>(codes.data(), sp, rk, L, ch, y.data());
  if (codes_out) *codes_out = codes;
  if (sp_out) *sp_out = sp;
  return y;
}

}  // namespace

TEST(InterpTwin, EveryConfigurationRoundTripsOnAwkwardExtents) {
  for (const auto& e : extents()) {
    SCOPED_TRACE(std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]));
    const Layout L = make_layout(e[0], e[1], e[2]);
    auto x = test::smooth_field<float>(Shape{{e[0], e[1], e[2]}}, 3);
    if (x.size() > 7) x[7] = std::numeric_limits<float>::quiet_NaN();
    const double eb = 0.05;
    for (int scheme = 0; scheme < kSchemes; ++scheme)
      for (int spline = 0; spline < kSplines; ++spline) {
        const Choice ch = forced<float>(L, eb, spline, scheme, 1.5, 3);
        for (int l = 1; l < L.levels; ++l) {
          ASSERT_EQ(ch.config[l - 1].spline, spline);
          ASSERT_EQ(ch.config[l - 1].scheme, scheme);
        }
        EXPECT_EQ(test::check_bound(x, round_trip_twin(x, L, ch, eb), eb), "");
      }
  }
}

TEST(InterpTwin, ThreadCountDoesNotChangeTheCodes) {
#if defined(_OPENMP)
  const Shape s = Shape::parse("40x37x45");
  auto x = test::smooth_field<double>(s, 9);
  for (size_t i = 0; i < x.size(); i += 97) x[i] = std::numeric_limits<double>::quiet_NaN();
  for (size_t i = 5; i < x.size(); i += 211) x[i] = 1e20;
  const Layout L = make_layout(40, 37, 45);
  const double eb = 1e-3;
  TuneRequest r;
  const Choice ch = tune_cpu<double>(x.data(), L, eb, r);
  const int before = omp_get_max_threads();
  std::vector<uint8_t> c1, c3;
  Sparse<double> s1, s3;
  omp_set_num_threads(1);
  round_trip_twin(x, L, ch, eb, &c1, &s1);
  const Choice ch1 = tune_cpu<double>(x.data(), L, eb, r);
  omp_set_num_threads(3);
  round_trip_twin(x, L, ch, eb, &c3, &s3);
  const Choice ch3 = tune_cpu<double>(x.data(), L, eb, r);
  omp_set_num_threads(before);
  EXPECT_EQ(c1, c3);
  EXPECT_EQ(s1.exact_idx, s3.exact_idx);
  EXPECT_EQ(s1.outliers, s3.outliers);
  EXPECT_EQ(std::memcmp(s1.exact_val.data(), s3.exact_val.data(), s1.exact_val.size() * 8), 0);
  EXPECT_EQ(ch1.eb, ch3.eb);
  for (size_t l = 0; l < ch1.config.size(); ++l) EXPECT_EQ(pack_config(ch1.config[l]), pack_config(ch3.config[l]));
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

// The GPU path lets the tuner use a team of threads on work the bytes rule keeps on one
// (TuneRequest::threads): the choice, the level bounds and the estimates must not move.
TEST(InterpTwin, TunerThreadsDoNotChangeTheChoice) {
#if defined(_OPENMP)
  const Shape s = Shape::parse("48x64x80");  // 60 blocks: 15 samples, several per thread
  auto x = test::smooth_field<float>(s, 4);
  for (size_t i = 0; i < x.size(); i += 389) x[i] = std::numeric_limits<float>::quiet_NaN();
  const Layout L = make_layout(48, 64, 80);
  const int before = omp_get_max_threads();
  omp_set_num_threads(4);
  for (double eb : {1e-1, 1e-3}) {  // the loose bound also sizes the tightening candidates
    TuneRequest one, team;
    one.threads = 1, team.threads = 4;
    one.codes_bytes = team.codes_bytes = [](std::span<const uint8_t> c) {
      uint64_t nz = 0;
      for (uint8_t v : c) nz += v != kCentre;
      return nz + c.size() / 8;
    };
    // The Lorenzo estimate sizes its codes in sample order: a sum weighted by position sees
    // any change of order.
    one.lorenzo_codes_bytes = team.lorenzo_codes_bytes = [](std::span<const uint16_t> c) {
      uint64_t h = 0;
      for (size_t i = 0; i < c.size(); ++i) h += (i % 7 + 1) * (c[i] != 512);
      return h / 8 + 1;
    };
    const Choice a = tune_cpu<float>(x.data(), L, eb, one), b = tune_cpu<float>(x.data(), L, eb, team);
    EXPECT_EQ(a.eb, b.eb) << eb;
    EXPECT_EQ(a.alpha, b.alpha) << eb;
    EXPECT_EQ(a.beta, b.beta) << eb;
    EXPECT_EQ(std::memcmp(&a.interp_bits, &b.interp_bits, sizeof(double)), 0) << eb;
    EXPECT_EQ(std::memcmp(&a.lorenzo_bits, &b.lorenzo_bits, sizeof(double)), 0) << eb;
    EXPECT_GT(a.lorenzo_bits, 0) << eb;
    ASSERT_EQ(a.config.size(), b.config.size());
    for (size_t l = 0; l < a.config.size(); ++l) EXPECT_EQ(pack_config(a.config[l]), pack_config(b.config[l])) << eb;
  }
  omp_set_num_threads(before);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

TEST(InterpTwin, LevelBoundsFollowAlphaAndBeta) {
  const auto e = level_bounds(1.0, 6, 2.0, 5.0);
  ASSERT_EQ(e.size(), 6u);
  EXPECT_EQ(e[0], 1.0);
  EXPECT_EQ(e[1], 0.5);
  EXPECT_EQ(e[2], 0.25);
  EXPECT_EQ(e[3], 0.2);  // capped at beta
  EXPECT_EQ(e[5], 0.2);
  const auto off = level_bounds(1.0, 6, 1.0, 4.0);
  for (double v : off) EXPECT_EQ(v, 1.0);
}

TEST(InterpTwin, NanLandDoesNotSpreadIntoTheSea) {
  // Predictions skip non-finite neighbours (the spline rule), so the coast of a NaN land mask
  // is coded like any other point: the exact values are the NaNs and next to nothing else.
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / "ocean_nanland_cut_1x4x45x90.f32");
  std::vector<float> x(4 * 45 * 90);
  ASSERT_EQ(raw.size(), x.size() * 4);
  std::memcpy(x.data(), raw.data(), raw.size());
  const Layout L = make_layout(4, 45, 90);
  uint64_t nan = 0;
  for (float v : x) nan += std::isnan(v);
  for (double eb : {0.3, 0.03, 0.003}) {
    TuneRequest r;
    const Choice ch = tune_cpu<float>(x.data(), L, eb, r);
    std::vector<uint8_t> codes;
    Sparse<float> sp;
    const auto y = round_trip_twin(x, L, ch, eb, &codes, &sp);
    EXPECT_EQ(test::check_bound(x, y, eb), "");
    uint64_t finite_exact = 0;
    for (float v : sp.exact_val) finite_exact += std::isfinite(v);
    EXPECT_EQ(sp.exact_idx.size() - finite_exact, nan);
    EXPECT_LE(finite_exact, (x.size() - nan) / 200) << "eb " << eb;
    // Exactly stored values come back bit for bit.
    for (size_t k = 0; k < sp.exact_idx.size(); ++k)
      ASSERT_EQ(std::memcmp(&y[sp.exact_idx[k]], &sp.exact_val[k], 4), 0);
  }
}

TEST(InterpTwin, ExactlyStoredNegativeZeroKeepsItsSign) {
  // -0.0 next to values so far away that it cannot be predicted within a tiny bound.
  std::vector<double> x(40);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 2 ? 1e9 : -1e9) * static_cast<double>(i + 1);
  x[13] = -0.0;
  const Layout L = make_layout(1, 1, x.size());
  const double eb = 1e-300;
  TuneRequest r;
  const Choice ch = tune_cpu<double>(x.data(), L, eb, r);
  Sparse<double> sp;
  std::vector<uint8_t> codes;
  const auto y = round_trip_twin(x, L, ch, eb, &codes, &sp);
  ASSERT_TRUE(std::find(sp.exact_idx.begin(), sp.exact_idx.end(), 13u) != sp.exact_idx.end());
  EXPECT_TRUE(std::signbit(y[13]) && y[13] == 0.0);
  EXPECT_EQ(test::check_bound(x, y, eb), "");
}

namespace {

// The samples tune() would search on field x (its gathered boxes, in their state before the
// block levels: original values, which the search does not tell from anchor-rounded ones).
template <class T>
std::vector<TuneSample<T>> samples_of(const std::vector<T>& x, const Layout& L) {
  return load_samples<T>(gather_cpu<T>(x.data(), L), L);
}

// The bounded search against the exhaustive one on one field: every level's choice, every
// sample's codes and outlier bytes per level, every sample's final state bit for bit.
template <class T>
void bounded_equals_exhaustive(const std::vector<T>& x, const Layout& L, double eb, const std::string& what) {
  std::vector<std::vector<LevelConfig>> cand_sets;
  std::vector<LevelConfig> all;
  for (int sp = 0; sp < kSplines; ++sp)
    for (int sc = 0; sc < kSchemes; ++sc) all.push_back({static_cast<uint8_t>(sp), static_cast<uint8_t>(sc)});
  cand_sets.push_back(all);
  cand_sets.push_back({{kLinear, kDimZYX}, {kLinear, kDimXYZ}, {kLinear, kMultiDim}});  // one spline
  cand_sets.push_back({{kLinear, kMultiDim}, {kLinear, kCross}, {kCubic, kMultiDim}, {kCubic, kCross}});
  for (const auto& [alpha, beta] : {std::pair{1.0, 1.0}, std::pair{1.5, 2.0}})
    for (size_t ci = 0; ci < cand_sets.size(); ++ci)
      for (int threads : {1, 3}) {
        SCOPED_TRACE(what + " eb " + std::to_string(eb) + " alpha " + std::to_string(alpha) + " candidates " +
                     std::to_string(ci) + " threads " + std::to_string(threads));
        const std::vector<double> ebs = level_bounds(eb, L.levels, alpha, beta);
        std::vector<TuneSample<T>> a = samples_of(x, L), b = a;
        std::vector<LevelConfig> ca(L.levels), cb(L.levels);
        TuneSampleCodes codes_a, codes_b;
        search_block_levels<T>(a, cand_sets[ci], ebs, eb_check<T>(eb), ca, codes_a, 1, false);
        search_block_levels<T>(b, cand_sets[ci], ebs, eb_check<T>(eb), cb, codes_b, threads, true);
        for (int l = 1; l <= kBlockLevels; ++l)
          ASSERT_EQ(pack_config(ca[l - 1]), pack_config(cb[l - 1])) << "level " << l;
        for (int l = 1; l <= kBlockLevels; ++l)
          for (size_t k = 0; k < a.size(); ++k) {
            ASSERT_EQ(codes_a[l - 1][k].codes, codes_b[l - 1][k].codes) << "level " << l << " sample " << k;
            ASSERT_EQ(codes_a[l - 1][k].outlier_bytes, codes_b[l - 1][k].outlier_bytes);
          }
        for (size_t k = 0; k < a.size(); ++k)
          ASSERT_EQ(std::memcmp(a[k].v.data(), b[k].v.data(), a[k].v.size() * sizeof(T)), 0) << "sample " << k;
      }
}

}  // namespace

// The search's codes and final states against a plain scalar run of the configurations it
// chose (run_level with TuneSink over whole boxes, level by level): its lanes, its runs on a
// coarse level's grid only, and its keeping of the winner's runs must all amount to that.
template <class T>
void search_equals_plain_runs(const std::vector<T>& x, const Layout& L, double eb, const std::string& what) {
  SCOPED_TRACE(what + " eb " + std::to_string(eb));
  std::vector<LevelConfig> all;
  for (int sp = 0; sp < kSplines; ++sp)
    for (int sc = 0; sc < kSchemes; ++sc) all.push_back({static_cast<uint8_t>(sp), static_cast<uint8_t>(sc)});
  const std::vector<double> ebs = level_bounds(eb, L.levels, 1, 1);
  std::vector<TuneSample<T>> smp = samples_of(x, L);
  const std::vector<TuneSample<T>> before = smp;
  std::vector<LevelConfig> cfg(L.levels);
  TuneSampleCodes codes;
  search_block_levels<T>(smp, all, ebs, eb_check<T>(eb), cfg, codes, 1, true);
  for (size_t k = 0; k < smp.size(); ++k) {
    std::vector<T> v = before[k].v;
    for (int l = kBlockLevels; l >= 1; --l) {
      std::vector<uint8_t> c(kBoxVolume);
      TuneSink<T> sink{v.data(), level_quant<T>(ebs[l - 1]), eb_check<T>(eb), c.data(), ~uint64_t{0}};
      run_level(v.data(), kBoxPitch, smp[k].g.w, int64_t{1} << (l - 1), cfg[l - 1], NoSkip{}, sink);
      c.resize(static_cast<size_t>(sink.cp - c.data()));
      ASSERT_EQ(codes[l - 1][k].codes, c) << "level " << l << " sample " << k;
      ASSERT_EQ(codes[l - 1][k].outlier_bytes, sink.ob) << "level " << l << " sample " << k;
    }
    const BoxGeom& g = smp[k].g;
    for (int64_t z = 0; z < g.w[0]; ++z)
      for (int64_t y = 0; y < g.w[1]; ++y)
        ASSERT_EQ(std::memcmp(&v[z * kBoxPitch[0] + y * kBoxPitch[1]], &smp[k].v[z * kBoxPitch[0] + y * kBoxPitch[1]],
                              static_cast<size_t>(g.w[2]) * sizeof(T)),
                  0)
            << "state of sample " << k << " at z " << z << " y " << y;
  }
}

TEST(InterpTune, SearchCodesEqualPlainRunsOfTheChoice) {
  const std::vector<std::array<uint64_t, 3>> shapes = {{20, 50, 50}, {33, 40, 18}, {1, 70, 90}, {17, 17, 17},
                                                       {20, 70, 50}, {1, 1, 3000}};
  for (const auto& e : shapes) {
    const Layout L = make_layout(e[0], e[1], e[2]);
    const std::string name = std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]);
    search_equals_plain_runs<float>(test::smooth_field<float>(Shape{{e[0], e[1], e[2]}}, 5), L, 1e-3, "smooth " + name);
    std::mt19937 rng(11);
    std::normal_distribution<double> g(0, 1);
    std::vector<double> rough(L.total);
    for (size_t i = 0; i < rough.size(); ++i) rough[i] = std::sin(0.05 * static_cast<double>(i)) + 0.3 * g(rng);
    for (size_t i = 5; i < rough.size(); i += 97) rough[i] = std::numeric_limits<double>::quiet_NaN();
    for (size_t i = 7; i < rough.size(); i += 211) rough[i] = 1e30;
    search_equals_plain_runs<double>(rough, L, 1e-2, "rough " + name);
    std::vector<float> roughf(rough.begin(), rough.end());
    search_equals_plain_runs<float>(roughf, L, 1e-4, "rough f32 " + name);
    if (::testing::Test::HasFatalFailure()) return;
  }
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / "isabel_cut_20x50x50.f32");
  std::vector<float> isa(20 * 50 * 50);
  ASSERT_EQ(raw.size(), isa.size() * 4);
  std::memcpy(isa.data(), raw.data(), raw.size());
  for (double rel : {1e-2, 1e-3, 1e-4}) search_equals_plain_runs<float>(isa, make_layout(20, 50, 50), rel * 40.4926, "isabel cut");
}

// The tuner stops a candidate's runs once it cannot win and tries the level above's scheme
// first: it must choose what running every candidate to its end in the plain order chooses,
// ties included (a constant field ties every candidate at every level; thin boxes tie cubic
// with linear where no cubic stencil fits), on smooth, rough, NaN-holed and real fields.
TEST(InterpTune, BoundedSearchChoosesWhatTheExhaustiveSearchChooses) {
  // 20x70x50 is past the small-field budget: 10 samples, level 1 compared on every other one.
  const std::vector<std::array<uint64_t, 3>> shapes = {{20, 50, 50}, {33, 40, 18}, {1, 70, 90}, {17, 17, 17},
                                                       {20, 70, 50}};
  for (const auto& e : shapes) {
    const Layout L = make_layout(e[0], e[1], e[2]);
    const Shape sh{{e[0], e[1], e[2]}};
    const std::string name = std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]);
    auto smooth = test::smooth_field<float>(sh, 11);
    bounded_equals_exhaustive<float>(smooth, L, 1e-3, "smooth " + name);
    bounded_equals_exhaustive<float>(std::vector<float>(L.total, 2.5f), L, 1e-3, "constant " + name);
    std::mt19937 rng(7);
    std::normal_distribution<double> g(0, 1);
    std::vector<double> rough(L.total);
    for (size_t i = 0; i < rough.size(); ++i) rough[i] = std::sin(0.05 * static_cast<double>(i)) + 0.3 * g(rng);
    for (size_t i = 3; i < rough.size(); i += 173) rough[i] = std::numeric_limits<double>::quiet_NaN();
    bounded_equals_exhaustive<double>(rough, L, 1e-2, "rough with NaN " + name);
  }
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / "isabel_cut_20x50x50.f32");
  std::vector<float> isa(20 * 50 * 50);
  ASSERT_EQ(raw.size(), isa.size() * 4);
  std::memcpy(isa.data(), raw.data(), raw.size());
  for (double rel : {1e-2, 1e-3, 1e-4})
    bounded_equals_exhaustive<float>(isa, make_layout(20, 50, 50), rel * 40.4926, "isabel cut");
  const auto raw2 = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / "ocean_nanland_cut_1x4x45x90.f32");
  std::vector<float> ocean(4 * 45 * 90);
  ASSERT_EQ(raw2.size(), ocean.size() * 4);
  std::memcpy(ocean.data(), raw2.data(), raw2.size());
  for (double eb : {0.3, 0.03, 0.003}) bounded_equals_exhaustive<float>(ocean, make_layout(4, 45, 90), eb, "ocean nanland");
}

namespace {

// The tuner's Lorenzo estimate point by point (prequantize, delta and to_code of
// lorenzo_math.hpp over each sampled box, as it was first written): the codes it sizes and the
// bits it reports, for comparison with tune()'s row loops.
template <class T>
double pointwise_lorenzo_bits(const std::vector<T>& f, const Layout& L, double eb, std::vector<uint16_t>& codes) {
  const auto p = lorenzo::make_params<T>(eb, lorenzo::kDefaultRadius);
  const int ndim = L.n[0] > 1 ? 3 : L.n[1] > 1 ? 2 : 1;
  int32_t d0;
  const bool zero_exact = lorenzo::prequantize(T(0), p, d0) != lorenzo::Prequant::kQuantized;
  uint64_t outliers = 0, exact = 0;
  codes.clear();
  for (const TuneSample<T>& s : samples_of(f, L)) {
    std::vector<int32_t> d(kBoxVolume);
    std::vector<uint8_t> skip(kBoxVolume);
    for (int64_t z = 0; z < s.g.w[0]; ++z)
      for (int64_t y = 0; y < s.g.w[1]; ++y)
        for (int64_t x = 0; x < s.g.w[2]; ++x) {
          const int64_t i = z * kBoxPitch[0] + y * kBoxPitch[1] + x;
          skip[i] = !std::isfinite(s.x[i]);
          if (lorenzo::prequantize(s.x[i], p, d[i]) != lorenzo::Prequant::kQuantized && !skip[i]) ++exact;
        }
    if (zero_exact) exact += static_cast<uint64_t>(kBoxVolume - s.g.w[0] * s.g.w[1] * s.g.w[2]);
    auto at = [&](int z, int y, int x) { return d[z * kBoxPitch[0] + y * kBoxPitch[1] + x]; };
    for (int64_t z = ndim >= 3 ? 1 : 0; z < s.g.w[0]; ++z)
      for (int64_t y = ndim >= 2 ? 1 : 0; y < s.g.w[1]; ++y)
        for (int64_t x = 1; x < s.g.w[2]; ++x) {
          if (skip[z * kBoxPitch[0] + y * kBoxPitch[1] + x]) continue;
          const int32_t dl =
              ndim == 3   ? lorenzo::delta(at, int(z), int(y), int(x), 3)
              : ndim == 2 ? lorenzo::delta([&](int, int yy, int xx) { return at(0, yy, xx); }, 0, int(y), int(x), 2)
                          : lorenzo::delta([&](int, int, int xx) { return at(0, 0, xx); }, 0, 0, int(x), 1);
          uint16_t c;
          if (!lorenzo::to_code(dl, p.radius, c)) ++outliers;
          codes.push_back(c);
        }
  }
  if (codes.empty()) return 0;
  uint64_t sized = 0;
  for (const uint16_t c : codes) sized += c % 7;
  return (8.0 * static_cast<double>(sized) + 64.0 * static_cast<double>(outliers) +
          static_cast<double>(exact) * (8.0 * sizeof(T) + 8.0)) /
         static_cast<double>(codes.size());
}

template <class T>
void lorenzo_estimate_matches(const std::vector<T>& f, const Layout& L, double eb, const std::string& what) {
  SCOPED_TRACE(what);
  std::vector<uint16_t> want, got;
  const double bits = pointwise_lorenzo_bits(f, L, eb, want);
  TuneRequest req;
  req.alpha = 1, req.beta = 1;
  req.lorenzo_codes_bytes = [&got](std::span<const uint16_t> c) {
    got.assign(c.begin(), c.end());
    uint64_t sized = 0;
    for (const uint16_t v : c) sized += v % 7;  // any size that depends on every code
    return sized;
  };
  const Choice ch = tune_cpu<T>(f.data(), L, eb, req);
  ASSERT_EQ(got, want);
  ASSERT_EQ(ch.lorenzo_bits, bits);
}

}  // namespace

// The Lorenzo estimate prequantizes and codes the samples a row at a time (the lorenzo
// pipeline's AVX2 row loop for f32): the same codes, outliers and exact values as the point by
// point definition, on 1-, 2- and 3-D fields, thin boxes, NaN, Inf, huge values (exact fills),
// residuals past the radius (outliers) and values that do not quantize within the bound.
TEST(InterpTune, LorenzoEstimateEqualsThePointwiseOne) {
  const std::vector<std::array<uint64_t, 3>> shapes = {{20, 50, 50}, {33, 40, 18}, {1, 70, 90}, {17, 17, 17},
                                                       {25, 25, 25}, {1, 1, 5000}, {4, 33, 2},  {2, 19, 1},
                                                       {40, 3, 70}};
  std::mt19937 rng(3);
  std::normal_distribution<double> g(0, 1);
  std::uniform_int_distribution<int> pick(0, 199);
  for (const auto& e : shapes) {
    const Layout L = make_layout(e[0], e[1], e[2]);
    const std::string name = std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]);
    std::vector<double> x(L.total);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = std::sin(0.07 * static_cast<double>(i)) * 3 + 0.05 * g(rng);
      const int k = pick(rng);
      if (k == 0) x[i] = std::numeric_limits<double>::quiet_NaN();
      else if (k == 1) x[i] = -std::numeric_limits<double>::infinity();
      else if (k == 2) x[i] = 1e30;
      else if (k < 6) x[i] = 300 * g(rng);   // past the radius
      else if (k < 8) x[i] = 3e6 * (1 + g(rng) * 1e-7);  // ulp of float beyond the bound
    }
    std::vector<float> xf(x.begin(), x.end());
    for (double eb : {1e-1, 1e-3}) {
      lorenzo_estimate_matches<float>(xf, L, eb, "f32 " + name + " eb " + std::to_string(eb));
      lorenzo_estimate_matches<double>(x, L, eb, "f64 " + name + " eb " + std::to_string(eb));
      if (::testing::Test::HasFatalFailure()) return;
    }
    lorenzo_estimate_matches<float>(std::vector<float>(L.total, 0.7f), L, 1e-2, "constant " + name);
  }
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / "isabel_cut_20x50x50.f32");
  std::vector<float> isa(20 * 50 * 50);
  ASSERT_EQ(raw.size(), isa.size() * 4);
  std::memcpy(isa.data(), raw.data(), raw.size());
  for (double rel : {1e-2, 1e-3, 1e-4})
    lorenzo_estimate_matches<float>(isa, make_layout(20, 50, 50), rel * 40.4926, "isabel cut");
}

namespace {

uint64_t sampled_points(const Layout& L, const std::vector<uint64_t>& ids) {
  uint64_t p = 0;
  for (uint64_t id : ids) {
    const BoxGeom g = box_geom(L, id);
    p += static_cast<uint64_t>(g.w[0] * g.w[1] * g.w[2]);
  }
  return p;
}

}  // namespace

// Below 2^16 points the tuner's samples hold at most an eighth of the field's points (two
// boxes at least), so that tuning a small field costs a fraction of compressing it; from 2^16
// points on, the rule of every other field (0.2 % of the blocks, at least 24 and at most one
// in four) alone.
TEST(InterpTune, SmallFieldTuningIsBudgetedByTheFieldsSize) {
  const std::vector<std::array<uint64_t, 3>> small = {{20, 50, 50}, {33, 40, 18}, {1, 70, 90}, {17, 17, 17},
                                                      {25, 25, 25}, {1, 101, 201}, {4, 64, 64}, {1, 1, 65535},
                                                      {16, 64, 63}};
  for (const auto& e : small) {
    SCOPED_TRACE(std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]));
    const Layout L = make_layout(e[0], e[1], e[2]);
    ASSERT_LT(L.total, uint64_t{1} << 16);
    const uint64_t nb = L.g[0] * L.g[1] * L.g[2];
    const std::vector<uint64_t> ids = sample_blocks(L);
    ASSERT_GE(ids.size(), std::min<uint64_t>(2, nb));
    for (size_t k = 0; k < ids.size(); ++k) {
      ASSERT_LT(ids[k], nb);
      if (k) ASSERT_LT(ids[k - 1], ids[k]);
    }
    if (ids.size() > 2) EXPECT_LE(8 * sampled_points(L, ids), L.total);
  }
  // The isabel cut: 2 boxes (6,069 points) where the one-in-four floor took 8 (18,921).
  const Layout isa = make_layout(20, 50, 50);
  EXPECT_EQ(sample_blocks(isa).size(), 2u);
  EXPECT_LE(8 * sampled_points(isa, sample_blocks(isa)), isa.total);
  // Past the budget: 20x70x50 (70,000 points, 40 blocks) and 14x64x128 keep one block in four.
  EXPECT_EQ(sample_blocks(make_layout(20, 70, 50)).size(), 10u);
  EXPECT_EQ(sample_blocks(make_layout(14, 64, 128)).size(), 8u);
  EXPECT_EQ(sample_blocks(make_layout(100, 100, 100)).size(), 24u);
}

// What the budgeted tuner chooses on small real and synthetic fields keeps the bound on every
// point through the twin, at loose to tight bounds (the decoder follows the recorded choice).
TEST(InterpTune, BudgetedChoiceRoundTripsWithinTheBound) {
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / "isabel_cut_20x50x50.f32");
  std::vector<float> isa(20 * 50 * 50);
  ASSERT_EQ(raw.size(), isa.size() * 4);
  std::memcpy(isa.data(), raw.data(), raw.size());
  std::vector<double> rough(25 * 25 * 25);
  std::mt19937 rng(5);
  std::normal_distribution<double> g(0, 1);
  for (size_t i = 0; i < rough.size(); ++i) rough[i] = std::cos(0.01 * static_cast<double>(i)) + 0.1 * g(rng);
  for (size_t i = 11; i < rough.size(); i += 301) rough[i] = std::numeric_limits<double>::infinity();
  for (double rel : {1e-2, 1e-3, 1e-4}) {
    SCOPED_TRACE("rel " + std::to_string(rel));
    const Layout L = make_layout(20, 50, 50);
    const double eb = rel * 40.4926;
    const Choice ch = tune_cpu<float>(isa.data(), L, eb, TuneRequest{});
    EXPECT_EQ(test::check_bound(isa, round_trip_twin(isa, L, ch, eb), eb), "");
    const Layout R = make_layout(25, 25, 25);
    const Choice cr = tune_cpu<double>(rough.data(), R, rel, TuneRequest{});
    EXPECT_EQ(test::check_bound(rough, round_trip_twin(rough, R, cr, rel), rel), "");
  }
}

// Level 1's candidates are compared on every other sample (compared_stride), from two samples
// on: with the isabel cut's two samples, the second one's level-1 points (a point of level 1 has
// an odd coordinate; the coarser levels neither read nor write one) can be anything without
// changing a choice, while on its own that sample would choose otherwise at level 1.
TEST(InterpTune, LevelOneIsComparedOnEveryOtherSample) {
  EXPECT_EQ(compared_stride(1, 1), 1u);
  EXPECT_EQ(compared_stride(1, 2), 2u);
  EXPECT_EQ(compared_stride(1, 24), 2u);
  EXPECT_EQ(compared_stride(2, 24), 1u);
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / "isabel_cut_20x50x50.f32");
  std::vector<float> isa(20 * 50 * 50);
  ASSERT_EQ(raw.size(), isa.size() * 4);
  std::memcpy(isa.data(), raw.data(), raw.size());
  const Layout L = make_layout(20, 50, 50);
  const double eb = 1e-3 * 40.4926;
  const std::vector<double> ebs = level_bounds(eb, L.levels, 1, 1);
  std::vector<LevelConfig> all;
  for (int sp = 0; sp < kSplines; ++sp)
    for (int sc = 0; sc < kSchemes; ++sc) all.push_back({static_cast<uint8_t>(sp), static_cast<uint8_t>(sc)});
  auto search = [&](std::vector<TuneSample<float>> smp) {
    std::vector<LevelConfig> c(L.levels);
    TuneSampleCodes codes;
    search_block_levels<float>(smp, all, ebs, eb_check<float>(eb), c, codes, 1, true);
    return c;
  };
  const std::vector<TuneSample<float>> base = samples_of(isa, L);
  ASSERT_EQ(base.size(), 2u);
  const std::vector<LevelConfig> chosen = search(base);
  bool alone_differs = false;
  for (uint32_t seed : {1u, 2u, 3u}) {
    for (int axis = -1; axis < 3; ++axis) {  // odd along one axis, or along any
      SCOPED_TRACE("seed " + std::to_string(seed) + " axis " + std::to_string(axis));
      std::vector<TuneSample<float>> smp = base;
      TuneSample<float>& s = smp[1];
      std::mt19937 rng(seed);
      std::uniform_real_distribution<float> u(-40.f, 40.f);
      for (int64_t z = 0; z < s.g.w[0]; ++z)
        for (int64_t y = 0; y < s.g.w[1]; ++y)
          for (int64_t x = 0; x < s.g.w[2]; ++x) {
            const int64_t c[3] = {z, y, x};
            const bool odd = axis < 0 ? (z | y | x) & 1 : c[axis] & 1;
            if (!odd) continue;
            const int64_t i = z * kBoxPitch[0] + y * kBoxPitch[1] + x;
            s.x[i] = s.v[i] = u(rng);
          }
      const std::vector<LevelConfig> got = search(smp);
      for (int l = 1; l <= kBlockLevels; ++l) ASSERT_EQ(pack_config(got[l - 1]), pack_config(chosen[l - 1])) << "level " << l;
      const std::vector<LevelConfig> alone = search({smp[1]});
      alone_differs = alone_differs || pack_config(alone[0]) != pack_config(chosen[0]);
    }
  }
  EXPECT_TRUE(alone_differs) << "no perturbation made the second sample choose otherwise at level 1: the test proves nothing";
}
