// The significance split (coding 2): it decodes to exactly the group's digits, for any level
// size and any group of any level, with the digits above the group as the decoder holds them;
// damaged splits are refused by name; a version 1 file may not use it.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "core/checksum.hpp"
#include "refactor/bitplanes/bitplanes.hpp"
#include "refactor/mdr/format.hpp"
#include "refactor/mdr/split.hpp"
#include "refactor/mdr_support.hpp"

using namespace sciz;
using namespace sciz::mdr;

namespace {

// Digits of n Laplacian-like coefficients, as quantize_cpu makes them.
template <class W>
bitplanes::Level<W> level_of(uint64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::exponential_distribution<double> mag(1.0);
  std::bernoulli_distribution sign(0.5);
  std::vector<double> c(n);
  for (auto& v : c) v = (sign(rng) ? -1 : 1) * mag(rng) * mag(rng);
  using D = bitplanes::Digits<std::conditional_t<sizeof(W) == 4, float, double>>;
  return bitplanes::quantize_cpu<W>(c.data(), n, D::scale, D::count);
}

// The digits above `high` only: what a decoder holds before the group.
template <class W>
std::vector<W> known_above(const std::vector<W>& nb, int high) {
  std::vector<W> k(nb);
  for (W& v : k) v = high + 1 >= static_cast<int>(8 * sizeof(W)) ? 0 : (v >> (high + 1)) << (high + 1);
  return k;
}

// The digits down to `low`: what a decoder holds after the group ending at digit `low`.
template <class W>
std::vector<W> known_down_to(const std::vector<W>& nb, int low) {
  std::vector<W> k(nb);
  for (W& v : k) v = (v >> low) << low;
  return k;
}

template <class W>
void round_trips() {
  for (uint64_t n : {uint64_t(1), uint64_t(3), uint64_t(31), uint64_t(33), uint64_t(1023), uint64_t(1025), uint64_t(5000),
                     uint64_t(70001)}) {  // the last: three blocks of the parallel walk
    const auto q = level_of<W>(n, static_cast<uint32_t>(n));
    for (int g : {1, 3, 7}) {
      for (int first = 0; first < q.top; first += g) {
        const int high = q.top - 1 - first, count = std::min(g, q.top - first);
        const auto seg = encode_split<W>(q.nb.data(), n, high, count, {});
        ASSERT_EQ(seg.at(0), static_cast<uint8_t>(Coding::split));
        auto held = known_above(q.nb, high);
        decode_split<W>(seg, held.data(), n, high, count, "test");
        EXPECT_EQ(held, known_down_to(q.nb, high - count + 1)) << "n " << n << " group of " << count << " from plane " << first;
      }
    }
  }
}

}  // namespace

TEST(MdrSplit, DecodesToTheGroupsDigitsF32) { round_trips<uint32_t>(); }
TEST(MdrSplit, DecodesToTheGroupsDigitsF64) { round_trips<uint64_t>(); }

// The walk's two builds of its bit operations (a table deposit anywhere, PDEP and POPCNT where
// the CPU has them fast) give the same planes and the same significance.
TEST(MdrSplit, PortableAndBmi2WalksAgree) {
  for (uint64_t n : {uint64_t(1), uint64_t(33), uint64_t(1025), uint64_t(70001)}) {
    const auto q = level_of<uint32_t>(n, static_cast<uint32_t>(n) + 5);
    for (int first = 0; first < q.top; first += 3) {
      const int high = q.top - 1 - first, count = std::min(3, q.top - first);
      const auto seg = encode_split<uint32_t>(q.nb.data(), n, high, count, {});
      const SplitStreams st = read_split(seg, n, count, "test");
      const auto held = known_above(q.nb, high);
      const uint64_t pw = bitplanes::plane_words(n);
      std::vector<uint32_t> sig_a(pw), sig_b(pw), out_a(pw * count), out_b(pw * count);
      bitplanes::significance_cpu(held.data(), n, high, sig_a.data());
      sig_b = sig_a;
      walk_split(st, n, count, sig_a.data(), out_a.data(), "test", true);
      walk_split(st, n, count, sig_b.data(), out_b.data(), "test", false);
      EXPECT_EQ(out_a, out_b) << "n " << n << " from plane " << first;
      EXPECT_EQ(sig_a, sig_b) << "n " << n << " from plane " << first;
    }
  }
}

