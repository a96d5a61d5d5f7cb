// Hybrid lossless coding of one group of bitplanes (HP-MDR's Algorithm 2, docs/MDR.md section
// 3): copy, Huffman over bytes, or one of the zero/run coders, the smallest that clears the
// thresholds.
// The coders are the project's stages; a segment records the stage list it used, so a reader
// decodes any valid list, not only the ones this writer picks.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "refactor/mdr/gap_code.hpp"

namespace sciz::mdr {

// split (version 2 files on): split.hpp; gaps (version 3 files on): gap_code.hpp.
enum class Coding : uint8_t { copy = 0, stages = 1, split = 2, gaps = 3 };
// The first file version whose segments may use gap coding.
inline constexpr uint16_t kGapsVersion = 3;

struct HybridOptions {
  uint64_t copy_below = 256;  // T_s
  double min_ratio = 1.0;     // T_cr
};

// The size of the Huffman segment of raw, exact, from the byte histogram alone (Huffman is
// encoded only when it can win).
uint64_t huffman_segment_bytes(std::span<const uint8_t> raw);

// The segment: u8 coding, for Coding::stages the stage list, then the coded planes.
std::vector<uint8_t> encode_group(std::span<const uint8_t> raw, const HybridOptions& opt);

// The coders encode_group chooses among, in the order it tries them.
enum class Coder : uint8_t { copy, gaps, huffman, zrle_huffman, rze1, bit4_rze1, huffman_rze1 };
// encode_group's choice made without writing the segment: the coder and the segment's exact
// size. A caller comparing codings (the split against the plain planes) writes only the one
// it keeps.
struct GroupPlan {
  Coder coder = Coder::copy;
  uint64_t bytes = 0;  // coding byte included
  GapPlan gaps;        // when coder == gaps
};
GroupPlan plan_group(std::span<const uint8_t> raw, const HybridOptions& opt);
// plan_group in three parts, so that the candidates of a large group can be sized on different
// threads (refactor_parts.cpp): the coders it sizes for raw, in its order (what needs only a
// count over raw: its ones and its zero symbols); one candidate's exact segment size (for
// Coder::gaps its plan too); and the plan it keeps from those sizes, sizes[i] of coders[i].
std::vector<Coder> plan_coders(std::span<const uint8_t> raw, const HybridOptions& opt);
uint64_t coder_bytes(std::span<const uint8_t> raw, Coder c, GapPlan* gaps);
GroupPlan plan_from(std::span<const uint8_t> raw, const HybridOptions& opt, const std::vector<Coder>& coders,
                    const std::vector<uint64_t>& sizes, GapPlan gaps);
// The segment the plan sized, of the raw it was made of: encode_group(raw, opt) is
// encode_planned(raw, plan_group(raw, opt)).
std::vector<uint8_t> encode_planned(std::span<const uint8_t> raw, const GroupPlan& plan);
// Decodes a segment to exactly raw_bytes bytes; `what` names the segment in every error. A
// coding the file's `version` does not have is refused as damage.
std::vector<uint8_t> decode_group(std::span<const uint8_t> seg, uint64_t raw_bytes, const std::string& what,
                                  uint16_t version = kGapsVersion);

}  // namespace sciz::mdr
