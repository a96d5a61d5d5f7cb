#include "refactor/mdr/hybrid.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <cstring>

#include "core/bit_count.hpp"
#include "lossless/codes/codes.hpp"
#include "lossless/codes/select.hpp"
#include "lossless/stages/registry.hpp"
#include "lossless/stages/stages.hpp"
#include "refactor/mdr/gap_code.hpp"

namespace sciz::mdr {

namespace {

// Huffman over the plane bytes as 1-byte codes: 256 symbols, small codebooks.
stages::StageList huffman_list() { return {{stages::StageId::huffman}, 1}; }

// The run and zero coders tried besides Huffman, measured on the shared fields' planes
// (docs/MDR.md section 3): zero runs with Huffman-coded values and gaps, zero-byte elimination,
// the same after a 4-byte bit shuffle (which regathers the coefficients a register-block word
// scatters: bit j of consecutive words holds consecutive coefficients), and Huffman followed
// by zero elimination (sparse planes whose Huffman bits still hold zero bytes).
const std::vector<stages::StageList>& run_lists() {
  using stages::StageId;
  static const std::vector<stages::StageList> v = {
      {{StageId::zrle_huffman}, 2},
      {{StageId::rze1}, 1},
      {{StageId::bit4, StageId::rze1}, 1},
      {{StageId::huffman, StageId::rze1}, 1},
  };
  return v;
}

stages::Context context_of(uint8_t code_width) {
  stages::Context c;
  c.code_width = code_width;
  c.alphabet = code_width == 1 ? 256 : 65536;
  c.centre = 0;
  return c;
}

uint64_t list_bytes(const stages::StageList& l) { return stages::write_stage_list(l).size(); }

std::vector<uint8_t> segment_of(const stages::StageList& list, std::span<const uint8_t> raw) {
  std::vector<uint8_t> seg(1, static_cast<uint8_t>(Coding::stages));
  const std::vector<uint8_t> l = stages::write_stage_list(list);
  seg.insert(seg.end(), l.begin(), l.end());
  const std::vector<uint8_t> blob = stages::encode_cpu(list.chain, raw, context_of(list.code_width));
  seg.insert(seg.end(), blob.begin(), blob.end());
  return seg;
}


}  // namespace

uint64_t huffman_segment_bytes(std::span<const uint8_t> raw) {
  // Four tables, one per lane of four bytes: a plane is mostly zero bytes, and increments of
  // one counter would wait on each other through memory.
  uint32_t lane[4][256] = {};
  std::vector<uint64_t> hist(256, 0);
  size_t i = 0;
  for (; i + 4 <= raw.size(); i += 4) {
    ++lane[0][raw[i]], ++lane[1][raw[i + 1]], ++lane[2][raw[i + 2]], ++lane[3][raw[i + 3]];
    if ((i & ((size_t(1) << 30) - 4)) == 0 && i) {  // flush before a u32 lane could overflow
      for (int v = 0; v < 256; ++v)
        for (auto& l : lane) hist[v] += l[v], l[v] = 0;
    }
  }
  for (; i < raw.size(); ++i) ++lane[0][raw[i]];
  for (int v = 0; v < 256; ++v)
    for (const auto& l : lane) hist[v] += l[v];
  return 1 + list_bytes(huffman_list()) + codes::size_from_hist(std::move(hist), raw.size()).bytes;
}

namespace {

// The stage list of a run coder (run_lists() in encode_group's order).
const stages::StageList& list_of(Coder c) {
  return run_lists()[static_cast<size_t>(c) - static_cast<size_t>(Coder::zrle_huffman)];
}

// The exact size of a stage-list segment: every stage but the last run, the last one sized
// from its statistics (stages::encoded_bytes_cpu) without writing its blob.
uint64_t list_segment_bytes(const stages::StageList& list, std::span<const uint8_t> raw) {
  const stages::Context ctx = context_of(list.code_width);
  std::vector<uint8_t> cur;
  std::span<const uint8_t> in = raw;
  for (size_t i = 0; i + 1 < list.chain.size(); ++i) {
    cur = stages::encode_stage_cpu(list.chain[i], in, ctx);
    in = cur;
  }
  return 1 + list_bytes(list) + stages::encoded_bytes_cpu(list.chain.back(), in, ctx);
}

}  // namespace

std::vector<Coder> plan_coders(std::span<const uint8_t> raw, const HybridOptions& opt) {
  std::vector<Coder> coders;
  if (raw.size() % 4 != 0) return coders;
  // Gap coding is tried below T_s too: its header is 3 bytes, and the small levels' streams
  // under T_s are where a copy of mostly zeros cost the most at loose bounds (over the 20
  // fields of ../shared/data, trying it below T_s as well took the geomean of bytes read at rel
  // 1e-1 from 3.94 to 3.88 x interp's). Only on streams
  // of at most a quarter ones: denser, it cannot beat a copy by much and sizing it costs a
  // step per one.
  if (4 * set_bits_in(raw) <= 8 * raw.size()) coders.push_back(Coder::gaps);
  if (raw.size() <= opt.copy_below) return coders;
  coders.push_back(Coder::huffman);
  // Zero runs pay a token per non-zero 16-bit symbol: on a plane where most symbols are
  // non-zero they never win, and sizing their Huffman books of up to 65536 values is the
  // slowest part of choosing.
  uint64_t zero16 = 0;
  for (size_t i = 0; i + 1 < raw.size(); i += 2) zero16 += (raw[i] | raw[i + 1]) == 0;
  if (2 * zero16 >= raw.size() / 2) coders.push_back(Coder::zrle_huffman);
  for (Coder c : {Coder::rze1, Coder::bit4_rze1, Coder::huffman_rze1}) coders.push_back(c);
  return coders;
}

uint64_t coder_bytes(std::span<const uint8_t> raw, Coder c, GapPlan* gaps) {
  switch (c) {
    case Coder::copy: return 1 + raw.size();
    case Coder::gaps: return (*gaps = plan_gaps(raw)).bytes;
    case Coder::huffman: return huffman_segment_bytes(raw);
    default: return list_segment_bytes(list_of(c), raw);
  }
}

GroupPlan plan_from(std::span<const uint8_t> raw, const HybridOptions& opt, const std::vector<Coder>& coders,
                    const std::vector<uint64_t>& sizes, GapPlan gaps) {
  // Algorithm 2 with every size known exactly, none written: the smallest wins if it clears
  // T_cr; a later coder must be strictly smaller to replace an earlier one.
  GroupPlan best;
  best.bytes = 1 + raw.size();
  for (size_t i = 0; i < coders.size(); ++i)
    if (sizes[i] < best.bytes && static_cast<double>(raw.size()) > opt.min_ratio * static_cast<double>(sizes[i]))
      best.coder = coders[i], best.bytes = sizes[i];
  if (best.coder == Coder::gaps) best.gaps = std::move(gaps);
  return best;
}

GroupPlan plan_group(std::span<const uint8_t> raw, const HybridOptions& opt) {
  const std::vector<Coder> coders = plan_coders(raw, opt);
  std::vector<uint64_t> sizes;
  GapPlan gaps;
  for (Coder c : coders) sizes.push_back(coder_bytes(raw, c, &gaps));
  return plan_from(raw, opt, coders, sizes, std::move(gaps));
}

namespace {

std::vector<uint8_t> write_planned(std::span<const uint8_t> raw, const GroupPlan& plan) {
  switch (plan.coder) {
    case Coder::copy: {
      std::vector<uint8_t> seg(1 + raw.size());
      seg[0] = static_cast<uint8_t>(Coding::copy);
      if (!raw.empty()) std::memcpy(seg.data() + 1, raw.data(), raw.size());
      return seg;
    }
    case Coder::gaps: return write_gaps(raw, plan.gaps);
    case Coder::huffman: return segment_of(huffman_list(), raw);
    default: return segment_of(list_of(plan.coder), raw);
  }
}

}  // namespace

std::vector<uint8_t> encode_planned(std::span<const uint8_t> raw, const GroupPlan& plan) {
  std::vector<uint8_t> seg = write_planned(raw, plan);
  // A split's header holds its first stream's planned size: a sizing that missed would
  // write a damaged file, not merely a larger one.
  SCIZ_REQUIRE(seg.size() == plan.bytes, Status::internal,
               "mdr: coder " + std::to_string(static_cast<int>(plan.coder)) + " sized " + std::to_string(plan.bytes) +
                   " bytes and wrote " + std::to_string(seg.size()));
  return seg;
}

std::vector<uint8_t> encode_group(std::span<const uint8_t> raw, const HybridOptions& opt) {
  return encode_planned(raw, plan_group(raw, opt));
}

std::vector<uint8_t> decode_group(std::span<const uint8_t> seg, uint64_t raw_bytes, const std::string& what,
                                  uint16_t version) {
  SCIZ_REQUIRE(!seg.empty(), Status::corrupt_stream, what + ": empty segment");
  const uint8_t coding = seg[0];
  if (coding == static_cast<uint8_t>(Coding::gaps)) {
    SCIZ_REQUIRE(version >= kGapsVersion, Status::corrupt_stream,
                 what + ": coding 3 (gaps) in a version " + std::to_string(version) + " file");
    return decode_gaps(seg, raw_bytes, what);
  }
  if (coding == static_cast<uint8_t>(Coding::copy)) {
    SCIZ_REQUIRE(seg.size() - 1 == raw_bytes, Status::corrupt_stream,
                 what + ": copied planes of " + std::to_string(seg.size() - 1) + " bytes, expected " +
                     std::to_string(raw_bytes));
    return std::vector<uint8_t>(seg.begin() + 1, seg.end());
  }
  SCIZ_REQUIRE(coding == static_cast<uint8_t>(Coding::stages), Status::corrupt_stream,
               what + ": unknown coding " + std::to_string(coding));
  try {
    size_t used = 0;
    const stages::StageList list = stages::read_stage_list(seg.subspan(1), used);
    return stages::decode_cpu(list.chain, seg.subspan(1 + used), raw_bytes, context_of(list.code_width));
  } catch (const Error& e) {
    fail(e.status() == Status::invalid_argument ? Status::corrupt_stream : e.status(), what + ": " + e.what());
  }
}

}  // namespace sciz::mdr
