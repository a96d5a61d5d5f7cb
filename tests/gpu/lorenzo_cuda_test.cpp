// Lorenzo CUDA twin against the CPU twin: identical codes, outliers and exact values when
// compressing, bit-identical values when decompressing, over awkward shapes and bounds.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <limits>

#include "core/geometry.hpp"
#include "gpu/gpu_util.hpp"
#include "predict/lorenzo/lorenzo.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

template <class T>
void expect_twins(const Shape& s, const std::vector<T>& x, double eb, int32_t radius, const std::string& what) {
  SCOPED_TRACE(what + " shape " + s.str() + " eb " + std::to_string(eb) + " radius " + std::to_string(radius) +
               (sizeof(T) == 4 ? " f32" : " f64"));
  const Extent e = effective_extent(s);
  const TileShape c = lorenzo::default_tile(e.ndim);
  const auto p = lorenzo::make_params<T>(eb, radius);
  const uint64_t n = e.count();

  std::vector<uint16_t> codes_cpu(n);
  lorenzo::Sparse<T> sp_cpu, sp_gpu;
  lorenzo::compress_cpu<T>(x.data(), e, c, p, codes_cpu.data(), sp_cpu);

  auto d_x = test::upload(x);
  dev::Buffer<uint16_t> d_codes(n, nullptr);
  lorenzo::compress_cuda<T>(d_x.get(), e, c, p, d_codes.get(), sp_gpu, nullptr);
  const auto codes_gpu = test::download(d_codes.get(), n);
  ASSERT_TRUE(codes_cpu == codes_gpu) << "codes differ";
  ASSERT_EQ(sp_cpu.outlier_idx, sp_gpu.outlier_idx);
  ASSERT_EQ(sp_cpu.outlier_val, sp_gpu.outlier_val);
  ASSERT_EQ(sp_cpu.exact_idx, sp_gpu.exact_idx);
  ASSERT_TRUE(test::same_bits(sp_cpu.exact_val, sp_gpu.exact_val)) << "exact values differ";

  std::vector<T> out_cpu(n);
  lorenzo::decompress_cpu<T>(codes_cpu.data(), sp_cpu, e, c, p, out_cpu.data());
  dev::Buffer<T> d_out(n, nullptr);
  lorenzo::decompress_cuda<T>(d_codes.get(), sp_gpu, e, c, p, d_out.get(), nullptr);
  const auto out_gpu = test::download(d_out.get(), n);
  ASSERT_TRUE(test::same_bits(out_cpu, out_gpu)) << "decoded values differ";
  EXPECT_EQ(test::check_bound(x, out_gpu, p.eb_check), "");
}

const std::vector<std::string>& shapes() {
  static const std::vector<std::string> s = {
      // 1-D: tile 2048
      "1", "2", "2047", "2048", "2049", "4099", "10007",
      // 2-D: tile 32x32
      "1x2", "2x1x3", "31x33", "32x32", "33x31", "2x97", "101x103", "1x1x67x5",
      // 3-D: tile 8x8x32
      "2x3x5", "7x9x31", "8x8x32", "9x9x33", "17x13x67", "3x1x11x97",
      // 4-D: a stack of volumes
      "3x5x7x33", "2x9x9x40"};
  return s;
}

template <class T>
void sweep() {
  for (const auto& str : shapes()) {
    const Shape s = Shape::parse(str);
    const auto smooth = test::smooth_field<T>(s, 11);
    const auto noise = test::random_field<T>(s.count(), 12, 10.0);
    for (double eb : {1e-1, 1e-3, 1e-6}) {
      expect_twins<T>(s, smooth, eb, 512, "smooth");
      expect_twins<T>(s, noise, eb, 512, "random");
      if (::testing::Test::HasFatalFailure()) return;
    }
    expect_twins<T>(s, noise, 1e-2, 2, "random, tiny radius");  // nearly every point an outlier
    expect_twins<T>(s, smooth, 1e-2, lorenzo::kMaxRadius, "smooth, max radius");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// NaN masks (whole rows, partial rows, row starts and ends), infinities, values beyond the
// integer range, denormals: exercises the row fill rule and the exact list.
template <class T>
std::vector<T> special_field(const Shape& s, uint32_t seed) {
  auto x = test::smooth_field<T>(s, seed);
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const uint64_t nx = s.dims.back();
  for (uint64_t i = 0; i < x.size(); ++i) {
    const uint64_t row = i / nx, col = i % nx;
    if (row % 7 == 3) x[i] = nan;                         // whole rows
    else if (row % 5 == 1 && col < nx / 3) x[i] = nan;    // row starts
    else if (row % 5 == 2 && col > nx / 2) x[i] = -nan;   // row ends, other payload sign
    else if (i % 97 == 5) x[i] = inf;
    else if (i % 89 == 7) x[i] = -inf;
    else if (i % 83 == 11) x[i] = static_cast<T>(1e30);   // beyond the prequant range
    else if (i % 79 == 13) x[i] = std::numeric_limits<T>::denorm_min();
  }
  return x;
}

}  // namespace

TEST(LorenzoCuda, MatchesCpuF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  sweep<float>();
}

TEST(LorenzoCuda, MatchesCpuF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  sweep<double>();
}

TEST(LorenzoCuda, SpecialValuesMatchCpu) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* str : {"5000", "4097", "64x70", "33x35", "9x17x70", "2x3x9x40"}) {
    const Shape s = Shape::parse(str);
    expect_twins<float>(s, special_field<float>(s, 5), 1e-2, 512, "special");
    expect_twins<double>(s, special_field<double>(s, 6), 1e-2, 512, "special");
    expect_twins<float>(s, std::vector<float>(s.count(), std::numeric_limits<float>::quiet_NaN()), 1e-2, 512,
                        "all NaN");
    expect_twins<float>(s, std::vector<float>(s.count(), 2.5f), 1e-3, 512, "constant");
    expect_twins<float>(s, std::vector<float>(s.count(), std::numeric_limits<float>::denorm_min()), 1e-3, 512,
                        "denormal");
  }
}

