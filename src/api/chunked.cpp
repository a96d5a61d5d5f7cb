// The chunk-at-a-time API (include/sciz/chunked.hpp) over the same chunk codec as compress()
// and decompress(), so both write and read the same bytes.
#include <sciz/chunked.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

#include "api/chunk_codec.hpp"
#include "core/container.hpp"
#include "core/device.hpp"
#include "core/error_bound.hpp"
#include "core/value_range.hpp"

namespace sciz {

void FieldRange::merge(const FieldRange& o) {
  if (o.finite) {
    min = finite ? std::min(min, o.min) : o.min;
    max = finite ? std::max(max, o.max) : o.max;
  }
  finite += o.finite;
  nonfinite += o.nonfinite;
}

FieldRange field_range(const void* data, DType dtype, uint64_t count) {
  const ValueRange v = dtype == DType::f32 ? value_range_cpu(static_cast<const float*>(data), count)
                                           : value_range_cpu(static_cast<const double*>(data), count);
  return {v.min, v.max, v.finite, v.nonfinite};
}

namespace {
ValueRange to_value_range(const FieldRange& r) {
  ValueRange v;
  v.min = r.min;
  v.max = r.max;
  v.finite = r.finite;
  v.nonfinite = r.nonfinite;
  return v;
}
}  // namespace

struct ChunkedCompressor::State {
  DType dtype;
  Shape shape;
  CompressOptions opt;
  const Pipeline* pipe;
  Device device;
  ChunkPlan plan;
  Header h;
  bool range_given;
  std::mutex mu;  // guards seen, entries
  FieldRange seen;
  std::vector<ChunkEntry> entries;
  std::vector<bool> done;
};

ChunkedCompressor::ChunkedCompressor(DType dtype, const Shape& shape, const CompressOptions& opt,
                                     std::optional<FieldRange> range)
    : st_(std::make_unique<State>()) {
  shape.validate();
  validate_bound(opt.eb);
  SCIZ_REQUIRE(opt.eb.mode == EbMode::abs || range, Status::invalid_argument,
               "a relative bound needs the field's value range before the first chunk");
  State& s = *st_;
  s.dtype = dtype;
  s.shape = shape;
  s.opt = opt;
  s.pipe = &find_pipeline(opt.pipeline);
  s.pipe->check_options(opt);
  s.device = resolve_device(opt.device);
  s.plan = plan_chunks(shape, dtype, opt.chunk_mb);
  s.range_given = range.has_value();
  if (range) s.seen = *range;
  s.h.dtype = dtype;
  s.h.shape = shape;
  s.h.eb_mode = opt.eb.mode;
  s.h.eb_value = opt.eb.value;
  s.h.eb_abs = resolve_bound(opt.eb, to_value_range(s.seen));
  s.h.pipeline = s.pipe->name();
  s.entries.resize(s.plan.count);
  s.done.assign(s.plan.count, false);
}

ChunkedCompressor::~ChunkedCompressor() = default;

uint64_t ChunkedCompressor::chunk_count() const { return st_->plan.count; }
uint64_t ChunkedCompressor::chunk_row0(uint64_t i) const { return st_->plan.row0(i); }
uint64_t ChunkedCompressor::chunk_rows(uint64_t i) const { return st_->plan.rows(i); }
uint64_t ChunkedCompressor::chunk_input_bytes(uint64_t i) const {
  return st_->plan.values(i) * dtype_size(st_->dtype);
}
double ChunkedCompressor::eb_abs() const { return st_->h.eb_abs; }
uint64_t ChunkedCompressor::header_bytes() const {
  return align16(stream_header_bytes(st_->shape.dims.size(), st_->h.pipeline.size(), st_->plan.count));
}

std::vector<uint8_t> ChunkedCompressor::compress_chunk(uint64_t i, const void* rows) {
  State& s = *st_;
  SCIZ_REQUIRE(i < s.plan.count, Status::invalid_argument,
               "chunk " + std::to_string(i) + " of a stream of " + std::to_string(s.plan.count));
  SCIZ_REQUIRE(rows != nullptr, Status::invalid_argument, "chunk data pointer is null");
  dev::AllocatorScope scope(s.opt.allocator);
  // Over several GPUs, chunk i goes to device i mod their count (the bytes do not depend on it).
  struct DeviceTurn {
    int prev = -1;
    ~DeviceTurn() {
      if (prev >= 0) dev::set_device(prev);
    }
  } turn;
  if (s.device == Device::cuda && !s.opt.devices.empty()) {
    turn.prev = dev::current_device();
    dev::set_device(s.opt.devices[i % s.opt.devices.size()]);
  }
  const ChunkOut c = encode_chunk(*s.pipe, rows, false, s.dtype, s.plan.chunk_shape(s.shape, i), s.h.eb_abs,
                                  s.device, s.opt);
  std::vector<uint8_t> out(chunk_bytes(c));
  write_chunk(c, out.data());
  FieldRange r;
  if (!s.range_given) r = field_range(rows, s.dtype, s.plan.values(i));
  std::lock_guard<std::mutex> lock(s.mu);
  SCIZ_REQUIRE(!s.done[i], Status::invalid_argument, "chunk " + std::to_string(i) + " compressed twice");
  s.done[i] = true;
  s.entries[i].length = out.size();
  s.entries[i].header_bytes = static_cast<uint32_t>(chunk_header_bytes(c.pipeline, c.params.size(), c.sections.size()));
  if (!s.range_given) s.seen.merge(r);
  return out;
}

std::vector<uint8_t> ChunkedCompressor::header() const {
  State& s = *st_;
  std::lock_guard<std::mutex> lock(s.mu);
  for (uint64_t i = 0; i < s.plan.count; ++i)
    SCIZ_REQUIRE(s.done[i], Status::invalid_argument, "header asked for before chunk " + std::to_string(i) + " was compressed");
  std::vector<ChunkEntry> e = s.entries;
  uint64_t at = header_bytes();
  for (auto& x : e) {
    x.offset = at;
    at += x.length;
  }
  Header h = s.h;
  h.value_min = s.seen.finite ? s.seen.min + 0.0 : NAN;
  h.value_max = s.seen.finite ? s.seen.max + 0.0 : NAN;
  h.nonfinite = s.seen.nonfinite;
  return write_stream_header(h, s.plan, e);
}

struct ChunkedDecompressor::State {
  std::vector<uint8_t> head;  // owned: the parsed sections of old streams point into it
  ParsedStream ps;
  // Chunk i parsed from its bytes (checked against the index) with every checksum verified.
  ParsedChunk parse(uint64_t i, std::span<const uint8_t> bytes) const {
    SCIZ_REQUIRE(i < ps.chunks.size(), Status::invalid_argument, "no chunk " + std::to_string(i));
    SCIZ_REQUIRE(ps.header.version < 4 || bytes.size() == ps.chunks[i].length, Status::invalid_argument,
                 "chunk " + std::to_string(i) + " is " + std::to_string(ps.chunks[i].length) + " bytes, got " +
                     std::to_string(bytes.size()));
    return parse_chunk(ps, i, bytes, true);
  }
};

uint64_t ChunkedDecompressor::head_bytes(std::span<const uint8_t> first12, uint64_t stream_bytes) {
  return head_needed(first12, stream_bytes);
}

ChunkedDecompressor::ChunkedDecompressor(std::span<const uint8_t> head, uint64_t stream_bytes)
    : st_(std::make_unique<State>()) {
  const uint64_t need = head_needed(head, stream_bytes);
  SCIZ_REQUIRE(head.size() >= need, Status::invalid_argument,
               "stream head of " + std::to_string(head.size()) + " bytes, the header needs " + std::to_string(need));
  st_->head.assign(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(need));
  st_->ps = read_stream_head(st_->head, stream_bytes);
}

ChunkedDecompressor::~ChunkedDecompressor() = default;

DType ChunkedDecompressor::dtype() const { return st_->ps.header.dtype; }
const Shape& ChunkedDecompressor::shape() const { return st_->ps.header.shape; }
uint16_t ChunkedDecompressor::version() const { return st_->ps.header.version; }
uint64_t ChunkedDecompressor::chunk_count() const { return st_->ps.chunks.size(); }
uint64_t ChunkedDecompressor::row_bytes() const {
  return st_->ps.plan.row_values * dtype_size(st_->ps.header.dtype);
}
uint64_t ChunkedDecompressor::chunk_of_row(uint64_t row) const {
  return st_->ps.header.version < 4 ? 0 : st_->ps.plan.chunk_of_row(row);
}

ChunkInfo ChunkedDecompressor::chunk(uint64_t i) const {
  const ParsedChunk& c = st_->ps.chunks.at(i);
  return {c.row0, c.rows, c.offset, c.length, c.header.pipeline};
}

ChunkInfo ChunkedDecompressor::verify_chunk(uint64_t i, std::span<const uint8_t> bytes) const {
  const ParsedChunk c = st_->parse(i, bytes);
  return {c.row0, c.rows, c.offset, c.length, c.header.pipeline};
}

StreamInfo ChunkedDecompressor::summary() const {
  const ParsedStream& ps = st_->ps;
  const Header& h = ps.header;
  StreamInfo info{h.version,  h.dtype,     h.shape,     h.eb_mode, h.eb_value, h.eb_abs,
                  h.value_min, h.value_max, h.nonfinite, h.pipeline, {},        {},
                  0,          ps.plan.rows_per_chunk, {}};
  for (const auto& c : ps.chunks) {
    info.chunks.push_back({c.row0, c.rows, c.offset, c.length, c.header.pipeline});
    info.stream_bytes = std::max(info.stream_bytes, c.offset + c.length);
  }
  return info;
}

ChunkedDecompressor::ChunkDetail ChunkedDecompressor::describe_chunk(uint64_t i, std::span<const uint8_t> bytes) const {
  const ParsedChunk c = st_->parse(i, bytes);
  ChunkDetail d;
  d.info = {c.row0, c.rows, c.offset, c.length, c.header.pipeline};
  try {
    d.params = find_pipeline(c.header.pipeline).describe(c.header.params, st_->ps.header.version);
  } catch (const Error& e) {
    d.params = {{"params", e.what()}};
  }
  // Old streams' sections point into the head (the whole stream); chunks' into `bytes`.
  const uint8_t* base = st_->ps.header.version < 4 ? st_->head.data() : bytes.data() - c.offset;
  for (const auto& sec : c.sections)
    d.sections.push_back({sec.id, static_cast<uint64_t>(sec.bytes.data() - base), sec.bytes.size(), sec.checksum});
  return d;
}

void ChunkedDecompressor::decompress_chunk(uint64_t i, std::span<const uint8_t> bytes, void* out, uint64_t out_bytes,
                                           Device device, bool out_on_device, Stream s) {
  const ParsedChunk c = st_->parse(i, bytes);
  const uint64_t need = c.rows * row_bytes();
  SCIZ_REQUIRE(out_bytes == need && out != nullptr, Status::invalid_argument,
               "output of chunk " + std::to_string(i) + " holds " + std::to_string(out_bytes) + " bytes, it decodes to " +
                   std::to_string(need));
  const Device d = resolve_device(device);
  if (out_on_device) resolve_device(Device::cuda);
  decode_chunk(c, out, out_on_device, d, s);
}

}  // namespace sciz
