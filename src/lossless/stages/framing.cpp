#include "lossless/stages/framing.hpp"

#include <sciz/error.hpp>

#include <cstring>
#include <string>

#include "lossless/stages/registry.hpp"

namespace sciz::stages {

void check_input(StageId id, uint64_t n) {
  SCIZ_REQUIRE(n <= kMaxStageInput, Status::invalid_argument,
               std::string("stage ") + stage_name(id) + ": input of " + std::to_string(n) + " bytes exceeds 2^56 - 1");
}

void write_header(uint8_t* blob, StageId id, uint64_t n) {
  check_input(id, n);
  const uint64_t h = make_header(id, n);
  std::memcpy(blob, &h, 8);
}

namespace {

std::string who(StageId id) { return std::string("stage ") + stage_name(id) + ": "; }

uint64_t read_u64(std::span<const uint8_t> blob, StageId id) {
  SCIZ_REQUIRE(blob.size() >= kHeaderBytes, Status::corrupt_stream,
               who(id) + "blob of " + std::to_string(blob.size()) + " bytes is shorter than its 8-byte header");
  uint64_t h;
  std::memcpy(&h, blob.data(), 8);
  return h;
}

uint64_t check_stage_byte(StageId id, uint64_t header) {
  const uint8_t writer = static_cast<uint8_t>(header >> 56);
  SCIZ_REQUIRE(writer == static_cast<uint8_t>(id), Status::corrupt_stream,
               who(id) + "blob was written by stage id " + std::to_string(writer) + " (" +
                   stage_name(static_cast<StageId>(writer)) + "), not this one");
  return header & kMaxStageInput;
}

}  // namespace

uint64_t peek_header(std::span<const uint8_t> blob, StageId id) { return check_stage_byte(id, read_u64(blob, id)); }

uint64_t check_header(StageId id, uint64_t header, uint64_t blob_bytes, uint64_t max_out) {
  const uint64_t n = check_stage_byte(id, header);
  SCIZ_REQUIRE(n <= max_out, Status::corrupt_stream,
               who(id) + "declares " + std::to_string(n) + " decoded bytes, more than the " + std::to_string(max_out) +
                   " expected");
  SCIZ_REQUIRE(blob_bytes >= kHeaderBytes, Status::corrupt_stream,
               who(id) + "blob of " + std::to_string(blob_bytes) + " bytes is shorter than its 8-byte header");
  const Family f = family_of(id);
  if (f == Family::tcms || f == Family::bit) {
    SCIZ_REQUIRE(blob_bytes - kHeaderBytes == n, Status::corrupt_stream,
                 who(id) + "declares " + std::to_string(n) + " bytes but holds " + std::to_string(blob_bytes - kHeaderBytes));
  } else {
    // Each block costs a 2-byte entry, so the blob bounds the table before it is allocated.
    SCIZ_REQUIRE(block_count(n) <= (blob_bytes - kHeaderBytes) / 2, Status::corrupt_stream,
                 who(id) + std::to_string(n) + " decoded bytes need a table of " + std::to_string(block_count(n)) +
                     " entries, more than the " + std::to_string(blob_bytes) + "-byte blob holds");
  }
  return n;
}

namespace {
// The most symbols a valid codes blob of `bytes` bytes can hold: huffman spends at least a bit
// a symbol, bitpack a width byte per 32 symbols, rle 4 bytes per run of at most 65536, and the
// run and token coders at least a bit per run or token, each covering at most 65536 symbols.
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

uint64_t check_codes_header(StageId id, uint64_t symbols, uint64_t blob_bytes, uint64_t max_out, int code_width) {
  const uint64_t w = static_cast<uint64_t>(code_width);
  SCIZ_REQUIRE(w == 1 || w == 2, Status::invalid_argument,
               who(id) + "code width " + std::to_string(code_width) + " (1 or 2 bytes)");
  SCIZ_REQUIRE(symbols <= max_out / w, Status::corrupt_stream,
               who(id) + "declares " + std::to_string(symbols) + " codes of " + std::to_string(w) +
                   " bytes, more than the " + std::to_string(max_out) + " bytes expected");
  SCIZ_REQUIRE(symbols <= most_symbols(id, blob_bytes), Status::corrupt_stream,
               who(id) + "declares " + std::to_string(symbols) + " codes, more than a " + std::to_string(blob_bytes) +
                   "-byte blob can hold");
  return symbols * w;
}

void check_codes_context(StageId id, const Context& ctx) {
  SCIZ_REQUIRE(ctx.code_width == 1 || ctx.code_width == 2, Status::invalid_argument,
               who(id) + "code width " + std::to_string(ctx.code_width) + " (1 or 2 bytes)");
  const uint32_t most = ctx.code_width == 1 ? 256 : 65536;
  SCIZ_REQUIRE(ctx.alphabet >= 1 && ctx.alphabet <= most, Status::invalid_argument,
               who(id) + "alphabet of " + std::to_string(ctx.alphabet) + " codes for " + std::to_string(ctx.code_width) +
                   "-byte codes");
  SCIZ_REQUIRE(ctx.centre < ctx.alphabet, Status::invalid_argument,
               who(id) + "centre code " + std::to_string(ctx.centre) + " outside the alphabet of " +
                   std::to_string(ctx.alphabet));
}

uint64_t check_same_size(std::span<const uint8_t> blob, StageId id, uint64_t max_out) {
  return check_header(id, read_u64(blob, id), blob.size(), max_out);
}

Table parse_table(std::span<const uint8_t> blob, StageId id, uint64_t max_out) {
  Table t;
  t.n = check_header(id, read_u64(blob, id), blob.size(), max_out);
  t.blocks = block_count(t.n);
  t.entry.resize(t.blocks);
  if (t.blocks) std::memcpy(t.entry.data(), blob.data() + kHeaderBytes, 2 * t.blocks);
  t.at.resize(t.blocks + 1);
  uint64_t at = kHeaderBytes + 2 * t.blocks;
  for (uint64_t b = 0; b < t.blocks; ++b) {
    const uint32_t bytes = block_size(t.n, b);
    SCIZ_REQUIRE(entry_fits(t.entry[b], bytes), Status::corrupt_stream,
                 who(id) + "block " + std::to_string(b) + " of " + std::to_string(bytes) + " bytes has " +
                     ((t.entry[b] & kRawFlag) ? "a raw payload of " : "an encoded payload of ") +
                     std::to_string(entry_bytes(t.entry[b])) + " bytes");
    t.at[b] = at;
    at += entry_bytes(t.entry[b]);
  }
  t.at[t.blocks] = at;
  SCIZ_REQUIRE(at == blob.size(), Status::corrupt_stream,
               who(id) + "table and payloads take " + std::to_string(at) + " bytes, the blob holds " +
                   std::to_string(blob.size()));
  return t;
}

}  // namespace sciz::stages
