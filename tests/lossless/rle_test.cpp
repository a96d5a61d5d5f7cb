// rle CPU twin: exact runs against a serial reference, round trips, and refusal of damaged
// sections without writing to the output.
#include <gtest/gtest.h>
#include <sciz/error.hpp>

#include <algorithm>
#include <cstring>
#include <random>

#include "lossless/rle/rle.hpp"

using namespace sciz;

namespace {

constexpr uint16_t kSentinel = 0xBEEF;

// The format's definition, one symbol at a time: a run starts at position 0, wherever the
// symbol changes, and at every multiple of 65536.
rle::Runs reference_runs(const std::vector<uint16_t>& s) {
  rle::Runs r;
  for (size_t i = 0; i < s.size();) {
    size_t j = i + 1;
    while (j < s.size() && j % 65536 != 0 && s[j] == s[i]) ++j;
    r.value.push_back(s[i]);
    r.len_m1.push_back(static_cast<uint16_t>(j - i - 1));
    i = j;
  }
  return r;
}

uint64_t reference_count(const std::vector<uint16_t>& s) {
  uint64_t c = s.empty() ? 0 : 1;
  for (size_t i = 1; i < s.size(); ++i) c += s[i] != s[i - 1];
  return c;
}

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

void expect_runs(const rle::Runs& got, const rle::Runs& want, const char* what) {
  ASSERT_EQ(got.value.size(), want.value.size()) << what;
  ASSERT_EQ(got.len_m1.size(), want.len_m1.size()) << what;
  for (size_t k = 0; k < want.value.size(); ++k) {
    ASSERT_EQ(got.value[k], want.value[k]) << what << ": run " << k;
    ASSERT_EQ(got.len_m1[k], want.len_m1[k]) << what << ": run " << k;
  }
}

void expect_same(const std::vector<uint16_t>& got, const std::vector<uint16_t>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << what << ": symbol " << i;
}

// Everything the stage promises about one input.
void check_round_trip(const std::vector<uint16_t>& s, const char* what) {
  const rle::Runs want = reference_runs(s);
  expect_runs(rle::runs_cpu(s), want, what);
  EXPECT_EQ(rle::count_runs_cpu(s), reference_count(s)) << what;
  const auto enc = rle::encode_cpu(s);
  ASSERT_EQ(enc.size(), rle::kHeaderBytes + 4 * want.value.size()) << what;
  uint64_t n = 0, runs = 0;
  std::memcpy(&n, enc.data(), 8);
  std::memcpy(&runs, enc.data() + 8, 8);
  EXPECT_EQ(n, s.size()) << what;
  EXPECT_EQ(runs, want.value.size()) << what;
  std::vector<uint16_t> out(s.size(), kSentinel);
  rle::decode_cpu(enc, out);
  expect_same(out, s, what);
  std::vector<uint16_t> expanded(s.size(), kSentinel);
  rle::expand_cpu(want.value, want.len_m1, expanded);
  expect_same(expanded, s, what);
}

// Decodes into the middle of a sentinel-filled buffer and returns the status thrown (ok when
// none); the whole buffer must be left as it was.
Status decode_status(const std::vector<uint8_t>& enc, uint64_t n) {
  std::vector<uint16_t> buf(n + 16, kSentinel);
  Status st = Status::ok;
  try {
    rle::decode_cpu(enc, std::span<uint16_t>(buf.data() + 8, n));
  } catch (const Error& e) {
    st = e.status();
  }
  if (st != Status::ok) {
    for (size_t i = 0; i < buf.size(); ++i) EXPECT_EQ(buf[i], kSentinel) << "written before the refusal at " << i;
  }
  return st;
}

void put_u16(std::vector<uint8_t>& enc, uint64_t offset, uint16_t v) { std::memcpy(enc.data() + offset, &v, 2); }
void put_u64(std::vector<uint8_t>& enc, uint64_t offset, uint64_t v) { std::memcpy(enc.data() + offset, &v, 8); }

}  // namespace

TEST(Rle, EmptyInputIsAHeaderWithNoRuns) {
  const std::vector<uint16_t> s;
  EXPECT_TRUE(rle::runs_cpu(s).value.empty());
  EXPECT_EQ(rle::count_runs_cpu(s), 0u);
  const auto enc = rle::encode_cpu(s);
  EXPECT_EQ(enc, std::vector<uint8_t>(16, 0));
  std::vector<uint16_t> out;
  rle::decode_cpu(enc, out);
  EXPECT_EQ(decode_status(enc, 1), Status::corrupt_stream);
}

TEST(Rle, OneAndTwoSymbols) {
  check_round_trip({7}, "n=1");
  check_round_trip({7, 7}, "n=2 equal");
  check_round_trip({7, 8}, "n=2 different");
  const rle::Runs r = rle::runs_cpu(std::vector<uint16_t>{7, 7});
  ASSERT_EQ(r.value.size(), 1u);
  EXPECT_EQ(r.value[0], 7);
  EXPECT_EQ(r.len_m1[0], 1);
}

