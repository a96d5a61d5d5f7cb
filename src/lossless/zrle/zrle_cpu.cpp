// CPU twin of zero-run coding: tiles in parallel, a count pass then a fill pass.
#include <sciz/error.hpp>

#include <algorithm>
#include <bit>
#include <string>

#include "core/bit_count.hpp"
#include "core/omp_threads.hpp"
#include "core/host_memory.hpp"
#include "lossless/codes/masks_cpu.hpp"
#include "lossless/zrle/zrle.hpp"

namespace sciz::zrle {

namespace {

// Token mask of positions [p0, p0 + nb) of the tile ending at hi (p0 is a multiple of 64 past
// the tile start): codes other than the centre, plus the forced token at position % kTile ==
// kTile - 1 (the last position of a full tile).
inline uint64_t token_mask(const uint16_t* sym, uint64_t p0, uint32_t nb, uint16_t centre) {
  uint64_t tok = nb == 64 ? ~codes::eq_mask64(sym + p0, centre) : ~codes::eq_mask(sym + p0, centre, nb) & codes::low_bits(nb);
  if ((p0 + nb) % kTile == 0) tok |= uint64_t{1} << (nb - 1);
  return tok;
}

}  // namespace

// Tiles in parallel, a count pass (popcounts of token masks) then a fill pass that visits only
// the token positions: the same tokens as is_token() picks, in order.
Tokens tokens_cpu(std::span<const uint16_t> sym, uint16_t centre) {
  const uint64_t n = sym.size(), tiles = (n + kTile - 1) / kTile;
  std::vector<uint64_t> first(tiles + 1, 0);
  const int nt = thread_count(tiles, n * 2);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t t = 0; t < static_cast<int64_t>(tiles); ++t) {
    const uint64_t lo = static_cast<uint64_t>(t) * kTile, hi = std::min(n, lo + kTile);
    uint64_t c = 0;
    for (uint64_t p0 = lo; p0 < hi; p0 += 64)
      c += static_cast<uint64_t>(set_bits(token_mask(sym.data(), p0, static_cast<uint32_t>(std::min<uint64_t>(64, hi - p0)), centre)));
    first[t + 1] = c;
  }
  for (uint64_t t = 0; t < tiles; ++t) first[t + 1] += first[t];
  Tokens tk;
  reserve_large(tk.value, first[tiles]);
  reserve_large(tk.zrun, first[tiles]);
  tk.value.resize(first[tiles]);
  tk.zrun.resize(first[tiles]);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t t = 0; t < static_cast<int64_t>(tiles); ++t) {
    const uint64_t lo = static_cast<uint64_t>(t) * kTile, hi = std::min(n, lo + kTile);
    uint16_t* value = tk.value.data() + first[t];
    uint16_t* zrun = tk.zrun.data() + first[t];
    uint64_t k = 0, prev = lo;  // prev: first position after the previous token
    for (uint64_t p0 = lo; p0 < hi; p0 += 64) {
      uint64_t tok = token_mask(sym.data(), p0, static_cast<uint32_t>(std::min<uint64_t>(64, hi - p0)), centre);
      while (tok) {
        const uint64_t i = p0 + static_cast<uint64_t>(std::countr_zero(tok));
        value[k] = sym[i];
        zrun[k++] = static_cast<uint16_t>(i - prev);
        prev = i + 1;
        tok &= tok - 1;
      }
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
  // Every position not holding a token is the centre: fill all, then place the tokens (the
  // total above keeps every store inside out).
  std::fill(out.begin(), out.end(), centre);
  uint16_t* o = out.data();
  const uint16_t* v = value.data();
  const uint16_t* z = zrun.data();
  uint64_t i = 0;
  for (size_t k = 0; k < value.size(); ++k) {
    i += z[k];
    o[i++] = v[k];
  }
}

}  // namespace sciz::zrle
