#include <sciz/error.hpp>

#include <cstring>

#include "core/omp_threads.hpp"
#include "lossless/bitpack/bitpack.hpp"
#include "lossless/bitpack/bitpack_math.hpp"

namespace sciz::bitpack {

uint64_t max_encoded_bytes(uint64_t n) { return words_offset(n) + num_blocks(n) * kMaxWidth * 4; }

namespace {
// Zigzagged offsets of block b (the last block padded with zeros) and their bit width.
uint32_t block_zigzag(std::span<const uint16_t> sym, uint16_t centre, uint64_t b, uint32_t (&z)[kBlock]) {
  const uint64_t n = sym.size();
  uint32_t acc = 0;
  for (uint32_t i = 0; i < kBlock; ++i) {
    const uint64_t k = b * kBlock + i;
    z[i] = k < n ? zigzag(sym[k], centre) : 0;
    acc |= z[i];
  }
  return bit_width(acc);
}

// Word offset of every block: an exclusive prefix of the widths (serial: one add per block).
std::vector<uint64_t> word_offsets(const uint8_t* widths, uint64_t nb) {
  std::vector<uint64_t> off(nb + 1);
  for (uint64_t b = 0; b < nb; ++b) off[b + 1] = off[b] + widths[b];
  return off;
}
}  // namespace

std::vector<uint8_t> encode_cpu(std::span<const uint16_t> sym, uint16_t centre) {
  const uint64_t n = sym.size(), nb = num_blocks(n), wo = words_offset(n);
  std::vector<uint8_t> head(wo);
  std::memcpy(head.data(), &n, 8);
  std::memcpy(head.data() + 8, &centre, 2);
  uint8_t* widths = head.data() + kHeaderBytes;
  const int nt = thread_count(nb, n * 2);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t b = 0; b < static_cast<int64_t>(nb); ++b) {
    uint32_t z[kBlock];
    widths[b] = static_cast<uint8_t>(block_zigzag(sym, centre, static_cast<uint64_t>(b), z));
  }
  const std::vector<uint64_t> off = word_offsets(widths, nb);
  std::vector<uint8_t> out(wo + off[nb] * 4);
  std::memcpy(out.data(), head.data(), wo);
  uint8_t* words = out.data() + wo;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t b = 0; b < static_cast<int64_t>(nb); ++b) {
    uint32_t z[kBlock];
    const uint32_t w = block_zigzag(sym, centre, static_cast<uint64_t>(b), z);
    for (uint32_t plane = 0; plane < w; ++plane) {
      uint32_t word = 0;
      for (uint32_t i = 0; i < kBlock; ++i) word |= ((z[i] >> plane) & 1u) << i;
      std::memcpy(words + (off[b] + plane) * 4, &word, 4);
    }
  }
  return out;
}

void require_context(uint32_t alphabet, uint16_t centre) {
  SCIZ_REQUIRE(context_fits(alphabet, centre), Status::invalid_argument,
               "bitpack: an alphabet of " + std::to_string(alphabet) + " codes around centre " + std::to_string(centre) +
                   " does not fit 16 bits (codes at most 32768 below and 32767 above)");
}

Parsed parse(std::span<const uint8_t> enc, uint64_t expected_n) {
  SCIZ_REQUIRE(enc.size() >= kHeaderBytes, Status::corrupt_stream,
          "bitpack: section of " + std::to_string(enc.size()) + " bytes is shorter than its header");
  Parsed p{};
  std::memcpy(&p.n, enc.data(), 8);
  std::memcpy(&p.centre, enc.data() + 8, 2);
  SCIZ_REQUIRE(p.n == expected_n, Status::corrupt_stream,
          "bitpack: holds " + std::to_string(p.n) + " symbols, expected " + std::to_string(expected_n));
  const uint64_t nb = num_blocks(p.n), wo = words_offset(p.n);
  SCIZ_REQUIRE(wo <= enc.size(), Status::corrupt_stream, "bitpack: truncated block-width table");
  p.widths = enc.data() + kHeaderBytes;
  uint64_t total = 0;
  for (uint64_t b = 0; b < nb; ++b) {
    SCIZ_REQUIRE(p.widths[b] <= kMaxWidth, Status::corrupt_stream,
            "bitpack: block " + std::to_string(b) + " has width " + std::to_string(p.widths[b]) + " > 16");
    total += p.widths[b];
  }
  SCIZ_REQUIRE(enc.size() - wo == total * 4, Status::corrupt_stream,
          "bitpack: widths call for " + std::to_string(total * 4) + " payload bytes, section has " +
              std::to_string(enc.size() - wo));
  p.words = reinterpret_cast<const uint32_t*>(enc.data() + wo);
  p.total_words = total;
  return p;
}

void decode_cpu(std::span<const uint8_t> enc, std::span<uint16_t> out) {
  const Parsed p = parse(enc, out.size());
  const uint8_t* words = enc.data() + words_offset(p.n);
  const uint64_t nb = num_blocks(p.n);
  const std::vector<uint64_t> off = word_offsets(p.widths, nb);
  const int nt = thread_count(nb, p.n * 2);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t bb = 0; bb < static_cast<int64_t>(nb); ++bb) {
    const uint64_t b = static_cast<uint64_t>(bb);
    const uint32_t w = p.widths[b];
    uint32_t z[kBlock] = {};
    for (uint32_t plane = 0; plane < w; ++plane) {
      uint32_t word;
      std::memcpy(&word, words + (off[b] + plane) * 4, 4);
      for (uint32_t i = 0; i < kBlock; ++i) z[i] |= ((word >> i) & 1u) << plane;
    }
    for (uint32_t i = 0; i < kBlock; ++i) {
      const uint64_t k = b * kBlock + i;
      if (k < p.n) out[k] = unzigzag(z[i], p.centre);
    }
  }
}

}  // namespace sciz::bitpack
