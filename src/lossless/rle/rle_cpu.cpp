#include <sciz/error.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "core/bit_count.hpp"
#include "core/omp_threads.hpp"
#include "core/container.hpp"
#include "core/host_memory.hpp"
#include "lossless/codes/masks_cpu.hpp"
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

// Output position of the first run of each chunk of runs, and the total in the last entry.
std::vector<uint64_t> chunk_offsets(std::span<const uint16_t> len_m1, uint64_t chunks) {
  const uint64_t runs = len_m1.size();
  std::vector<uint64_t> first(chunks + 1, 0);
  const int nt = thread_count(chunks, runs * 2);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
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

namespace {

// Run-start mask of positions [p0, p0 + nb) of the tile starting at lo (p0 - lo a multiple of
// 64): bit j is set when p0 + j == lo or sym[p0 + j] != sym[p0 + j - 1]: runs
// never cross a multiple of kMaxRun (rle.hpp).
inline uint64_t start_mask(const uint16_t* sym, uint64_t lo, uint64_t p0, uint32_t nb) {
  if (nb == 64 && p0 > lo) return ~codes::same_mask64(sym + p0);
  uint64_t m = 0;
  for (uint32_t j = 0; j < nb; ++j) m |= static_cast<uint64_t>(p0 + j == lo || sym[p0 + j] != sym[p0 + j - 1]) << j;
  return m;
}

}  // namespace

// Chunks of whole kMaxRun tiles, so that no run crosses a chunk boundary; a count pass
// (popcounts of run-start masks), then a fill pass visiting only the run starts.
Runs runs_cpu(std::span<const uint16_t> sym) {
  const uint64_t n = sym.size(), tiles = (n + kMaxRun - 1) / kMaxRun;
  const uint64_t chunks = std::clamp<uint64_t>(tiles, 1, kMaxChunks);
  auto lo = [&](uint64_t c) { return std::min(n, chunk_begin(tiles, chunks, c) * kMaxRun); };
  std::vector<uint64_t> first(chunks + 1, 0);
  const int nt = thread_count(chunks, n * 2);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t c = 0; c < static_cast<int64_t>(chunks); ++c) {
    uint64_t count = 0;
    for (uint64_t t0 = lo(c); t0 < lo(c + 1); t0 += kMaxRun) {
      const uint64_t t1 = std::min(n, t0 + kMaxRun);
      for (uint64_t p0 = t0; p0 < t1; p0 += 64)
        count += static_cast<uint64_t>(set_bits(start_mask(sym.data(), t0, p0, static_cast<uint32_t>(std::min<uint64_t>(64, t1 - p0)))));
    }
    first[c + 1] = count;
  }
  for (uint64_t c = 0; c < chunks; ++c) first[c + 1] += first[c];
  Runs r;
  reserve_large(r.value, first[chunks]);
  reserve_large(r.len_m1, first[chunks]);
  r.value.resize(first[chunks]);
  r.len_m1.resize(first[chunks]);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t c = 0; c < static_cast<int64_t>(chunks); ++c) {
    uint16_t* value = r.value.data();
    uint16_t* len_m1 = r.len_m1.data();
    uint64_t o = first[c];
    for (uint64_t t0 = lo(c); t0 < lo(c + 1); t0 += kMaxRun) {
      const uint64_t t1 = std::min(n, t0 + kMaxRun);
      uint64_t last = t0;
      for (uint64_t p0 = t0; p0 < t1; p0 += 64) {
        uint64_t m = start_mask(sym.data(), t0, p0, static_cast<uint32_t>(std::min<uint64_t>(64, t1 - p0)));
        while (m) {
          const uint64_t i = p0 + static_cast<uint64_t>(std::countr_zero(m));
          if (i > t0) len_m1[o - 1] = static_cast<uint16_t>(i - last - 1);
          value[o++] = sym[i];
          last = i;
          m &= m - 1;
        }
      }
      len_m1[o - 1] = static_cast<uint16_t>(t1 - last - 1);
    }
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
  const int nt = thread_count(chunks, n * 2);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
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
  reserve_large(out, kHeaderBytes + 4 * runs);
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
