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

// ORs the group's digits into `digits` (a level's digits as held before the group: every
// higher group applied), from a segment of coding 2 (seg[0] == 2). Every length is checked, and
// the walk must use both streams up exactly; `what` names the segment. On an error `digits` is
// partly written: the caller decodes onto a copy.
template <class W>
void decode_split(std::span<const uint8_t> seg, W* digits, uint64_t n, int high, int planes, const std::string& what);

}  // namespace sciz::mdr
