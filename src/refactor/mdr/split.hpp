// The significance split of a group of bitplanes (docs/MDR.md section 3, coding 2): each
// plane's digits of the coefficients with no non-zero digit above it (insignificant so far)
// go to one bit stream, those of the others to a second, both in coefficient order and each
// coded like a group (hybrid.hpp). The first stream is sparse where the second is noise; mixed
// in one plane they cost the run coders their runs. The decoder knows which coefficients are
// significant from the digits it already holds, so it needs no side information, and the
// coefficient order packs the digits of a small level densely (a register-block word per
// plane would spend 32 bits on a level of one coefficient).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "refactor/mdr/hybrid.hpp"

namespace sciz::mdr {

// The segment (coding byte included) for the planes high, high-1, ..., high-planes+1 of the
// level's digits nb (all digits; those above high decide what is significant).
template <class W>
std::vector<uint8_t> encode_split(const W* nb, uint64_t n, int high, int planes, const HybridOptions& opt);

// The two streams of a split, bits low first, each padded with zeros to whole u32 words.
struct SplitBits {
  std::vector<uint8_t> ins, sig;
  uint64_t ins_bits = 0;
};
// Each coefficient's digit count, width(nb[i]) (0 for a zero): coefficient i is significant
// before digit d exactly when widths[i] > d + 1. A level's groups share it, so each group
// learns its significance from n bytes instead of from every digit above it.
template <class W>
std::vector<uint8_t> digit_widths(const W* nb, uint64_t n);
// The streams of the planes high, ..., high-planes+1: `widths` the level's digit_widths and
// `co` the group's planes in coefficient order (bitplanes::coefficient_order_cpu of its
// register-block planes, digit high first). portable: the table extract even on a CPU with
// BMI2's PEXT (tests compare the two).
SplitBits split_streams(const uint8_t* widths, const uint32_t* co, uint64_t n, int high, int planes,
                        bool portable = false);
// split_streams of the group's register-block planes (`words`: planes x plane_words(n) words,
// digit high first) in coefficient order, without the group's coefficient order ever held
// whole: pieces of piece_words words of every plane (rounded to a multiple of 32) are ordered
// and split as OpenMP tasks, and their streams joined in order. The bits do not depend on the
// piece size (tests force pieces of 32 words) nor on the threads. One piece is split_streams
// of the whole group.
inline constexpr uint64_t kSplitPieceWords = uint64_t{1} << 15;  // 2^20 coefficients, 128 KiB a plane
SplitBits split_planes(const uint8_t* widths, const uint32_t* words, uint64_t n, int high, int planes,
                       uint64_t piece_words = kSplitPieceWords, bool portable = false);
// The segment of a split from its streams.
std::vector<uint8_t> encode_split(const SplitBits& s, const HybridOptions& opt);
// Its exact size from the streams' plans (plan_group of s.ins and of s.sig), and the segment
// itself written from them.
uint64_t split_segment_bytes(const SplitBits& s, const GroupPlan& ins, const GroupPlan& sig);
std::vector<uint8_t> encode_split(const SplitBits& s, const GroupPlan& ins, const GroupPlan& sig);
// The segment from its two streams' segments (encode_planned of each), written apart.
std::vector<uint8_t> split_segment(uint64_t ins_bits, const std::vector<uint8_t>& ins, const std::vector<uint8_t>& sig);

// A split segment's two streams, stage-decoded and their lengths checked: the costly part of
// decoding it, which needs nothing from any other segment.
struct SplitStreams {
  std::vector<uint8_t> ins, sig;  // bits low first, padded to whole u32 words
  uint64_t ins_bits = 0, sig_bits = 0;
};
// `version`: the file's (a stream's coding must exist in it).
SplitStreams read_split(std::span<const uint8_t> seg, uint64_t n, int planes, const std::string& what,
                        uint16_t version = kGapsVersion);

// The group's planes from its streams, in coefficient order (bitplanes.hpp: plane p, the digit
// p below the group's first, is words [p * plane_words(n), (p + 1) * plane_words(n)) of out).
// `significant` is the level's significance bitmap before the group (bitplanes'
// significance_cpu of the digits held) and after it on return. The walk must use both streams
// up exactly; `what` names the segment. portable: the table deposit even on a CPU with BMI2's
// (tests compare the two).
void walk_split(const SplitStreams& s, uint64_t n, int planes, uint32_t* significant, uint32_t* out,
                const std::string& what, bool portable = false);

// ORs the group's digits into `digits` (a level's digits as held before the group: every
// higher group applied), from a segment of coding 2 (seg[0] == 2). Every length is checked, and
// the walk must use both streams up exactly; `what` names the segment. On an error `digits` is
// partly written: the caller decodes onto a copy.
template <class W>
void decode_split(std::span<const uint8_t> seg, W* digits, uint64_t n, int high, int planes, const std::string& what);

}  // namespace sciz::mdr
