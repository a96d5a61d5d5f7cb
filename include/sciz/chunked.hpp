// Streams a chunk at a time, for fields and streams larger than memory (the CLI's compress and
// decompress) and for random access. A stream is a header (field description and chunk index)
// followed by chunks, each an independently decodable cut of the field along its slowest axis
// (docs/FORMAT.md). Chunks may be compressed in any order and from several threads; the bytes
// are those compress() writes for the same field and options.
#pragma once
#include <sciz/sciz.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace sciz {

// The finite value range of a field (or of a piece of it; merge the pieces).
struct FieldRange {
  double min = 0, max = 0;
  uint64_t finite = 0, nonfinite = 0;
  void merge(const FieldRange& o);
};
// Range of `count` values at data (host memory), over the CPU's threads.
FieldRange field_range(const void* data, DType dtype, uint64_t count);

class ChunkedCompressor {
 public:
  // opt.eb.mode == rel needs the whole field's range; with abs, a range given here is written
  // to the header, else the range of the chunks as they are compressed.
  ChunkedCompressor(DType dtype, const Shape& shape, const CompressOptions& opt,
                    std::optional<FieldRange> range = std::nullopt);
  ~ChunkedCompressor();
  ChunkedCompressor(const ChunkedCompressor&) = delete;
  ChunkedCompressor& operator=(const ChunkedCompressor&) = delete;

  uint64_t chunk_count() const;
  uint64_t chunk_row0(uint64_t i) const;   // first row (slowest axis) of chunk i
  uint64_t chunk_rows(uint64_t i) const;
  uint64_t chunk_input_bytes(uint64_t i) const;
  double eb_abs() const;
  // Bytes of the stream header: chunk 0 starts there. Known before any chunk is compressed,
  // so a writer can leave room for it and write it last.
  uint64_t header_bytes() const;

  // Compresses chunk i from its rows (host memory, chunk_input_bytes(i) of them). Safe to call
  // from several threads for different i; each chunk once.
  std::vector<uint8_t> compress_chunk(uint64_t i, const void* rows);

  // The header, once every chunk has been compressed: its chunk index places the chunks back
  // to back after it, in order.
  std::vector<uint8_t> header() const;

 private:
  struct State;
  std::unique_ptr<State> st_;
};

class ChunkedDecompressor {
 public:
  // Bytes at the start of a stream that hold its header, from its first 12 bytes (the whole
  // stream for format versions 1 to 3, which have no chunk index).
  static uint64_t head_bytes(std::span<const uint8_t> first12, uint64_t stream_bytes);
  // Checks the header (magic, version, checksum, every field, the chunk index against
  // stream_bytes) and keeps what it needs from `head`.
  ChunkedDecompressor(std::span<const uint8_t> head, uint64_t stream_bytes);
  ~ChunkedDecompressor();
  ChunkedDecompressor(const ChunkedDecompressor&) = delete;
  ChunkedDecompressor& operator=(const ChunkedDecompressor&) = delete;

  DType dtype() const;
  const Shape& shape() const;
  uint16_t version() const;
  uint64_t chunk_count() const;
  ChunkInfo chunk(uint64_t i) const;  // pipeline is empty until the chunk has been read
  uint64_t row_bytes() const;          // bytes of one row of the slowest axis
  uint64_t chunk_of_row(uint64_t row) const;

  // Decodes chunk i from its bytes (the stream's [offset, offset + length)) into out, which
  // holds its rows exactly (chunk(i).rows x row_bytes()). Checks the chunk's header and every
  // section checksum first. Safe from several threads for different i.
  void decompress_chunk(uint64_t i, std::span<const uint8_t> bytes, void* out, uint64_t out_bytes,
                        Device device = Device::auto_select, bool out_on_device = false, Stream s = nullptr);
  // Only checks chunk i (header and section checksums) and returns its description.
  ChunkInfo verify_chunk(uint64_t i, std::span<const uint8_t> bytes) const;

  // The header's description: StreamInfo without params, sections or chunk pipelines, which
  // come from the chunks (describe_chunk).
  StreamInfo summary() const;
  struct ChunkDetail {
    ChunkInfo info;
    std::vector<std::pair<std::string, std::string>> params;  // decoded, for display
    std::vector<SectionInfo> sections;                        // offsets in the stream
  };
  // verify_chunk with the chunk's params and sections described.
  ChunkDetail describe_chunk(uint64_t i, std::span<const uint8_t> bytes) const;

 private:
  struct State;
  std::unique_ptr<State> st_;
};

}  // namespace sciz
