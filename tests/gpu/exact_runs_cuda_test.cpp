// Exact-values runs on the device (core/exact_runs_cuda.hpp) against write_runs/read_runs:
// the same bytes written, the same values read back, and every section read_runs refuses
// refused on the device, with the output left untouched.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/byteio.hpp"
#include "core/device.hpp"
#include "core/device_status.hpp"
#include "core/exact_runs.hpp"
#include "core/exact_runs_cuda.hpp"
#include "gpu/gpu_util.hpp"

using namespace sciz;

namespace {

template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <class T>
T from_bits(uint64_t b) {
  const auto w = static_cast<Bits<T>>(b);
  T v;
  std::memcpy(&v, &w, sizeof v);
  return v;
}

template <class T>
T poison() {  // a NaN no test writes
  return from_bits<T>(sizeof(T) == 4 ? 0x7fa5a5a5ull : 0x7ff5a5a5a5a5a5a5ull);
}

template <class T>
struct Lists {
  std::vector<uint64_t> idx;
  std::vector<T> val;
  void add(uint64_t i, T v) {
    idx.push_back(i);
    val.push_back(v);
  }
};

dev::Buffer<DeviceStatus> status_buffer(DeviceStatus s = {}) { return test::upload(std::vector<DeviceStatus>{s}); }
DeviceStatus read_status(const dev::Buffer<DeviceStatus>& st) { return test::download(st.get(), 1)[0]; }

size_t first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

template <class T>
void expect_written(const Lists<T>& l, const std::string& what) {
  const std::vector<uint8_t> cpu = write_runs<T>(l.idx, l.val);
  auto di = test::upload(l.idx);
  auto dv = test::upload(l.val);
  const runs::DeviceBlob blob = runs::write_device<T>(di.get(), dv.get(), l.idx.size(), nullptr);
  ASSERT_EQ(blob.size, cpu.size()) << what << " (mode " << (cpu.size() > 16 ? int(cpu[16]) : -1) << ")";
  ASSERT_GE(blob.bytes.size(), blob.size) << what;
  const auto got = test::download(blob.bytes.get(), blob.size);
  EXPECT_TRUE(got == cpu) << what << ": first difference at byte " << first_difference(got, cpu) << " of "
                          << cpu.size() << " (mode " << int(cpu[16]) << ")";
}

// The runs read_runs' lists hold: maximal stretches of consecutive indices with one pattern.
template <class T>
struct HostRuns {
  std::vector<uint64_t> start, length, first;
  std::vector<T> value;
};
template <class T>
HostRuns<T> runs_of(const std::vector<uint64_t>& idx, const std::vector<T>& val) {
  HostRuns<T> r;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (!r.start.empty() && r.start.back() + r.length.back() == idx[k] &&
        std::memcmp(&r.value.back(), &val[k], sizeof(T)) == 0) {
      ++r.length.back();
    } else {
      r.start.push_back(idx[k]);
      r.length.push_back(1);
      r.first.push_back(k);
      r.value.push_back(val[k]);
    }
  }
  return r;
}