TEST(LorenzoCuda, SparseOverflowRerunMatchesCpu) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  // 2M points; the first capacity is max(2^20, n/8) = 2^20 entries per list.
  const Shape s = Shape::parse("64x128x256");
  const auto noise = test::random_field<float>(s.count(), 21, 100.0);
  expect_twins<float>(s, noise, 1e-3, 1, "outliers overflow");  // nearly every point an outlier
  auto masked = noise;
  for (uint64_t i = 0; i < masked.size(); ++i)
    if (i % 4) masked[i] = std::numeric_limits<float>::infinity();  // 1.5M exact values
  expect_twins<float>(s, masked, 1e-3, 512, "exact values overflow");
}

TEST(LorenzoCuda, UnsupportedTileShapeThrows) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Extent e = effective_extent(Shape::parse("16x16x64"));
  const auto p = lorenzo::make_params<float>(1e-3, 512);
  dev::Buffer<uint16_t> codes(e.count(), nullptr);
  dev::Buffer<float> out(e.count(), nullptr);
  lorenzo::Sparse<float> sp;
  for (const TileShape c : {TileShape{4, 4, 4}, TileShape{1, 32, 32}, TileShape{1, 1, 1024}}) {
    if (c.cz == 1 && c.cy == 32) {  // a 2-D tile on a 3-D field is valid: CPU and CUDA agree
      EXPECT_NO_THROW(lorenzo::decompress_cuda<float>(codes.get(), sp, e, c, p, out.get(), nullptr));
      continue;
    }
    try {
      lorenzo::decompress_cuda<float>(codes.get(), sp, e, c, p, out.get(), nullptr);
      ADD_FAILURE() << "tile " << c.cz << "x" << c.cy << "x" << c.cx << " accepted";
    } catch (const Error& err) {
      EXPECT_EQ(err.status(), Status::unsupported);
    }
  }
  dev::Buffer<float> x(e.count(), nullptr);
  try {
    lorenzo::compress_cuda<float>(x.get(), e, TileShape{1, 32, 32}, p, codes.get(), sp, nullptr);
    ADD_FAILURE() << "compress with a non-default tile accepted";
  } catch (const Error& err) {
    EXPECT_EQ(err.status(), Status::unsupported);
  }
  dev::sync(nullptr);
}

TEST(LorenzoCuda, OtherSupportedTileOnFieldDecodesLikeCpu) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  // A stream may carry any of the three shapes on any field the header allows: decode a 3-D
  // field tileed 1x32x32 and 1x1x2048 from CPU-made codes, and compare with the CPU decoder.
  const Shape s = Shape::parse("5x40x70");
  const Extent e = effective_extent(s);
  const auto x = test::smooth_field<float>(s, 4);
  const auto p = lorenzo::make_params<float>(1e-2, 512);
  for (const TileShape c : {TileShape{1, 32, 32}, TileShape{1, 1, 2048}}) {
    // Build codes with the CPU twin under a matching 2-D / 1-D view isn't possible for the
    // 3-D field, so decode arbitrary codes and outliers: both decoders must agree bit for bit.
    std::vector<uint16_t> codes(e.count());
    for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<uint16_t>(500 + (i * 7919) % 25);
    lorenzo::Sparse<float> sp;
    const uint64_t slots = tile_grid(e, c).count() * c.volume();
    for (uint64_t k = 3; k < slots; k += 997) {
      sp.outlier_idx.push_back(k);
      sp.outlier_val.push_back(static_cast<int32_t>(k % 4001) - 2000);
    }
    sp.exact_idx = {0, 17, e.count() - 1};
    sp.exact_val = {x[0], x[17], x[e.count() - 1]};
    std::vector<float> out_cpu(e.count());
    lorenzo::decompress_cpu<float>(codes.data(), sp, e, c, p, out_cpu.data());
    auto d_codes = test::upload(codes);
    dev::Buffer<float> d_out(e.count(), nullptr);
    lorenzo::decompress_cuda<float>(d_codes.get(), sp, e, c, p, d_out.get(), nullptr);
    EXPECT_TRUE(test::same_bits(out_cpu, test::download(d_out.get(), e.count())))
        << "tile " << c.cz << "x" << c.cy << "x" << c.cx;
  }
}
