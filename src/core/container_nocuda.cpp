// Built only without CUDA: the device container says so instead of failing to link.
#include <sciz/error.hpp>

#include "core/container_cuda.hpp"
#include "core/container.hpp"

namespace sciz::devstream {
namespace {
[[noreturn]] void no_cuda() { fail(Status::no_device, "this sciz was built without CUDA; use --device cpu"); }
}  // namespace
uint64_t chunk_bytes(const std::string& pipeline, size_t params_bytes, const std::vector<Section>& secs) {
  std::vector<uint64_t> lengths;
  for (const auto& s : secs) lengths.push_back(s.size);
  return chunk_layout(chunk_header_bytes(pipeline, params_bytes, secs.size()), lengths).bytes;
}
void write_chunk(const std::string&, const std::vector<uint8_t>&, const std::vector<Section>&, uint8_t*, cudaStream_t) {
  no_cuda();
}
void verify_chunks(const std::vector<ChunkCheck>&, DeviceStatus*, cudaStream_t) {
  no_cuda();
}
void copy_if_ok(void*, const void*, uint64_t, const DeviceStatus*, cudaStream_t) { no_cuda(); }
void gather_to_host(const uint8_t*, const std::vector<std::pair<uint64_t, uint64_t>>&, std::vector<uint8_t>&, cudaStream_t) {
  no_cuda();
}
}  // namespace sciz::devstream
