// What the two refactoring twins share (refactor_cpu.cpp, refactor_cuda.cu), so that they
// cannot drift: the checks of the options, the header's ranges, each level's entry, the coding
// of every group of bitplanes, the greedy order and the file. The twins differ only in where
// the field is decomposed, quantized, measured and cut into planes; everything written from
// those results is computed here, on the host, by the same code.
#pragma once
#include <sciz/mdr.hpp>

#include <cstdint>
#include <vector>

#include "refactor/bitplanes/bitplanes.hpp"
#include "refactor/mdr/format.hpp"
#include "refactor/mdr/refactor_math.hpp"

namespace sciz::mdr {

// Refuses a group size outside the dtype's digits and a ratio threshold that is not a number.
template <class T>
void check_refactor_options(const RefactorOptions& opt);

// Planes per segment for a level of `count` coefficients (the option, or more on small levels).
int group_planes_for(uint64_t count, uint32_t opt, int digits);

// The header's fields known before the levels: dtype, dims, scale, ranges (st canonical).
template <class T>
Header header_for(const std::vector<uint64_t>& dims, const Stats& st);
// The level-0 value of a special point: mid-range of the values the decomposition sees.
double fill_value(const Stats& st);

// A level's file entry from its digits' summary and its measured error table (raw, as
// level_errors_* returns it; stored here as the file will say it).
template <class W>
LevelInfo level_entry(uint64_t count, const bitplanes::Level<W>& q, int group_planes, std::vector<double> err);

// A level as the group coder reads it, in host memory.
template <class W>
struct LevelDigits {
  const LevelInfo* info;
  const W* nb;              // count digit words
  const uint32_t* planes;   // top x plane_words(count) words, digit top-1 first
};
// groups[l][g]: the segment of level l, group g, the smaller of the plain planes coded by
// encode_group and the significance split. Every group of every level is an OpenMP task, and
// so are the pieces of its split, every candidate coder's sizing and its two streams' writing:
// the finest level's large groups spread over the team instead of setting the phase's time.
using CodedLevels = std::vector<std::vector<std::vector<uint8_t>>>;
template <class W>
CodedLevels code_groups(const std::vector<LevelDigits<W>>& levels, const RefactorOptions& opt);

// The file: h (its levels set) with the index, then the exact values (when h.special), then
// every group in greedy order, each behind its checksum.
std::vector<uint8_t> write_file(Header& h, const std::vector<uint8_t>& exact, const CodedLevels& groups);

}  // namespace sciz::mdr
