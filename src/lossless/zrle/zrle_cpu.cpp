// CPU twin of zero-run coding: tiles in parallel, a count pass then a fill pass.
#include <sciz/error.hpp>

#include <algorithm>
#include <string>

#include "lossless/zrle/zrle.hpp"

namespace sciz::zrle {

Tokens tokens_cpu(std::span<const uint16_t> sym, uint16_t centre) {
  const uint64_t n = sym.size(), tiles = (n + kTile - 1) / kTile;
  std::vector<uint64_t> first(tiles + 1, 0);
#pragma omp parallel for schedule(static) if (tiles > 2)
  for (int64_t t = 0; t < static_cast<int64_t>(tiles); ++t) {
    const uint64_t lo = static_cast<uint64_t>(t) * kTile, hi = std::min(n, lo + kTile);
    uint64_t c = 0;
    for (uint64_t i = lo; i < hi; ++i) c += is_token(i, sym[i], centre);
    first[t + 1] = c;
  }
  for (uint64_t t = 0; t < tiles; ++t) first[t + 1] += first[t];
  Tokens tk;
  tk.value.resize(first[tiles]);
  tk.zrun.resize(first[tiles]);
#pragma omp parallel for schedule(static) if (tiles > 2)
  for (int64_t t = 0; t < static_cast<int64_t>(tiles); ++t) {
    const uint64_t lo = static_cast<uint64_t>(t) * kTile, hi = std::min(n, lo + kTile);
    // Branch-free: every position writes a candidate token at k and only a token advances k
    // (tokens are unpredictable in noisy data); `k < end` keeps the spare write off the next
    // tile's slots.
    uint64_t k = first[t], prev = lo;  // prev: first position after the previous token
    const uint64_t end = first[t + 1];
    for (uint64_t i = lo; i < hi; ++i) {
      const bool tok = is_token(i, sym[i], centre);
      if (k < end) {
        tk.value[k] = sym[i];
        tk.zrun[k] = static_cast<uint16_t>(i - prev);
      }
      k += tok;
      prev = tok ? i + 1 : prev;
    }
    if (t + 1 == static_cast<int64_t>(tiles)) tk.tail = static_cast<uint32_t>(hi - prev);
  }
  return tk;
}

void expand_cpu(std::span<const uint16_t> value, std::span<const uint16_t> zrun, uint32_t tail, uint16_t centre,
                std::span<uint16_t> out) {
  SCIZ_REQUIRE(value.size() == zrun.size(), Status::corrupt_stream, "zero runs: value and run counts differ");
  uint64_t total = tail;
  for (uint16_t z : zrun) total += uint64_t{z} + 1;
  SCIZ_REQUIRE(total == out.size(), Status::corrupt_stream,
               "zero runs: tokens cover " + std::to_string(total) + " codes, expected " + std::to_string(out.size()));
  uint64_t i = 0;
  for (size_t k = 0; k < value.size(); ++k) {
    std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(i), zrun[k], centre);
    i += zrun[k];
    out[i++] = value[k];
  }
  std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(i), tail, centre);
}

}  // namespace sciz::zrle
