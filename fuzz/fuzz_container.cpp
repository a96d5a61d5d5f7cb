// The container parser alone (core/container.cpp): stream head, chunk index, chunk headers
// and section tables, on the input as given (checksums almost always wrong: the checks that
// come before them) and with its checksums repaired (everything after them).
#include <sciz/error.hpp>

#include <cstdint>
#include <span>

#include "checksum_repair.hpp"
#include "core/container.hpp"
#include "pipelines/pipeline.hpp"

namespace {

void parse_all(std::span<const uint8_t> s) {
  using namespace sciz;
  try {
    const uint64_t need = head_needed(s.first(s.size() < 12 ? s.size() : 12), s.size());
    if (need > s.size()) __builtin_trap();  // head_needed promised bytes the stream lacks
    ParsedStream ps = read_stream_head(s.first(need), s.size());
    for (uint64_t i = 0; i < ps.chunks.size(); ++i) {
      const ParsedChunk& c = ps.chunks[i];
      // Versions 1 to 3 hand the whole stream as their one chunk's bytes.
      const auto bytes = ps.header.version < 4 ? s : s.subspan(c.offset, c.length);
      const ParsedChunk parsed = parse_chunk(ps, i, bytes, true);
      for (const auto& sec : parsed.sections)
        if (sec.bytes.data() < s.data() || sec.bytes.data() + sec.bytes.size() > s.data() + s.size())
          __builtin_trap();  // a section view outside the stream
      try {
        (void)find_pipeline(parsed.header.pipeline).describe(parsed.header.params, ps.header.version);
      } catch (const Error&) {
      }
    }
    const uint64_t rows = ps.plan.rows_total;
    if (rows > 1) (void)read_stream_rows(s, rows / 2, rows);
  } catch (const sciz::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  parse_all({data, size});
  const auto repaired = sciz::fuzz::with_checksums_repaired({data, size});
  parse_all(repaired);
  return 0;
}
