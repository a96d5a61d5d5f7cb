// What `sciz info` runs on a stream file (ChunkedDecompressor: head, summary, every chunk
// described or verified) and the API's inspect(), on the input with its checksums repaired.
// The two must agree on what they accept and on what they report.
#include <sciz/chunked.hpp>
#include <sciz/sciz.hpp>

#include <vector>

#include "checksum_repair.hpp"

namespace {

using namespace sciz;

// The info command's walk; false where it refuses the stream.
bool info_walk(std::span<const uint8_t> s, StreamInfo& out) {
  try {
    const auto first = s.first(s.size() < 12 ? s.size() : 12);
    const uint64_t hb = ChunkedDecompressor::head_bytes(first, s.size());
    if (hb > s.size()) __builtin_trap();
    ChunkedDecompressor cd(s.first(hb), s.size());
    out = cd.summary();
    for (uint64_t i = 0; i < cd.chunk_count(); ++i) {
      const ChunkInfo c = cd.chunk(i);
      const auto bytes = cd.version() < 4 ? std::span<const uint8_t>() : s.subspan(c.offset, c.length);
      if (i == 0) {
        const auto d = cd.describe_chunk(0, bytes);
        out.chunks[0] = d.info;
        out.sections = d.sections;
      } else {
        out.chunks[i] = cd.verify_chunk(i, bytes);
      }
    }
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> s = fuzz::with_checksums_repaired({data, size});
  StreamInfo walked;
  const bool walk_ok = info_walk(s, walked);
  StreamInfo api;
  bool api_ok = true;
  try {
    api = inspect(StreamView(s));
  } catch (const Error&) {
    api_ok = false;
  }
  if (walk_ok != api_ok) __builtin_trap();  // one reader accepts what the other refuses
  if (!api_ok) return 0;
  if (api.shape.dims != walked.shape.dims || api.chunks.size() != walked.chunks.size() ||
      api.sections.size() != walked.sections.size())
    __builtin_trap();
  for (size_t i = 0; i < api.sections.size(); ++i)
    if (api.sections[i].offset != walked.sections[i].offset || api.sections[i].length != walked.sections[i].length)
      __builtin_trap();
  return 0;
}
