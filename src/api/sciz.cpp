// Public API: validate input, resolve device and bound, hand the field to its pipeline and
// wrap the result in the container; the reverse for decompression.
#include <sciz/sciz.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "api/chunk_codec.hpp"
#include "api/gpu_engine.hpp"
#include "core/host_transfer.hpp"
#include "core/checksum.hpp"
#include "core/container.hpp"
#include "core/device.hpp"
#include "core/error_bound.hpp"
#include "core/trace.hpp"
#include "core/value_range.hpp"
#include "lossless/codes/readback.hpp"
#include "pipelines/pipeline.hpp"

namespace sciz {

bool cuda_available() { return dev::available(); }
int cuda_device_count() { return dev::device_count(); }

void release_cached_memory() {
  if (!dev::available()) return;
  dev::release_staging();
  release_readback_cache();
  dev::trim_pools();
}

Device resolve_device(Device requested) {
  if (requested == Device::auto_select) return dev::available() ? Device::cuda : Device::cpu;
  if (requested == Device::cuda) dev::require_available();
  return requested;
}

std::vector<std::string> pipelines() { return pipeline_names(); }

uint64_t max_compressed_size(DType dtype, const Shape& shape, const std::string& pipeline, double chunk_mb) {
  shape.validate();
  (void)find_pipeline(pipeline);  // names an unknown pipeline as compress() would
  const ChunkPlan plan = plan_chunks(shape, dtype, chunk_mb);
  // Every chunk is at worst stored verbatim (encode_chunk).
  uint64_t n = align16(stream_header_bytes(shape.dims.size(), pipeline.size(), plan.count));
  for (uint64_t i = 0; i < plan.count; ++i) n += raw_chunk_bytes(plan.values(i) * dtype_size(dtype));
  return n;
}

namespace {
ValueRange range_of(const FieldView& f, Stream s) {
  const uint64_t n = f.shape.count();
  if (f.on_device) {
    return f.dtype == DType::f32 ? value_range_cuda(static_cast<const float*>(f.data), n, s)
                                 : value_range_cuda(static_cast<const double*>(f.data), n, s);
  }
  return f.dtype == DType::f32 ? value_range_cpu(static_cast<const float*>(f.data), n)
                               : value_range_cpu(static_cast<const double*>(f.data), n);
}

const uint8_t* at_row(const void* base, const ChunkPlan& plan, uint64_t row, DType t) {
  return static_cast<const uint8_t*>(base) + row * plan.row_values * dtype_size(t);
}
}  // namespace

namespace {
void check_field(const FieldView& f, const CompressOptions& opt) {
  f.shape.validate();
  SCIZ_REQUIRE(f.data != nullptr, Status::invalid_argument, "field data pointer is null");
  validate_bound(opt.eb);
  find_pipeline(opt.pipeline).check_options(opt);
  if (f.on_device) dev::require_available();
}

std::vector<uint8_t> compress_cpu(const FieldView& f, const CompressOptions& opt) {
  const Pipeline& pipe = find_pipeline(opt.pipeline);
  const ChunkPlan plan = plan_chunks(f.shape, f.dtype, opt.chunk_mb);
  FieldView field = f;
  std::vector<uint8_t> staged;
  if (f.on_device) {  // a device field for the CPU twin comes down once
    const uint64_t bytes = f.shape.count() * dtype_size(f.dtype);
    staged.resize(bytes);
    dev::download(staged.data(), f.data, bytes, opt.stream);
    field = {staged.data(), f.dtype, f.shape, false};
  }
  ValueRange vr;
  {
    TracePhase t("value range");
    vr = range_of(field, opt.stream);
  }
  const Header h = field_header(f.dtype, f.shape, opt, pipe, vr);
  std::vector<ChunkOut> chunks(plan.count);
  for_each_chunk(plan.count, true, [&](uint64_t i) {
    chunks[i] = encode_chunk(pipe, at_row(field.data, plan, plan.row0(i), f.dtype), false, f.dtype,
                             plan.chunk_shape(f.shape, i), h.eb_abs, Device::cpu, opt);
  });
  TracePhase t("write stream");
  return write_stream(h, plan, chunks);
}
}  // namespace

std::vector<uint8_t> compress(const FieldView& f, const CompressOptions& opt) {
  check_field(f, opt);
  dev::AllocatorScope scope(opt.allocator);
  if (resolve_device(opt.device) == Device::cpu) return compress_cpu(f, opt);
  std::vector<uint8_t> out;
  if (!f.on_device) {
    gpu::compress_host(f, opt, nullptr, 0, &out);
    return out;
  }
  const uint64_t cap = max_compressed_size(f.dtype, f.shape, opt.pipeline, opt.chunk_mb);
  dev::Buffer<uint8_t> d(cap, opt.stream);
  const uint64_t size = gpu::compress_device(f, opt, d.get(), cap);
  out.resize(size);
  dev::download(out.data(), d.get(), size, opt.stream);
  return out;
}

uint64_t compress_into(const FieldView& f, void* out, uint64_t capacity, bool out_on_device,
                       const CompressOptions& opt) {
  check_field(f, opt);
  SCIZ_REQUIRE(out != nullptr || capacity == 0, Status::invalid_argument, "output pointer is null");
  dev::AllocatorScope scope(opt.allocator);
  const Device device = resolve_device(opt.device);
  auto* dst = static_cast<uint8_t*>(out);
  auto too_small = [&](uint64_t need) { fail_too_small(capacity, need); };
  if (device == Device::cpu) {
    const auto s = compress_cpu(f, opt);
    if (s.size() > capacity) too_small(s.size());
    if (out_on_device) {
      dev::copy_to_device(dst, s.data(), s.size(), opt.stream);
      dev::sync(opt.stream);
    } else {
      std::memcpy(dst, s.data(), s.size());
    }
    return s.size();
  }
  if (f.on_device && out_on_device) return gpu::compress_device(f, opt, dst, capacity);
  if (!f.on_device && !out_on_device) return gpu::compress_host(f, opt, dst, capacity, nullptr);
  if (f.on_device) {  // device field, host output: the stream comes down once
    const uint64_t cap = max_compressed_size(f.dtype, f.shape, opt.pipeline, opt.chunk_mb);
    dev::Buffer<uint8_t> d(cap, opt.stream);
    const uint64_t size = gpu::compress_device(f, opt, d.get(), cap);
    if (size > capacity) too_small(size);
    dev::download(dst, d.get(), size, opt.stream);
    return size;
  }
  // Host field, device output: the field goes up once.
  const uint64_t bytes = f.shape.count() * dtype_size(f.dtype);
  dev::Buffer<uint8_t> d(bytes, opt.stream);
  dev::upload(d.get(), f.data, bytes, opt.stream);
  return gpu::compress_device({d.get(), f.dtype, f.shape, true}, opt, dst, capacity);
}

DeviceBuffer compress_to_device(const FieldView& f, const CompressOptions& opt) {
  check_field(f, opt);
  dev::require_available();
  const uint64_t cap = max_compressed_size(f.dtype, f.shape, opt.pipeline, opt.chunk_mb);
  void* p = nullptr;
  {
    dev::AllocatorScope scope(opt.allocator);
    p = dev::alloc(cap, opt.stream);
  }
  DeviceBuffer held(p, cap, 0, dev::current_device(), opt.stream, opt.allocator);  // freed if compression throws
  const uint64_t size = compress_into(f, p, cap, true, opt);
  return DeviceBuffer(held.release(), cap, size, dev::current_device(), opt.stream, opt.allocator);
}

DeviceBuffer::~DeviceBuffer() {
  if (p_) dev::release(p_, capacity_, s_, alloc_.allocate ? &alloc_ : nullptr);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (p_) dev::release(p_, capacity_, s_, alloc_.allocate ? &alloc_ : nullptr);
    p_ = std::exchange(o.p_, nullptr);
    capacity_ = std::exchange(o.capacity_, 0);
    size_ = std::exchange(o.size_, 0);
    device_ = o.device_;
    s_ = o.s_;
    alloc_ = o.alloc_;
  }
  return *this;
}

