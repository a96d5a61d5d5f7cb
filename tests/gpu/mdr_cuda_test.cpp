// mdr's CUDA twins against the CPU ones, bit for bit: decomposition, fill and recomposition on
// awkward grids in 1 to 4 D; digits, error tables, register-block planes, their decoding and
// the reconstructed coefficients, for f32 and f64 digit words.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cmath>
#include <random>

#include "gpu/gpu_util.hpp"
#include "refactor/bitplanes/bitplanes.hpp"
#include "refactor/multilevel/multilevel.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

const std::vector<std::vector<uint64_t>> kShapes = {{1},          {17},        {4099},     {33, 65},
                                                    {7, 11, 13},  {2, 3, 5, 7}, {3, 17, 2, 19}, {64, 64, 64}};

}  // namespace

TEST(MdrCuda, DecompositionMatchesTheCpuTwin) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  uint32_t seed = 1;
  for (const auto& dims : kShapes) {
    SCOPED_TRACE(Shape{dims}.str());
    const multilevel::Layout l = multilevel::layout_of(multilevel::grid_of(dims));
    auto x = test::random_field<double>(l.grid.count(), ++seed, 5.0);
    std::mt19937 rng(seed);
    for (auto& v : x)
      if (rng() % 5 == 0) v = std::nan("");
    auto cx = x;
    multilevel::fill_cpu(l, cx.data(), 0.25);
    auto dx = test::upload(x);
    multilevel::fill_cuda(l, dx.get(), 0.25, nullptr);
    ASSERT_TRUE(test::same_bits(cx, test::download(dx.get(), x.size())));
    std::vector<double> cc(x.size());
    multilevel::decompose_cpu(l, cx.data(), cc.data());
    dev::Buffer<double> dc(x.size(), nullptr);
    multilevel::decompose_cuda(l, dx.get(), dc.get(), nullptr);
    ASSERT_TRUE(test::same_bits(cc, test::download(dc.get(), x.size())));
    std::vector<double> cr(x.size());
    multilevel::recompose_cpu(l, cc.data(), cr.data());
    dev::Buffer<double> dr(x.size(), nullptr);
    multilevel::recompose_cuda(l, dc.get(), dr.get(), nullptr);
    ASSERT_TRUE(test::same_bits(cr, test::download(dr.get(), x.size())));
  }
}

template <class W>
void bitplanes_match(int scale, int digits) {
  uint32_t seed = 40;
  for (uint64_t n : {uint64_t(1), uint64_t(31), uint64_t(1025), uint64_t(3001), uint64_t(200000)}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const auto c = test::random_field<double>(n, ++seed, 1e3);
    const auto lc = bitplanes::quantize_cpu<W>(c.data(), n, scale, digits);
    auto dc = test::upload(c);
    dev::Buffer<W> dnb(n, nullptr);
    const auto lg = bitplanes::quantize_cuda<W>(dc.get(), n, scale, digits, dnb.get(), nullptr);
    ASSERT_EQ(lg.exponent, lc.exponent);
    ASSERT_EQ(lg.top, lc.top);
    ASSERT_EQ(lg.max_abs, lc.max_abs);
    ASSERT_TRUE(test::same_bits(lc.nb, test::download(dnb.get(), n)));
    for (int g : {1, 4}) {
      const auto ec = bitplanes::level_errors_cpu<W>(c.data(), lc, scale, digits, g);
      ASSERT_TRUE(test::same_bits(ec, bitplanes::level_errors_cuda<W>(dc.get(), dnb.get(), n, lg, scale, digits, g, nullptr)));
    }
    const auto wc = bitplanes::encode_planes_cpu<W>(lc.nb.data(), n, lc.top);
    dev::Buffer<uint32_t> dw(wc.size(), nullptr);
    bitplanes::encode_planes_cuda<W>(dnb.get(), n, lc.top, dw.get(), nullptr);
    ASSERT_TRUE(test::same_bits(wc, test::download(dw.get(), wc.size())));
    // The top 5 planes ORed into zeroed accumulators, then the coefficients they give.
    const int planes = std::min(5, lc.top);
    std::vector<W> acc(n, 0);
    bitplanes::decode_planes_cpu<W>(wc.data(), n, lc.top - 1, planes, acc.data());
    dev::Buffer<W> dacc(n, nullptr);
    dev::zero(dacc.get(), n * sizeof(W), nullptr);
    bitplanes::decode_planes_cuda<W>(dw.get(), n, lc.top - 1, planes, dacc.get(), nullptr);
    ASSERT_TRUE(test::same_bits(acc, test::download(dacc.get(), n)));
    std::vector<double> rc(n);
    bitplanes::reconstruct_cpu<W>(acc.data(), n, lc.top - planes, digits, lc.exponent, scale, true, rc.data());
    dev::Buffer<double> drc(n, nullptr);
    bitplanes::reconstruct_cuda<W>(dacc.get(), n, lc.top - planes, digits, lc.exponent, scale, true, drc.get(), nullptr);
    ASSERT_TRUE(test::same_bits(rc, test::download(drc.get(), n)));
  }
}
TEST(MdrCuda, BitplanesMatchTheCpuTwinF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  bitplanes_match<uint32_t>(30, 32);
}
TEST(MdrCuda, BitplanesMatchTheCpuTwinF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  bitplanes_match<uint64_t>(50, 52);
}
