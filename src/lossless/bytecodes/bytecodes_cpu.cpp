#include "lossless/bytecodes/bytecodes.hpp"

#include <sciz/error.hpp>
#include <sciz/types.hpp>

#include <memory>
#include <string>

#include "core/byteio.hpp"
#include "lossless/codes/codes.hpp"
#include "lossless/huffman/huffman.hpp"

namespace sciz::bytecodes {

Lossless section_stage(std::span<const uint8_t> sec) {
  ByteReader r(sec.data(), sec.size(), "interp codes section");
  const uint8_t stage = r.get<uint8_t>("lossless stage");
  const uint8_t* pad = r.take(kHeader - 1, "padding");
  bool zero = true;
  for (size_t i = 0; i + 1 < kHeader; ++i) zero = zero && pad[i] == 0;
  SCIZ_REQUIRE(stage >= static_cast<uint8_t>(Lossless::bitpack) && stage <= static_cast<uint8_t>(Lossless::zrle_huffman) &&
                   zero,
               Status::corrupt_stream, "interp codes section: unknown lossless stage " + std::to_string(stage));
  return static_cast<Lossless>(stage);
}

std::vector<uint8_t> with_header(Lossless stage, const std::vector<uint8_t>& blob) {
  std::vector<uint8_t> out(kHeader, 0);
  out[0] = static_cast<uint8_t>(stage);
  out.insert(out.end(), blob.begin(), blob.end());
  return out;
}

std::vector<uint8_t> encode_cpu(std::span<const uint8_t> codes) {
  std::unique_ptr<uint16_t[]> wide(new uint16_t[codes.size()]);
  for (size_t i = 0; i < codes.size(); ++i) wide[i] = codes[i];
  // bitpack is format 1's stage: kept out of the choice (it never wins on these codes).
  codes::Encoded e = codes::encode_cpu(std::span<const uint16_t>(wide.get(), codes.size()), 256, kCentre,
                                       Lossless::auto_select);
  return with_header(e.stage, e.bytes);
}

uint64_t encoded_bytes(std::span<const uint8_t> codes) { return encode_cpu(codes).size(); }

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
template uint64_t estimate_stage_bytes<uint16_t>(std::span<const uint16_t>, uint32_t, uint16_t);

uint64_t estimated_bytes(std::span<const uint8_t> codes) {
  return kHeader + estimate_stage_bytes<uint8_t>(codes, 256, kCentre);
}

void decode_cpu(std::span<const uint8_t> sec, std::span<uint8_t> out) {
  const Lossless stage = section_stage(sec);
  std::unique_ptr<uint16_t[]> wide(new uint16_t[out.size()]);
  codes::decode_cpu(stage, sec.subspan(kHeader), std::span<uint16_t>(wide.get(), out.size()));
  uint16_t worst = 0;
  for (size_t i = 0; i < out.size(); ++i) worst = wide[i] > worst ? wide[i] : worst;
  SCIZ_REQUIRE(worst < 256, Status::corrupt_stream,
               "interp codes section: code " + std::to_string(worst) + " does not fit a byte");
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(wide[i]);
}

const char* stage_name(std::span<const uint8_t> sec) {
  if (sec.size() < kHeader || sec[0] < 1 || sec[0] > 5) return "unknown";
  return lossless_name(static_cast<Lossless>(sec[0]));
}

}  // namespace sciz::bytecodes