namespace {

// The split's streams as its definition reads (docs/MDR.md section 3), one digit at a time:
// the reference the word-wise builder must match bit for bit.
template <class W>
SplitBits reference_streams(const std::vector<W>& nb, int high, int planes) {
  struct Bits {
    std::vector<uint8_t> b;
    uint64_t n = 0;
    void put(unsigned v) {
      if (n % 8 == 0) b.push_back(0);
      b.back() |= static_cast<uint8_t>(v << (n % 8));
      ++n;
    }
  } ins, sig;
  std::vector<uint8_t> on(nb.size());
  for (size_t i = 0; i < nb.size(); ++i) on[i] = high + 1 < static_cast<int>(8 * sizeof(W)) && (nb[i] >> (high + 1)) != 0;
  for (int p = 0; p < planes; ++p)
    for (size_t i = 0; i < nb.size(); ++i) {
      const unsigned d = static_cast<unsigned>((nb[i] >> (high - p)) & 1u);
      (on[i] ? sig : ins).put(d);
      on[i] |= static_cast<uint8_t>(d);
    }
  SplitBits s;
  s.ins_bits = ins.n;
  s.ins = ins.b;
  s.sig = sig.b;
  s.ins.resize((ins.n + 31) / 32 * 4, 0);
  s.sig.resize((sig.n + 31) / 32 * 4, 0);
  return s;
}

// The word-wise streams, from the register-block planes as the refactoring builds them.
template <class W>
void streams_match(const std::vector<W>& nb, int top, const std::string& what) {
  const uint64_t n = nb.size(), pw = bitplanes::plane_words(n);
  const std::vector<uint32_t> planes = bitplanes::encode_planes_cpu<W>(nb.data(), n, top);
  const std::vector<uint8_t> widths = digit_widths(nb.data(), n);
  for (int g : {1, 2, 4, 7}) {
    for (int first = 0; first < top; first += g) {
      const int high = top - 1 - first, count = std::min(g, top - first);
      std::vector<uint32_t> co(pw * count);
      bitplanes::coefficient_order_cpu(planes.data() + first * pw, n, count, co.data());
      const SplitBits want = reference_streams(nb, high, count);
      for (bool portable : {false, true}) {
        const SplitBits got = split_streams(widths.data(), co.data(), n, high, count, portable);
        ASSERT_EQ(got.ins_bits, want.ins_bits) << what << " n " << n << " g " << g << " from " << first << " portable " << portable;
        ASSERT_EQ(got.ins, want.ins) << what << " n " << n << " g " << g << " from " << first << " portable " << portable;
        ASSERT_EQ(got.sig, want.sig) << what << " n " << n << " g " << g << " from " << first << " portable " << portable;
        // The same streams cut into pieces (32 words: a piece per 1024 coefficients), ordered
        // and split as tasks on a team of three, joined again.
        for (uint64_t piece : {uint64_t(32), uint64_t(96), kSplitPieceWords}) {
          SplitBits cut;
#pragma omp parallel num_threads(3)
#pragma omp single
          cut = split_planes(widths.data(), planes.data() + first * pw, n, high, count, piece, portable);
          const std::string at = what + " n " + std::to_string(n) + " g " + std::to_string(g) + " from " +
                                 std::to_string(first) + " pieces of " + std::to_string(piece) + " words";
          ASSERT_EQ(cut.ins_bits, want.ins_bits) << at;
          ASSERT_EQ(cut.ins, want.ins) << at;
          ASSERT_EQ(cut.sig, want.sig) << at;
        }
      }
    }
  }
}

template <class W>
void word_wise_streams() {
  constexpr int digits = 8 * sizeof(W) == 32 ? 32 : 52;
  for (uint64_t n : {uint64_t(1), uint64_t(31), uint64_t(32), uint64_t(33), uint64_t(1000), uint64_t(1024),
                     uint64_t(1057), uint64_t(40000)}) {
    const auto q = level_of<W>(n, static_cast<uint32_t>(n) + 11);
    streams_match(q.nb, q.top, "laplacian");
    // Adversarial: every digit set, none set, one coefficient with the top digit, alternating
    // words of all and nothing, and random digits of random widths.
    std::mt19937_64 rng(n);
    std::vector<W> full(n, W((uint64_t(1) << digits) - 1)), zero(n, 0), lone(n, 0), stripes(n), mixed(n);
    lone[n / 2] = W(1) << (digits - 1);
    for (uint64_t i = 0; i < n; ++i) {
      stripes[i] = (i / 32) % 2 ? full[i] : W(0);
      mixed[i] = static_cast<W>(rng() >> (64 - digits + rng() % digits));
    }
    streams_match(full, digits, "full");
    streams_match(zero, 3, "zero");
    streams_match(lone, digits, "lone");
    streams_match(stripes, digits, "stripes");
    streams_match(mixed, digits, "mixed");
  }
}

}  // namespace

