// Every pipeline's CPU decoder through the public API: inspect(), decompress(), a slice by
// decompress_rows() and one chunk by ChunkedDecompressor, on the input with its checksums
// repaired. The pipeline is whatever each chunk names; scripts/fuzz.sh runs this target once
// per registered pipeline, each from seeds of that pipeline.
//
// Oracles besides the sanitizers: only sciz::Error may escape (anything else reaches libFuzzer
// as an uncaught exception); a decode that succeeds writes every output byte (two decodes into
// differently filled buffers agree); a slice and a chunk decode to the same bytes as the
// whole stream.
#include <sciz/chunked.hpp>
#include <sciz/sciz.hpp>

#include <cstring>
#include <vector>

#include "checksum_repair.hpp"
#include "limits.hpp"

namespace {

using namespace sciz;

bool decode_into(const std::vector<uint8_t>& s, std::vector<uint8_t>& out, uint8_t fill) {
  std::memset(out.data(), fill, out.size());
  DecompressOptions o;
  o.device = Device::cpu;
  o.max_output = fuzz::kMaxDecodedBytes;
  try {
    decompress(StreamView(s), out.data(), out.size(), o);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> s = fuzz::with_checksums_repaired({data, size});
  StreamInfo info;
  try {
    info = inspect(StreamView(s));
  } catch (const Error&) {
    return 0;
  }
  const uint64_t bytes = info.original_bytes();
  if (bytes > fuzz::kMaxDecodedBytes) return 0;
  std::vector<uint8_t> a(bytes), b(bytes);
  const bool ok = decode_into(s, a, 0x00);
  if (decode_into(s, b, 0xff) != ok) __builtin_trap();  // the same stream decoded once, failed once
  if (!ok) return 0;
  if (a != b) __builtin_trap();  // some output bytes were never written: silent garbage

  const uint64_t rows = info.shape.dims[0], row_bytes = bytes / rows;
  if (rows > 1) {
    const uint64_t r0 = rows / 3, r1 = rows - rows / 4;
    std::vector<uint8_t> part((r1 - r0) * row_bytes);
    DecompressOptions o;
    o.device = Device::cpu;
    o.max_output = 0;  // the chunks it cuts were all decoded above
    decompress_rows(StreamView(s), r0, r1, part.data(), part.size(), o);  // must not throw now
    if (std::memcmp(part.data(), a.data() + r0 * row_bytes, part.size()) != 0) __builtin_trap();
  }
  ChunkedDecompressor cd(std::span<const uint8_t>(s).first(ChunkedDecompressor::head_bytes(
                             std::span<const uint8_t>(s).first(s.size() < 12 ? s.size() : 12), s.size())),
                         s.size());
  const uint64_t last = cd.chunk_count() - 1;
  const ChunkInfo c = cd.chunk(last);
  std::vector<uint8_t> rows_out(c.rows * cd.row_bytes());
  const auto chunk = cd.version() < 4 ? std::span<const uint8_t>() : std::span<const uint8_t>(s).subspan(c.offset, c.length);
  cd.decompress_chunk(last, chunk, rows_out.data(), rows_out.size(), Device::cpu);
  if (std::memcmp(rows_out.data(), a.data() + c.row0 * cd.row_bytes(), rows_out.size()) != 0) __builtin_trap();
  return 0;
}