// parse_device + scatter_device == read_runs on a section read_runs accepts. `scatter`: the
// field is small enough to hold on the device.
template <class T>
void expect_read(const std::vector<uint8_t>& sec, uint64_t bound, const std::string& what, bool scatter = true) {
  std::vector<uint64_t> idx;
  std::vector<T> val;
  read_runs<T>(sec, bound, "test", idx, val);
  auto d = test::upload(sec);
  auto st = status_buffer();
  const runs::DeviceRuns<T> r = runs::parse_device<T>(d.get(), sec.size(), bound, st.get(), 5, nullptr);
  const auto counts = test::download(r.count.get(), 2);
  const HostRuns<T> want = runs_of(idx, val);
  ASSERT_EQ(read_status(st).code, 0u) << what << ": " << device_status_message(read_status(st));
  ASSERT_LE(counts[0], r.capacity) << what;
  ASSERT_EQ(counts[1], idx.size()) << what;
  // A section may split a run of one value into adjacent runs (read_runs accepts that): the
  // device keeps the section's runs, so compare what they expand to, entry by entry, and the
  // running entry counts the scatter balances by.
  if (counts[0]) {
    const auto start = test::download(r.start.get(), counts[0]), length = test::download(r.length.get(), counts[0]),
               first = test::download(r.first.get(), counts[0]);
    const auto value = test::download(r.value.get(), counts[0]);
    std::vector<uint64_t> got_idx;
    std::vector<T> got_val;
    for (uint64_t k = 0; k < counts[0]; ++k) {
      EXPECT_EQ(first[k], got_idx.size()) << what << ": run " << k;
      for (uint64_t i = 0; i < length[k]; ++i) {
        got_idx.push_back(start[k] + i);
        got_val.push_back(value[k]);
      }
    }
    EXPECT_EQ(got_idx, idx) << what;
    EXPECT_TRUE(test::same_bits(got_val, val)) << what;
  }
  if (!scatter) return;
  std::vector<T> expected(bound, poison<T>());
  for (size_t k = 0; k < idx.size(); ++k) expected[idx[k]] = val[k];
  auto out = test::upload(std::vector<T>(bound, poison<T>()));
  runs::scatter_device<T>(r, out.get(), st.get(), nullptr);
  EXPECT_TRUE(test::same_bits(test::download(out.get(), bound), expected)) << what;
}

template <class T>
void expect_round_trip(const Lists<T>& l, uint64_t bound, const std::string& what) {
  expect_written(l, what);
  expect_read<T>(write_runs<T>(l.idx, l.val), bound, what);
}

// What read_runs' message says, as the device's code for it.
uint32_t code_of(const std::string& msg) {
  if (msg.find("truncated") != std::string::npos) return kStatusRunsTruncated;
  if (msg.find("do not fit") != std::string::npos || msg.find("run count exceeds") != std::string::npos)
    return kStatusRunsHeader;
  if (msg.find("leaves the field") != std::string::npos || msg.find("longer than 64") != std::string::npos)
    return kStatusRunsOverrun;
  if (msg.find("palette index") != std::string::npos) return kStatusRunsPalette;
  if (msg.find("runs hold") != std::string::npos) return kStatusRunsTotals;
  return 0;
}

// The device's verdict on sec equals read_runs': accepted with the same values, or refused
// with the same class of failure, nothing scattered and no runs left.
template <class T>
void expect_same_verdict(const std::vector<uint8_t>& sec, uint64_t bound, const std::string& what) {
  std::vector<uint64_t> idx;
  std::vector<T> val;
  uint32_t cpu_code = 0;
  try {
    read_runs<T>(sec, bound, "test", idx, val);
  } catch (const Error& e) {
    cpu_code = code_of(e.what());
    ASSERT_NE(cpu_code, 0u) << what << ": unrecognized read_runs message: " << e.what();
  }
  if (cpu_code == 0) return expect_read<T>(sec, bound, what);
  auto d = test::upload(sec);
  auto st = status_buffer();
  const runs::DeviceRuns<T> r = runs::parse_device<T>(d.get(), sec.size(), bound, st.get(), 9, nullptr);
  auto out = test::upload(std::vector<T>(bound, poison<T>()));
  runs::scatter_device<T>(r, out.get(), st.get(), nullptr);
  const DeviceStatus s = read_status(st);
  EXPECT_EQ(s.code, cpu_code) << what << ": " << device_status_message(s);
  EXPECT_EQ(s.where, 9u) << what;
  EXPECT_EQ(test::download(r.count.get(), 2), (std::vector<uint64_t>{0, 0})) << what;
  EXPECT_TRUE(test::same_bits(test::download(out.get(), bound), std::vector<T>(bound, poison<T>())))
      << what << ": output touched";
}

// A section put together field by field (for corrupt ones).
template <class T>
struct Sec {
  ByteWriter w;
  Sec(uint64_t entries, uint64_t nruns, uint8_t mode, uint8_t psize_minus_1) {
    w.put<uint64_t>(entries);
    w.put<uint64_t>(nruns);
    w.put<uint8_t>(mode);
    w.put<uint8_t>(psize_minus_1);
    for (int i = 0; i < 6; ++i) w.put<uint8_t>(0);
  }
  Sec& val(double v) {
    w.put<T>(static_cast<T>(v));
    return *this;
  }
  Sec& byte(uint8_t b) {
    w.put<uint8_t>(b);
    return *this;
  }
  Sec& var(uint64_t v) {
    put_varint(w, v);
    return *this;
  }
  std::vector<uint8_t> bytes() { return w.buffer(); }
};

