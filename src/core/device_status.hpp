// A failure found by a kernel while it validates a stream on the device. Kernels that check
// sections report into one DeviceStatus in device memory (the first report wins); every later
// kernel of the same call reads it first and writes nothing once it is set, so a damaged
// stream leaves the caller's output untouched. The host reads it back at the call's one
// closing synchronization and throws Error(corrupt_stream) with device_status_message().
#pragma once
#include <cstdint>
#include <string>

#include "core/hd.hpp"

namespace sciz {

struct DeviceStatus {
  uint32_t code = 0;  // 0: no failure; else one of StatusCode
  uint32_t where = 0; // section id, chunk index or similar, by code
  uint64_t a = 0, b = 0;  // the offending values, by code
};

// Each module owns a range of codes and writes its own messages in device_status.cpp.
enum StatusCode : uint32_t {
  kStatusOk = 0,
  // 1..99 container and checksums
  kStatusChecksum = 1,          // where: chunk; a: section id, b: computed digest
  kStatusPadding = 2,           // where: chunk; a: byte offset in the chunk
  // 100..199 exact runs (core/exact_runs_cuda.hpp)
  kStatusRunsHeader = 100,      // a: entries, b: runs
  kStatusRunsOverrun = 101,     // a: run index
  kStatusRunsPalette = 102,     // a: run index, b: palette index
  kStatusRunsTotals = 103,      // a: entries found, b: entries declared
  kStatusRunsTruncated = 104,   // a: byte offset
  // 200..299 szx, 300..399 delta, 400..499 lorenzo and its stages: see their cuda sources
  kStatusSzxFirst = 200,
  kStatusDeltaFirst = 300,
  kStatusLorenzoFirst = 400,
  // 400..499 lorenzo (predict/lorenzo) and the quant-code stages (lossless/*). For the codes
  // stages `where` is the Lossless stage; for a huffman blob, its HuffmanPart.
  kStatusOutliersHeader = 400,    // a: entries, b: index width
  kStatusOutliersOrder = 401,     // a: entry, b: its index (out of range or not ascending)
  kStatusSectionTruncated = 402,  // where: section id; a: bytes, b: bytes its header needs
  kStatusCodesCount = 410,        // a: symbols the stage header holds, b: symbols expected
  kStatusCodesHeader = 411,       // a, b: run or token count / tail / blob bytes against the section
  kStatusCodesCover = 412,        // a: codes the runs or tokens cover, b: codes expected
  kStatusBitpackWidth = 420,      // a: block, b: its width
  kStatusBitpackPayload = 421,    // a: payload bytes the widths call for, b: payload bytes present
  kStatusHuffmanCount = 430,      // a: symbols in the blob header, b: symbols expected
  kStatusHuffmanChunk = 431,      // a: chunk size
  kStatusHuffmanBits = 432,       // a: total bits, b: symbols
  kStatusHuffmanUsed = 433,       // a: codebook symbols, b: symbols
  kStatusHuffmanCodebook = 434,   // a: HuffmanCodebookFault, b: byte offset in the codebook
  kStatusHuffmanLayout = 435,     // a: blob bytes, b: bytes the layout needs
  kStatusHuffmanChunkBits = 436,  // a: chunk, b: its bit count
  kStatusHuffmanChunkSum = 437,   // a: sum of the chunk bit counts, b: total bits in the header
  kStatusHuffmanDecode = 438,     // a: chunk that does not decode to its stated bit count
  kStatusHuffmanTruncated = 439,  // a: blob bytes, b: bytes its header and codebook need
  kStatusEncoderInternal = 499,   // a device encoder's own consistency check (a bug, not a stream)
  // 500..599 the lossless stages of src/lossless/stages; `where` is the stage id.
  kStatusStageHeader = 500,       // a: the blob's header, b: the header the caller's size implies
  kStatusStageEntry = 501,        // a: block, b: its table entry (not possible for its size)
  kStatusStageTotal = 502,        // a: bytes the table calls for, b: bytes of the blob
  kStatusStageBlock = 503,        // a: block, b: its BlockFault (lossless/stages/eliminate_math.hpp)
  kStatusStageCode = 504,         // a: index, b: a decoded code above 255 for 1-byte codes
  // 600..699 interp (predict/interp; its codes section reports through the stages' 500..)
  kStatusInterpFirst = 600,
  kStatusInterpExactCount = 600,    // a: points of code 0, b: exact values in the section
  kStatusInterpOutlierCount = 601,  // a: points of code 255, b: outliers in the section
  kStatusInterpExactPlace = 602,    // a: field index of an exact value whose point has a quant code
};

// Which huffman blob a kStatusHuffman* report names (its `where`).
enum HuffmanPart : uint32_t {
  kPartCodes = 1,       // the huffman stage's only blob
  kPartRunValues = 2,   // rle+huffman
  kPartRunLengths = 3,
  kPartTokenValues = 4, // zrle+huffman
  kPartZeroRuns = 5,
};

enum HuffmanCodebookFault : uint32_t {
  kCodebookTruncated = 1,
  kCodebookLongVarint = 2,
  kCodebookSymbolRange = 3,
  kCodebookPadding = 4,
  kCodebookTrailing = 5,
  kCodebookNotPrefix = 6,
  kCodebookTooLarge = 7,
};

#if defined(__CUDACC__)
// First report wins; the others are dropped (one message names one problem).
__device__ inline void report(DeviceStatus* st, uint32_t code, uint32_t where, uint64_t a, uint64_t b) {
  if (atomicCAS(&st->code, 0u, code) == 0u) {
    st->where = where;
    st->a = a;
    st->b = b;
  }
}
__device__ inline bool failed(const DeviceStatus* st) { return *(volatile const uint32_t*)&st->code != 0; }
#endif

// Host: the one-line message for a status a kernel reported ("" when code is 0).
std::string device_status_message(const DeviceStatus& st);
// Host: throws Error(corrupt_stream, what + ": " + message) when st.code != 0.
void throw_if_failed(const DeviceStatus& st, const std::string& what);

}  // namespace sciz
