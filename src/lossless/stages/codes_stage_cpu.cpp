// The quant-code stages (huffman, rle, rle+huffman, zrle+huffman, bitpack) as chain stages.
// Their blobs are exactly the blobs of src/lossless/codes (docs/FORMAT.md, lorenzo's section
// 1), which already begin with their symbol count; 1-byte codes are widened to the 16-bit
// symbols those stages code and narrowed back, each checked to fit a byte.
#include <sciz/error.hpp>

#include <cstring>
#include <string>

#include "core/byteio.hpp"
#include "lossless/codes/codes.hpp"
#include "lossless/stages/registry.hpp"
#include "lossless/stages/stage_cpu.hpp"

namespace sciz::stages::cpu {
namespace {

void check_context(StageId id, const Context& ctx) {
  const std::string who = std::string("stage ") + stage_name(id) + ": ";
  SCIZ_REQUIRE(ctx.code_width == 1 || ctx.code_width == 2, Status::invalid_argument,
               who + "code width " + std::to_string(ctx.code_width) + " (1 or 2 bytes)");
  const uint32_t most = ctx.code_width == 1 ? 256 : 65536;
  SCIZ_REQUIRE(ctx.alphabet >= 1 && ctx.alphabet <= most, Status::invalid_argument,
               who + "alphabet of " + std::to_string(ctx.alphabet) + " codes for " +
                   std::to_string(ctx.code_width) + "-byte codes");
  SCIZ_REQUIRE(ctx.centre < ctx.alphabet, Status::invalid_argument,
               who + "centre code " + std::to_string(ctx.centre) + " outside the alphabet of " +
                   std::to_string(ctx.alphabet));
}

// The most symbols a valid blob of `bytes` bytes can hold, so that a declared count beyond it
// is refused before anything is allocated: huffman spends at least a bit a symbol, bitpack a
// width byte per 32 symbols, rle 4 bytes per run of at most 65536, and the run and token
// coders at least a bit per run or token, each covering at most 65536 symbols.
uint64_t most_symbols(StageId id, uint64_t bytes) {
  if (bytes > (uint64_t(1) << 40)) return UINT64_MAX;
  switch (id) {
    case StageId::huffman: return 8 * bytes;
    case StageId::bitpack: return 32 * bytes;
    case StageId::rle: return bytes / 4 * 65536;
    default: return (8 * bytes + 1) * 65536;
  }
}

}  // namespace

uint64_t codes_max_bytes(uint64_t n, const Context& ctx) {
  return codes::max_encoded_bytes(n / (ctx.code_width ? ctx.code_width : 1));
}

Bytes codes_encode(StageId id, In in, const Context& ctx) {
  check_context(id, ctx);
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
  for (size_t i = 0; i < sym.size(); ++i)
    SCIZ_REQUIRE(sym[i] < ctx.alphabet, Status::invalid_argument,
                 std::string("stage ") + stage_name(id) + ": code " + std::to_string(sym[i]) + " at " +
                     std::to_string(i) + " is outside the alphabet of " + std::to_string(ctx.alphabet));
  return codes::encode_cpu(sym, ctx.alphabet, ctx.centre, static_cast<Lossless>(id)).bytes;
}

Bytes codes_decode(StageId id, In blob, const Context& ctx, uint64_t max_out) {
  const uint32_t w = ctx.code_width;
  SCIZ_REQUIRE(w == 1 || w == 2, Status::invalid_argument,
               std::string("stage ") + stage_name(id) + ": code width " + std::to_string(w) + " (1 or 2 bytes)");
  ByteReader rd(blob.data(), blob.size(), std::string("stage ") + stage_name(id));
  const uint64_t n = rd.get<uint64_t>("symbol count");
  SCIZ_REQUIRE(n <= max_out / w, Status::corrupt_stream,
               std::string("stage ") + stage_name(id) + ": declares " + std::to_string(n) + " codes of " +
                   std::to_string(w) + " bytes, more than the " + std::to_string(max_out) + " bytes expected");
  SCIZ_REQUIRE(n <= most_symbols(id, blob.size()), Status::corrupt_stream,
               std::string("stage ") + stage_name(id) + ": declares " + std::to_string(n) + " codes, more than a " +
                   std::to_string(blob.size()) + "-byte blob can hold");
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