template <class T>
void expect_refused(std::vector<uint8_t> sec, uint64_t bound, uint32_t code, uint64_t a, const std::string& what) {
  EXPECT_THROW(
      {
        std::vector<uint64_t> i;
        std::vector<T> v;
        read_runs<T>(sec, bound, "test", i, v);
      },
      Error)
      << what;
  expect_same_verdict<T>(sec, bound, what);
  auto d = test::upload(sec);
  auto st = status_buffer();
  runs::parse_device<T>(d.get(), sec.size(), bound, st.get(), 1, nullptr);
  const DeviceStatus s = read_status(st);
  EXPECT_EQ(s.code, code) << what << ": " << device_status_message(s);
  EXPECT_EQ(s.a, a) << what << ": " << device_status_message(s);
}

template <class T>
T value(double x) {
  return static_cast<T>(x);
}

// Values a codec stores exactly, each a distinct pattern: NaNs with payloads, both zeros,
// both infinities, denormals, the largest values.
template <class T>
std::vector<T> special_patterns() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::quiet_NaN(), -L::quiet_NaN(), T(0), -T(0), L::infinity(), -L::infinity(),
                      L::denorm_min(), L::max(),        L::lowest()};
  v.push_back(from_bits<T>(sizeof(T) == 4 ? 0xffc12345ull : 0xfff0000000abcdefull));  // NaN with a payload
  v.push_back(from_bits<T>(sizeof(T) == 4 ? 0x7f800001ull : 0x7ff0000000000001ull));  // signalling NaN
  v.push_back(from_bits<T>(~0ull));                                                  // all ones
  return v;
}