TEST(Rle, ConstantRunBreaksAtMultiplesOf65536) {
  const std::vector<uint16_t> s(200000, 9);
  const rle::Runs r = rle::runs_cpu(s);
  EXPECT_EQ(r.value, (std::vector<uint16_t>{9, 9, 9, 9}));
  EXPECT_EQ(r.len_m1, (std::vector<uint16_t>{65535, 65535, 65535, 200000 - 3 * 65536 - 1}));
  EXPECT_EQ(rle::count_runs_cpu(s), 1u);
  check_round_trip(s, "constant 200000");
}

TEST(Rle, SplitEdges) {
  for (uint64_t n : {65535ull, 65536ull, 65537ull, 131072ull, 131073ull}) {
    const std::vector<uint16_t> s(n, 3);
    const rle::Runs r = rle::runs_cpu(s);
    ASSERT_EQ(r.value.size(), (n + 65535) / 65536) << n;
    for (size_t k = 0; k + 1 < r.len_m1.size(); ++k) EXPECT_EQ(r.len_m1[k], 65535) << n;
    EXPECT_EQ(r.len_m1.back(), (n - 1) % 65536) << n;
    check_round_trip(s, "split edge");
  }
  // A long run between short ones breaks where it crosses 65536, not 65536 symbols after it
  // starts.
  std::vector<uint16_t> s(70000, 5);
  s.front() = 1;
  s.back() = 2;
  const rle::Runs r = rle::runs_cpu(s);
  EXPECT_EQ(r.value, (std::vector<uint16_t>{1, 5, 5, 2}));
  EXPECT_EQ(r.len_m1, (std::vector<uint16_t>{0, 65534, 69998 - 65535 - 1, 0}));
  check_round_trip(s, "long run from position 1");
}

TEST(Rle, RunsBreakAtEveryMultipleOf65536) {
  // Runs of every kind of alignment: ending just before, on and after a multiple of 65536,
  // and one crossing three of them.
  std::vector<uint16_t> s(5 * 65536 + 777, 1);
  for (uint64_t i = 65535; i < 65537; ++i) s[i] = 2;            // crosses 65536 by one
  for (uint64_t i = 131072 - 10; i < 131072; ++i) s[i] = 3;     // ends on a multiple
  for (uint64_t i = 131072; i < 131072 + 10; ++i) s[i] = 4;     // starts on one
  for (uint64_t i = 140000; i < 4 * 65536 + 3000; ++i) s[i] = 5;  // crosses two
  const rle::Runs r = rle::runs_cpu(s);
  uint64_t pos = 0;
  for (size_t k = 0; k < r.len_m1.size(); ++k) {
    const uint64_t end = pos + r.len_m1[k] + 1u;
    EXPECT_EQ(pos / 65536, (end - 1) / 65536) << "run " << k << " crosses a multiple of 65536";
    if (k > 0 && r.value[k] == r.value[k - 1]) EXPECT_EQ(pos % 65536, 0u) << "run " << k << " split needlessly";
    pos = end;
  }
  EXPECT_EQ(pos, s.size());
  check_round_trip(s, "runs across multiples of 65536");
}

TEST(Rle, RandomRunsOfRandomLengths) {
  for (uint64_t n : {3ull, 100ull, 4096ull, 65537ull, 1000003ull, 5000000ull})
    check_round_trip(runs_of_codes(n, static_cast<uint32_t>(n)), "random runs");
}

TEST(Rle, LongRunsAcrossManyChunks) {
  // A few changes in a long constant field: most chunks of the parallel passes hold no run
  // start, and runs cross many chunk boundaries.
  std::vector<uint16_t> s(20000000, 512);
  for (uint64_t i : {0ull, 1ull, 65536ull, 131072ull, 5000000ull, 5000001ull, 19999999ull}) s[i] = 513;
  check_round_trip(s, "sparse changes");
}

TEST(Rle, AlternatingSymbolsGiveOneRunPerSymbol) {
  std::vector<uint16_t> s(300001);
  for (size_t i = 0; i < s.size(); ++i) s[i] = i % 2 ? 65535 : 0;
  EXPECT_EQ(rle::runs_cpu(s).value.size(), s.size());
  check_round_trip(s, "alternating");
}

TEST(Rle, EverySymbolValue) {
  std::vector<uint16_t> s;
  for (uint32_t v = 0; v < 65536; ++v) s.insert(s.end(), 1 + v % 3, static_cast<uint16_t>(v));
  check_round_trip(s, "all values");
  std::reverse(s.begin(), s.end());
  check_round_trip(s, "all values reversed");
}

TEST(Rle, DecodesFromAnUnalignedBuffer) {
  const auto s = runs_of_codes(10000, 11);
  const auto enc = rle::encode_cpu(s);
  std::vector<uint8_t> shifted(enc.size() + 1);
  std::memcpy(shifted.data() + 1, enc.data(), enc.size());
  std::vector<uint16_t> out(s.size());
  rle::decode_cpu(std::span<const uint8_t>(shifted.data() + 1, enc.size()), out);
  expect_same(out, s, "unaligned");
}

