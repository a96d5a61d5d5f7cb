// The framing every byte stage's blob shares (docs/FORMAT.md, "Stage blobs"):
//
//   u64 header            bits 0..55: n, the bytes the blob decodes to (the stage's input);
//                         bits 56..63: the stage's id, so a blob decoded by the wrong stage
//                         (a stage list that does not match its data) is refused
//   body                  size-preserving stages (tcms, bit): exactly n bytes
//                         reducing stages (rre, rze): u16 entry per 16 KiB block of the input
//                         (bit 15: stored raw; bits 0..14: the block's payload bytes), then
//                         the payloads back to back in block order
//
// A reducer block is stored raw (its bytes verbatim, entry = size | raw flag) unless its
// payload is strictly shorter than the block, so a blob never exceeds 8 + 2 * blocks + n bytes.
// Decoders check everything here before allocating or touching memory; the block decoders
// then check that each payload is consumed exactly.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/hd.hpp"
#include "lossless/stages/eliminate_math.hpp"
#include "lossless/stages/stage_id.hpp"

namespace sciz::stages {

inline constexpr uint64_t kHeaderBytes = 8;
inline constexpr uint64_t kMaxStageInput = (uint64_t(1) << 56) - 1;  // 64 PiB

SCIZ_HD uint64_t block_count(uint64_t n) { return (n + kBlockBytes - 1) / kBlockBytes; }
// Input bytes of block b of an input of n bytes.
SCIZ_HD uint32_t block_size(uint64_t n, uint64_t b) {
  const uint64_t left = n - b * kBlockBytes;
  return static_cast<uint32_t>(left < kBlockBytes ? left : kBlockBytes);
}

// Whether a reducer's table entry is possible for a block of `bytes` input bytes: a raw block
// holds exactly its bytes, an encoded one strictly fewer.
SCIZ_HD bool entry_fits(uint16_t entry, uint32_t bytes) {
  const uint32_t size = entry & ~kRawFlag;
  return (entry & kRawFlag) ? size == bytes : size < bytes;
}
SCIZ_HD uint32_t entry_bytes(uint16_t entry) { return entry & ~kRawFlag; }

SCIZ_HD uint64_t table_bytes(uint64_t n) { return 2 * block_count(n); }
SCIZ_HD uint64_t reducer_max_bytes(uint64_t n) { return kHeaderBytes + table_bytes(n) + n; }

SCIZ_HD uint64_t make_header(StageId id, uint64_t n) { return n | static_cast<uint64_t>(id) << 56; }
// Throws invalid_argument, naming the stage, when an input of n bytes exceeds kMaxStageInput
// (what a blob's header can declare).
void check_input(StageId id, uint64_t n);
// Throws as check_input when n exceeds kMaxStageInput.
void write_header(uint8_t* blob, StageId id, uint64_t n);

// The declared n of a byte stage's blob: throws corrupt_stream, naming the stage, when the
// blob is shorter than its header or was written by another stage. No other check.
uint64_t peek_header(std::span<const uint8_t> blob, StageId id);

// Everything a byte stage's header alone can be checked against, as both twins check it
// before allocating: the stage byte, n <= max_out, and the blob's size (exactly 8 + n bytes
// for a size-preserving stage; room for the table for a reducer). Returns n.
uint64_t check_header(StageId id, uint64_t header, uint64_t blob_bytes, uint64_t max_out);

// The same for a codes stage's blob, which opens with its symbol count: at most max_out bytes
// of codes, and no more symbols than a blob of this size can hold. Returns the decoded bytes.
uint64_t check_codes_header(StageId id, uint64_t symbols, uint64_t blob_bytes, uint64_t max_out, int code_width);

// What a codes stage's encoder needs of the context: code width 1 or 2, an alphabet of at
// most 256 (1-byte codes) or 65536 codes, the centre inside it. Throws invalid_argument.
void check_codes_context(StageId id, const Context& ctx);

// A size-preserving stage's blob (check_header). Returns n.
uint64_t check_same_size(std::span<const uint8_t> blob, StageId id, uint64_t max_out);

// A reducing stage's blob, validated: n <= max_out, the table inside the blob (checked before
// any table-sized allocation), every entry possible for its block, and the payloads ending
// the blob exactly.
struct Table {
  uint64_t n = 0, blocks = 0;
  std::vector<uint64_t> at;  // blocks + 1 offsets of the payloads inside the blob
  std::vector<uint16_t> entry;
};
Table parse_table(std::span<const uint8_t> blob, StageId id, uint64_t max_out);

}  // namespace sciz::stages