template <class T>
void write_cases() {
  std::mt19937_64 rng(sizeof(T));
  const auto specials = special_patterns<T>();
  expect_round_trip(Lists<T>{}, 10, "empty");
  expect_round_trip(Lists<T>{{7}, {value<T>(1.5)}}, 8, "one value");
  expect_round_trip(Lists<T>{{0}, {specials.back()}}, 1, "one all-ones value");
  {
    // A land mask: NaN over long stretches of a 2M-value field, a handful of runs, one pattern.
    Lists<T> l;
    const uint64_t n = test::scaled(2'000'000);
    for (uint64_t i = 0; i < n; ++i)
      if ((i / 1000) % 7 == 0 || (i > n * 3 / 20 && i < n * 13 / 20) || i % 99991 == 5) l.add(i, specials[0]);
    expect_round_trip(l, n, "land mask");
  }
  {
    // Every pattern of the specials, run after run and value after value (runs split on bits).
    Lists<T> l;
    uint64_t i = 3;
    for (int rep = 0; rep < 5; ++rep)
      for (size_t s = 0; s < specials.size(); ++s) {
        const uint64_t len = 1 + (rep * 7 + s) % 4;
        for (uint64_t k = 0; k < len; ++k) l.add(i++, specials[s]);
        if (rep % 2) i += s;  // sometimes adjacent, sometimes a gap
      }
    expect_round_trip(l, i + 10, "special patterns");
  }
  for (const uint64_t n : std::initializer_list<uint64_t>{1, 2, 255, 256, 257, 1000, 100'003, test::scaled(3'000'000)}) {
    // All distinct: no palette; consecutive indices (runs of one) and gappy ones.
    Lists<T> a, b;
    uint64_t i = 0;
    for (uint64_t k = 0; k < n; ++k) {
      const T v = from_bits<T>(rng() >> (sizeof(T) == 4 ? 33 : 2));  // finite, positive, random
      a.add(k, v);
      i += 1 + rng() % (n > 100000 ? 3 : 300);  // keeps the scattered field small
      b.add(i, v);
    }
    expect_round_trip(a, n, "all distinct, consecutive, n = " + std::to_string(n));
    expect_round_trip(b, i + 1, "all distinct, gaps, n = " + std::to_string(n));
  }
  for (uint32_t distinct : {1u, 2u, 3u, 200u, 255u, 256u, 257u, 300u}) {
    // Few patterns over many runs (palette while <= 256), patterns first seen in a shuffled
    // order, new ones appearing late (in later steps of the palette kernel).
    std::vector<T> pats;
    for (uint32_t p = 0; p < distinct; ++p) pats.push_back(from_bits<T>(rng()));
    Lists<T> l;
    uint64_t i = 0;
    const uint64_t nruns = 5000;
    for (uint64_t r = 0; r < nruns; ++r) {
      const uint32_t p = r < 4000 ? static_cast<uint32_t>(rng() % std::max(1u, distinct - distinct / 8))
                                  : static_cast<uint32_t>(rng() % distinct);
      const uint64_t len = 1 + rng() % 3;
      for (uint64_t k = 0; k < len; ++k) l.add(i++, pats[p]);
      i += 1 + rng() % 2;
    }
    expect_round_trip(l, i, "patterns " + std::to_string(distinct));
  }
  {
    // The palette's size rule at its edge: D * size + R < R * size.
    const uint64_t s = sizeof(T);
    for (uint64_t d : {1ull, 2ull, 3ull, 7ull, 8ull}) {
      const uint64_t edge = (d * s) / (s - 1);  // largest R where the palette does not pay
      for (uint64_t nruns = std::max(d, edge > 0 ? edge - 1 : 1); nruns <= edge + 2; ++nruns) {
        Lists<T> l;
        for (uint64_t r = 0; r < nruns; ++r) l.add(2 * r, from_bits<T>(0x40000000ull + r % d));
        const auto cpu = write_runs<T>(l.idx, l.val);
        expect_round_trip(l, 2 * nruns, "size rule: " + std::to_string(d) + " patterns, " + std::to_string(nruns) +
                                            " runs, mode " + std::to_string(cpu[16]));
      }
    }
  }
  {
    // Many runs of two patterns (1.5M runs): the palette kernel steps through all of them.
    Lists<T> l;
    const uint64_t runs = test::scaled(1'500'000);
    for (uint64_t r = 0; r < runs; ++r) l.add(2 * r, r % 3 ? specials[0] : specials[4]);
    expect_round_trip(l, 2 * runs, std::to_string(runs) + " runs of two patterns");
  }
  {
    // Indices whose gaps need every varint length up to ten bytes (written, then parsed
    // without a field to scatter into).
    Lists<T> l;
    uint64_t i = 0;
    for (int shift = 0; shift < 63; shift += 3) {
      i += (1ull << shift) + 1;
      l.add(i, value<T>(shift));
      l.add(i + 1, value<T>(shift));
    }
    l.add(~0ull - 1, value<T>(1));
    expect_written(l, "long varints");
    expect_read<T>(write_runs<T>(l.idx, l.val), ~0ull, "long varints", false);
  }
}

template <class T>
void corrupt_cases() {
  const uint64_t s = sizeof(T);
  // Header cut short: the offset of the field read_runs was reading.
  {
    const auto full = Sec<T>(0, 0, 0, 0).bytes();
    const uint64_t at[] = {0, 0, 8, 8, 16, 17, 18};
    const size_t cut[] = {0, 7, 8, 15, 16, 17, 23};
    for (int k = 0; k < 7; ++k)
      expect_refused<T>({full.begin(), full.begin() + cut[k]}, 10, kStatusRunsTruncated, at[k],
                        "header cut at " + std::to_string(cut[k]));
  }
  expect_refused<T>(Sec<T>(1, 1, 2, 0).var(0).var(0).val(1).bytes(), 10, kStatusRunsHeader, 1, "mode 2");
  expect_refused<T>(Sec<T>(11, 1, 0, 0).var(0).var(10).val(1).bytes(), 10, kStatusRunsHeader, 11,
                    "entries over the bound");
  expect_refused<T>(Sec<T>(1, 2, 0, 0).var(0).var(0).val(1).bytes(), 10, kStatusRunsHeader, 1, "runs over entries");
  expect_refused<T>(Sec<T>(100, 50, 0, 0).var(0).var(0).bytes(), 1000, kStatusRunsHeader, 100,
                    "run count over the section");
  expect_refused<T>(Sec<T>(1, 1, 1, 3).val(1).val(2).bytes(), 10, kStatusRunsTruncated, 24,
                    "palette cut short");
  expect_refused<T>(Sec<T>(2, 2, 0, 0).var(3).var(0).val(1).var(7).var(0).val(2).bytes(), 10,
                    kStatusRunsOverrun, 1, "gap past the bound");
  expect_refused<T>(Sec<T>(2, 1, 0, 0).var(0).var(2).val(1).bytes(), 10, kStatusRunsOverrun, 0,
                    "length past the entries");
  expect_refused<T>(Sec<T>(10, 1, 0, 0).var(5).var(9).val(1).bytes(), 10, kStatusRunsOverrun, 0,
                    "run past the bound");
  {
    auto sec = Sec<T>(1, 1, 0, 0).bytes();
    for (int i = 0; i < 10; ++i) sec.push_back(0x80);  // eleven bytes and still going
    sec.push_back(0);
    sec.push_back(0);
    for (uint64_t i = 0; i < s; ++i) sec.push_back(0);
    expect_refused<T>(sec, 10, kStatusRunsOverrun, 0, "varint past 64 bits");
  }
  expect_refused<T>(Sec<T>(1, 1, 0, 0).var(0).byte(0x80).bytes(), 10, kStatusRunsTruncated, 26,
                    "varint cut short");
  expect_refused<T>(Sec<T>(3, 2, 1, 1).val(1).val(2).var(0).var(0).byte(1).var(0).var(1).byte(2)
                        .bytes(),
                    10, kStatusRunsPalette, 1, "palette index past the palette");
  {
    auto sec = Sec<T>(1, 1, 0, 0).var(0).var(0).val(1).bytes();
    sec.pop_back();
    expect_refused<T>(sec, 10, kStatusRunsTruncated, 26, "raw value cut short");
  }
  expect_refused<T>(Sec<T>(5, 2, 0, 0).var(0).var(1).val(1).var(1).var(1).val(2).bytes(), 10,
                    kStatusRunsTotals, 4, "runs hold fewer entries");
  expect_refused<T>(Sec<T>(4, 2, 0, 0).var(0).var(1).val(1).var(1).var(1).val(2).byte(0).bytes(), 10,
                    kStatusRunsTotals, 4, "trailing byte");
  // read_runs reads a length-1 of 2^64 - 1 as a run of no entries; so does the device.
  expect_same_verdict<T>(
      Sec<T>(2, 2, 0, 0).var(0).var(~0ull).val(1).var(3).var(1).val(2).bytes(), 10, "zero-length run");

  // Every cut and many byte flips of real sections, palette and raw: the same verdict.
  std::mt19937_64 rng(77);
  for (int mode = 0; mode < 2; ++mode) {
    Lists<T> l;
    uint64_t i = 1;
    for (int r = 0; r < 12; ++r) {
      const T v = mode ? value<T>(r % 3) : value<T>(r * 1.25);
      for (int k = 0; k < 1 + r % 4; ++k) l.add(i++, v);
      i += r % 3;
    }
    const uint64_t bound = i + 3;
    const auto sec = write_runs<T>(l.idx, l.val);
    ASSERT_EQ(sec[16], mode);
    for (size_t cut = 0; cut < sec.size(); ++cut)
      expect_same_verdict<T>({sec.begin(), sec.begin() + cut}, bound, "mode " + std::to_string(mode) + " cut at " + std::to_string(cut));
    for (int trial = 0; trial < 300; ++trial) {
      auto bad = sec;
      const int flips = 1 + trial % 3;
      for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
      expect_same_verdict<T>(bad, bound, "mode " + std::to_string(mode) + " flips, trial " + std::to_string(trial));
    }
  }
}

// Sections of several of the parser's 8 KiB windows: cuts and flips anywhere, windows after
// the first included, get the host's verdict.
template <class T>
void corrupt_multiwindow_cases() {
  std::mt19937_64 rng(sizeof(T) * 31);
  for (int mode = 0; mode < 2; ++mode) {
    Lists<T> l;
    uint64_t i = 0;
    for (int r = 0; r < 4000; ++r) {
      const T v = mode ? value<T>(r % 5) : value<T>(r * 0.5 + 0.25);
      for (int k = 0; k < 1 + r % 3; ++k) l.add(i++, v);
      i += 1 + (r % 7 == 0 ? 300 : r % 2);  // some two-byte gaps
    }
    const uint64_t bound = i + 5;
    const auto sec = write_runs<T>(l.idx, l.val);
    ASSERT_EQ(sec[16], mode);
    ASSERT_GT(sec.size(), mode ? 12000u : 20000u);
    expect_read<T>(sec, bound, "multi-window mode " + std::to_string(mode));
    for (int trial = 0; trial < 120; ++trial) {
      const size_t cut = trial < 40 ? 8192 * (1 + trial % 3) - 20 + trial : rng() % sec.size();
      if (cut < sec.size())
        expect_same_verdict<T>({sec.begin(), sec.begin() + cut}, bound,
                               "multi-window mode " + std::to_string(mode) + " cut at " + std::to_string(cut));
      auto bad = sec;
      const size_t windows = (sec.size() + 8191) / 8192, w0 = 8192 * (trial % windows);
      bad[w0 + rng() % std::min<size_t>(8192, sec.size() - w0)] ^= static_cast<uint8_t>(1u << (rng() % 8));
      expect_same_verdict<T>(bad, bound, "multi-window mode " + std::to_string(mode) + " flip, trial " +
                                             std::to_string(trial));
    }
  }
}

template <class T>
void status_cases() {
  // A failure already reported: parse_device reports nothing over it, scatter writes nothing.
  Lists<T> l{{1, 2, 3}, {T(1), T(1), T(2)}};
  const auto sec = write_runs<T>(l.idx, l.val);
  auto d = test::upload(sec);
  const DeviceStatus before{kStatusChecksum, 4, 11, 12};
  auto st = status_buffer(before);
  const auto r = runs::parse_device<T>(d.get(), sec.size(), 8, st.get(), 2, nullptr);
  auto out = test::upload(std::vector<T>(8, poison<T>()));
  runs::scatter_device<T>(r, out.get(), st.get(), nullptr);
  const DeviceStatus after = read_status(st);
  EXPECT_EQ(after.code, before.code);
  EXPECT_EQ(after.where, before.where);
  EXPECT_EQ(after.a, before.a);
  EXPECT_EQ(after.b, before.b);
  EXPECT_TRUE(test::same_bits(test::download(out.get(), 8), std::vector<T>(8, poison<T>())));
  // The same section with a clean status decodes.
  expect_read<T>(sec, 8, "clean status");
}

}  // namespace

