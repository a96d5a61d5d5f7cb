#include "core/container.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/byteio.hpp"
#include "core/checksum.hpp"
#include "core/omp_threads.hpp"
#include "core/host_memory.hpp"

namespace sciz {

namespace {
constexpr size_t kSectionEntryBytes = 4 + 4 + 8 + 8 + 8;
constexpr size_t kChunkEntryBytes = 8 + 8 + 4 + 4;
// magic, version, flags, header size: what head_needed() reads.
constexpr size_t kPrefixBytes = 12;

std::string num(uint64_t v) { return std::to_string(v); }

// The field description shared by every version: dtype through the non-finite count.
void put_field(ByteWriter& w, const Header& h) {
  w.put<uint8_t>(static_cast<uint8_t>(h.dtype));
  w.put<uint8_t>(static_cast<uint8_t>(h.shape.dims.size()));
  w.put<uint8_t>(static_cast<uint8_t>(h.eb_mode));
  w.put<uint8_t>(0);
  for (auto d : h.shape.dims) w.put<uint64_t>(d);
  w.put<double>(h.eb_value);
  w.put<double>(h.eb_abs);
  w.put<double>(h.value_min);
  w.put<double>(h.value_max);
  w.put<uint64_t>(h.nonfinite);
}

void get_field(ByteReader& hr, Header& h) {
  const auto dt = hr.get<uint8_t>("dtype");
  SCIZ_REQUIRE(dt == 1 || dt == 2, Status::corrupt_stream, "unknown dtype code " + num(dt));
  h.dtype = static_cast<DType>(dt);
  const auto nd = hr.get<uint8_t>("ndims");
  SCIZ_REQUIRE(nd >= 1 && nd <= 4, Status::corrupt_stream, "ndims " + num(nd) + " out of range 1..4");
  const auto mode = hr.get<uint8_t>("eb mode");
  SCIZ_REQUIRE(mode <= 1, Status::corrupt_stream, "unknown error-bound mode " + num(mode));
  h.eb_mode = static_cast<EbMode>(mode);
  hr.get<uint8_t>("reserved");
  h.shape.dims.clear();
  for (int i = 0; i < nd; ++i) h.shape.dims.push_back(hr.get<uint64_t>("dims"));
  try {
    h.shape.validate();
  } catch (const Error& e) {
    fail(Status::corrupt_stream, std::string("header: ") + e.what());
  }
  h.eb_value = hr.get<double>("eb value");
  h.eb_abs = hr.get<double>("resolved eb");
  SCIZ_REQUIRE(std::isfinite(h.eb_abs) && h.eb_abs > 0, Status::corrupt_stream,
               "resolved error bound " + std::to_string(h.eb_abs) + " is not positive");
  h.value_min = hr.get<double>("value min");
  h.value_max = hr.get<double>("value max");
  h.nonfinite = hr.get<uint64_t>("non-finite count");
}

std::string get_name(ByteReader& r) {
  const auto len = r.get<uint8_t>("pipeline name length");
  const uint8_t* p = r.take(len, "pipeline name");
  return std::string(reinterpret_cast<const char*>(p), len);
}

// A section table of `count` entries whose offsets count from the start of `total` bytes (the
// chunk, or the stream for versions 1 to 3), sections lying in [first, total) back to back in
// table order up to `total` exactly.
std::vector<SectionEntry> get_entries(ByteReader& r, uint32_t count, uint64_t total, uint64_t first,
                                      const std::string& where, bool aligned) {
  SCIZ_REQUIRE(count <= kMaxSections, Status::corrupt_stream,
               where + "section count " + num(count) + " exceeds " + num(kMaxSections));
  std::vector<SectionEntry> out;
  uint64_t prev_end = first;
  for (uint32_t i = 0; i < count; ++i) {
    SectionEntry e;
    e.id = r.get<uint32_t>("section id");
    r.get<uint32_t>("section reserved");
    e.offset = r.get<uint64_t>("section offset");
    e.length = r.get<uint64_t>("section length");
    e.checksum = r.get<uint64_t>("section checksum");
    SCIZ_REQUIRE(e.offset >= prev_end && e.offset <= total && e.length <= total - e.offset &&
                     (!aligned || e.offset == align16(prev_end)),
                 Status::corrupt_stream,
                 where + "section " + num(e.id) + " [offset " + num(e.offset) + ", length " + num(e.length) +
                     "] lies outside the " + num(total) + " bytes, overlaps another or is not where the layout puts it");
    for (const auto& s : out)
      SCIZ_REQUIRE(s.id != e.id, Status::corrupt_stream, where + "section id " + num(e.id) + " appears twice");
    out.push_back(e);
    prev_end = e.offset + e.length;
  }
  const uint64_t want = aligned ? align16(prev_end) + kChunkTail : prev_end;
  SCIZ_REQUIRE(want == total, Status::corrupt_stream,
               where + "ends " + std::to_string(static_cast<int64_t>(total - want)) +
                   " bytes away from where its last section puts the end (truncated or concatenated?)");
  return out;
}

std::vector<SectionView> views_of(const std::vector<SectionEntry>& entries, std::span<const uint8_t> bytes,
                                  uint16_t version, bool verify, const std::string& where) {
  std::vector<SectionView> out;
  for (const auto& e : entries) {
    const auto b = bytes.subspan(e.offset, e.length);
    if (verify)
      SCIZ_REQUIRE(section_checksum(version, b) == e.checksum, Status::corrupt_stream,
                   where + "section " + num(e.id) + " checksum mismatch: stream is corrupted");
    out.push_back({e.id, b, e.checksum});
  }
  return out;
}

// Versions 1 to 3: one header with the pipeline, params and section table; sections fill the
// rest of the stream. Read as a stream of one chunk.
ParsedStream read_v1_to_v3(std::span<const uint8_t> stream, uint32_t header_size, uint16_t version, bool verify) {
  ParsedStream ps;
  Header& h = ps.header;
  h.version = version;
  ByteReader hr(stream.data(), header_size - 8, "sciz header");
  hr.take(kPrefixBytes, "prefix");
  get_field(hr, h);
  h.pipeline = get_name(hr);
  const auto params_len = hr.get<uint32_t>("params length");
  const uint8_t* params = hr.take(params_len, "pipeline params");
  h.params.assign(params, params + params_len);
  const auto nsec = hr.get<uint32_t>("section count");
  ParsedChunk c;
  c.sections = views_of(get_entries(hr, nsec, stream.size(), header_size, "", false), stream, version, verify, "");
  SCIZ_REQUIRE(hr.remaining() == 0, Status::corrupt_stream, "header has " + num(hr.remaining()) + " unexplained bytes");
  c.header = h;
  c.rows = h.shape.dims[0];
  c.offset = header_size;
  c.length = stream.size() - header_size;
  c.verified = verify;
  ps.plan = stated_plan(h.shape, h.shape.dims[0], 1);
  ps.header_bytes = header_size;
  ps.chunks.push_back(std::move(c));
  return ps;
}

uint32_t checked_header_size(std::span<const uint8_t> head, uint64_t stream_bytes, uint16_t* version) {
  ByteReader r(head.data(), head.size(), "sciz stream");
  const uint8_t* magic = r.take(4, "magic");
  if (std::memcmp(magic, kMagic, 4) != 0) fail(Status::corrupt_stream, "not a sciz stream (bad magic bytes)");
  const uint16_t v = r.get<uint16_t>("format version");
  if (v < kOldestReadableVersion || v > kFormatVersion)
    fail(Status::unsupported, "stream format version " + num(v) + " is not supported by this build (reads versions " +
                                  num(kOldestReadableVersion) + " to " + num(kFormatVersion) + ")");
  const auto flags = r.get<uint16_t>("flags");
  SCIZ_REQUIRE(flags == 0, Status::unsupported, "unknown stream flags " + num(flags));
  const uint32_t header_size = r.get<uint32_t>("header size");
  SCIZ_REQUIRE(header_size <= stream_bytes, Status::corrupt_stream,
               "header size " + num(header_size) + " exceeds stream size " + num(stream_bytes));
  SCIZ_REQUIRE(header_size >= kPrefixBytes + 8, Status::corrupt_stream, "header size " + num(header_size) + " too small");
  *version = v;
  return header_size;
}

}  // namespace

size_t digest_block(uint16_t version) { return version >= 4 ? kDigestBlockV4 : kChecksumChunk; }

uint64_t section_checksum(uint16_t version, std::span<const uint8_t> bytes) {
  return version >= 3 ? chunked_xxh64(bytes.data(), bytes.size(), digest_block(version))
                      : xxh64(bytes.data(), bytes.size());
}

// ---- writing ----

uint64_t chunk_header_bytes(const std::string& pipeline, size_t params_bytes, size_t sections) {
  return 1 + pipeline.size() + 4 + params_bytes + 4 + sections * kSectionEntryBytes + 8;
}

ChunkLayout chunk_layout(uint64_t head_bytes, const std::vector<uint64_t>& lengths) {
  ChunkLayout l;
  uint64_t at = head_bytes;
  for (uint64_t len : lengths) {
    at = align16(at);
    l.offsets.push_back(at);
    at += len;
  }
  l.bytes = align16(at) + kChunkTail;
  return l;
}

uint64_t raw_chunk_bytes(uint64_t raw) { return chunk_layout(chunk_header_bytes("raw", 0, 1), {raw}).bytes; }

std::vector<uint8_t> write_chunk_header(const std::string& pipeline, const std::vector<uint8_t>& params,
                                        const std::vector<uint32_t>& ids, const std::vector<uint64_t>& lengths,
                                        const std::vector<uint64_t>& checksums) {
  SCIZ_REQUIRE(pipeline.size() < 256, Status::internal, "pipeline name too long");
  SCIZ_REQUIRE(ids.size() <= kMaxSections, Status::internal, "too many sections");
  ByteWriter w;
  w.put<uint8_t>(static_cast<uint8_t>(pipeline.size()));
  w.bytes(pipeline.data(), pipeline.size());
  w.put<uint32_t>(static_cast<uint32_t>(params.size()));
  w.bytes(params.data(), params.size());
  w.put<uint32_t>(static_cast<uint32_t>(ids.size()));
  const ChunkLayout l = chunk_layout(chunk_header_bytes(pipeline, params.size(), ids.size()), lengths);
  for (size_t i = 0; i < ids.size(); ++i) {
    w.put<uint32_t>(ids[i]);
    w.put<uint32_t>(0);
    w.put<uint64_t>(l.offsets[i]);
    w.put<uint64_t>(lengths[i]);
    w.put<uint64_t>(checksums[i]);
  }
  w.put<uint64_t>(xxh64(w.buffer().data(), w.size()));
  return std::move(w.buffer());
}

namespace {
std::vector<uint64_t> lengths_of(const ChunkOut& c) {
  std::vector<uint64_t> v;
  for (const auto& s : c.sections) v.push_back(s.bytes.size());
  return v;
}
}  // namespace

uint64_t chunk_bytes(const ChunkOut& c) {
  return chunk_layout(chunk_header_bytes(c.pipeline, c.params.size(), c.sections.size()), lengths_of(c)).bytes;
}

void write_chunk(const ChunkOut& c, uint8_t* dst) {
  std::vector<uint32_t> ids;
  std::vector<uint64_t> sums;
  for (const auto& s : c.sections) {
    ids.push_back(s.id);
    sums.push_back(section_checksum(kFormatVersion, s.bytes));
  }
  const std::vector<uint64_t> lengths = lengths_of(c);
  const auto head = write_chunk_header(c.pipeline, c.params, ids, lengths, sums);
  const ChunkLayout l = chunk_layout(head.size(), lengths);
  std::memset(dst, 0, l.bytes);  // the padding; a chunk is small next to what encoded it
  std::memcpy(dst, head.data(), head.size());
  for (size_t i = 0; i < c.sections.size(); ++i)
    if (lengths[i]) std::memcpy(dst + l.offsets[i], c.sections[i].bytes.data(), lengths[i]);
}

uint64_t stream_header_bytes(size_t ndims, size_t name_bytes, uint64_t chunks) {
  return kPrefixBytes + 4 + 8 * ndims + 5 * 8 + 1 + name_bytes + 16 + chunks * kChunkEntryBytes + 8;
}

std::vector<uint8_t> write_stream_header(const Header& h, const ChunkPlan& plan, const std::vector<ChunkEntry>& entries) {
  h.shape.validate();
  SCIZ_REQUIRE(h.pipeline.size() < 256, Status::internal, "pipeline name too long");
  SCIZ_REQUIRE(entries.size() == plan.count, Status::internal, "chunk index does not match the plan");
  const uint64_t size = stream_header_bytes(h.shape.dims.size(), h.pipeline.size(), plan.count);
  SCIZ_REQUIRE(size < (uint64_t(1) << 32), Status::invalid_argument,
               "too many chunks (" + num(plan.count) + ") for one stream header: raise the chunk size");
  ByteWriter w;
  w.bytes(kMagic, 4);
  w.put<uint16_t>(kFormatVersion);
  w.put<uint16_t>(0);  // flags
  w.put<uint32_t>(static_cast<uint32_t>(size));
  put_field(w, h);
  w.put<uint8_t>(static_cast<uint8_t>(h.pipeline.size()));
  w.bytes(h.pipeline.data(), h.pipeline.size());
  w.put<uint64_t>(plan.rows_per_chunk);
  w.put<uint64_t>(plan.count);
  for (const auto& e : entries) {
    w.put<uint64_t>(e.offset);
    w.put<uint64_t>(e.length);
    w.put<uint32_t>(e.header_bytes);
    w.put<uint32_t>(0);
  }
  w.put<uint64_t>(xxh64(w.buffer().data(), w.size()));
  SCIZ_REQUIRE(w.size() == size, Status::internal, "stream header size mismatch");
  w.buffer().resize(align16(size), 0);  // chunk 0 starts on a 16-byte boundary
  return std::move(w.buffer());
}

std::vector<uint8_t> write_stream(const Header& h, const ChunkPlan& plan, const std::vector<ChunkOut>& chunks) {
  std::vector<ChunkEntry> entries(chunks.size());
  uint64_t at = align16(stream_header_bytes(h.shape.dims.size(), h.pipeline.size(), plan.count));
  for (size_t i = 0; i < chunks.size(); ++i) {
    entries[i].offset = at;
    entries[i].length = chunk_bytes(chunks[i]);
    entries[i].header_bytes =
        static_cast<uint32_t>(chunk_header_bytes(chunks[i].pipeline, chunks[i].params.size(), chunks[i].sections.size()));
    at += entries[i].length;
  }
  const auto head = write_stream_header(h, plan, entries);
  std::vector<uint8_t> out;
  reserve_large(out, at);  // one allocation, huge pages before the first touch
  out.resize(at);
  std::memcpy(out.data(), head.data(), head.size());  // the padding after it: zeros from resize
  const int64_t n = static_cast<int64_t>(chunks.size());
  const int nt = thread_count(static_cast<uint64_t>(n), at);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
  for (int64_t i = 0; i < n; ++i) write_chunk(chunks[i], out.data() + entries[i].offset);
  return out;
}

// ---- reading ----

const SectionView* ParsedChunk::find(uint32_t id) const {
  for (const auto& s : sections)
    if (s.id == id) return &s;
  return nullptr;
}

const SectionView& ParsedChunk::section(uint32_t id, const char* name) const {
  const SectionView* s = find(id);
  if (!s) fail(Status::corrupt_stream, std::string("stream lacks its '") + name + "' section (id " + num(id) + ")");
  return *s;
}

uint64_t head_needed(std::span<const uint8_t> first12, uint64_t stream_bytes) {
  uint16_t version = 0;
  const uint32_t size = checked_header_size(first12, stream_bytes, &version);
  return version >= 4 ? std::min<uint64_t>(align16(size), stream_bytes) : stream_bytes;
}

ParsedStream read_stream_head(std::span<const uint8_t> head, uint64_t stream_bytes) {
  uint16_t version = 0;
  const uint32_t header_size = checked_header_size(head, stream_bytes, &version);
  SCIZ_REQUIRE(head.size() >= (version >= 4 ? header_size : stream_bytes), Status::internal,
               "read_stream_head: the head holds too few bytes");
  // Verify the header checksum before trusting any field after the size.
  uint64_t stored;
  std::memcpy(&stored, head.data() + header_size - 8, 8);
  SCIZ_REQUIRE(xxh64(head.data(), header_size - 8) == stored, Status::corrupt_stream,
               "header checksum mismatch: stream is corrupted");
  if (version < 4) return read_v1_to_v3(head.first(stream_bytes), header_size, version, false);

  ParsedStream ps;
  Header& h = ps.header;
  h.version = version;
  ps.header_bytes = header_size;
  ByteReader hr(head.data(), header_size - 8, "sciz header");
  hr.take(kPrefixBytes, "prefix");
  get_field(hr, h);
  h.pipeline = get_name(hr);
  const uint64_t rows_per_chunk = hr.get<uint64_t>("rows per chunk");
  const uint64_t count = hr.get<uint64_t>("chunk count");
  ps.plan = stated_plan(h.shape, rows_per_chunk, count);
  SCIZ_REQUIRE(hr.remaining() == count * kChunkEntryBytes, Status::corrupt_stream,
               "header: chunk index of " + num(count) + " entries does not fill the " + num(hr.remaining()) +
                   " bytes left for it");
  SCIZ_REQUIRE(head.size() >= align16(header_size) && align16(header_size) <= stream_bytes, Status::corrupt_stream,
               "stream ends inside its header's padding");
  for (uint64_t i = header_size; i < align16(header_size); ++i)
    SCIZ_REQUIRE(head[i] == 0, Status::corrupt_stream, "header padding byte " + num(i) + " is not zero: stream is corrupted");
  ps.chunks.resize(count);
  uint64_t at = align16(header_size);
  for (uint64_t i = 0; i < count; ++i) {
    ParsedChunk& c = ps.chunks[i];
    c.offset = hr.get<uint64_t>("chunk offset");
    c.length = hr.get<uint64_t>("chunk length");
    const uint32_t hb = hr.get<uint32_t>("chunk header size");
    hr.get<uint32_t>("chunk reserved");
    SCIZ_REQUIRE(c.offset == at && at <= stream_bytes && c.length <= stream_bytes - at && hb <= c.length &&
                     hb >= 1 + 4 + 4 + 8 && c.length % kSectionAlign == 0,
                 Status::corrupt_stream,
                 "chunk index: chunk " + num(i) + " [offset " + num(c.offset) + ", length " + num(c.length) +
                     ", header " + num(hb) + "] does not follow chunk " + num(i) + " - 1 inside the stream of " +
                     num(stream_bytes) + " bytes");
    c.row0 = ps.plan.row0(i);
    c.rows = ps.plan.rows(i);
    c.head_bytes = hb;
    at += c.length;
  }
  SCIZ_REQUIRE(at == stream_bytes, Status::corrupt_stream,
               "chunk index covers " + num(at) + " bytes, the stream has " + num(stream_bytes) +
                   " (truncated or concatenated?)");
  return ps;
}

void read_chunk(ParsedStream& ps, uint64_t i, std::span<const uint8_t> bytes, bool verify_sections) {
  ps.chunks.at(i) = parse_chunk(ps, i, bytes, verify_sections);
}

ParsedChunk parse_chunk(const ParsedStream& ps, uint64_t i, std::span<const uint8_t> bytes, bool verify_sections) {
  SCIZ_REQUIRE(i < ps.chunks.size(), Status::internal, "read_chunk: no chunk " + num(i));
  ParsedChunk c = ps.chunks[i];
  const Header& h = ps.header;
  if (h.version < 4) {  // the head was the whole stream and named the sections already
    if (verify_sections && !c.verified) {
      for (const auto& s : c.sections)
        SCIZ_REQUIRE(section_checksum(h.version, s.bytes) == s.checksum, Status::corrupt_stream,
                     "section " + num(s.id) + " checksum mismatch: stream is corrupted");
      c.verified = true;
    }
    return c;
  }
  SCIZ_REQUIRE(bytes.size() == c.length, Status::internal, "read_chunk: chunk bytes do not match the index");
  const ChunkHead head = parse_chunk_head(ps, i, bytes.first(c.head_bytes));
  c.sections = views_of(head.sections, bytes, h.version, verify_sections, "chunk " + num(i) + ": ");
  if (verify_sections) {  // padding is outside every checksum: it must be zero
    uint64_t end = c.head_bytes;
    auto zeros = [&](uint64_t a, uint64_t b) {
      for (uint64_t k = a; k < b; ++k)
        SCIZ_REQUIRE(bytes[k] == 0, Status::corrupt_stream,
                     "chunk " + num(i) + ": padding byte " + num(k) + " is not zero: stream is corrupted");
    };
    for (const auto& e : head.sections) {
      zeros(end, e.offset);
      end = e.offset + e.length;
    }
    zeros(end, bytes.size());
  }
  c.header = chunk_header(ps, i, head);
  c.verified = verify_sections;
  return c;
}

ChunkHead parse_chunk_head(const ParsedStream& ps, uint64_t i, std::span<const uint8_t> head_bytes) {
  SCIZ_REQUIRE(i < ps.chunks.size() && ps.header.version >= 4, Status::internal, "parse_chunk_head: no chunk " + num(i));
  const ParsedChunk& c = ps.chunks[i];
  const uint64_t hb = c.head_bytes;  // checked against the chunk's length by read_stream_head
  SCIZ_REQUIRE(head_bytes.size() >= hb, Status::internal, "parse_chunk_head: too few bytes");
  const std::string where = "chunk " + num(i) + ": ";
  uint64_t stored;
  std::memcpy(&stored, head_bytes.data() + hb - 8, 8);
  SCIZ_REQUIRE(xxh64(head_bytes.data(), hb - 8) == stored, Status::corrupt_stream,
               where + "header checksum mismatch: stream is corrupted");
  ByteReader r(head_bytes.data(), hb - 8, "sciz chunk " + num(i) + " header");
  ChunkHead head;
  head.pipeline = get_name(r);
  const auto params_len = r.get<uint32_t>("params length");
  const uint8_t* params = r.take(params_len, "pipeline params");
  head.params.assign(params, params + params_len);
  const auto nsec = r.get<uint32_t>("section count");
  head.sections = get_entries(r, nsec, c.length, hb, where, true);
  SCIZ_REQUIRE(r.remaining() == 0, Status::corrupt_stream, where + "header has " + num(r.remaining()) + " unexplained bytes");
  return head;
}

Header chunk_header(const ParsedStream& ps, uint64_t i, const ChunkHead& head) {
  Header h = ps.header;
  h.shape = ps.plan.chunk_shape(ps.header.shape, i);
  h.pipeline = head.pipeline;
  h.params = head.params;
  return h;
}

namespace {
// Chunks [first, end) of the stream whose head ps holds (versions 1 to 3: their one chunk).
void read_chunks(ParsedStream& ps, std::span<const uint8_t> stream, uint64_t first, uint64_t end, bool verify) {
  if (ps.header.version < 4) return read_chunk(ps, 0, stream, verify);
  for (uint64_t i = first; i < end; ++i)
    read_chunk(ps, i, stream.subspan(ps.chunks[i].offset, ps.chunks[i].length), verify);
}
}  // namespace

ParsedStream read_stream(std::span<const uint8_t> stream, bool verify_sections) {
  ParsedStream ps = read_stream_head(stream, stream.size());
  read_chunks(ps, stream, 0, ps.chunks.size(), verify_sections);
  return ps;
}

ParsedStream read_stream_rows(std::span<const uint8_t> stream, uint64_t row_begin, uint64_t row_end) {
  ParsedStream ps = read_stream_head(stream, stream.size());
  uint64_t a = 0, b = 1;
  if (ps.header.version >= 4) {
    SCIZ_REQUIRE(row_begin < row_end && row_end <= ps.plan.rows_total, Status::invalid_argument,
                 "rows " + num(row_begin) + ":" + num(row_end) + " are not a non-empty range inside the " +
                     num(ps.plan.rows_total) + " rows of the slowest axis");
    a = ps.plan.chunk_of_row(row_begin);
    b = ps.plan.chunk_of_row(row_end - 1) + 1;
  }
  read_chunks(ps, stream, a, b, true);
  return ps;
}

}  // namespace sciz
