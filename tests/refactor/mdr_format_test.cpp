// The refactored file's checks: truncation, damage to the header, the index or a segment, and
// to a saved state, are refused with an error that names what is wrong, before any of it is
// used; a header whose checksum was recomputed over bad fields is refused field by field.
#include <gtest/gtest.h>

#include <cstring>

#include "core/checksum.hpp"
#include "refactor/mdr/format.hpp"
#include "refactor/mdr_support.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

struct Refactored {
  std::vector<float> x;
  std::vector<uint8_t> file;
  uint32_t header = 0;
};

Refactored sample() {
  Refactored r;
  r.x = test::special_values_1d<float>(3000, 8);
  auto s = test::smooth_field<float>(Shape{{30, 100}}, 8);
  for (size_t i = 0; i < r.x.size(); ++i)
    if (std::isfinite(r.x[i])) r.x[i] = s[i];
  r.file = test::refactor_vec(r.x, {30, 100});
  mdr::Retriever probe(mdr::memory_source(r.file));
  r.header = static_cast<uint32_t>(probe.info().header_bytes);
  return r;
}

template <class F>
std::string error_of(F&& f, Status* status = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (status) *status = e.status();
    return e.what();
  }
  return "";
}

// Bytes of a version 2 index entry: level, LEB128 length.
size_t entry_bytes(const mdr::Segment& s) {
  size_t v = 1;
  for (uint64_t x = s.length; x >= 0x80; x >>= 7) ++v;
  return 1 + v;
}

void reseal(std::vector<uint8_t>& file, uint32_t header) {
  const uint64_t sum = xxh64(file.data(), header - 8);
  std::memcpy(file.data() + header - 8, &sum, 8);
}

}  // namespace

TEST(MdrFormat, HeaderRoundTrips) {
  const Refactored r = sample();
  const mdr::Header h = mdr::read_header({r.file.data(), r.header}, r.file.size());
  mdr::Header w = h;
  const std::vector<uint8_t> again = mdr::write_header(w);
  EXPECT_EQ(again, std::vector<uint8_t>(r.file.begin(), r.file.begin() + r.header));
  EXPECT_EQ(h.segments.front().level, mdr::kExactLevel);  // NaN/Inf present: read first
  EXPECT_EQ(h.segments.back().offset + h.segments.back().length, r.file.size());
}

TEST(MdrFormat, TruncatedFilesAreRefusedWhenOpened) {
  const Refactored r = sample();
  const mdr::Header h = mdr::read_header({r.file.data(), r.header}, r.file.size());
  for (size_t cut = 0; cut < r.file.size(); cut += cut < r.header + 64 ? 1 : 97) {
    const std::vector<uint8_t> t(r.file.begin(), r.file.begin() + cut);
    Status st = Status::ok;
    const std::string msg = error_of([&] { mdr::Retriever x(mdr::memory_source(t)); }, &st);
    ASSERT_FALSE(msg.empty()) << "a file cut at " << cut << " was accepted";
    ASSERT_EQ(st, Status::corrupt_stream) << msg;
    if (cut >= r.header) {  // the index is whole: it names the segment that does not fit
      size_t k = 0;
      while (h.segments[k].offset + h.segments[k].length <= cut) ++k;
      EXPECT_NE(msg.find("index entry " + std::to_string(k) + " (" + mdr::segment_name(h.segments[k]) + ")"),
                std::string::npos)
          << msg;
    }
  }
  auto longer = r.file;
  longer.push_back(0);
  EXPECT_NE(error_of([&] { mdr::Retriever x(mdr::memory_source(longer)); }).find("trailing"), std::string::npos);
}

TEST(MdrFormat, DamagedHeaderOrIndexIsRefused) {
  const Refactored r = sample();
  for (uint32_t at = 0; at < r.header; ++at) {
    auto f = r.file;
    f[at] ^= 0x10;
    Status st = Status::ok;
    const std::string msg = error_of([&] { mdr::Retriever x(mdr::memory_source(f)); }, &st);
    ASSERT_FALSE(msg.empty()) << "a flip at header byte " << at << " was accepted";
    ASSERT_TRUE(st == Status::corrupt_stream || st == Status::unsupported) << msg;
  }
  auto v = r.file;
  v[4] = 9;  // version 9
  Status st = Status::ok;
  EXPECT_NE(error_of([&] { mdr::Retriever x(mdr::memory_source(v)); }, &st).find("version 9"), std::string::npos);
  EXPECT_EQ(st, Status::unsupported);
}