TEST(ExactRunsCuda, WriteAndReadLikeTheHostF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  write_cases<float>();
}

TEST(ExactRunsCuda, WriteAndReadLikeTheHostF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  write_cases<double>();
}

TEST(ExactRunsCuda, RefusesWhatTheHostRefusesF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  corrupt_cases<float>();
}

TEST(ExactRunsCuda, RefusesWhatTheHostRefusesF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  corrupt_cases<double>();
}

TEST(ExactRunsCuda, RefusesWhatTheHostRefusesAcrossWindows) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  corrupt_multiwindow_cases<float>();
  corrupt_multiwindow_cases<double>();
}

TEST(ExactRunsCuda, EarlierFailureStopsParseAndScatter) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  status_cases<float>();
  status_cases<double>();
}

TEST(ExactRunsCuda, StatusMessagesNameTheValues) {
  EXPECT_EQ(device_status_message({kStatusRunsTotals, 3, 4, 5}), "exact values: runs hold 4 entries, header says 5");
  EXPECT_EQ(device_status_message({kStatusRunsTotals, 3, 5, 5}),
            "exact values: runs hold 5 entries, header says 5 (and trailing bytes)");
  EXPECT_NE(device_status_message({kStatusRunsHeader, 3, 100, 50}).find("100 entries in 50 runs"), std::string::npos);
}
