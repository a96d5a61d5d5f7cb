// bitpack CUDA twin: byte-identical encodings to the CPU twin, exact decodes, and the same
// refusals of damaged input.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <random>

#include "gpu/gpu_util.hpp"
#include "lossless/bitpack/bitpack.hpp"
#include "lossless/bitpack/bitpack_math.hpp"

using namespace sciz;

namespace {

// Symbols around `centre`, each 32-block with its own spread, so every width 0..16 occurs.
std::vector<uint16_t> symbols(uint64_t n, uint16_t centre, uint32_t seed) {
  std::vector<uint16_t> s(n);
  std::mt19937 rng(seed);
  for (uint64_t b = 0; b < n; b += 32) {
    const int width = static_cast<int>(rng() % 17);
    const int32_t span = width == 0 ? 0 : (1 << (width - 1)) - 1;
    for (uint64_t i = b; i < std::min<uint64_t>(n, b + 32); ++i) {
      const int32_t off = span ? static_cast<int32_t>(rng() % (2 * span + 1)) - span : 0;
      s[i] = static_cast<uint16_t>(std::clamp<int32_t>(centre + off, 0, 65535));
    }
  }
  return s;
}

void expect_twins(const std::vector<uint16_t>& sym, uint16_t centre) {
  const auto cpu = bitpack::encode_cpu(sym, centre);
  auto d_sym = test::upload(sym);
  const auto gpu = bitpack::encode_cuda(d_sym.get(), sym.size(), centre, nullptr);
  ASSERT_EQ(cpu.size(), gpu.size()) << "n = " << sym.size();
  ASSERT_TRUE(cpu == gpu) << "encodings differ, n = " << sym.size();
  dev::Buffer<uint16_t> d_out(sym.size(), nullptr);
  bitpack::decode_cuda(gpu, d_out.get(), sym.size(), nullptr);
  EXPECT_TRUE(test::download(d_out.get(), sym.size()) == sym) << "n = " << sym.size();
}

}  // namespace

TEST(BitpackCuda, RandomSymbolsMatchCpu) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (uint64_t n : {1ull, 31ull, 32ull, 33ull, 1000ull, 65537ull, 1000003ull})
    for (uint16_t centre : {uint16_t(512), uint16_t(32768)}) expect_twins(symbols(n, centre, static_cast<uint32_t>(n)), centre);
}

TEST(BitpackCuda, AllCentreIsHeaderAndZeroWidths) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (uint64_t n : {1ull, 31ull, 32ull, 33ull, 1000003ull}) expect_twins(std::vector<uint16_t>(n, 512), 512);
}

TEST(BitpackCuda, ExtremeOffsets) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::vector<uint16_t> s(100);
  for (size_t i = 0; i < s.size(); ++i) s[i] = i % 2 ? 65535 : 1;  // |sym - centre| = 32767
  expect_twins(s, 32768);
}

TEST(BitpackCuda, DecodesCpuEncoding) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto sym = symbols(4099, 512, 7);
  const auto enc = bitpack::encode_cpu(sym, 512);
  dev::Buffer<uint16_t> d_out(sym.size(), nullptr);
  bitpack::decode_cuda(enc, d_out.get(), sym.size(), nullptr);
  EXPECT_TRUE(test::download(d_out.get(), sym.size()) == sym);
}

TEST(BitpackCuda, DamagedInputRejectedBeforeDeviceWork) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto sym = symbols(1000, 512, 3);
  const auto enc = bitpack::encode_cpu(sym, 512);
  dev::Buffer<uint16_t> d_out(sym.size() + 1, nullptr);
  auto status_of = [&](std::vector<uint8_t> bad, uint64_t n) {
    try {
      bitpack::decode_cuda(bad, d_out.get(), n, nullptr);
    } catch (const Error& e) {
      return e.status();
    }
    return Status::ok;
  };
  EXPECT_EQ(status_of(enc, sym.size() + 1), Status::corrupt_stream);  // wrong count
  auto wide = enc;
  wide[bitpack::kHeaderBytes] = 17;  // width > 16
  EXPECT_EQ(status_of(wide, sym.size()), Status::corrupt_stream);
  auto cut = enc;
  cut.pop_back();
  EXPECT_EQ(status_of(cut, sym.size()), Status::corrupt_stream);
}