// A writer bug (or a forger) could produce a header whose checksum matches: every field is
// still checked against the others and the dims.
TEST(MdrFormat, ConsistentChecksumDoesNotExcuseBadFields) {
  const Refactored r = sample();
  const mdr::Header h = mdr::read_header({r.file.data(), r.header}, r.file.size());
  auto refused = [&](auto mutate, const std::string& expect) {
    auto f = r.file;
    mutate(f);
    reseal(f, r.header);
    const std::string msg = error_of([&] { mdr::Retriever x(mdr::memory_source(f)); });
    EXPECT_FALSE(msg.empty()) << "accepted; expected '" << expect << "'";
    EXPECT_NE(msg.find(expect), std::string::npos) << "expected '" << expect << "', got '" << msg << "'";
  };
  const size_t dims_at = 16, levels_at = 14;
  refused([&](auto& f) { f[dims_at] = 31; }, "coefficients, the dims imply");  // dims 31x100
  refused([&](auto& f) { f[levels_at] += 1; }, "levels, the dims imply");
  refused([&](auto& f) { f[12] = 3; }, "dtype 3");
  // The first level record follows dims (2 x 8), min, max, max abs and the special count:
  // u64 count, i16 exponent, u8 top, u8 planes per group, f32 errors.
  const size_t level0 = 16 + 2 * 8 + 4 * 8;
  refused([&](auto& f) { f[level0 + 10] = 40; }, "top digit 40");
  refused([&](auto& f) { f[level0 + 11] = 0; }, "planes per group");
  refused(
      [&](auto& f) {
        const float nan = std::nanf("");
        std::memcpy(f.data() + level0 + 12, &nan, 4);
      },
      "error nan");
  // Swap two index entries of one level: its groups are then out of order.
  size_t index_at = r.header - 8;
  std::vector<size_t> entry_at(h.segments.size());
  for (size_t k = h.segments.size(); k-- > 0;) index_at -= entry_bytes(h.segments[k]), entry_at[k] = index_at;
  // An entry moved to a level with a group fewer: that level is then listed once too often
  // (groups follow from the order, so they cannot be out of order).
  const size_t a = 1;  // entry 0 holds the exact values
  int small = -1;
  for (size_t l = 0; l < h.levels.size(); ++l)
    if (static_cast<int>(l) != h.segments[a].level && h.levels[l].groups() > 0) small = static_cast<int>(l);
  ASSERT_GE(small, 0);
  refused([&](auto& f) { f[entry_at[a]] = static_cast<uint8_t>(small); }, "groups");
  refused([&](auto& f) { std::swap(f[entry_at[0]], f[entry_at[1]]); }, "must come first");
  // A length one off: one byte short, the segments no longer end the file; one long, the last
  // one runs past it.
  refused([&](auto& f) { f[entry_at[1] + 1] ^= 0x01; },
          h.segments[1].length % 2 ? "segments end at byte" : "run past the end");
}

TEST(MdrFormat, DamagedSegmentIsRefusedOnlyWhenNeededAndChangesNothing) {
  const Refactored r = sample();
  const mdr::Header h = mdr::read_header({r.file.data(), r.header}, r.file.size());
  std::vector<float> good(r.x.size()), y(r.x.size());
  mdr::Retriever ref(mdr::memory_source(r.file));
  const auto loose = ref.retrieve({EbMode::rel, 1e-2}, good.data(), good.size() * 4);
  // Damage the first segment the loose retrieval did not read.
  const size_t k = loose.segments;
  ASSERT_LT(k, h.segments.size());
  auto f = r.file;
  f[h.segments[k].offset + h.segments[k].length / 2] ^= 1;
  mdr::Retriever x(mdr::memory_source(f));
  const auto again = x.retrieve({EbMode::rel, 1e-2}, y.data(), y.size() * 4);
  EXPECT_EQ(again.segments, loose.segments);
  EXPECT_EQ(std::memcmp(good.data(), y.data(), y.size() * 4), 0);
  Status st = Status::ok;
  const std::string msg = error_of([&] { x.retrieve({EbMode::rel, 1e-6}, y.data(), y.size() * 4); }, &st);
  EXPECT_EQ(st, Status::corrupt_stream);
  EXPECT_NE(msg.find("segment " + std::to_string(k) + " (" + mdr::segment_name(h.segments[k]) + ")"), std::string::npos)
      << msg;
  // The failed refinement left what was held as it was.
  const auto after = x.retrieve({EbMode::rel, 1e-2}, y.data(), y.size() * 4);
  EXPECT_EQ(after.segments, loose.segments);
  EXPECT_EQ(std::memcmp(good.data(), y.data(), y.size() * 4), 0);
  // Damage in the exact values (segment 0) stops every retrieval.
  auto e = r.file;
  e[h.segments[0].offset + 3] ^= 4;
  mdr::Retriever z(mdr::memory_source(e));
  EXPECT_NE(error_of([&] { z.retrieve({EbMode::rel, 1e-1}, y.data(), y.size() * 4); }).find("exact values"),
            std::string::npos);
}

TEST(MdrFormat, DamagedOrForeignStatesAreRefused) {
  const Refactored r = sample();
  std::vector<float> y(r.x.size());
  mdr::Retriever a(mdr::memory_source(r.file));
  a.retrieve({EbMode::rel, 1e-3}, y.data(), y.size() * 4);
  const std::vector<uint8_t> state = a.state();
  for (size_t at = 0; at < state.size(); at += std::max<size_t>(1, state.size() / 300)) {
    auto s = state;
    s[at] ^= 0x20;
    ASSERT_FALSE(error_of([&] { mdr::Retriever b(mdr::memory_source(r.file), s); }).empty()) << "flip at " << at;
  }
  for (size_t cut : {size_t(0), size_t(10), size_t(40), state.size() - 1}) {
    const std::vector<uint8_t> s(state.begin(), state.begin() + cut);
    ASSERT_FALSE(error_of([&] { mdr::Retriever b(mdr::memory_source(r.file), s); }).empty()) << "cut at " << cut;
  }
  auto other_x = r.x;
  other_x[100] += 1;  // a finite value: another file
  const auto other = test::refactor_vec(other_x, {30, 100});
  Status st = Status::ok;
  EXPECT_NE(error_of([&] { mdr::Retriever b(mdr::memory_source(other), state); }, &st).find("another file"),
            std::string::npos);
  EXPECT_EQ(st, Status::invalid_argument);
}
