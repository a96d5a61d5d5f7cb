// The header check of a stage blob in device memory, queued before the decoder's kernels so
// that nothing runs on a blob whose length or stage byte disagrees with what the caller read.
#include "core/cuda_check.cuh"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cuda.cuh"
#include "lossless/stages/stage_cuda.hpp"

namespace sciz::stages::cuda {
namespace {

__global__ void check_header_kernel(const uint8_t* blob, uint64_t expected, uint32_t id, DeviceStatus* st) {
  const uint64_t h = check::load_le(blob, 8);
  if (h != expected) report(st, kStatusStageHeader, id, h, expected);
}

}  // namespace

void check_header(StageId id, const uint8_t* d_blob, uint64_t n, DeviceStatus* st, cudaStream_t s) {
  check_header_kernel<<<1, 1, 0, s>>>(d_blob, make_header(id, n), static_cast<uint32_t>(id), st);
  SCIZ_CUDA_CHECK_LAUNCH("check_header_kernel");
}

}  // namespace sciz::stages::cuda
