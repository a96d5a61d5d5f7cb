// The refactored file's header and index (docs/MDR.md section 4): written once by refactor,
// read and checked in full before a retrieval touches any segment.
#pragma once
#include <sciz/types.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "refactor/multilevel/multilevel.hpp"

namespace sciz::mdr {

inline constexpr char kMagic[4] = {'S', 'Z', 'M', 'D'};
// Version 2 adds segment coding 2 (the significance split, split.hpp) and moves each segment's
// checksum from the index to the segment's first 8 bytes (an index entry is its level and
// length; the group is the level's next): a retrieval reads the checksums of the segments it
// reads, not of all. Version 3 adds coding 3 (gap coding of sparse bit streams, gap_code.hpp),
// for a group or either stream of a split group; nothing else changed. Versions 1 and 2 are
// read as ever.
inline constexpr uint16_t kVersion = 3;
inline constexpr uint16_t kOldestVersion = 1;
inline constexpr uint8_t kExactLevel = 255;  // the segment of exactly stored values
inline constexpr uint32_t kFixedBytes = 12;  // magic, version, flags, header size

struct LevelInfo {
  uint64_t count = 0;
  int exponent = 0;
  int top = 0;           // digit positions in use; 0: the level is all zero
  int group_planes = 1;  // planes per segment
  std::vector<double> err;  // err[t]: max coefficient error with t groups read
  int groups() const { return static_cast<int>(err.size()) - 1; }
  // The first digit (from the top) of group g and its plane count.
  int group_high(int g) const { return top - 1 - g * group_planes; }
  int group_size(int g) const { return std::min(group_planes, top - g * group_planes); }
};

struct Segment {
  uint8_t level = 0;  // kExactLevel for the exact values
  uint8_t group = 0;  // stored in version 1; version 2: derived
  uint64_t length = 0;    // bytes in the file (version 2: the 8-byte checksum included)
  uint64_t checksum = 0;  // version 1: from the index; version 2: in the segment, unused here
  uint64_t offset = 0;    // from the file's start; derived, not stored
};
// Bytes a segment's checksum takes at its start in the file.
inline uint64_t inline_checksum_bytes(uint16_t version) { return version >= 2 ? 8 : 0; }

struct Header {
  uint16_t version = kVersion;
  DType dtype = DType::f32;
  std::vector<uint64_t> dims;
  int scale = 0;
  double value_min = 0, value_max = 0, max_abs = 0;
  uint64_t special = 0;
  std::vector<LevelInfo> levels;
  std::vector<Segment> segments;
  // Set by write_header / read_header:
  uint32_t header_size = 0;
  uint64_t checksum = 0;  // the header checksum: names the file in a saved state
};

// Serializes h, filling header_size, checksum and every segment's offset.
std::vector<uint8_t> write_header(Header& h);
// From the first kFixedBytes bytes: the header size (checked against the magic, the version
// and the file size).
uint32_t read_header_size(std::span<const uint8_t> fixed, uint64_t file_size);
// The whole header: every field checked (docs/MDR.md section 4), offsets derived, the
// segments required to end the file exactly.
Header read_header(std::span<const uint8_t> bytes, uint64_t file_size);

// A level error as the file stores it: err / 2^exponent as an f32, rounded up, so the value
// read back is never below the measured one. What writer and reader both use.
double stored_error(double err, int exponent);

// Bytes a level's group decodes to: its planes' words.
uint64_t group_raw_bytes(const LevelInfo& lv, int g);
// "level 3 group 2", "exact values": for messages.
std::string segment_name(const Segment& s);

// The geometry the dims imply (shared by writer and reader).
multilevel::Layout layout_for(const std::vector<uint64_t>& dims);

}  // namespace sciz::mdr
