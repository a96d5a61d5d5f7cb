#include <sciz/error.hpp>

#include <algorithm>
#include <cstring>
#include <string>

#include "core/container.hpp"
#include "core/host_memory.hpp"
#include "lossless/rle/rle.hpp"

namespace sciz::rle {
namespace {

// Chunks for the parallel passes: enough to balance a few dozen threads, few enough that the
// per-chunk bookkeeping stays negligible. The output does not depend on the count.
constexpr uint64_t kMaxChunks = 256;
constexpr uint64_t kMinChunk = 1u << 16;

uint64_t chunk_count(uint64_t n) { return std::clamp<uint64_t>(n / kMinChunk, 1, kMaxChunks); }

// Start of chunk c of `chunks` near-equal chunks of [0, n); chunk_begin(n, chunks, chunks) = n.
uint64_t chunk_begin(uint64_t n, uint64_t chunks, uint64_t c) {
  return (n / chunks) * c + std::min(c, n % chunks);
}

// Calls emit(start, length) for every run of sym[lo, hi), where lo and hi are multiples of
// kMaxRun (or n): runs never cross such a multiple, so a chunk's runs are all its own. Returns
// the run count.
template <class Emit>
uint64_t for_each_run(std::span<const uint16_t> sym, uint64_t lo, uint64_t hi, Emit&& emit) {
  if (lo == hi) return 0;
  uint64_t start = lo, count = 1;
  for (uint64_t i = lo + 1; i < hi; ++i) {
    if (i % kMaxRun != 0 && sym[i] == sym[i - 1]) continue;
    emit(start, i - start);
    start = i;
    ++count;
  }
  emit(start, hi - start);
  return count;
}

// Output position of the first run of each chunk of runs, and the total in the last entry.
std::vector<uint64_t> chunk_offsets(std::span<const uint16_t> len_m1, uint64_t chunks) {
  const uint64_t runs = len_m1.size();
  std::vector<uint64_t> first(chunks + 1, 0);
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (int64_t c = 0; c < static_cast<int64_t>(chunks); ++c) {
    uint64_t sum = 0;
    for (uint64_t k = chunk_begin(runs, chunks, c); k < chunk_begin(runs, chunks, c + 1); ++k) sum += len_m1[k] + 1u;
    first[c + 1] = sum;
  }
  for (uint64_t c = 0; c < chunks; ++c) first[c + 1] += first[c];
  return first;
}

// Writes out[a, b), walking the runs from the start of the chunk of runs that covers a.
void fill_range(std::span<const uint16_t> value, std::span<const uint16_t> len_m1, const std::vector<uint64_t>& first,
                uint64_t a, uint64_t b, std::span<uint16_t> out) {
  if (a == b) return;
  const uint64_t chunks = first.size() - 1;
  const uint64_t c = static_cast<uint64_t>(std::upper_bound(first.begin(), first.end(), a) - first.begin()) - 1;
  uint64_t pos = first[c];
  for (uint64_t k = chunk_begin(value.size(), chunks, c); pos < b; ++k) {
    const uint64_t end = pos + len_m1[k] + 1u;
    if (end > a) std::fill(out.begin() + std::max(pos, a), out.begin() + std::min(end, b), value[k]);
    pos = end;
  }
}

[[noreturn]] void length_mismatch(uint64_t sum, uint64_t n) {
  fail(Status::corrupt_stream,
       "rle: run lengths sum to " + std::to_string(sum) + ", expected " + std::to_string(n) + " symbols");
}

}  // namespace

Runs runs_cpu(std::span<const uint16_t> sym) {
  // Chunks of whole kMaxRun tiles, so that no run crosses a chunk boundary.
  const uint64_t n = sym.size(), tiles = (n + kMaxRun - 1) / kMaxRun;
  const uint64_t chunks = std::clamp<uint64_t>(tiles, 1, kMaxChunks);
  auto lo = [&](uint64_t c) { return std::min(n, chunk_begin(tiles, chunks, c) * kMaxRun); };
  std::vector<uint64_t> first(chunks + 1, 0);
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (int64_t c = 0; c < static_cast<int64_t>(chunks); ++c)
    first[c + 1] = for_each_run(sym, lo(c), lo(c + 1), [](uint64_t, uint64_t) {});
  for (uint64_t c = 0; c < chunks; ++c) first[c + 1] += first[c];
  Runs r;
  r.value.resize(first[chunks]);
  r.len_m1.resize(first[chunks]);
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (int64_t c = 0; c < static_cast<int64_t>(chunks); ++c) {
    uint64_t o = first[c];
    for_each_run(sym, lo(c), lo(c + 1), [&](uint64_t start, uint64_t len) {
      r.value[o] = sym[start];
      r.len_m1[o++] = static_cast<uint16_t>(len - 1);
    });
  }
  return r;
}

void expand_cpu(std::span<const uint16_t> value, std::span<const uint16_t> len_m1, std::span<uint16_t> out) {
  SCIZ_REQUIRE(value.size() == len_m1.size(), Status::corrupt_stream,
               "rle: " + std::to_string(value.size()) + " run values but " + std::to_string(len_m1.size()) +
                   " run lengths");
  const std::vector<uint64_t> first = chunk_offsets(len_m1, chunk_count(len_m1.size()));
  if (first.back() != out.size()) length_mismatch(first.back(), out.size());
  const uint64_t n = out.size(), chunks = chunk_count(n);
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (int64_t c = 0; c < static_cast<int64_t>(chunks); ++c)
    fill_range(value, len_m1, first, chunk_begin(n, chunks, c), chunk_begin(n, chunks, c + 1), out);
}

uint64_t count_runs_cpu(std::span<const uint16_t> sym) {
  const int64_t n = static_cast<int64_t>(sym.size());
  if (n == 0) return 0;
  uint64_t changes = 0;
#pragma omp parallel for schedule(static) reduction(+ : changes) if (n >= (int64_t{1} << 18))
  for (int64_t i = 1; i < n; ++i) changes += sym[i] != sym[i - 1];
  return changes + 1;
}

std::vector<uint8_t> encode_cpu(std::span<const uint16_t> sym) {
  const Runs r = runs_cpu(sym);
  const uint64_t n = sym.size(), runs = r.value.size();
  std::vector<uint8_t> out;
  reserve_large(out, kHeaderBytes + 4 * runs + stream_slack(4 * runs));  // room to build the stream in place
  out.resize(kHeaderBytes + 4 * runs);
  std::memcpy(out.data(), &n, 8);
  std::memcpy(out.data() + 8, &runs, 8);
  if (runs == 0) return out;
  std::memcpy(out.data() + kHeaderBytes, r.value.data(), 2 * runs);
  std::memcpy(out.data() + kHeaderBytes + 2 * runs, r.len_m1.data(), 2 * runs);
  return out;
}

Parsed parse(std::span<const uint8_t> enc, uint64_t expected_n) {
  SCIZ_REQUIRE(enc.size() >= kHeaderBytes, Status::corrupt_stream,
               "rle: section of " + std::to_string(enc.size()) + " bytes is shorter than its header");
  Parsed p{};
  std::memcpy(&p.n, enc.data(), 8);
  std::memcpy(&p.runs, enc.data() + 8, 8);
  SCIZ_REQUIRE(p.n == expected_n, Status::corrupt_stream,
               "rle: holds " + std::to_string(p.n) + " symbols, expected " + std::to_string(expected_n));
  SCIZ_REQUIRE(p.runs <= p.n, Status::corrupt_stream,
               "rle: " + std::to_string(p.runs) + " runs cannot make " + std::to_string(p.n) + " symbols");
  // runs <= n bounds 4 * runs only by n, so compare through a division to stay overflow-safe.
  const uint64_t payload = enc.size() - kHeaderBytes;
  SCIZ_REQUIRE(payload % 4 == 0 && payload / 4 == p.runs, Status::corrupt_stream,
               "rle: " + std::to_string(p.runs) + " runs need " + std::to_string(p.runs) +
                   " x 4 payload bytes, section has " + std::to_string(payload));
  p.value = enc.data() + kHeaderBytes;
  p.len_m1 = p.value + 2 * p.runs;
  return p;
}

void decode_cpu(std::span<const uint8_t> enc, std::span<uint16_t> out) {
  const Parsed p = parse(enc, out.size());
  // Copies, since a section inside a caller's buffer need not be 2-byte aligned.
  std::vector<uint16_t> value(p.runs), len_m1(p.runs);
  if (p.runs) {
    std::memcpy(value.data(), p.value, 2 * p.runs);
    std::memcpy(len_m1.data(), p.len_m1, 2 * p.runs);
  }
  expand_cpu(value, len_m1, out);
}

}  // namespace sciz::rle
