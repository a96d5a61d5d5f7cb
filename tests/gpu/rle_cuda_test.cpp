// rle CUDA twin: byte-identical sections and identical runs to the CPU twin, exact expansion
// at aligned and unaligned addresses, and the same refusals of damaged input, with nothing
// written outside (or, on refusal, inside) the output.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cstring>
#include <random>
#include <string>

#include "gpu/gpu_util.hpp"
#include "lossless/rle/rle.hpp"

using namespace sciz;

namespace {

constexpr uint16_t kSentinel = 0xBEEF;

// Quant-code-like: mostly `centre`, with runs of other codes; lengths from 1 to past 65536.
std::vector<uint16_t> runs_of_codes(uint64_t n, uint32_t seed, uint16_t centre = 512) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> s;
  s.reserve(n);
  while (s.size() < n) {
    const uint32_t kind = static_cast<uint32_t>(rng() % 100);
    const uint64_t len = kind < 70 ? 1 + rng() % 8 : kind < 97 ? 1 + rng() % 2000 : 1 + rng() % 300000;
    const uint16_t v = rng() % 3 == 0 ? centre : static_cast<uint16_t>(centre + static_cast<int>(rng() % 41) - 20);
    s.insert(s.end(), std::min<uint64_t>(len, n - s.size()), v);
  }
  return s;
}

// A device buffer of n symbols between `lead` and 8 guard symbols, all set to the sentinel.
// An odd lead leaves the output off 16-byte alignment, which the kernels must handle too.
class Guarded {
 public:
  Guarded(uint64_t n, uint64_t lead)
      : n_(n), lead_(lead), buf_(test::upload(std::vector<uint16_t>(lead + n + 8, kSentinel))) {}
  uint16_t* out() { return buf_.get() + lead_; }
  // The output symbols, after checking that every guard still holds the sentinel.
  std::vector<uint16_t> read() const {
    const auto all = test::download(buf_.get(), buf_.size());
    for (uint64_t i = 0; i < all.size(); ++i) {
      if (i < lead_ || i >= lead_ + n_) {
        EXPECT_EQ(all[i], kSentinel) << "guard " << i << " overwritten";
      }
    }
    return {all.begin() + static_cast<std::ptrdiff_t>(lead_), all.begin() + static_cast<std::ptrdiff_t>(lead_ + n_)};
  }
  bool untouched() const {
    const auto all = test::download(buf_.get(), buf_.size());
    return std::all_of(all.begin(), all.end(), [](uint16_t x) { return x == kSentinel; });
  }

 private:
  uint64_t n_, lead_;
  dev::Buffer<uint16_t> buf_;
};

void expect_same(const std::vector<uint16_t>& got, const std::vector<uint16_t>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << what << ": element " << i;
}

// Symbols uploaded at an aligned or an unaligned (odd) device address.
class DeviceSymbols {
 public:
  DeviceSymbols(const std::vector<uint16_t>& s, uint64_t lead) : lead_(lead) {
    std::vector<uint16_t> h(lead + s.size(), kSentinel);
    std::copy(s.begin(), s.end(), h.begin() + static_cast<std::ptrdiff_t>(lead));
    buf_ = test::upload(h);
  }
  const uint16_t* get() const { return buf_.get() + lead_; }

 private:
  uint64_t lead_;
  dev::Buffer<uint16_t> buf_;
};

void expect_twins(const std::vector<uint16_t>& s, const std::string& what) {
  const uint64_t n = s.size();
  const rle::Runs want = rle::runs_cpu(s);
  const auto enc = rle::encode_cpu(s);
  for (uint64_t lead : {0u, 1u}) {
    const std::string at = what + (lead ? " (unaligned)" : "");
    const DeviceSymbols d_sym(s, lead);
    EXPECT_EQ(rle::count_runs_cuda(d_sym.get(), n, nullptr), rle::count_runs_cpu(s)) << at;
    const rle::DeviceRuns r = rle::runs_cuda(d_sym.get(), n, nullptr);
    ASSERT_EQ(r.runs, want.value.size()) << at;
    expect_same(test::download(r.value.get(), r.runs), want.value, at + ": values");
    expect_same(test::download(r.len_m1.get(), r.runs), want.len_m1, at + ": lengths");
    const auto gpu = rle::encode_cuda(d_sym.get(), n, nullptr);
    ASSERT_EQ(gpu.size(), enc.size()) << at;
    ASSERT_TRUE(gpu == enc) << at << ": encodings differ";
    for (uint64_t out_lead : {8u, 9u}) {
      Guarded expanded(n, out_lead);
      rle::expand_cuda(r.value.get(), r.len_m1.get(), r.runs, expanded.out(), n, nullptr);
      expect_same(expanded.read(), s, at + ": expand_cuda, output lead " + std::to_string(out_lead));
    }
  }
  Guarded decoded(n, 8);
  rle::decode_cuda(enc, decoded.out(), n, nullptr);
  expect_same(decoded.read(), s, what + ": decode_cuda");
}