TEST(Rle, CountRunsMatchesBruteForce) {
  for (uint64_t n : {1ull, 2ull, 17ull, 65536ull, 1000003ull}) {
    const auto s = runs_of_codes(n, static_cast<uint32_t>(n + 5));
    EXPECT_EQ(rle::count_runs_cpu(s), reference_count(s)) << n;
  }
  // Long runs are counted once, before any splitting.
  EXPECT_EQ(rle::count_runs_cpu(std::vector<uint16_t>(200000, 1)), 1u);
}

TEST(Rle, RejectsDamagedSections) {
  const auto s = runs_of_codes(50000, 3);
  const auto enc = rle::encode_cpu(s);
  const uint64_t n = s.size(), runs = (enc.size() - 16) / 4;
  ASSERT_EQ(decode_status(enc, n), Status::ok);
  EXPECT_EQ(decode_status(enc, n - 1), Status::corrupt_stream);  // header n differs from the caller's
  EXPECT_EQ(decode_status(enc, n + 1), Status::corrupt_stream);
  auto wrong_n = enc;
  put_u64(wrong_n, 0, n + 1);
  EXPECT_EQ(decode_status(wrong_n, n), Status::corrupt_stream);
  for (size_t cut : {size_t{0}, size_t{8}, size_t{15}, size_t{16}, enc.size() - 2, enc.size() - 1})
    EXPECT_EQ(decode_status(std::vector<uint8_t>(enc.begin(), enc.begin() + cut), n), Status::corrupt_stream)
        << "cut to " << cut;
  auto longer = enc;
  longer.push_back(0);
  EXPECT_EQ(decode_status(longer, n), Status::corrupt_stream);
  auto fewer_runs = enc;  // header claims one run less than the payload holds
  put_u64(fewer_runs, 8, runs - 1);
  EXPECT_EQ(decode_status(fewer_runs, n), Status::corrupt_stream);
  // The first run one symbol shorter or longer: lengths sum to n - 1 or n + 1.
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

TEST(Rle, RejectsRunCountsBeyondTheSymbols) {
  // Four runs of one symbol each for n = 3: sizes agree, the run count cannot.
  std::vector<uint8_t> enc(16 + 16, 0);
  put_u64(enc, 0, 3);
  put_u64(enc, 8, 4);
  EXPECT_EQ(decode_status(enc, 3), Status::corrupt_stream);
  // A run count whose payload size overflows 64 bits to the section's actual 4 bytes.
  std::vector<uint8_t> wrap(16 + 4, 0);
  put_u64(wrap, 0, 3);
  put_u64(wrap, 8, (1ull << 62) + 1);
  EXPECT_EQ(decode_status(wrap, 3), Status::corrupt_stream);
  // Runs present for an empty field.
  std::vector<uint8_t> empty(16 + 4, 0);
  put_u64(empty, 8, 1);
  EXPECT_EQ(decode_status(empty, 0), Status::corrupt_stream);
}

TEST(Rle, DecodesRunsOfAnyLayout) {
  // The decoder only expands: runs cut elsewhere than the encoder cuts them (here 65536-long
  // pieces from a run's front, neighbours with one value) decode as well.
  const std::vector<uint16_t> value{1, 5, 5, 5, 2}, len_m1{0, 65535, 65535, 99, 0};
  std::vector<uint16_t> want{1};
  want.insert(want.end(), 2 * 65536 + 100, 5);
  want.push_back(2);
  std::vector<uint16_t> out(want.size(), kSentinel);
  rle::expand_cpu(value, len_m1, out);
  expect_same(out, want, "pieces from the front");
}

TEST(Rle, ExpandChecksLengthsBeforeWriting) {
  const std::vector<uint16_t> value{1, 2, 3}, len_m1{0, 4, 65535};
  const uint64_t n = 1 + 5 + 65536;
  auto status_of = [&](std::span<const uint16_t> v, std::span<const uint16_t> l, uint64_t size) {
    std::vector<uint16_t> out(size, kSentinel);
    try {
      rle::expand_cpu(v, l, out);
    } catch (const Error& e) {
      EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](uint16_t x) { return x == kSentinel; }));
      return e.status();
    }
    return Status::ok;
  };
  EXPECT_EQ(status_of(value, len_m1, n), Status::ok);
  EXPECT_EQ(status_of(value, len_m1, n - 1), Status::corrupt_stream);
  EXPECT_EQ(status_of(value, len_m1, n + 1), Status::corrupt_stream);
  EXPECT_EQ(status_of(std::span(value).first(2), len_m1, n), Status::corrupt_stream);  // array sizes differ
  EXPECT_EQ(status_of({}, {}, 1), Status::corrupt_stream);
  EXPECT_EQ(status_of({}, {}, 0), Status::ok);
}
