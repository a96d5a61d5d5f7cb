#include "lossless/stages/registry.hpp"

#include <array>

namespace sciz::stages {
namespace {

struct Entry {
  StageId id;
  const char* name;
};

constexpr std::array<Entry, 21> kStages = {{
    {StageId::bitpack, "bitpack"},   {StageId::huffman, "huffman"}, {StageId::rle, "rle"},
    {StageId::rle_huffman, "rle+huffman"}, {StageId::zrle_huffman, "zrle+huffman"},
    {StageId::tcms1, "tcms1"}, {StageId::tcms2, "tcms2"}, {StageId::tcms4, "tcms4"}, {StageId::tcms8, "tcms8"},
    {StageId::bit1, "bit1"},   {StageId::bit2, "bit2"},   {StageId::bit4, "bit4"},   {StageId::bit8, "bit8"},
    {StageId::rre1, "rre1"},   {StageId::rre2, "rre2"},   {StageId::rre4, "rre4"},   {StageId::rre8, "rre8"},
    {StageId::rze1, "rze1"},   {StageId::rze2, "rze2"},   {StageId::rze4, "rze4"},   {StageId::rze8, "rze8"},
}};

constexpr std::array<StageId, kStages.size()> ids() {
  std::array<StageId, kStages.size()> a{};
  for (size_t i = 0; i < kStages.size(); ++i) a[i] = kStages[i].id;
  return a;
}
constexpr std::array<StageId, kStages.size()> kIds = ids();

std::string known_names() {
  std::string s;
  for (const Entry& e : kStages) {
    if (!s.empty()) s += ", ";
    s += e.name;
  }
  return s + "; or interp-cr, interp-tp";
}

}  // namespace

const char* stage_name(StageId id) {
  for (const Entry& e : kStages)
    if (e.id == id) return e.name;
  return "?";
}

std::optional<StageId> stage_by_name(std::string_view name) {
  for (const Entry& e : kStages)
    if (name == e.name) return e.id;
  return std::nullopt;
}

std::optional<StageId> stage_by_id(uint8_t id) {
  for (const Entry& e : kStages)
    if (static_cast<uint8_t>(e.id) == id) return e.id;
  return std::nullopt;
}

std::span<const StageId> all_stages() { return kIds; }

void check_chain(std::span<const StageId> chain, Status status) {
  SCIZ_REQUIRE(!chain.empty(), status, "stage list is empty");
  SCIZ_REQUIRE(chain.size() <= kMaxChain, status,
               "stage list has " + std::to_string(chain.size()) + " stages, at most " + std::to_string(kMaxChain));
  for (size_t i = 0; i < chain.size(); ++i) {
    SCIZ_REQUIRE(stage_by_id(static_cast<uint8_t>(chain[i])), status,
                 "stage list: id " + std::to_string(static_cast<unsigned>(chain[i])) + " is not a stage");
    SCIZ_REQUIRE(i == 0 || family_of(chain[i]) != Family::codes, status,
                 std::string("stage list: codes stage ") + stage_name(chain[i]) + " at position " + std::to_string(i) +
                     " (a codes stage reads quant codes, so only the first stage may be one)");
  }
}

std::optional<Chain> preset_chain(std::string_view name) {
  if (name == "interp-cr") return Chain{StageId::huffman, StageId::rre4, StageId::tcms8, StageId::rze1};
  if (name == "interp-tp") return Chain{StageId::tcms1, StageId::bit1, StageId::rre1};
  return std::nullopt;
}

Chain parse_chain(std::string_view list) {
  if (auto p = preset_chain(list)) return *p;
  Chain c;
  size_t at = 0;
  while (at <= list.size()) {
    const size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view name = list.substr(at, comma - at);
    const auto id = stage_by_name(name);
    SCIZ_REQUIRE(id, Status::invalid_argument,
                 "unknown lossless stage '" + std::string(name) + "' (stages: " + known_names() + ")");
    c.push_back(*id);
    at = comma + 1;
  }
  check_chain(c, Status::invalid_argument);
  return c;
}

std::string chain_name(std::span<const StageId> chain) {
  std::string s;
  for (StageId id : chain) {
    if (!s.empty()) s += ',';
    s += stage_name(id);
  }
  return s;
}

std::vector<uint8_t> write_stage_list(const StageList& list) {
  check_chain(list.chain, Status::invalid_argument);
  SCIZ_REQUIRE(list.code_width == 1 || list.code_width == 2, Status::invalid_argument,
               "stage list: code width " + std::to_string(list.code_width) + " (1 or 2 bytes)");
  std::vector<uint8_t> b{static_cast<uint8_t>(list.chain.size()), list.code_width};
  for (StageId id : list.chain) b.push_back(static_cast<uint8_t>(id));
  return b;
}

StageList read_stage_list(std::span<const uint8_t> bytes, size_t& used) {
  SCIZ_REQUIRE(bytes.size() >= 2, Status::corrupt_stream,
               "stage list: " + std::to_string(bytes.size()) + " bytes, shorter than its count and code width");
  const size_t count = bytes[0];
  StageList l;
  l.code_width = bytes[1];
  SCIZ_REQUIRE(count >= 1 && count <= kMaxChain, Status::corrupt_stream,
               "stage list: " + std::to_string(count) + " stages (1 to " + std::to_string(kMaxChain) + ")");
  SCIZ_REQUIRE(l.code_width == 1 || l.code_width == 2, Status::corrupt_stream,
               "stage list: code width " + std::to_string(l.code_width) + " (1 or 2 bytes)");
  SCIZ_REQUIRE(bytes.size() >= 2 + count, Status::corrupt_stream,
               "stage list: " + std::to_string(count) + " stages need " + std::to_string(2 + count) + " bytes, " +
                   std::to_string(bytes.size()) + " present");
  for (size_t i = 0; i < count; ++i) l.chain.push_back(static_cast<StageId>(bytes[2 + i]));
  check_chain(l.chain, Status::corrupt_stream);
  used = 2 + count;
  return l;
}

Chain chain_for_lossless(Lossless l) {
  SCIZ_REQUIRE(l != Lossless::auto_select, Status::invalid_argument,
               "lossless 'auto' is chosen per field: only a concrete stage maps to a stage list");
  const auto id = stage_by_id(static_cast<uint8_t>(l));
  SCIZ_REQUIRE(id && family_of(*id) == Family::codes, Status::invalid_argument,
               "lossless stage " + std::to_string(static_cast<unsigned>(l)) + " has no stage list");
  return {*id};
}

}  // namespace sciz::stages
