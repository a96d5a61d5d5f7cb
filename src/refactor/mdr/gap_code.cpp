#include "refactor/mdr/gap_code.hpp"

#include <sciz/error.hpp>

#include <array>
#include <cstring>

#include "core/byteio.hpp"
#include "refactor/mdr/hybrid.hpp"

namespace sciz::mdr {

namespace {

// Runs of kEscape or more parameter steps are sent as their bit width and bits: a run across
// a region with no ones costs ~kEscape + 6 + log2(run) bits instead of a unary code as long
// as the run over 2^k.
constexpr uint64_t kEscape = 20;
constexpr int kMaxK = 62;
// How many recent runs the mean follows (the window's choice is the parameter byte's top two
// bits): short windows follow clusters of ones, long ones a stream whose ones are spread
// evenly. The encoder sizes all four and keeps the smallest.
constexpr std::array<uint64_t, 4> kWindows = {4, 16, 64, 512};

// The adaptive Rice parameter: the smallest k with N 2^k >= A (A the sum of the recent runs,
// N their count), as in JPEG-LS. Halving both every `window` runs forgets the old ones.
struct RunModel {
  uint64_t a, n = 1, window;
  RunModel(int k0, uint64_t w) : a(uint64_t(1) << k0), window(w) {}
  // The smallest k <= kMaxK with n 2^k >= a, from the operands' bit widths: n 2^k is as wide
  // as a at k = width(a) - width(n), and not below it one step later.
  int k() const {
    const int wa = 64 - __builtin_clzll(a | 1), wn = 64 - __builtin_clzll(n);
    int k = wa > wn ? wa - wn : 0;
    if ((n << k) < a) ++k;
    return k < kMaxK ? k : kMaxK;
  }
  void update(uint64_t run) {
    a += run;
    if (++n >= window) a = (a + 1) >> 1, n >>= 1;
  }
};

int width(uint64_t v) { return 64 - __builtin_clzll(v); }  // v > 0

uint64_t code_bits(uint64_t run, int k) {
  const uint64_t q = run >> k;
  return q < kEscape ? q + 1 + k : kEscape + 6 + (width(run) - 1);
}

// The zero runs before each one, in stream order.
std::vector<uint64_t> runs_of(std::span<const uint8_t> raw) {
  std::vector<uint64_t> runs;
  uint64_t next = 0;  // the first bit after the last one
  for (uint64_t at = 0; at < raw.size(); at += 8) {
    uint64_t w = 0;
    std::memcpy(&w, raw.data() + at, std::min<uint64_t>(8, raw.size() - at));
    while (w) {
      const uint64_t p = at * 8 + static_cast<uint64_t>(__builtin_ctzll(w));
      runs.push_back(p - next);
      next = p + 1;
      w &= w - 1;
    }
  }
  return runs;
}

// The start parameter: the mean run, which the model then follows.
int first_k(const std::vector<uint64_t>& runs, uint64_t bits) {
  const uint64_t mean = bits / (runs.size() + 1);
  return mean ? std::min(width(mean) - 1, kMaxK) : 0;
}

struct Choice {
  int window = 0;
  uint64_t bits = ~uint64_t(0);
};
static_assert(kWindows.size() == 4);
// Every window sized in one walk over the runs (the walk, not the arithmetic, is what costs).
Choice best_window(const std::vector<uint64_t>& runs, int k0) {
  std::array<RunModel, kWindows.size()> m{RunModel(k0, kWindows[0]), RunModel(k0, kWindows[1]),
                                          RunModel(k0, kWindows[2]), RunModel(k0, kWindows[3])};
  std::array<uint64_t, kWindows.size()> bits{};
  for (uint64_t r : runs)
    for (size_t w = 0; w < kWindows.size(); ++w) {
      bits[w] += code_bits(r, m[w].k());
      m[w].update(r);
    }
  Choice c;
  for (int w = 0; w < static_cast<int>(kWindows.size()); ++w)
    if (bits[w] < c.bits) c = {w, bits[w]};
  return c;
}

struct BitSink {
  std::vector<uint8_t>& out;
  uint64_t acc = 0;
  int fill = 0;
  void put(uint64_t v, int k) {  // k <= 32
    acc |= (v & ((uint64_t(1) << k) - 1)) << fill;
    fill += k;
    while (fill >= 8) out.push_back(static_cast<uint8_t>(acc)), acc >>= 8, fill -= 8;
  }
  void put_wide(uint64_t v, int k) {  // k <= 64
    for (; k > 32; k -= 32, v >>= 32) put(v, 32);
    put(v, k);
  }
  void ones(uint64_t q) {
    for (; q >= 32; q -= 32) put(~uint64_t(0), 32);
    put(~uint64_t(0), static_cast<int>(q));
  }
  void flush() {
    if (fill) out.push_back(static_cast<uint8_t>(acc));
    acc = 0, fill = 0;
  }
};

struct BitSource {
  const uint8_t* p;
  uint64_t size_bits, at = 0;
  const std::string& what;
  [[noreturn]] void past_end() const {
    fail(Status::corrupt_stream, what + ": gap-coded stream ends inside a code (" + std::to_string(size_bits) + " bits)");
  }
  unsigned bit() {
    if (at >= size_bits) past_end();
    const unsigned b = (p[at >> 3] >> (at & 7)) & 1u;
    ++at;
    return b;
  }
  uint64_t get(int k) {  // k <= 64
    if (static_cast<uint64_t>(k) > size_bits - at) past_end();
    uint64_t v = 0;
    for (int i = 0; i < k; ++i) v |= static_cast<uint64_t>((p[(at + i) >> 3] >> ((at + i) & 7)) & 1u) << i;
    at += k;
    return v;
  }
};

}  // namespace

GapPlan plan_gaps(std::span<const uint8_t> raw) {
  GapPlan p;
  p.runs = runs_of(raw);
  p.k0 = first_k(p.runs, raw.size() * 8);
  const Choice c = best_window(p.runs, p.k0);
  p.window = c.window;
  p.bytes = 2 + varint_bytes(p.runs.size()) + (c.bits + 7) / 8;
  return p;
}

uint64_t gap_segment_bytes(std::span<const uint8_t> raw) { return plan_gaps(raw).bytes; }

std::vector<uint8_t> encode_gaps(std::span<const uint8_t> raw) { return write_gaps(plan_gaps(raw)); }

std::vector<uint8_t> write_gaps(const GapPlan& p) {
  ByteWriter w;
  w.put<uint8_t>(static_cast<uint8_t>(Coding::gaps));
  w.put<uint8_t>(static_cast<uint8_t>(p.window << 6 | p.k0));
  put_varint(w, p.runs.size());
  std::vector<uint8_t> out = std::move(w.buffer());
  out.reserve(p.bytes);
  BitSink s{out};
  RunModel m(p.k0, kWindows[p.window]);
  for (uint64_t r : p.runs) {
    const int k = m.k();
    const uint64_t q = r >> k;
    if (q < kEscape) {
      s.ones(q);
      s.put(0, 1);
      s.put_wide(r, k);
    } else {
      s.ones(kEscape);
      s.put(static_cast<uint64_t>(width(r) - 1), 6);
      s.put_wide(r, width(r) - 1);  // below the leading one
    }
    m.update(r);
  }
  s.flush();
  return out;
}

std::vector<uint8_t> decode_gaps(std::span<const uint8_t> seg, uint64_t raw_bytes, const std::string& what) {
  SCIZ_REQUIRE(!seg.empty() && seg[0] == static_cast<uint8_t>(Coding::gaps), Status::internal,
               what + ": not a gap-coded segment");
  ByteReader r(seg.data() + 1, seg.size() - 1, what + " (gap coding)");
  const uint8_t param = r.get<uint8_t>("gap parameter");
  const int k0 = param & 63;
  SCIZ_REQUIRE(k0 <= kMaxK, Status::corrupt_stream, what + ": gap start parameter " + std::to_string(k0));
  const uint64_t ones = get_varint(r, "gap count");
  const uint64_t total = raw_bytes * 8;
  SCIZ_REQUIRE(raw_bytes <= (~uint64_t(0) >> 3) && ones <= total, Status::corrupt_stream,
               what + ": " + std::to_string(ones) + " ones in " + std::to_string(raw_bytes) + " bytes");
  const uint64_t payload = r.remaining();
  BitSource src{seg.data() + 1 + r.pos(), payload * 8, 0, what};
  std::vector<uint8_t> out(raw_bytes, 0);
  RunModel m(k0, kWindows[param >> 6]);
  uint64_t next = 0;
  for (uint64_t i = 0; i < ones; ++i) {
    const int k = m.k();
    uint64_t q = 0;
    while (q < kEscape && src.bit()) ++q;
    uint64_t run;
    if (q < kEscape) {
      SCIZ_REQUIRE(k == 0 || q <= (~uint64_t(0) >> k), Status::corrupt_stream, what + ": gap code out of range");
      run = (q << k) | src.get(k);
    } else {
      const int wd = static_cast<int>(src.get(6)) + 1;
      run = (uint64_t(1) << (wd - 1)) | src.get(wd - 1);
    }
    SCIZ_REQUIRE(run < total - next, Status::corrupt_stream,
                 what + ": a zero run of " + std::to_string(run) + " from bit " + std::to_string(next) + " passes the " +
                     std::to_string(total) + "-bit stream's end");
    const uint64_t p = next + run;
    out[p >> 3] |= static_cast<uint8_t>(1u << (p & 7));
    next = p + 1;
    m.update(run);
  }
  SCIZ_REQUIRE((src.at + 7) / 8 == payload && src.get(static_cast<int>(src.size_bits - src.at)) == 0,
               Status::corrupt_stream,
               what + ": gap-coded stream of " + std::to_string(payload) + " bytes, its codes end at bit " +
                   std::to_string(src.at));
  return out;
}

}  // namespace sciz::mdr
