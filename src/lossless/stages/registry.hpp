// The stage registry: names <-> ids, chains (stage lists) parsed, printed and checked, the
// named chains of the interp pipelines, and lorenzo's Lossless choices as chains.
#pragma once
#include <sciz/error.hpp>
#include <sciz/types.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lossless/stages/stage_id.hpp"

namespace sciz::stages {

using Chain = std::vector<StageId>;

// Longest chain a stream may record (LC's measured pipelines use at most 4 stages; the cap
// keeps a damaged stage list from asking for hundreds of passes).
inline constexpr size_t kMaxChain = 8;

const char* stage_name(StageId id);                 // "rre4"; "?" for an id that is not a stage
std::optional<StageId> stage_by_name(std::string_view name);
std::optional<StageId> stage_by_id(uint8_t id);     // nullopt when no stage has this id
std::span<const StageId> all_stages();              // every registered stage, in id order

// "huffman,rre4,tcms8,rze1" -> ids, or a preset's name ("interp-cr"). Throws
// Error(invalid_argument) naming an unknown stage or a rule check_chain() enforces.
Chain parse_chain(std::string_view list);
std::string chain_name(std::span<const StageId> chain);  // inverse of parse_chain

// The rules a chain obeys: 1..kMaxChain stages, a codes stage only first. Throws Error(status)
// naming the rule that failed (corrupt_stream for a chain read from a stream).
void check_chain(std::span<const StageId> chain, Status status);

// The pipelines' named chains: "interp-cr" = huffman,rre4,tcms8,rze1 (ratio),
// "interp-tp" = tcms1,bit1,rre1 (throughput, no Huffman). nullopt for another name.
std::optional<Chain> preset_chain(std::string_view name);

// A stage list as format 5 records it in a pipeline's params (docs/FORMAT.md, "Stage lists"):
// u8 count (1..8), u8 code width (1 or 2), u8 id[count].
struct StageList {
  Chain chain;
  uint8_t code_width = 2;
};
std::vector<uint8_t> write_stage_list(const StageList& list);  // invalid_argument on a bad list
// Reads one list from the front of bytes, checking it (corrupt_stream, naming what is wrong);
// `used` receives its length.
StageList read_stage_list(std::span<const uint8_t> bytes, size_t& used);

// Lorenzo's stage choice as a chain: the one codes stage whose blob is byte for byte the
// section format 4 writes, so lorenzo can record a stage list (format 5) without any
// section changing. auto_select has no chain (it is resolved per field first): invalid_argument.
Chain chain_for_lossless(Lossless l);

}  // namespace sciz::stages
