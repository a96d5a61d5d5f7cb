// Public API: validate input, resolve device and bound, hand the field to its pipeline and
// wrap the result in the container; the reverse for decompression.
#include <sciz/sciz.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "api/chunk_codec.hpp"
#include "core/checksum.hpp"
#include "core/container.hpp"
#include "core/device.hpp"
#include "core/error_bound.hpp"
#include "core/trace.hpp"
#include "core/value_range.hpp"
#include "pipelines/pipeline.hpp"

namespace sciz {

bool cuda_available() { return dev::available(); }

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
  return stream_header_bytes(shape.dims.size(), pipeline.size(), plan.count) +
         shape.count() * dtype_size(dtype) + plan.count * chunk_header_bytes("raw", 0, 1);
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

std::vector<uint8_t> compress(const FieldView& f, const CompressOptions& opt) {
  f.shape.validate();
  SCIZ_REQUIRE(f.data != nullptr, Status::invalid_argument, "field data pointer is null");
  validate_bound(opt.eb);
  const Pipeline& pipe = find_pipeline(opt.pipeline);
  const Device device = resolve_device(opt.device);
  if (f.on_device) dev::require_available();
  const ChunkPlan plan = plan_chunks(f.shape, f.dtype, opt.chunk_mb);
  // A host field bound for the GPU goes up once, here: the range is then reduced on the GPU
  // too instead of in a separate pass over host memory.
  FieldView field = f;
  dev::Buffer<uint8_t> staged;
  if (device == Device::cuda && !f.on_device) {
    TracePhase t("upload field", true, opt.stream);
    const uint64_t bytes = f.shape.count() * dtype_size(f.dtype);
    staged = dev::Buffer<uint8_t>(bytes, opt.stream);
    dev::copy_to_device(staged.get(), f.data, bytes, opt.stream);
    field.data = staged.get();
    field.on_device = true;
  }
  ValueRange vr;
  {
    TracePhase t("value range", field.on_device, opt.stream);
    vr = range_of(field, opt.stream);
  }

  Header h;
  h.dtype = f.dtype;
  h.shape = f.shape;
  h.eb_mode = opt.eb.mode;
  h.eb_value = opt.eb.value;
  h.eb_abs = resolve_bound(opt.eb, vr);
  h.value_min = vr.finite ? vr.min : NAN;
  h.value_max = vr.finite ? vr.max : NAN;
  h.nonfinite = vr.nonfinite;
  h.pipeline = pipe.name();

  std::vector<ChunkOut> chunks(plan.count);
  for_each_chunk(plan.count, device == Device::cpu, [&](uint64_t i) {
    chunks[i] = encode_chunk(pipe, at_row(field.data, plan, plan.row0(i), f.dtype), field.on_device, f.dtype,
                             plan.chunk_shape(f.shape, i), h.eb_abs, device, opt);
  });
  TracePhase t("write stream");
  return write_stream(h, plan, chunks);
}

namespace {
void check_out(const Header& h, uint64_t values, uint64_t out_bytes, const void* out, const std::string& what) {
  const uint64_t need = values * dtype_size(h.dtype);
  SCIZ_REQUIRE(out_bytes == need, Status::invalid_argument,
               "output buffer holds " + std::to_string(out_bytes) + " bytes, " + what + " decode to " +
                   std::to_string(need) + " (" + h.shape.str() + " " + dtype_name(h.dtype) + ")");
  SCIZ_REQUIRE(out != nullptr, Status::invalid_argument, "output pointer is null");
}
}  // namespace

void decompress(std::span<const uint8_t> stream, void* out, uint64_t out_bytes, Device device, bool out_on_device,
                Stream cuda_stream) {
  ParsedStream ps;
  {
    TracePhase t("read stream + checksums");
    ps = read_stream(stream);
  }
  check_out(ps.header, ps.header.shape.count(), out_bytes, out, "the stream's values");
  const Device d = resolve_device(device);
  if (out_on_device) dev::require_available();
  for_each_chunk(ps.chunks.size(), d == Device::cpu, [&](uint64_t i) {
    const ParsedChunk& c = ps.chunks[i];
    decode_chunk(c, const_cast<uint8_t*>(at_row(out, ps.plan, c.row0, ps.header.dtype)), out_on_device, d, cuda_stream);
  });
}

void decompress_rows(std::span<const uint8_t> stream, uint64_t row_begin, uint64_t row_end, void* out,
                     uint64_t out_bytes, Device device, bool out_on_device, Stream cuda_stream) {
  ParsedStream ps;
  {
    TracePhase t("read stream + checksums of the rows' chunks");
    ps = read_stream_rows(stream, row_begin, row_end);
  }
  const ChunkPlan& plan = ps.plan;
  const size_t w = dtype_size(ps.header.dtype);
  check_out(ps.header, (row_end - row_begin) * plan.row_values, out_bytes, out,
            "rows " + std::to_string(row_begin) + ":" + std::to_string(row_end) + " of the stream's");
  const Device d = resolve_device(device);
  if (out_on_device) dev::require_available();
  const uint64_t first = ps.header.version < 4 ? 0 : plan.chunk_of_row(row_begin);
  const uint64_t last = ps.header.version < 4 ? 1 : plan.chunk_of_row(row_end - 1) + 1;
  uint8_t* dst = static_cast<uint8_t*>(out);
  for_each_chunk(last - first, d == Device::cpu, [&](uint64_t k) {
    const ParsedChunk& c = ps.chunks[first + k];
    const uint64_t a = std::max(row_begin, c.row0), b = std::min(row_end, c.row0 + c.rows);
    uint8_t* to = dst + (a - row_begin) * plan.row_values * w;
    if (a == c.row0 && b == c.row0 + c.rows) {  // the whole chunk is wanted: decode in place
      decode_chunk(c, to, out_on_device, d, cuda_stream);
      return;
    }
    // A chunk cut by the slice decodes into a scratch buffer on the output's side; only the
    // wanted rows are copied out.
    const uint64_t bytes = c.rows * plan.row_values * w, skip = (a - c.row0) * plan.row_values * w,
                   keep = (b - a) * plan.row_values * w;
    if (out_on_device) {
      dev::Buffer<uint8_t> tmp(bytes, cuda_stream);
      decode_chunk(c, tmp.get(), true, d, cuda_stream);
      dev::copy_on_device(to, tmp.get() + skip, keep, cuda_stream);
      dev::sync(cuda_stream);
    } else {
      std::vector<uint8_t> tmp(bytes);
      decode_chunk(c, tmp.data(), false, d, cuda_stream);
      std::memcpy(to, tmp.data() + skip, keep);
    }
  });
}

void decompress(std::span<const uint8_t> stream, void* out, uint64_t out_bytes, const DecompressOptions& opt) {
  decompress(stream, out, out_bytes, opt.device, opt.out_on_device, opt.stream);
}

void decompress_rows(std::span<const uint8_t> stream, uint64_t row_begin, uint64_t row_end, void* out,
                     uint64_t out_bytes, const DecompressOptions& opt) {
  decompress_rows(stream, row_begin, row_end, out, out_bytes, opt.device, opt.out_on_device, opt.stream);
}

StreamInfo inspect(std::span<const uint8_t> stream) {
  const ParsedStream ps = read_stream(stream);
  const Header& h = ps.header;
  StreamInfo info{h.version,  h.dtype,     h.shape,     h.eb_mode,   h.eb_value, h.eb_abs,
                  h.value_min, h.value_max, h.nonfinite, h.pipeline, {},         {},
                  stream.size(), ps.plan.rows_per_chunk, {}};
  for (const auto& c : ps.chunks) info.chunks.push_back({c.row0, c.rows, c.offset, c.length, c.header.pipeline});
  const ParsedChunk& c0 = ps.chunks.front();
  try {
    info.params = find_pipeline(c0.header.pipeline).describe(c0.header.params);
  } catch (const Error& e) {
    info.params = {{"params", e.what()}};
  }
  for (const auto& s : c0.sections) {
    const uint64_t off = static_cast<uint64_t>(s.bytes.data() - stream.data());
    info.sections.push_back({s.id, off, s.bytes.size(), s.checksum});
  }
  return info;
}

}  // namespace sciz
