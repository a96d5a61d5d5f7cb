#include "lossless/bytecodes/bytecodes.hpp"

#include <sciz/error.hpp>

#include <memory>
#include <string>

#include "lossless/codes/codes.hpp"
#include "lossless/huffman/huffman.hpp"

namespace sciz::bytecodes {

Lossless checked_stage(uint8_t stage) {
  SCIZ_REQUIRE(stage >= static_cast<uint8_t>(Lossless::bitpack) && stage <= static_cast<uint8_t>(Lossless::zrle_huffman),
               Status::corrupt_stream, "interp codes: unknown lossless stage " + std::to_string(stage));
  return static_cast<Lossless>(stage);
}

Packed encode_cpu(std::span<const uint8_t> codes) {
  std::unique_ptr<uint16_t[]> wide(new uint16_t[codes.size()]);
  for (size_t i = 0; i < codes.size(); ++i) wide[i] = codes[i];
  codes::Encoded e = codes::encode_cpu(std::span<const uint16_t>(wide.get(), codes.size()), 256, kCentre,
                                       Lossless::auto_select);
  return {static_cast<uint8_t>(e.stage), std::move(e.bytes)};
}

uint64_t encoded_bytes(std::span<const uint8_t> codes) { return encode_cpu(codes).blob.size(); }

namespace {
uint64_t huffman_blob_bytes(const std::vector<uint64_t>& hist, uint64_t n) {
  if (n == 0) return huffman::blob_bytes(0, 0, 0);
  const huffman::Lengths l = huffman::code_lengths(hist);
  return huffman::blob_bytes(n, huffman::coded_bits(l, hist), huffman::codebook_bytes(l));
}
}  // namespace

template <class Sym>
uint64_t estimate_stage_bytes(std::span<const Sym> codes, uint32_t alphabet, uint16_t centre) {
  const uint64_t n = codes.size();
  std::vector<uint64_t> h(alphabet, 0), tv(alphabet, 0), zr;
  uint64_t tokens = 0, run = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const Sym c = codes[i];
    ++h[c];
    // zrle+huffman's tokens: every non-centre code, and every 65536th index (docs/FORMAT.md).
    if (c != centre || (i & 65535) == 65535) {
      ++tv[c];
      if (run >= zr.size()) zr.resize(run + 1, 0);
      ++zr[run];
      ++tokens;
      run = 0;
    } else {
      ++run;
    }
  }
  const uint64_t huff = huffman_blob_bytes(h, n);
  const uint64_t zrle = codes::kZrleHuffmanHeader + huffman_blob_bytes(tv, tokens) + huffman_blob_bytes(zr, tokens);
  return huff < zrle ? huff : zrle;
}
template uint64_t estimate_stage_bytes<uint8_t>(std::span<const uint8_t>, uint32_t, uint16_t);
template uint64_t estimate_stage_bytes<uint16_t>(std::span<const uint16_t>, uint32_t, uint16_t);

uint64_t estimated_bytes(std::span<const uint8_t> codes) { return estimate_stage_bytes<uint8_t>(codes, 256, kCentre); }

void decode_cpu(uint8_t stage, std::span<const uint8_t> blob, std::span<uint8_t> out) {
  const Lossless st = checked_stage(stage);
  std::unique_ptr<uint16_t[]> wide(new uint16_t[out.size()]);
  codes::decode_cpu(st, blob, std::span<uint16_t>(wide.get(), out.size()));
  uint16_t worst = 0;
  for (size_t i = 0; i < out.size(); ++i) worst = wide[i] > worst ? wide[i] : worst;
  SCIZ_REQUIRE(worst < 256, Status::corrupt_stream, "interp codes: code " + std::to_string(worst) + " does not fit a byte");
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(wide[i]);
}

}  // namespace sciz::bytecodes