// The word-wise split (PEXT or its table a word of 32 coefficients) writes exactly the streams
// of a digit-at-a-time walk, so the files it writes are the same bytes.
TEST(MdrSplit, WordWiseStreamsEqualTheDigitWalkF32) { word_wise_streams<uint32_t>(); }
TEST(MdrSplit, WordWiseStreamsEqualTheDigitWalkF64) { word_wise_streams<uint64_t>(); }

TEST(MdrSplit, DamagedSplitsAreRefusedByName) {
  const uint64_t n = 20000;
  const auto q = level_of<uint32_t>(n, 9);
  const int high = q.top - 4, count = 2;
  const auto seg = encode_split<uint32_t>(q.nb.data(), n, high, count, {});
  const auto known = known_above(q.nb, high);
  auto refused = [&](const std::vector<uint8_t>& s, const std::vector<uint32_t>& k) {
    auto held = k;
    try {
      // Damage inside a coded stream can decode to other digits of the right count: the
      // segment checksum catches those.
      decode_split<uint32_t>(s, held.data(), n, high, count, "level 6 group 3");
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
      EXPECT_NE(std::string(e.what()).find("level 6 group 3"), std::string::npos) << e.what();
    }
  };
  for (size_t cut = 1; cut < seg.size(); cut += std::max<size_t>(1, seg.size() / 89)) {
    std::vector<uint8_t> t(seg.begin(), seg.begin() + cut);
    auto held = known;
    EXPECT_THROW(decode_split<uint32_t>(t, held.data(), n, high, count, "x"), Error) << "cut at " << cut;
  }
  for (size_t at = 1; at < seg.size(); at += std::max<size_t>(1, seg.size() / 211)) {
    auto f = seg;
    f[at] ^= 0x5a;
    refused(f, known);
  }
  // The declared split must match the digits the decoder meets: another significance (as if
  // an earlier group had been different) makes the streams run out or run over.
  std::vector<uint32_t> none(n, 0);
  EXPECT_THROW(decode_split<uint32_t>(seg, none.data(), n, high, count, "x"), Error);
}

TEST(MdrSplit, VersionOneFilesMayNotUseIt) {
  std::vector<float> x(40 * 50 * 30);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.01f * i) + 0.001f * static_cast<float>(i % 7);
  auto file = test::refactor_vec(x, {40, 50, 30});
  const uint32_t size = read_header_size({file.data(), kFixedBytes}, file.size());
  const Header h = read_header({file.data(), size}, file.size());
  bool any = false;
  for (const Segment& s : h.segments) any = any || file[s.offset + 8] == static_cast<uint8_t>(Coding::split);
  ASSERT_TRUE(any) << "no split segment to test with";
  // The same segments in a version 1 file (checksums in the index, none in the segments):
  // refused when a split segment is read, naming it.
  Header v1 = h;
  v1.version = 1;
  std::vector<uint8_t> body;
  for (Segment& s : v1.segments) {
    const std::span<const uint8_t> payload(file.data() + s.offset + 8, s.length - 8);
    s.length = payload.size();
    s.checksum = chunked_xxh64(payload.data(), payload.size(), kDigestBlockV4);
    body.insert(body.end(), payload.begin(), payload.end());
  }
  file = write_header(v1);
  file.insert(file.end(), body.begin(), body.end());
  Retriever r(memory_source(file));
  std::vector<float> y(x.size());
  try {
    r.retrieve({EbMode::rel, 1e-6}, y.data(), y.size() * 4);
    ADD_FAILURE() << "a version 1 file with split segments was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::corrupt_stream);
    EXPECT_NE(std::string(e.what()).find("coding 2 in a version 1 file"), std::string::npos) << e.what();
  }
}
