#include "core/device_status.hpp"

#include <sciz/error.hpp>
#include <sciz/types.hpp>

#include "lossless/stages/eliminate_math.hpp"
#include "lossless/stages/registry.hpp"

namespace sciz {
namespace {

std::string codes_stage(uint32_t stage) {
  return std::string("quant codes (") + (stage >= 1 && stage <= 5 ? lossless_name(static_cast<Lossless>(stage)) : "?") + ")";
}

std::string stage(uint32_t id) { return std::string("stage ") + stages::stage_name(static_cast<stages::StageId>(id)); }

std::string block_fault(uint64_t kind) {
  switch (kind) {
    case stages::kBlockSize: return "payload does not match the size its bitmaps call for";
    case stages::kBlockPadding: return "a bitmap level has bits set past its end";
    case stages::kBlockFirst: return "first symbol is not marked kept (it has no predecessor)";
  }
  return "fault " + std::to_string(kind);
}

std::string huffman_part(uint32_t part) {
  switch (part) {
    case kPartCodes: return "huffman stream";
    case kPartRunValues: return "rle+huffman run values";
    case kPartRunLengths: return "rle+huffman run lengths";
    case kPartTokenValues: return "zrle+huffman token values";
    case kPartZeroRuns: return "zrle+huffman zero runs";
  }
  return "huffman blob " + std::to_string(part);
}

std::string codebook_fault(uint64_t f) {
  switch (f) {
    case kCodebookTruncated: return "is truncated";
    case kCodebookLongVarint: return "has a varint longer than 64 bits";
    case kCodebookSymbolRange: return "names a symbol above 65535";
    case kCodebookPadding: return "padding nibble is not zero";
    case kCodebookTrailing: return "has trailing bytes";
    case kCodebookNotPrefix: return "lengths over-fill the code space (not a prefix code)";
    case kCodebookTooLarge: return "has more than 65536 symbols";
  }
  return "fault " + std::to_string(f);
}

}  // namespace

std::string device_status_message(const DeviceStatus& st) {
  const std::string a = std::to_string(st.a), b = std::to_string(st.b), w = std::to_string(st.where);
  switch (st.code) {
    case kStatusOk: return "";
    case kStatusChecksum: return "chunk " + w + ": section " + a + " checksum mismatch: stream is corrupted";
    case kStatusPadding: return "chunk " + w + ": padding byte " + a + " is not zero: stream is corrupted";
    case kStatusRunsHeader: return "exact values: " + a + " entries in " + b + " runs do not fit the field or the section";
    case kStatusRunsOverrun: return "exact values: run " + a + " leaves the field or the entry count";
    case kStatusRunsPalette: return "exact values: run " + a + " names palette index " + b;
    case kStatusRunsTotals:  // equal counts: the runs end before the section does
      return "exact values: runs hold " + a + " entries, header says " + b + (st.a == st.b ? " (and trailing bytes)" : "");
    case kStatusRunsTruncated: return "exact values: section ends inside a run at byte " + a;
    case kStatusOutliersHeader: return "outliers: " + a + " entries of width " + b + " do not fit the section";
    case kStatusOutliersOrder: return "outliers: index " + b + " at entry " + a + " is out of range or out of order";
    case kStatusSectionTruncated: return "section " + w + ": " + a + " bytes, shorter than its header (" + b + ")";
    case kStatusCodesCount: return codes_stage(st.where) + ": holds " + a + " symbols, expected " + b;
    case kStatusCodesHeader: return codes_stage(st.where) + ": header values " + a + " and " + b + " do not fit the section";
    case kStatusCodesCover: return codes_stage(st.where) + ": runs cover " + a + " codes, expected " + b;
    case kStatusBitpackWidth: return "bitpack: block " + a + " has width " + b + " > 16";
    case kStatusBitpackPayload: return "bitpack: widths call for " + a + " payload bytes, section has " + b;
    case kStatusHuffmanCount: return huffman_part(st.where) + ": holds " + a + " symbols, expected " + b;
    case kStatusHuffmanChunk: return huffman_part(st.where) + ": chunk size " + a + " is not a multiple of 8 in 8..4088";
    case kStatusHuffmanBits: return huffman_part(st.where) + ": " + a + " bits cannot code " + b + " symbols";
    case kStatusHuffmanUsed: return huffman_part(st.where) + ": codebook of " + a + " symbols does not match " + b + " symbols";
    case kStatusHuffmanCodebook: return huffman_part(st.where) + ": codebook " + codebook_fault(st.a) + " at byte " + b;
    case kStatusHuffmanLayout: return huffman_part(st.where) + ": " + a + " bytes, layout needs " + b;
    case kStatusHuffmanChunkBits: return huffman_part(st.where) + ": chunk " + a + " claims " + b + " bits";
    case kStatusHuffmanChunkSum: return huffman_part(st.where) + ": chunk bit counts sum to " + a + ", header says " + b;
    case kStatusHuffmanDecode: return huffman_part(st.where) + ": chunk " + a + " does not decode to its stated bit count";
    case kStatusHuffmanTruncated: return huffman_part(st.where) + ": " + a + " bytes, shorter than its header and codebook (" + b + ")";
    case kStatusStageHeader: return stage(st.where) + ": header " + a + " found, " + b + " expected (length or stage byte)";
    case kStatusStageEntry: return stage(st.where) + ": block " + a + " has table entry " + b + ", not possible for its size";
    case kStatusStageTotal: return stage(st.where) + ": table and payloads take " + a + " bytes, the blob holds " + b;
    case kStatusStageBlock: return stage(st.where) + ": block " + a + ": " + block_fault(st.b);
    case kStatusStageCode: return stage(st.where) + ": decoded code " + b + " at " + a + " does not fit a 1-byte code";
    case kStatusEncoderInternal: return "internal error of a device encoder (check " + w + ": " + a + ", " + b + ")";
    case kStatusSzxFirst + 0: return "szx: block " + a + " has kind byte " + b + ", impossible for its value type";
    case kStatusSzxFirst + 1: return "szx: mid-byte counts section holds " + a + " bytes for " + b + " non-constant blocks";
    case kStatusSzxFirst + 2: return "szx: codes section holds " + a + " bytes, expected " + b;
    case kStatusSzxFirst + 3: return "szx: block " + a + " claims " + b + " mid-bytes";
    case kStatusSzxFirst + 4: return "szx: payload section holds " + a + " bytes, the blocks account for " + b;
    case kStatusSzxFirst + 5:
      return "szx: the leading-byte codes of block " + a + " do not match its kept bytes and mid-byte count";
    case kStatusDeltaFirst + 0: return "delta: group " + a + " claims width " + b + ", more than 31";
    case kStatusDeltaFirst + 1: return "delta: payload section holds " + a + " bytes, the widths call for " + b;
    case kStatusInterpExactCount: return "interp: " + a + " points are marked exact but the exact-values section holds " + b;
    case kStatusInterpOutlierCount: return "interp: " + a + " points are marked outliers but the outliers section holds " + b;
    case kStatusInterpExactPlace: return "interp: exact value at index " + a + " belongs to a point that has a quant code";
    default: return "device check " + std::to_string(st.code) + " failed (where " + w + ", " + a + ", " + b + ")";
  }
}

void throw_if_failed(const DeviceStatus& st, const std::string& what) {
  if (st.code != 0) fail(Status::corrupt_stream, what + ": " + device_status_message(st));
}

}  // namespace sciz
