// The AVX2 row loops of the interp CPU twin (interp_rows_avx2.hpp) against the scalar ones
// (run_level with quantize / reconstruct), bit for bit: codes, residuals and reconstructed
// values, on grids of every row length 1..40 with NaN, Inf, huge values, outliers and values
// whose reconstruction misses the bound by rounding, every spline and scheme, levels 4..1.
// The scalar loops themselves are also run in the CLI's and golden tests under
// SCIZ_INTERP_BASELINE_ISA=1 (ctest InterpBaselineIsa).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "predict/interp/interp.hpp"
#include "predict/interp/interp_rows_avx2.hpp"
#include "predict/interp/interp_walk.hpp"

using namespace sciz;
using namespace sciz::interp;

#if defined(SCIZ_INTERP_AVX2)
namespace {

template <class E>
struct Grid {
  std::vector<E> mem;
  int64_t n;
  explicit Grid(int64_t count, E fill) : mem(static_cast<size_t>(count + 2 * kRowPad), fill), n(count) {}
  E* get() { return mem.data() + kRowPad; }
};

// Field values with the cases that must leave the lanes: smooth values plus noise, residuals
// far beyond 127 (outliers), beyond 2^24 (exact), NaN and Inf, and large values whose ulp
// exceeds the bound (the reconstruction misses it by rounding).
template <class T>
std::vector<T> adversarial(size_t count, double eb, std::mt19937& rng, int mix) {
  std::normal_distribution<double> g(0, 1);
  std::uniform_int_distribution<int> pick(0, 99);
  std::vector<T> v(count);
  for (size_t i = 0; i < count; ++i) {
    double x = std::sin(0.1 * static_cast<double>(i)) * 5 + g(rng) * eb * (mix % 3 == 0 ? 1 : 40);
    const int p = pick(rng);
    if (mix > 0) {
      if (p < 2) x = std::numeric_limits<double>::quiet_NaN();
      else if (p < 3) x = std::numeric_limits<double>::infinity() * (p % 2 ? -1 : 1);
      else if (p < 5) x = 1e30;
      else if (p < 8) x = g(rng) * eb * 500;                          // an outlier
      else if (p < 10) x = 1e7 + g(rng) * 3;                           // ulp of float at 1e7: 1
      else if (p < 12) x = (std::is_same_v<T, float> ? 3e6 : 3e15) * (1 + g(rng) * 1e-7);
    }
    v[i] = static_cast<T>(x);
  }
  return v;
}

// One case of the comparisons: the field's shape and adversarial values, the quantizer, and
// the case's name for failure messages.
template <class T>
struct Case {
  int64_t count, pitch[3], n[3];
  std::vector<T> x;
  LevelQuant<T> ql;
  double ebc;
  std::string what;
  Case(int64_t nz, int64_t ny, int64_t nx, LevelConfig cfg, double eb, int mix, uint32_t seed)
      : count(nz * ny * nx), pitch{ny * nx, nx, 1}, n{nz, ny, nx}, ql(level_quant<T>(eb)), ebc(eb_check<T>(eb)) {
    std::mt19937 rng(seed);
    x = adversarial<T>(static_cast<size_t>(count), eb, rng, mix);
    what = std::to_string(nz) + "x" + std::to_string(ny) + "x" + std::to_string(nx) + " spline " +
           std::to_string(cfg.spline) + " scheme " + std::to_string(cfg.scheme) + " mix " + std::to_string(mix);
  }
};

template <class T>
void compare_paths(int64_t nz, int64_t ny, int64_t nx, LevelConfig cfg, double eb, int mix, uint32_t seed) {
  const Case<T> k(nz, ny, nx, cfg, eb, mix, seed);
  // Encoder: scalar and lanes from the same values, level by level.
  Grid<T> vs(k.count, T(0)), vl(k.count, T(0));
  Grid<uint8_t> cs(k.count, 7), cl(k.count, 7);
  Grid<int32_t> qs(k.count, 0), ql_(k.count, 0);
  std::memcpy(vs.get(), k.x.data(), k.count * sizeof(T));
  std::memcpy(vl.get(), k.x.data(), k.count * sizeof(T));
  for (int l = kBlockLevels; l >= 1; --l) {
    const int64_t s = int64_t{1} << (l - 1);
    T* v = vs.get();
    uint8_t* c = cs.get();
    int32_t* q = qs.get();
    run_level(v, k.pitch, k.n, s, cfg, NoSkip{}, [&](int64_t off, const int64_t*, T pred) {
      c[off] = quantize<T>(v[off], pred, k.ql, k.ebc, v[off], q[off]);
    });
    avx2::run_level_lanes<T>(vl.get(), k.pitch, k.n, s, cfg,
                             avx2::QuantizeRows<T>{vl.get(), cl.get(), ql_.get(), k.ql, k.ebc});
  }
  ASSERT_EQ(std::memcmp(cs.get(), cl.get(), k.count), 0) << "codes differ, " << k.what;
  ASSERT_EQ(std::memcmp(vs.get(), vl.get(), k.count * sizeof(T)), 0) << "reconstruction differs, " << k.what;
  for (int64_t i = 0; i < k.count; ++i)
    if (cs.get()[i] != kExactCode && cs.get()[i] != 7)
      ASSERT_EQ(qs.get()[i], ql_.get()[i]) << "residual at " << i << ", " << k.what;
  // Decoder: anchors (coarser than level 4) and exact values known, every other point stale.
  Grid<T> ds(k.count, T(-3)), dl(k.count, T(-3));
  for (int64_t i = 0; i < k.count; ++i) {
    const int64_t z = i / k.pitch[0], y = (i / nx) % ny, xx = i % nx;
    const bool anchor = ((z | y | xx) & (2 * (int64_t{1} << (kBlockLevels - 1)) - 1)) == 0;
    if (anchor || cs.get()[i] == kExactCode) ds.get()[i] = dl.get()[i] = vs.get()[i];
    if (anchor) cs.get()[i] = kExactCode;  // the decoder skips what it knows
  }
  for (int l = kBlockLevels; l >= 1; --l) {
    const int64_t s = int64_t{1} << (l - 1);
    T* v = ds.get();
    const uint8_t* c = cs.get();
    const int32_t* q = qs.get();
    run_level(
        v, k.pitch, k.n, s, cfg, [&](int64_t off, const int64_t*) { return c[off] == kExactCode; },
        [&](int64_t off, const int64_t*, T pred) { v[off] = reconstruct<T>(q[off], pred, k.ql); });
    avx2::run_level_lanes<T>(dl.get(), k.pitch, k.n, s, cfg,
                             avx2::ReconstructRows<T>{dl.get(), cs.get(), qs.get(), k.ql, true});
  }
  ASSERT_EQ(std::memcmp(ds.get(), dl.get(), k.count * sizeof(T)), 0) << "decoded values differ, " << k.what;
  ASSERT_EQ(std::memcmp(ds.get(), vs.get(), k.count * sizeof(T)), 0) << "decoder and encoder differ, " << k.what;
}

// The tuner's runs (TuneSink): the scalar walk against the lanes, level by level from the same
// values, run to the end and with limits that stop them part way: costs, codes in order,
// outlier bytes and states bit for bit.
template <class T>
void compare_tune_paths(int64_t nz, int64_t ny, int64_t nx, LevelConfig cfg, double eb, int mix, uint32_t seed) {
  const Case<T> k(nz, ny, nx, cfg, eb, mix, seed);
  Grid<T> vs(k.count, T(0)), vl(k.count, T(0));
  std::memcpy(vs.get(), k.x.data(), k.count * sizeof(T));
  for (int l = kBlockLevels; l >= 1; --l) {
    const int64_t s = int64_t{1} << (l - 1);
    // A whole run, then runs stopped at a share of its cost (0: before the first row).
    uint64_t whole = 0;
    for (const uint64_t share : {uint64_t{0}, uint64_t{1}, uint64_t{3}, uint64_t{4}}) {
      std::vector<uint8_t> cs(k.count + 8, 7), cl(k.count + 8, 7);
      std::memcpy(vl.get(), vs.get(), k.count * sizeof(T));
      std::vector<T> before(vs.get(), vs.get() + k.count);
      const uint64_t limit = share == 4 ? ~uint64_t{0} : whole * share / 4;
      TuneSink<T> a{vs.get(), k.ql, k.ebc, cs.data(), limit}, b{vl.get(), k.ql, k.ebc, cl.data(), limit};
      run_level(vs.get(), k.pitch, k.n, s, cfg, NoSkip{}, a);
      avx2::run_level_tune_lanes<T>(vl.get(), k.pitch, k.n, s, cfg, b);
      const std::string at = k.what + " level " + std::to_string(l) + " limit " + std::to_string(limit);
      ASSERT_EQ(a.cost, b.cost) << "cost, " << at;
      ASSERT_EQ(a.cp - cs.data(), b.cp - cl.data()) << "code count, " << at;
      ASSERT_EQ(std::memcmp(cs.data(), cl.data(), static_cast<size_t>(a.cp - cs.data())), 0) << "codes, " << at;
      ASSERT_EQ(a.ob, b.ob) << "outlier bytes, " << at;
      ASSERT_EQ(std::memcmp(vs.get(), vl.get(), k.count * sizeof(T)), 0) << "state, " << at;
      if (share != 4) std::memcpy(vs.get(), before.data(), k.count * sizeof(T));  // the whole run goes on
      else ASSERT_EQ(whole, a.cost);
      if (share == 0) {  // learn the whole cost first, from a copy
        std::vector<T> copy = before;
        std::vector<uint8_t> cc(k.count + 8);
        TuneSink<T> w{copy.data(), k.ql, k.ebc, cc.data(), ~uint64_t{0}};
        run_level(copy.data(), k.pitch, k.n, s, cfg, NoSkip{}, w);
        whole = w.cost;
      }
    }
  }
}

// Every row length 1..40 over (z, y) shapes, scheme, spline and value mix (mix 2 at a tight
// bound); keep(zy, nx, mix) thins the large shapes so the test stays short.
template <class Keep, class Compare>
void each_case(const int64_t (&shapes)[7][2], Keep keep, Compare compare) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2 on this CPU";
  uint32_t seed = 1;
  for (int64_t nx = 1; nx <= 40; ++nx)
    for (const auto& zy : shapes)
      for (int scheme = 0; scheme < kSchemes; ++scheme)
        for (int spline = 0; spline < kSplines; ++spline)
          for (int mix = 0; mix < 3; ++mix) {
            if (!keep(zy[0] * zy[1], nx, mix)) continue;
            const double eb = mix == 2 ? 1e-4 : 1e-2;
            compare(zy[0], zy[1], nx, LevelConfig{static_cast<uint8_t>(spline), static_cast<uint8_t>(scheme)}, eb, mix,
                    seed++);
            if (::testing::Test::HasFatalFailure()) return;
          }
}