void* DeviceBuffer::release() { return std::exchange(p_, nullptr); }

namespace {
void check_out(const Header& h, uint64_t values, uint64_t out_bytes, const void* out, const std::string& what) {
  const uint64_t need = values * dtype_size(h.dtype);
  SCIZ_REQUIRE(out_bytes == need, Status::invalid_argument,
               "output buffer holds " + std::to_string(out_bytes) + " bytes, " + what + " decode to " +
                   std::to_string(need) + " (" + h.shape.str() + " " + dtype_name(h.dtype) + ")");
  SCIZ_REQUIRE(out != nullptr, Status::invalid_argument, "output pointer is null");
}
}  // namespace

namespace {

// Bytes a call decodes for rows [a, b): the output, and each chunk the range cuts, which is
// decoded whole into scratch (a stream of versions 1 to 3 is one chunk: the whole field).
uint64_t bytes_decoded(const ParsedStream& ps, uint64_t a, uint64_t b) {
  const uint64_t row = ps.plan.row_values * dtype_size(ps.header.dtype);  // <= 2^51: no overflow
  uint64_t most = (b - a) * row;
  if (ps.header.version < 4) return std::max(most, ps.plan.rows_total * row);
  for (uint64_t i : {ps.plan.chunk_of_row(a), ps.plan.chunk_of_row(b - 1)}) most = std::max(most, ps.plan.rows(i) * row);
  return most;
}

// DecompressOptions::max_output, from the header alone: before any allocation or decoding.
void check_output_limit(const ParsedStream& ps, uint64_t a, uint64_t b, bool all, uint64_t max_output) {
  if (all) a = 0, b = ps.plan.rows_total;
  if (max_output == 0 || !(a < b && b <= ps.plan.rows_total)) return;  // a bad range is refused later, by name
  const uint64_t need = bytes_decoded(ps, a, b);
  SCIZ_REQUIRE(need <= max_output, Status::invalid_argument,
               "the stream declares a " + ps.header.shape.str() + " " + dtype_name(ps.header.dtype) + " field: " +
                   (all ? std::string("decoding it") : "rows " + std::to_string(a) + ":" + std::to_string(b)) +
                   " takes " + std::to_string(need) + " bytes, above the limit of " + std::to_string(max_output) +
                   " (DecompressOptions::max_output, --max-output; 0 lifts it)");
}

// The CPU twin's decode of rows [a, b) of a host stream, into host or device memory.
void decode_rows_cpu(std::span<const uint8_t> stream, uint64_t a, uint64_t b, bool all, void* out, uint64_t out_bytes,
                     const DecompressOptions& opt) {
  check_output_limit(read_stream_head(stream, stream.size()), a, b, all, opt.max_output);
  ParsedStream ps;
  {
    TracePhase t("read stream + checksums");
    ps = all ? read_stream(stream) : read_stream_rows(stream, a, b);
  }
  if (all) b = ps.plan.rows_total;
  const ChunkPlan& plan = ps.plan;
  const size_t w = dtype_size(ps.header.dtype);
  check_out(ps.header, (b - a) * plan.row_values, out_bytes, out,
            all ? "the stream's values" : "rows " + std::to_string(a) + ":" + std::to_string(b) + " of the stream's");
  const uint64_t first = ps.header.version < 4 ? 0 : plan.chunk_of_row(a);
  const uint64_t last = ps.header.version < 4 ? 1 : plan.chunk_of_row(b - 1) + 1;
  uint8_t* dst = static_cast<uint8_t*>(out);
  for_each_chunk(last - first, true, [&](uint64_t k) {
    const ParsedChunk& c = ps.chunks[first + k];
    const uint64_t lo = std::max(a, c.row0), hi = std::min(b, c.row0 + c.rows);
    uint8_t* to = dst + (lo - a) * plan.row_values * w;
    if (lo == c.row0 && hi == c.row0 + c.rows) {  // the whole chunk is wanted: decode in place
      decode_chunk(c, to, opt.out_on_device, Device::cpu, opt.stream);
      return;
    }
    // A chunk cut by the slice decodes into host scratch; only the wanted rows are copied out.
    const uint64_t bytes = c.rows * plan.row_values * w, skip = (lo - c.row0) * plan.row_values * w,
                   keep = (hi - lo) * plan.row_values * w;
    std::vector<uint8_t> tmp(bytes);
    decode_chunk(c, tmp.data(), false, Device::cpu, opt.stream);
    if (opt.out_on_device) {
      dev::copy_to_device(to, tmp.data() + skip, keep, opt.stream);
      dev::sync(opt.stream);
    } else {
      std::memcpy(to, tmp.data() + skip, keep);
    }
  });
}

// Every decompress entry point: rows [a, b) (all of them when `all`) of a host or device stream
// into host or device memory, on the CPU or the GPU.
void decode_rows(const StreamView& sv, uint64_t a, uint64_t b, bool all, void* out, uint64_t out_bytes,
                 const DecompressOptions& opt) {
  SCIZ_REQUIRE(sv.data != nullptr || sv.size == 0, Status::invalid_argument, "stream pointer is null");
  dev::AllocatorScope scope(opt.allocator);
  const Device d = resolve_device(opt.device);
  if (opt.out_on_device || sv.on_device) dev::require_available();
  if (d == Device::cpu) {
    if (!sv.on_device)
      return decode_rows_cpu({static_cast<const uint8_t*>(sv.data), sv.size}, a, b, all, out, out_bytes, opt);
    std::vector<uint8_t> host(sv.size);
    dev::download(host.data(), sv.data, sv.size, opt.stream);
    return decode_rows_cpu(host, a, b, all, out, out_bytes, opt);
  }
  if (!sv.on_device && !opt.out_on_device) {
    // Host to host: a stream too large for one device's share, or several devices, streams
    // its chunks through them, every checksum checked on the host first.
    const std::span<const uint8_t> host{static_cast<const uint8_t*>(sv.data), sv.size};
    ParsedStream ps;
    {
      TracePhase t("read stream head");
      ps = read_stream_head(host, sv.size);
    }
    check_output_limit(ps, a, b, all, opt.max_output);
    const uint64_t b2 = all ? ps.plan.rows_total : b;
    if (ps.header.version >= 4 && a < b2 && b2 <= ps.plan.rows_total && !gpu::fits(ps, a, b2, sv.size, opt)) {
      {
        TracePhase t("read stream + checksums");
        ps = read_stream_rows(host, a, b2);
      }
      check_out(ps.header, (b2 - a) * ps.plan.row_values, out_bytes, out,
                all ? "the stream's values" : "rows " + std::to_string(a) + ":" + std::to_string(b2) + " of the stream's");
      dev::sync(opt.stream);
      return gpu::decompress_streamed(host, ps, a, b2, static_cast<uint8_t*>(out), opt);
    }
  }
  const uint8_t* d_stream = static_cast<const uint8_t*>(sv.data);
  dev::Buffer<uint8_t> up;
  if (sv.on_device && (reinterpret_cast<uintptr_t>(d_stream) & 15) != 0) {
    // The decoders read sections in place with 16-byte loads: a stream that does not start on
    // a 16-byte boundary is copied to one that does.
    up = dev::Buffer<uint8_t>(sv.size, opt.stream);
    dev::copy_on_device(up.get(), d_stream, sv.size, opt.stream);
    d_stream = up.get();
  }
  if (!sv.on_device) {  // the stream goes up once; everything else happens on the device
    TracePhase t("upload stream", true, opt.stream);
    up = dev::Buffer<uint8_t>(sv.size, opt.stream);
    dev::upload(up.get(), sv.data, sv.size, opt.stream);
    d_stream = up.get();
  }
  gpu::DeviceHead head;
  {
    TracePhase t("read stream head");
    head = gpu::read_device_head(d_stream, sv.size, opt.stream);
  }
  const ParsedStream& ps = head.ps;
  check_output_limit(ps, a, b, all, opt.max_output);
  if (all) b = ps.plan.rows_total;
  SCIZ_REQUIRE(a < b && b <= ps.plan.rows_total, Status::invalid_argument,
               "rows " + std::to_string(a) + ":" + std::to_string(b) + " are not a non-empty range inside the " +
                   std::to_string(ps.plan.rows_total) + " rows of the slowest axis");
  check_out(ps.header, (b - a) * ps.plan.row_values, out_bytes, out,
            all ? "the stream's values" : "rows " + std::to_string(a) + ":" + std::to_string(b) + " of the stream's");
  if (opt.out_on_device)
    gpu::decompress_device(d_stream, head, a, b, static_cast<uint8_t*>(out), opt);
  else
    gpu::decompress_to_host(d_stream, head, a, b, static_cast<uint8_t*>(out), opt);
}

DecompressOptions options_of(Device device, bool out_on_device, Stream s) {
  DecompressOptions o;
  o.device = device;
  o.out_on_device = out_on_device;
  o.stream = s;
  return o;
}

}  // namespace