// Status thrown by decode_cuda (ok when none); a refusal must leave the output untouched.
Status decode_status(const std::vector<uint8_t>& enc, uint64_t n) {
  Guarded out(n, 8);
  try {
    rle::decode_cuda(enc, out.out(), n, nullptr);
  } catch (const Error& e) {
    EXPECT_TRUE(out.untouched()) << "written before the refusal";
    return e.status();
  }
  return Status::ok;
}

void put_u16(std::vector<uint8_t>& enc, uint64_t offset, uint16_t v) { std::memcpy(enc.data() + offset, &v, 2); }
void put_u64(std::vector<uint8_t>& enc, uint64_t offset, uint64_t v) { std::memcpy(enc.data() + offset, &v, 8); }

}  // namespace

TEST(RleCuda, SmallAndAwkwardSizesMatchCpu) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (uint64_t n : {1ull, 2ull, 3ull, 15ull, 16ull, 17ull, 4095ull, 4096ull, 4097ull, 65536ull, 65537ull})
    expect_twins(runs_of_codes(n, static_cast<uint32_t>(n)), "random n=" + std::to_string(n));
  expect_twins({7, 7}, "n=2 equal");
}

TEST(RleCuda, EmptyInput) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  dev::Buffer<uint16_t> d(1, nullptr);
  EXPECT_EQ(rle::count_runs_cuda(d.get(), 0, nullptr), 0u);
  EXPECT_EQ(rle::runs_cuda(d.get(), 0, nullptr).runs, 0u);
  EXPECT_EQ(rle::encode_cuda(d.get(), 0, nullptr), rle::encode_cpu({}));
  rle::decode_cuda(rle::encode_cpu({}), d.get(), 0, nullptr);
  rle::expand_cuda(d.get(), d.get(), 0, d.get(), 0, nullptr);
}

TEST(RleCuda, LargeRandomRunsMatchCpu) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  expect_twins(runs_of_codes(1000003, 5), "random n=1000003");
  expect_twins(runs_of_codes(6000000, 6), "random n=6000000");
}

TEST(RleCuda, ConstantRunSplitsLikeCpu) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  expect_twins(std::vector<uint16_t>(200000, 9), "constant 200000");
  for (uint64_t n : {65535ull, 65536ull, 65537ull, 131072ull, 131073ull})
    expect_twins(std::vector<uint16_t>(n, 3), "constant n=" + std::to_string(n));
}

TEST(RleCuda, SparseChangesAcrossTilesAndSegments) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  // Long runs that cross many tiles and CTA segments, with changes on and next to tile edges.
  std::vector<uint16_t> s(20000003, 512);
  for (uint64_t i : {0ull, 1ull, 4095ull, 4096ull, 8191ull, 65536ull, 131072ull, 5000000ull, 5000001ull, 19999999ull,
                     20000002ull})
    s[i] = 513;
  expect_twins(s, "sparse changes");
}

TEST(RleCuda, RunsBreakAtEveryMultipleOf65536) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::vector<uint16_t> s(5 * 65536 + 777, 1);
  for (uint64_t i = 65535; i < 65537; ++i) s[i] = 2;
  for (uint64_t i = 131072 - 10; i < 131072 + 10; ++i) s[i] = i < 131072 ? 3 : 4;
  for (uint64_t i = 140000; i < 4 * 65536 + 3000; ++i) s[i] = 5;
  expect_twins(s, "runs across multiples of 65536");
  // Changes on both sides of power-of-two boundaries inside a tile (the CUDA twin walks a
  // tile in chunks), and runs that cross some of them.
  std::vector<uint16_t> c(3 * 65536 + 8191, 7);
  for (uint64_t i = 4096; i < c.size(); i += 4096) {
    if (i / 4096 % 3 == 0) continue;
    c[i - 1] = 8;
    c[i] = 9;
  }
  expect_twins(c, "chunk edges");
}

