// The quant-code stages (huffman, rle, rle+huffman, zrle+huffman, bitpack) as chain stages.
// Their blobs are exactly the blobs of src/lossless/codes (docs/FORMAT.md, lorenzo's section
// 1), which already begin with their symbol count; 1-byte codes are widened to the 16-bit
// symbols those stages code and narrowed back, each checked to fit a byte.
#include <sciz/error.hpp>

#include <cstring>
#include <string>

#include "core/byteio.hpp"
#include "lossless/codes/codes.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/registry.hpp"
#include "lossless/stages/stage_cpu.hpp"

namespace sciz::stages::cpu {
uint64_t codes_max_bytes(uint64_t n, const Context& ctx) {
  return codes::max_encoded_bytes(n / (ctx.code_width ? ctx.code_width : 1));
}

namespace {

// The stage's input as the 16-bit symbols the codes stages code, each checked against the
// alphabet.
std::vector<uint16_t> symbols_of(StageId id, In in, const Context& ctx) {
  check_codes_context(id, ctx);
  const uint32_t w = ctx.code_width;
  SCIZ_REQUIRE(in.size() % w == 0, Status::invalid_argument,
               std::string("stage ") + stage_name(id) + ": " + std::to_string(in.size()) +
                   " input bytes are not a whole number of " + std::to_string(w) + "-byte codes");
  std::vector<uint16_t> sym(in.size() / w);
  if (w == 2) {
    if (!sym.empty()) std::memcpy(sym.data(), in.data(), in.size());
  } else {
    for (size_t i = 0; i < sym.size(); ++i) sym[i] = in[i];
  }
  // A full alphabet holds every code of the width: nothing to check (the check's exit in the
  // loop keeps it from vectorizing, and the mdr coders size every plane through here).
  if (ctx.alphabet >= (w == 1 ? 256u : 65536u)) return sym;
  for (size_t i = 0; i < sym.size(); ++i)
    SCIZ_REQUIRE(sym[i] < ctx.alphabet, Status::invalid_argument,
                 std::string("stage ") + stage_name(id) + ": code " + std::to_string(sym[i]) + " at " +
                     std::to_string(i) + " is outside the alphabet of " + std::to_string(ctx.alphabet));
  return sym;
}

}  // namespace

codes::Encoded codes_encode_choice(Lossless choice, In in, const Context& ctx) {
  const StageId id = static_cast<StageId>(choice);  // "?" in messages for auto_select
  return codes::encode_cpu(symbols_of(id, in, ctx), ctx.alphabet, ctx.centre, choice);
}

uint64_t codes_bytes(StageId id, In in, const Context& ctx) {
  return codes::encoded_bytes_cpu(symbols_of(id, in, ctx), ctx.alphabet, ctx.centre, static_cast<Lossless>(id));
}

Bytes codes_encode(StageId id, In in, const Context& ctx) {
  return codes_encode_choice(static_cast<Lossless>(id), in, ctx).bytes;
}

Bytes codes_decode(StageId id, In blob, const Context& ctx, uint64_t max_out) {
  const uint32_t w = ctx.code_width;
  ByteReader rd(blob.data(), blob.size(), std::string("stage ") + stage_name(id));
  const uint64_t n = rd.get<uint64_t>("symbol count");
  check_codes_header(id, n, blob.size(), max_out, static_cast<int>(w));
  std::vector<uint16_t> sym(n);
  codes::decode_cpu(static_cast<Lossless>(id), blob, sym);
  Bytes out(n * w);
  if (w == 2) {
    if (n) std::memcpy(out.data(), sym.data(), n * 2);
    return out;
  }
  for (uint64_t i = 0; i < n; ++i) {
    SCIZ_REQUIRE(sym[i] < 256, Status::corrupt_stream,
                 std::string("stage ") + stage_name(id) + ": decoded code " + std::to_string(sym[i]) + " at " +
                     std::to_string(i) + " does not fit a 1-byte code");
    out[i] = static_cast<uint8_t>(sym[i]);
  }
  return out;
}

}  // namespace sciz::stages::cpu
