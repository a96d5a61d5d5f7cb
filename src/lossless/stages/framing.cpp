#include "lossless/stages/framing.hpp"

#include <sciz/error.hpp>

#include <cstring>
#include <string>

#include "lossless/stages/registry.hpp"

namespace sciz::stages {

void write_header(uint8_t* blob, StageId id, uint64_t n) {
  SCIZ_REQUIRE(n <= kMaxStageInput, Status::invalid_argument,
               std::string("stage ") + stage_name(id) + ": input of " + std::to_string(n) + " bytes exceeds 2^56 - 1");
  const uint64_t h = make_header(id, n);
  std::memcpy(blob, &h, 8);
}

uint64_t peek_header(std::span<const uint8_t> blob, StageId id) {
  const char* stage = stage_name(id);
  SCIZ_REQUIRE(blob.size() >= kHeaderBytes, Status::corrupt_stream,
               std::string("stage ") + stage + ": blob of " + std::to_string(blob.size()) +
                   " bytes is shorter than its 8-byte header");
  uint64_t h;
  std::memcpy(&h, blob.data(), 8);
  const uint8_t writer = static_cast<uint8_t>(h >> 56);
  SCIZ_REQUIRE(writer == static_cast<uint8_t>(id), Status::corrupt_stream,
               std::string("stage ") + stage + ": blob was written by stage id " + std::to_string(writer) + " (" +
                   stage_name(static_cast<StageId>(writer)) + "), not this one");
  return h & kMaxStageInput;
}

namespace {
void check_limit(uint64_t n, uint64_t max_out, const char* stage) {
  SCIZ_REQUIRE(n <= max_out, Status::corrupt_stream,
               std::string("stage ") + stage + ": declares " + std::to_string(n) + " decoded bytes, more than the " +
                   std::to_string(max_out) + " expected");
}
}  // namespace

uint64_t check_same_size(std::span<const uint8_t> blob, StageId id, uint64_t max_out) {
  const char* stage = stage_name(id);
  const uint64_t n = peek_header(blob, id);
  check_limit(n, max_out, stage);
  SCIZ_REQUIRE(blob.size() - kHeaderBytes == n, Status::corrupt_stream,
               std::string("stage ") + stage + ": declares " + std::to_string(n) + " bytes but holds " +
                   std::to_string(blob.size() - kHeaderBytes));
  return n;
}

Table parse_table(std::span<const uint8_t> blob, StageId id, uint64_t max_out) {
  const char* stage = stage_name(id);
  Table t;
  t.n = peek_header(blob, id);
  check_limit(t.n, max_out, stage);
  const std::string who = std::string("stage ") + stage + ": ";
  t.blocks = block_count(t.n);
  // Each block costs a 2-byte entry, so the blob bounds the table before it is allocated.
  SCIZ_REQUIRE(t.blocks <= (blob.size() - kHeaderBytes) / 2, Status::corrupt_stream,
               who + std::to_string(t.n) + " decoded bytes need a table of " + std::to_string(t.blocks) +
                   " entries, more than the " + std::to_string(blob.size()) + "-byte blob holds");
  t.entry.resize(t.blocks);
  if (t.blocks) std::memcpy(t.entry.data(), blob.data() + kHeaderBytes, 2 * t.blocks);
  t.at.resize(t.blocks + 1);
  uint64_t at = kHeaderBytes + 2 * t.blocks;
  for (uint64_t b = 0; b < t.blocks; ++b) {
    const uint32_t bytes = block_size(t.n, b);
    SCIZ_REQUIRE(entry_fits(t.entry[b], bytes), Status::corrupt_stream,
                 who + "block " + std::to_string(b) + " of " + std::to_string(bytes) + " bytes has " +
                     ((t.entry[b] & kRawFlag) ? "a raw payload of " : "an encoded payload of ") +
                     std::to_string(entry_bytes(t.entry[b])) + " bytes");
    t.at[b] = at;
    at += entry_bytes(t.entry[b]);
  }
  t.at[t.blocks] = at;
  SCIZ_REQUIRE(at == blob.size(), Status::corrupt_stream,
               who + "table and payloads take " + std::to_string(at) + " bytes, the blob holds " +
                   std::to_string(blob.size()));
  return t;
}

}  // namespace sciz::stages
