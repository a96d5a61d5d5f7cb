// Streams whose checksums are right but whose header or sections lie, built with the container
// writer itself: every check in front of the lie passes, so the test reaches the code that must
// catch it (what an attacker who recomputes xxHash64 can hand a decoder).
#pragma once
#include <sciz/sciz.hpp>

#include <cstdint>
#include <vector>

#include "core/chunking.hpp"
#include "core/container.hpp"

namespace sciz::test {

// A field header of this dtype and shape with a plausible bound, read as the writer wrote it.
inline Header crafted_header(DType t, const Shape& shape) {
  Header h;
  h.dtype = t;
  h.shape = shape;
  h.eb_mode = EbMode::abs;
  h.eb_value = h.eb_abs = 0.5;
  h.value_min = 0;
  h.value_max = 1;
  h.pipeline = "raw";
  return h;
}

// One stream of `chunks` (each a pipeline name, params and sections), rows_per_chunk rows each.
inline std::vector<uint8_t> crafted_stream(const Header& h, uint64_t rows_per_chunk, const std::vector<ChunkOut>& chunks) {
  const ChunkPlan plan = stated_plan(h.shape, rows_per_chunk, chunks.size());
  return write_stream(h, plan, chunks);
}

// A stream declaring `shape` (of any size the header allows) whose one raw chunk holds only
// 16 bytes: a few hundred bytes that claim up to 2 PiB.
inline std::vector<uint8_t> declared_huge_stream(const Shape& shape, DType t = DType::f64) {
  ChunkOut c;
  c.pipeline = "raw";
  c.sections.push_back({1, std::vector<uint8_t>(16, 0)});
  return crafted_stream(crafted_header(t, shape), shape.dims[0], {c});
}

// The same chunks as `stream` with section `id` of chunk `chunk` replaced: checksums recomputed.
inline std::vector<uint8_t> with_section(const std::vector<uint8_t>& stream, uint64_t chunk, uint32_t id,
                                         const std::vector<uint8_t>& bytes) {
  const ParsedStream ps = read_stream(stream);
  std::vector<ChunkOut> out;
  for (uint64_t i = 0; i < ps.chunks.size(); ++i) {
    const ParsedChunk& c = ps.chunks[i];
    ChunkOut o{c.header.pipeline, c.header.params, {}};
    for (const auto& s : c.sections)
      o.sections.push_back({s.id, i == chunk && s.id == id ? bytes : std::vector<uint8_t>(s.bytes.begin(), s.bytes.end())});
    out.push_back(std::move(o));
  }
  Header h = ps.header;
  return crafted_stream(h, ps.plan.rows_per_chunk, out);
}

}  // namespace sciz::test
