// Public API: validate input, resolve device and bound, hand the field to its pipeline and
// wrap the result in the container; the reverse for decompression.
#include <sciz/sciz.hpp>

#include <algorithm>
#include <cmath>

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

uint64_t max_compressed_size(DType dtype, const Shape& shape, const std::string& pipeline) {
  shape.validate();
  const uint64_t own = find_pipeline(pipeline).max_compressed_bytes(dtype, shape);
  return std::min(own, find_pipeline("raw").max_compressed_bytes(dtype, shape));  // the fallback caps it
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
}  // namespace

std::vector<uint8_t> compress(const FieldView& f, const CompressOptions& opt) {
  f.shape.validate();
  SCIZ_REQUIRE(f.data != nullptr, Status::invalid_argument, "field data pointer is null");
  validate_bound(opt.eb);
  const Pipeline& pipe = find_pipeline(opt.pipeline);
  const Device device = resolve_device(opt.device);
  if (f.on_device) dev::require_available();
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

  CompressJob job{field.data, field.on_device, f.dtype, f.shape, effective_extent(f.shape), h.eb_abs, device, opt};
  std::vector<SectionIn> sections;
  pipe.compress(job, h.params, sections);
  std::vector<uint8_t> stream;
  {
    TracePhase t("write stream");
    stream = write_stream(h, std::move(sections));
  }
  const uint64_t raw_bytes = f.shape.count() * dtype_size(f.dtype);
  if (stream.size() > raw_bytes + kMaxHeaderBytes / 16) {
    // The pipeline would expand this field: store it verbatim instead (exact, so the bound
    // holds trivially), keeping every stream within max_compressed_size().
    const Pipeline& raw = find_pipeline("raw");
    h.pipeline = raw.name();
    h.params.clear();
    sections.clear();
    raw.compress(job, h.params, sections);
    stream = write_stream(h, std::move(sections));
  }
  return stream;
}

void decompress(std::span<const uint8_t> stream, void* out, uint64_t out_bytes, Device device, bool out_on_device,
                Stream cuda_stream) {
  ParsedStream ps;
  {
    TracePhase t("read stream + checksums");
    ps = read_stream(stream);
  }
  const Header& h = ps.header;
  const uint64_t need = h.shape.count() * dtype_size(h.dtype);
  SCIZ_REQUIRE(out_bytes == need, Status::invalid_argument,
          "output buffer holds " + std::to_string(out_bytes) + " bytes, the stream decodes to " + std::to_string(need) +
              " (" + h.shape.str() + " " + dtype_name(h.dtype) + ")");
  SCIZ_REQUIRE(out != nullptr, Status::invalid_argument, "output pointer is null");
  const Pipeline* pipe = nullptr;
  try {
    pipe = &find_pipeline(h.pipeline);
  } catch (const Error&) {
    fail(Status::unsupported, "stream uses pipeline '" + h.pipeline + "', which this build does not know");
  }
  const Device d = resolve_device(device);
  if (out_on_device) dev::require_available();
  DecompressJob job{&ps, effective_extent(h.shape), out, out_on_device, d, cuda_stream};
  pipe->decompress(job);
}

StreamInfo inspect(std::span<const uint8_t> stream) {
  const ParsedStream ps = read_stream(stream);
  const Header& h = ps.header;
  StreamInfo info{h.version,  h.dtype,     h.shape,     h.eb_mode,   h.eb_value, h.eb_abs,
                  h.value_min, h.value_max, h.nonfinite, h.pipeline, {},         {},
                  stream.size()};
  try {
    info.params = find_pipeline(h.pipeline).describe(h.params);
  } catch (const Error& e) {
    info.params = {{"params", e.what()}};
  }
  for (const auto& s : ps.sections) {
    const uint64_t off = static_cast<uint64_t>(s.bytes.data() - stream.data());
    info.sections.push_back({s.id, off, s.bytes.size(), s.checksum});
  }
  return info;
}

}  // namespace sciz
