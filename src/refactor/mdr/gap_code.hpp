// Gap coding of a sparse bit stream (segment coding 3, version 3 files; docs/MDR.md section 3):
// the positions of its ones as the zero runs between them, each an adaptive Rice code whose
// parameter follows the mean of the recent runs (JPEG-LS's rule). The top planes of a fine
// level, and the not-yet-significant stream of the split at loose bounds, are a few ones in
// long zero runs that cluster where the field is rough; the stage coders pay codebooks and
// per-symbol tokens there, this pays about log2(run) + 2 bits a one and 3 bytes of header.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sciz::mdr {

// The smallest gap segment of raw (bits low first), coding byte included, over the window
// choices; empty when raw has no bytes.
std::vector<uint8_t> encode_gaps(std::span<const uint8_t> raw);
// Its size without writing it: what encode_gaps would return the size of.
uint64_t gap_segment_bytes(std::span<const uint8_t> raw);

// A gap segment sized and not written: the start parameter and window encode_gaps would
// pick, and the segment's size. A caller choosing among codings by size writes it only if it
// wins, without sizing it again. portable: the scalar sizing even where the CPU has AVX2
// (tests compare the two).
struct GapPlan {
  uint64_t ones = 0;
  int k0 = 0, window = 0;
  uint64_t bytes = 0;
};
GapPlan plan_gaps(std::span<const uint8_t> raw, bool portable = false);
// The segment encode_gaps(raw) returns, from the plan made of that raw.
std::vector<uint8_t> write_gaps(std::span<const uint8_t> raw, const GapPlan& plan);
// Decodes a segment of coding 3 (seg[0] == 3) to exactly raw_bytes bytes. Every run is checked
// against the stream's end, the count of ones against what was decoded and the last byte's
// padding against zero; `what` names the segment in every error.
std::vector<uint8_t> decode_gaps(std::span<const uint8_t> seg, uint64_t raw_bytes, const std::string& what);

}  // namespace sciz::mdr
