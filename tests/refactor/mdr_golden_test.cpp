// The golden refactored files: every version of the mdr format must retrieve forever to the
// same bits, and the current refactor must reproduce the current version's golden byte for byte
// from its fixture (a change to the encoder within a version would otherwise go unnoticed).
// Write a new version's golden (never overwrites one): SCIZ_WRITE_GOLDEN=1 ./sciz_tests --gtest_filter=*MdrGolden.*
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "core/checksum.hpp"
#include "refactor/mdr/format.hpp"
#include "refactor/mdr_support.hpp"
#include "support/test_data.hpp"

using namespace sciz;
namespace fs = std::filesystem;

namespace {

// 4-D with a size-1 axis and a NaN land mask: every part of the format is in it.
const char* kFixture = "ocean_nanland_cut_1x4x45x90.f32";
const std::vector<uint64_t> kDims = {1, 4, 45, 90};
struct Golden {
  const char* name;
  bool current;  // written by this build's refactor
};
const Golden kGoldens[] = {
    {"mdr_v1_ocean_nan_f32", false}, {"mdr_v2_ocean_nan_f32", false}, {"mdr_v3_ocean_nan_f32", true}};
const double kRel[] = {1e-2, 1e-4, 1e-6};

fs::path golden_dir() { return fs::path(SCIZ_FIXTURES_DIR).parent_path() / "golden"; }

std::vector<float> fixture() {
  const auto raw = test::read_file(fs::path(SCIZ_FIXTURES_DIR) / kFixture);
  std::vector<float> x(raw.size() / 4);
  std::memcpy(x.data(), raw.data(), raw.size());
  return x;
}

// xxh64 of the retrievals at kRel, one after the other on one Retriever, back to back.
uint64_t retrieval_digest(const std::vector<uint8_t>& file, size_t n) {
  mdr::Retriever r(mdr::memory_source(file));
  std::vector<uint8_t> all;
  std::vector<float> y(n);
  for (double rel : kRel) {
    r.retrieve({EbMode::rel, rel}, y.data(), n * 4);
    const auto* b = reinterpret_cast<const uint8_t*>(y.data());
    all.insert(all.end(), b, b + n * 4);
  }
  return xxh64(all.data(), all.size());
}

}  // namespace

class MdrGolden : public ::testing::TestWithParam<Golden> {};

TEST_P(MdrGolden, RetrievesToTheRecordedBitsAndIsReproduced) {
  const char* kName = GetParam().name;
  const std::vector<float> x = fixture();
  ASSERT_EQ(x.size(), Shape{kDims}.count());
  // .szmd, not .sciz: the stream goldens' tests take every .sciz of the folder for a stream.
  const fs::path file = golden_dir() / (std::string(kName) + ".szmd"), digest = golden_dir() / (std::string(kName) + ".xxh64");
  if (std::getenv("SCIZ_WRITE_GOLDEN") && GetParam().current && !fs::exists(file)) {
    const auto bytes = test::refactor_vec(x, kDims);
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(retrieval_digest(bytes, x.size())));
    std::ofstream(digest) << hex << "\n";
  }
  const std::vector<uint8_t> golden = test::read_file(file);
  ASSERT_FALSE(golden.empty()) << file;
  std::ifstream d(digest);
  std::string hex;
  d >> hex;
  ASSERT_EQ(hex.size(), 16u) << digest;
  EXPECT_EQ(retrieval_digest(golden, x.size()), std::stoull(hex, nullptr, 16));
  // Each retrieval of the golden keeps its bound on the fixture.
  mdr::Retriever r(mdr::memory_source(golden));
  std::vector<float> y(x.size());
  for (double rel : kRel) {
    const auto got = r.retrieve({EbMode::rel, rel}, y.data(), y.size() * 4);
    const auto [err, exact] = test::max_error(x, y);
    EXPECT_TRUE(exact && got.met && err <= got.bound) << rel;
  }
  EXPECT_EQ(golden[4] | golden[5] << 8, GetParam().current ? mdr::kVersion : golden[4] | golden[5] << 8);
  if (GetParam().current)
    EXPECT_EQ(test::refactor_vec(x, kDims), golden) << "the refactor of " << kFixture << " no longer reproduces " << file;
}

INSTANTIATE_TEST_SUITE_P(Versions, MdrGolden, ::testing::ValuesIn(kGoldens),
                         [](const auto& info) { return std::string(info.param.name); });
