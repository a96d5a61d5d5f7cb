// One chunk straight into its pipeline's CPU decoder (decode_chunk, as decompress() calls it
// once the container has checked the chunk), in the layout of chunk_input.hpp: every mutation
// lands in a pipeline's params and sections. scripts/fuzz.sh runs this target once per
// registered pipeline from seeds cut out of that pipeline's streams.
//
// Oracles besides the sanitizers: only sciz::Error escapes; a decode that succeeds writes
// every output byte (two decodes into differently filled buffers agree).
#include <sciz/error.hpp>

#include <cstring>
#include <vector>

#include "api/chunk_codec.hpp"
#include "chunk_input.hpp"
#include "limits.hpp"

namespace {

bool decode(const sciz::ParsedChunk& c, std::vector<uint8_t>& out, uint8_t fill) {
  std::memset(out.data(), fill, out.size());
  try {
    sciz::decode_chunk(c, out.data(), false, sciz::Device::cpu, nullptr);
    return true;
  } catch (const sciz::Error&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto in = sciz::fuzz::read_chunk_input({data, size});
  if (!in) return 0;
  const sciz::Header& h = in->chunk.header;
  const uint64_t bytes = h.shape.count() * sciz::dtype_size(h.dtype);
  if (bytes > sciz::fuzz::kMaxDecodedBytes) return 0;
  std::vector<uint8_t> a(bytes), b(bytes);
  const bool ok = decode(in->chunk, a, 0x00);
  if (decode(in->chunk, b, 0xff) != ok) __builtin_trap();
  if (ok && a != b) __builtin_trap();  // output bytes the decoder never wrote
  return 0;
}