template <class T>
void all_tune_shapes() {
  const int64_t shapes[][2] = {{1, 1}, {1, 3}, {17, 17}, {4, 17}, {5, 9}, {17, 1}, {9, 12}};
  each_case(
      shapes, [](int64_t zy, int64_t nx, int mix) { return zy <= 60 || nx % 4 == 1 || nx == 17 || mix == 1; },
      [](auto... a) { compare_tune_paths<T>(a...); });
}

template <class T>
void all_shapes() {
  const int64_t shapes[][2] = {{1, 1}, {1, 3}, {17, 17}, {1, 17}, {5, 9}, {17, 1}, {9, 12}};
  each_case(
      shapes, [](int64_t zy, int64_t nx, int mix) { return zy <= 100 || nx % 3 == 0 || mix == 1; },
      [](auto... a) { compare_paths<T>(a...); });
}

}  // namespace

TEST(InterpRowsAvx2, LanesEqualScalarFloat) { all_shapes<float>(); }
TEST(InterpRowsAvx2, LanesEqualScalarDouble) { all_shapes<double>(); }
TEST(InterpRowsAvx2, TuneLanesEqualScalarFloat) { all_tune_shapes<float>(); }
TEST(InterpRowsAvx2, TuneLanesEqualScalarDouble) { all_tune_shapes<double>(); }
#endif
