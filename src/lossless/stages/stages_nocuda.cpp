// Built only without CUDA: the family twins of stage_cuda.hpp refuse, so every device entry
// point of stages_cuda.hpp throws Error(no_device).
#include <sciz/error.hpp>

#include "lossless/stages/stage_cuda.hpp"

namespace sciz::stages::cuda {
namespace {
[[noreturn]] void no_cuda() { fail(Status::no_device, "lossless stages: this sciz was built without CUDA"); }
}  // namespace
void tcms_encode(StageId, const uint8_t*, uint64_t, uint8_t*, cudaStream_t) { no_cuda(); }
void tcms_decode(StageId, const uint8_t*, uint64_t, uint8_t*, DeviceStatus*, cudaStream_t) { no_cuda(); }
void bit_encode(StageId, const uint8_t*, uint64_t, uint8_t*, cudaStream_t) { no_cuda(); }
void bit_decode(StageId, const uint8_t*, uint64_t, uint8_t*, DeviceStatus*, cudaStream_t) { no_cuda(); }
void tcms_map(StageId, const uint8_t*, uint8_t*, uint64_t, bool, const DeviceStatus*, cudaStream_t) { no_cuda(); }
void tcms_bit_encode(StageId, StageId, const uint8_t*, uint64_t, uint8_t*, cudaStream_t) { no_cuda(); }
void bit_tcms_decode(StageId, StageId, const uint8_t*, uint64_t, uint8_t*, DeviceStatus*, cudaStream_t) { no_cuda(); }
uint64_t eliminate_encode(StageId, const uint8_t*, uint64_t, uint8_t*, cudaStream_t) { no_cuda(); }
void eliminate_decode(StageId, const uint8_t*, uint64_t, uint64_t, uint8_t*, DeviceStatus*, cudaStream_t) { no_cuda(); }
uint64_t codes_encode(StageId, const uint8_t*, uint64_t, const Context&, uint8_t*, uint64_t, cudaStream_t) { no_cuda(); }
DeviceBlob codes_encode_blob(StageId, const uint8_t*, uint64_t, const Context&, cudaStream_t) { no_cuda(); }
DeviceBlob codes_encode_choice(Lossless, const uint8_t*, uint64_t, const Context&, StageId&, cudaStream_t) { no_cuda(); }
void codes_decode(StageId, const uint8_t*, uint64_t, uint64_t, const Context&, uint8_t*, DeviceStatus*, cudaStream_t) {
  no_cuda();
}
void check_header(StageId, const uint8_t*, uint64_t, DeviceStatus*, cudaStream_t) { no_cuda(); }
}  // namespace sciz::stages::cuda
