// The sciz stream: magic, format version, header, section table, checksummed sections.
// docs/FORMAT.md is the normative description; this is its one implementation.
#pragma once
#include <sciz/types.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sciz {

inline constexpr uint8_t kMagic[4] = {'S', 'C', 'I', 'Z'};
// Version 2 added lorenzo's huffman, rle and rle+huffman stages (the container unchanged);
// version 3 made section checksums chunked digests (section_checksum). Versions 1 and 2 still
// decode.
inline constexpr uint16_t kFormatVersion = 3;
inline constexpr uint16_t kOldestReadableVersion = 1;
inline constexpr uint32_t kMaxSections = 64;

struct Header {
  uint16_t version = kFormatVersion;
  DType dtype = DType::f32;
  Shape shape;
  EbMode eb_mode = EbMode::abs;
  double eb_value = 0;    // as the user gave it
  double eb_abs = 0;      // resolved absolute bound every point honours
  double value_min = 0;   // over finite values; NaN when there are none
  double value_max = 0;
  uint64_t nonfinite = 0; // NaN/Inf count, carried exactly
  std::string pipeline;   // registry name, e.g. "lorenzo"
  std::vector<uint8_t> params;  // pipeline-specific, little-endian, see docs/FORMAT.md
};

struct SectionIn {  // what a pipeline hands the writer
  uint32_t id;
  std::vector<uint8_t> bytes;
};

struct SectionView {  // what the reader hands a pipeline: validated and checksummed
  uint32_t id;
  std::span<const uint8_t> bytes;
  uint64_t checksum;  // as stored in the section table (and verified)
};

// A section's checksum as the given format version defines it: xxh64 up to version 2, the
// chunked digest (checksum.hpp) from version 3.
uint64_t section_checksum(uint16_t version, std::span<const uint8_t> bytes);

// Consumes the sections: when a large one has spare capacity for the header and the other
// sections (see stream_slack), the stream is built inside that vector (its bytes moved up to
// their place, the rest copied around them) instead of copied into fresh memory, whose page
// faults cost more than the copy itself on big streams.
std::vector<uint8_t> write_stream(const Header& h, std::vector<SectionIn> sections);

// Capacity a stage leaves after a large blob, so the container can build the stream in place.
inline size_t stream_slack(size_t blob_bytes) { return blob_bytes / 8 + (size_t{1} << 20); }

struct ParsedStream {
  Header header;
  std::vector<SectionView> sections;
  const SectionView& section(uint32_t id, const char* name) const;  // throws if absent
  const SectionView* find(uint32_t id) const;
};

// Checks magic, version, every length and offset, the header checksum and (unless
// verify_sections is false, for `info` on a damaged file) every section checksum.
ParsedStream read_stream(std::span<const uint8_t> stream, bool verify_sections = true);

}  // namespace sciz
