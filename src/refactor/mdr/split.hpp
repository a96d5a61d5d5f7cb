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

// The group's planes in the register-block layout (planes x plane_words(n) words, as bytes),
// from a segment of coding 2 (seg[0] == 2) and the digits held before the group (`known`: every
// higher group of the level applied). Every length is checked; `what` names the segment.
template <class W>
std::vector<uint8_t> decode_split(std::span<const uint8_t> seg, const W* known, uint64_t n, int high, int planes,
                                  const std::string& what);

}  // namespace sciz::mdr
