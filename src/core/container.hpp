// The sciz stream: magic, format version, field header, chunk index, and chunks of
// checksummed sections. docs/FORMAT.md is the normative description; this is its one
// implementation.
#pragma once
#include <sciz/types.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/chunking.hpp"

namespace sciz {

inline constexpr uint8_t kMagic[4] = {'S', 'C', 'I', 'Z'};
// Version 2 added lorenzo's huffman, rle and rle+huffman stages (the container unchanged);
// version 3 made section checksums chunked digests (section_checksum); version 4 cuts the
// field into chunks along its slowest axis, each an independently decodable set of sections
// with its own pipeline and params, and digests 16 KiB blocks; version 5 (the container of 4)
// records stage lists in lorenzo's params and writes szx streams in its layout 2 (docs/SZX.md),
// which its params name. Versions 1 to 4 still decode.
inline constexpr uint16_t kFormatVersion = 5;
inline constexpr uint16_t kOldestReadableVersion = 1;
inline constexpr uint32_t kMaxSections = 64;

// What a pipeline decodes from: the field's description, with (from version 4) the shape,
// pipeline and params of the one chunk being decoded.
struct Header {
  uint16_t version = kFormatVersion;
  DType dtype = DType::f32;
  Shape shape;
  EbMode eb_mode = EbMode::abs;
  double eb_value = 0;    // as the user gave it
  double eb_abs = 0;      // resolved absolute bound every point honours
  double value_min = 0;   // over finite values of the whole field; NaN when there are none
  double value_max = 0;
  uint64_t nonfinite = 0; // NaN/Inf count of the whole field, carried exactly
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
// chunked digest (checksum.hpp) of 1 MiB blocks in version 3 and of 16 KiB blocks from 4.
uint64_t section_checksum(uint16_t version, std::span<const uint8_t> bytes);
size_t digest_block(uint16_t version);

// ---- writing (format 4) ----

// One encoded chunk: the pipeline that encoded it (the requested one, or "raw" where that
// would have expanded the chunk), its params and sections.
struct ChunkOut {
  std::string pipeline;
  std::vector<uint8_t> params;
  std::vector<SectionIn> sections;
};

// Sections start at multiples of 16 bytes from the stream's start (zero bytes between), and a
// chunk ends with 32 to 47 zero bytes: GPU decoders read sections in place with 16-byte vector
// loads and copy whole tiles whose last one may reach a few bytes past its section's end.
inline constexpr uint64_t kSectionAlign = 16, kChunkTail = 32;
inline uint64_t align16(uint64_t x) { return (x + kSectionAlign - 1) & ~(kSectionAlign - 1); }

// Where a chunk's sections go (offsets from the chunk's first byte) and its length, for a
// chunk header of head_bytes and sections of these lengths.
struct ChunkLayout {
  std::vector<uint64_t> offsets;
  uint64_t bytes = 0;
};
ChunkLayout chunk_layout(uint64_t head_bytes, const std::vector<uint64_t>& lengths);

// Bytes of the chunk header (name, params, section table, its checksum) for `sections`
// sections.
uint64_t chunk_header_bytes(const std::string& pipeline, size_t params_bytes, size_t sections);
// Bytes of a raw chunk of `raw` bytes of values: the most any chunk of them takes.
uint64_t raw_chunk_bytes(uint64_t raw);
// The chunk header for sections of the given ids, lengths and checksums.
std::vector<uint8_t> write_chunk_header(const std::string& pipeline, const std::vector<uint8_t>& params,
                                        const std::vector<uint32_t>& ids, const std::vector<uint64_t>& lengths,
                                        const std::vector<uint64_t>& checksums);
uint64_t chunk_bytes(const ChunkOut& c);
// Writes the chunk (header, then the sections back to back) to dst[0, chunk_bytes(c)).
void write_chunk(const ChunkOut& c, uint8_t* dst);

struct ChunkEntry {
  uint64_t offset = 0, length = 0;  // from the stream's first byte
  uint32_t header_bytes = 0;         // the chunk header's share of length
};

// Bytes of the stream header (field header and chunk index) of a field of `ndims` dims, a
// pipeline name of `name_bytes` and `chunks` chunks (its `header size`); chunk 0 starts at
// align16 of it.
uint64_t stream_header_bytes(size_t ndims, size_t name_bytes, uint64_t chunks);
// h: the field (h.params unused: every chunk names its own); entries: one per chunk of plan.
// Returns the header padded with zeros to where chunk 0 starts (align16 of its size).
std::vector<uint8_t> write_stream_header(const Header& h, const ChunkPlan& plan, const std::vector<ChunkEntry>& entries);

// Header + chunks, in one allocation (advised huge pages before its first touch).
std::vector<uint8_t> write_stream(const Header& h, const ChunkPlan& plan, const std::vector<ChunkOut>& chunks);

// ---- reading (formats 1 to 4) ----

struct ParsedChunk {
  Header header;  // the field's, with this chunk's shape, pipeline and params
  std::vector<SectionView> sections;
  uint64_t row0 = 0, rows = 0;      // rows [row0, row0 + rows) of the slowest axis
  uint64_t offset = 0, length = 0;  // the chunk's bytes in the stream
  uint32_t head_bytes = 0;          // its header's share of them (from the chunk index)
  bool verified = false;            // its header and section checksums were checked
  const SectionView& section(uint32_t id, const char* name) const;  // throws if absent
  const SectionView* find(uint32_t id) const;
};

struct ParsedStream {
  Header header;  // the field; for versions 1 to 3 also the only chunk's pipeline and params
  ChunkPlan plan;
  std::vector<ParsedChunk> chunks;  // one for versions 1 to 3
  uint64_t header_bytes = 0;
};

// Reads what lies before the chunks: checks magic, version, the header's length and checksum,
// every field of the header and that the chunk index tiles the stream exactly. `stream_bytes`
// is the whole stream's size; `head` must hold at least the header (head_needed() tells how
// much, from its first 12 bytes). For versions 1 to 3 the head must be the whole stream.
ParsedStream read_stream_head(std::span<const uint8_t> head, uint64_t stream_bytes);
uint64_t head_needed(std::span<const uint8_t> first12, uint64_t stream_bytes);

// A chunk's header parsed from its bytes alone (the first head_bytes of the chunk): what the
// GPU path reads back to the host while the sections stay in device memory. Every section
// entry is checked against the chunk's length; offsets are from the chunk's first byte.
struct SectionEntry {
  uint32_t id;
  uint64_t offset, length, checksum;
};
struct ChunkHead {
  std::string pipeline;
  std::vector<uint8_t> params;
  std::vector<SectionEntry> sections;
};
ChunkHead parse_chunk_head(const ParsedStream& ps, uint64_t i, std::span<const uint8_t> head_bytes);
// The chunk's decode header (field header with the chunk's shape, pipeline and params).
Header chunk_header(const ParsedStream& ps, uint64_t i, const ChunkHead& head);

// Parses chunk i of ps from its bytes (`bytes` = the stream's [offset, offset + length) of
// that chunk), checking its header checksum, every section's bounds and (verify_sections)
// checksum. Fills ps.chunks[i].
void read_chunk(ParsedStream& ps, uint64_t i, std::span<const uint8_t> bytes, bool verify_sections = true);
// The same without touching ps (safe from several threads): the parsed chunk.
ParsedChunk parse_chunk(const ParsedStream& ps, uint64_t i, std::span<const uint8_t> bytes, bool verify_sections = true);

// The whole stream: head and every chunk (or, with rows, only the chunks that hold rows
// [rows.first, rows.second) of the slowest axis; the others stay unverified).
ParsedStream read_stream(std::span<const uint8_t> stream, bool verify_sections = true);
ParsedStream read_stream_rows(std::span<const uint8_t> stream, uint64_t row_begin, uint64_t row_end);

}  // namespace sciz
