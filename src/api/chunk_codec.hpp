// One chunk through its pipeline, either way: the unit every path (CPU threads, a GPU's
// streams, several GPUs, files larger than memory) schedules.
#pragma once
#include <sciz/sciz.hpp>

#include "core/container.hpp"
#include "core/value_range.hpp"
#include "pipelines/pipeline.hpp"

namespace sciz {

// The stream header of a field: its bound resolved once over the whole field's range.
Header field_header(DType dtype, const Shape& shape, const CompressOptions& opt, const Pipeline& pipe,
                    const ValueRange& vr);

// Rows plan.rows(i) of the field, starting at `data` (host or device, see on_device), through
// `pipe`, or stored verbatim when the pipeline would expand them.
ChunkOut encode_chunk(const Pipeline& pipe, const void* data, bool on_device, DType dtype, const Shape& chunk_shape,
                      double eb_abs, Device device, const CompressOptions& opt);

// Decodes a parsed (and verified) chunk into out, which holds exactly its values.
void decode_chunk(const ParsedChunk& c, void* out, bool out_on_device, Device device, Stream s);

// Runs f(i) for i in [0, n): on several threads when there are at least as many items as
// threads (each item's own OpenMP work then runs in a team of one), else one after another
// with each item's work spread over the threads. The first exception is rethrown.
template <class F>
void for_each_chunk(uint64_t n, bool parallel, F&& f);

}  // namespace sciz

#include "api/chunk_codec_impl.hpp"
