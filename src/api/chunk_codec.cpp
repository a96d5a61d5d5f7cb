#include "api/chunk_codec.hpp"

#include <cmath>

#include "core/error_bound.hpp"
#include "core/geometry.hpp"

namespace sciz {

Header field_header(DType dtype, const Shape& shape, const CompressOptions& opt, const Pipeline& pipe,
                    const ValueRange& vr) {
  Header h;
  h.dtype = dtype;
  h.shape = shape;
  h.eb_mode = opt.eb.mode;
  h.eb_value = opt.eb.value;
  h.eb_abs = resolve_bound(opt.eb, vr);
  h.value_min = vr.finite ? vr.min + 0.0 : NAN;  // + 0.0: -0 and +0 read the same
  h.value_max = vr.finite ? vr.max + 0.0 : NAN;
  h.nonfinite = vr.nonfinite;
  h.pipeline = pipe.name();
  return h;
}

ChunkOut encode_chunk(const Pipeline& pipe, const void* data, bool on_device, DType dtype, const Shape& chunk_shape,
                      double eb_abs, Device device, const CompressOptions& opt) {
  CompressJob job{data, on_device, dtype, chunk_shape, effective_extent(chunk_shape), eb_abs, device, opt};
  ChunkOut c;
  c.pipeline = pipe.name();
  pipe.compress(job, c.params, c.sections);
  const uint64_t raw = chunk_shape.count() * dtype_size(dtype);
  if (chunk_bytes(c) > raw_chunk_bytes(raw)) {
    // The pipeline would expand this chunk: store it verbatim instead (exact, so the bound
    // holds trivially), keeping every stream within max_compressed_size().
    const Pipeline& rawp = find_pipeline("raw");
    c = ChunkOut{};
    c.pipeline = rawp.name();
    rawp.compress(job, c.params, c.sections);
  }
  return c;
}

void decode_chunk(const ParsedChunk& c, void* out, bool out_on_device, Device device, Stream s) {
  const Pipeline* pipe = nullptr;
  try {
    pipe = &find_pipeline(c.header.pipeline);
  } catch (const Error&) {
    fail(Status::unsupported, "stream uses pipeline '" + c.header.pipeline + "', which this build does not know");
  }
  DecompressJob job{&c, effective_extent(c.header.shape), out, out_on_device, device, s};
  pipe->decompress(job);
}

}  // namespace sciz