// expand_cuda against expand_cpu for runs the encoder would not write: any lengths up to
// 65536, in blocks of short runs, of somewhat longer ones, and of runs whose output needs
// several CTAs (a block here is the CUDA twin's 2048 runs).
TEST(RleCuda, ExpandsAnyRunLayout) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(17);
  std::vector<uint16_t> value, len_m1;
  const uint64_t block = 2048;
  for (uint64_t r = 0; r < 5 * block + 1234; ++r) {
    const uint64_t b = r / block;
    const bool long_runs = (b == 1 && r % 7 == 0) || (b == 3 && r % 64 == 0) || (b == 5 && r % 3 == 0);
    const uint32_t short_max = b == 2 ? 8 : 4;  // block 2: more than staged in shared memory
    len_m1.push_back(static_cast<uint16_t>(long_runs ? (r % 5 == 0 ? 65535 : rng() % 65536) : rng() % short_max));
    value.push_back(static_cast<uint16_t>(rng() % 3 ? 512 : rng()));
  }
  uint64_t n = 0;
  for (uint16_t l : len_m1) n += l + 1u;
  std::vector<uint16_t> want(n);
  rle::expand_cpu(value, len_m1, want);
  for (uint64_t in_lead : {0u, 1u}) {
    const DeviceSymbols d_value(value, in_lead), d_len(len_m1, in_lead);
    for (uint64_t out_lead : {8u, 9u, 13u}) {
      Guarded out(n, out_lead);
      rle::expand_cuda(d_value.get(), d_len.get(), value.size(), out.out(), n, nullptr);
      expect_same(out.read(), want,
                  "input lead " + std::to_string(in_lead) + ", output lead " + std::to_string(out_lead));
    }
  }
  // One run of 65536 and runs of one, n = 65537, and a single short block.
  for (const auto& [v, l] : {std::pair<std::vector<uint16_t>, std::vector<uint16_t>>{{4, 9}, {65535, 0}},
                             {{4}, {0}}, {{1, 2, 3}, {2, 0, 6}}}) {
    uint64_t m = 0;
    for (uint16_t x : l) m += x + 1u;
    std::vector<uint16_t> w(m);
    rle::expand_cpu(v, l, w);
    const auto dv = test::upload(v), dl = test::upload(l);
    Guarded out(m, 9);
    rle::expand_cuda(dv.get(), dl.get(), v.size(), out.out(), m, nullptr);
    expect_same(out.read(), w, "small n=" + std::to_string(m));
  }
}

TEST(RleCuda, AlternatingAndEveryValue) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::vector<uint16_t> alt(100001);
  for (size_t i = 0; i < alt.size(); ++i) alt[i] = i % 2 ? 65535 : 0;
  expect_twins(alt, "alternating");
  std::vector<uint16_t> all;
  for (uint32_t v = 0; v < 65536; ++v) all.insert(all.end(), 1 + v % 3, static_cast<uint16_t>(v));
  expect_twins(all, "every value");
}

TEST(RleCuda, DamagedSectionsRejected) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto s = runs_of_codes(50000, 3);
  const auto enc = rle::encode_cpu(s);
  const uint64_t n = s.size(), runs = (enc.size() - 16) / 4;
  ASSERT_EQ(decode_status(enc, n), Status::ok);
  EXPECT_EQ(decode_status(enc, n - 1), Status::corrupt_stream);
  auto wrong_n = enc;
  put_u64(wrong_n, 0, n + 1);
  EXPECT_EQ(decode_status(wrong_n, n), Status::corrupt_stream);
  EXPECT_EQ(decode_status(std::vector<uint8_t>(enc.begin(), enc.end() - 1), n), Status::corrupt_stream);
  EXPECT_EQ(decode_status(std::vector<uint8_t>(enc.begin(), enc.begin() + 15), n), Status::corrupt_stream);
  std::vector<uint8_t> too_many(16 + 16, 0);  // 4 runs for 3 symbols, sizes consistent
  put_u64(too_many, 0, 3);
  put_u64(too_many, 8, 4);
  EXPECT_EQ(decode_status(too_many, 3), Status::corrupt_stream);
  const uint64_t len0_at = 16 + 2 * runs;
  uint16_t len0 = 0;
  std::memcpy(&len0, enc.data() + len0_at, 2);
  ASSERT_GT(len0, 0);
  ASSERT_LT(len0, 65535);
  for (uint16_t bad : {static_cast<uint16_t>(len0 - 1), static_cast<uint16_t>(len0 + 1)}) {
    auto sum = enc;
    put_u16(sum, len0_at, bad);
    EXPECT_EQ(decode_status(sum, n), Status::corrupt_stream) << "len_m1 " << bad;
  }
}

TEST(RleCuda, ExpandChecksTheLengthSum) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto d_value = test::upload(std::vector<uint16_t>{1, 2, 3});
  const auto d_len = test::upload(std::vector<uint16_t>{0, 4, 65535});
  const uint64_t n = 1 + 5 + 65536;
  auto status_of = [&](uint64_t runs, uint64_t size) {
    Guarded out(size, 8);
    try {
      rle::expand_cuda(d_value.get(), d_len.get(), runs, out.out(), size, nullptr);
    } catch (const Error& e) {
      EXPECT_TRUE(out.untouched()) << "written before the refusal";
      return e.status();
    }
    return Status::ok;
  };
  EXPECT_EQ(status_of(3, n), Status::ok);
  EXPECT_EQ(status_of(3, n - 1), Status::corrupt_stream);
  EXPECT_EQ(status_of(3, n + 1), Status::corrupt_stream);
  EXPECT_EQ(status_of(2, n), Status::corrupt_stream);
  EXPECT_EQ(status_of(0, 1), Status::corrupt_stream);
  EXPECT_EQ(status_of(3, 2), Status::corrupt_stream);  // more runs than symbols
}
