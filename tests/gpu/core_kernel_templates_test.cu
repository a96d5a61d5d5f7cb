// The device-side pieces that other kernels instantiate themselves: xxh::hash on one thread
// (a container kernel hashing a chunk header) and the exact runs' scatter with an index map
// (delta's serpentine chain). A .cu file: CMake compiles it only in CUDA builds.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <limits>
#include <random>
#include <vector>

#include "core/checksum.hpp"
#include "core/cuda_check.cuh"
#include "core/exact_runs.hpp"
#include "core/exact_runs_cuda.cuh"
#include "core/xxh64_math.hpp"
#include "gpu/gpu_util.hpp"

using namespace sciz;

namespace {

__global__ void hash_kernel(const unsigned char* p, const uint64_t* at, const uint64_t* len, uint64_t seed, uint64_t n,
                            uint64_t* out) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = xxh::hash(p + at[i], len[i], seed);
}

struct Reverse {
  uint64_t n;
  __device__ uint64_t operator()(uint64_t i) const { return n - 1 - i; }
};

}  // namespace

TEST(CoreKernelTemplates, OneThreadXxh64MatchesTheHost) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::vector<unsigned char> bytes(1024);
  std::mt19937 rng(3);
  for (auto& b : bytes) b = static_cast<unsigned char>(rng());
  std::vector<uint64_t> at, len;
  for (uint64_t a = 0; a < 8; ++a)
    for (uint64_t l = 0; l <= 300; ++l) {
      at.push_back(a);
      len.push_back(l);
    }
  at.push_back(0);
  len.push_back(bytes.size());
  auto d = test::upload(bytes);
  auto da = test::upload(at);
  auto dl = test::upload(len);
  dev::Buffer<uint64_t> out(at.size(), nullptr);
  for (uint64_t seed : {uint64_t{0}, uint64_t{0x9E3779B97F4A7C15ull}}) {
    hash_kernel<<<static_cast<unsigned>((at.size() + 127) / 128), 128>>>(d.get(), da.get(), dl.get(), seed, at.size(),
                                                                        out.get());
    SCIZ_CUDA_CHECK_LAUNCH("hash_kernel");
    const auto got = test::download(out.get(), at.size());
    for (size_t i = 0; i < at.size(); ++i)
      ASSERT_EQ(got[i], xxh64(bytes.data() + at[i], len[i], seed)) << "offset " << at[i] << ", " << len[i] << " bytes";
  }
}

TEST(CoreKernelTemplates, MappedScatter) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const uint64_t n = 300'000;
  const float nan = std::numeric_limits<float>::quiet_NaN(), poison = -12345.5f;
  std::vector<uint64_t> idx;
  std::vector<float> val;
  for (uint64_t i = 0; i < n; ++i)
    if (i < 70'000 || i % 17 == 3 || (i > 200'000 && i % 1000 < 500)) {
      idx.push_back(i);
      val.push_back(i % 17 == 3 ? static_cast<float>(i) : nan);
    }
  const auto sec = write_runs<float>(idx, val);
  auto d = test::upload(sec);
  for (bool fail_first : {false, true}) {
    DeviceStatus s0{};
    if (fail_first) s0.code = kStatusChecksum;
    auto st = test::upload(std::vector<DeviceStatus>{s0});
    const auto runs = runs::parse_device<float>(d.get(), sec.size(), n, st.get(), 0, nullptr);
    auto out = test::upload(std::vector<float>(n, poison));
    runs::scatter_device_mapped(runs, out.get(), st.get(), Reverse{n}, nullptr);
    std::vector<float> want(n, poison);
    if (!fail_first)
      for (size_t k = 0; k < idx.size(); ++k) want[n - 1 - idx[k]] = val[k];
    EXPECT_TRUE(test::same_bits(test::download(out.get(), n), want)) << "status failed first: " << fail_first;
    EXPECT_EQ(test::download(st.get(), 1)[0].code, s0.code);
  }
}