void decompress(std::span<const uint8_t> stream, void* out, uint64_t out_bytes, Device device, bool out_on_device,
                Stream cuda_stream) {
  decode_rows(StreamView(stream), 0, 0, true, out, out_bytes, options_of(device, out_on_device, cuda_stream));
}

void decompress_rows(std::span<const uint8_t> stream, uint64_t row_begin, uint64_t row_end, void* out,
                     uint64_t out_bytes, Device device, bool out_on_device, Stream cuda_stream) {
  decode_rows(StreamView(stream), row_begin, row_end, false, out, out_bytes,
              options_of(device, out_on_device, cuda_stream));
}

void decompress(const StreamView& stream, void* out, uint64_t out_bytes, const DecompressOptions& opt) {
  decode_rows(stream, 0, 0, true, out, out_bytes, opt);
}

void decompress_rows(const StreamView& stream, uint64_t row_begin, uint64_t row_end, void* out, uint64_t out_bytes,
                     const DecompressOptions& opt) {
  decode_rows(stream, row_begin, row_end, false, out, out_bytes, opt);
}

StreamInfo inspect(const StreamView& sv) {
  SCIZ_REQUIRE(sv.data != nullptr || sv.size == 0, Status::invalid_argument, "stream pointer is null");
  ParsedStream ps;
  std::vector<ChunkHead> heads;
  gpu::DeviceHead dh;
  const uint8_t* base = static_cast<const uint8_t*>(sv.data);
  if (sv.on_device) {
    dh = gpu::read_device_head(base, sv.size, nullptr);
    ps = dh.ps;
    if (ps.header.version < 4) {
      ps = read_stream(dh.old);
      base = dh.old.data();
    }
  } else {
    ps = read_stream({base, sv.size});
  }
  const Header& h = ps.header;
  StreamInfo info{h.version,  h.dtype,     h.shape,     h.eb_mode, h.eb_value, h.eb_abs,
                  h.value_min, h.value_max, h.nonfinite, h.pipeline, {},        {},
                  sv.size,    ps.plan.rows_per_chunk, {}};
  const bool device_v4 = sv.on_device && h.version >= 4;
  for (uint64_t i = 0; i < ps.chunks.size(); ++i) {
    const ParsedChunk& c = ps.chunks[i];
    info.chunks.push_back({c.row0, c.rows, c.offset, c.length, device_v4 ? dh.heads[i].pipeline : c.header.pipeline});
  }
  const std::string p0 = device_v4 ? dh.heads[0].pipeline : ps.chunks[0].header.pipeline;
  const std::vector<uint8_t> params0 = device_v4 ? dh.heads[0].params : ps.chunks[0].header.params;
  try {
    info.params = find_pipeline(p0).describe(params0, h.version);
  } catch (const Error& e) {
    info.params = {{"params", e.what()}};
  }
  if (device_v4) {
    for (const auto& e : dh.heads[0].sections)
      info.sections.push_back({e.id, ps.chunks[0].offset + e.offset, e.length, e.checksum});
  } else {
    for (const auto& s : ps.chunks[0].sections)
      info.sections.push_back({s.id, static_cast<uint64_t>(s.bytes.data() - base), s.bytes.size(), s.checksum});
  }
  return info;
}

}  // namespace sciz
