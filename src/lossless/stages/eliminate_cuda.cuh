// Internal to the RRE/RZE CUDA twin (CUDA sources only): what eliminate_cuda.cu and the
// baseline kernels of eliminate_baseline_cuda.cu share.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/device_status.hpp"
#include "lossless/stages/stage_id.hpp"

namespace sciz::stages::cuda {

// SCIZ_STAGES_BASELINE=1: the first version of the kernels (a comparison, and a way back).
bool use_baseline();

// Exclusive sum of `count` u64s on the device (CUB), queued on s.
void exclusive_scan(const uint64_t* in, uint64_t* out, uint64_t count, cudaStream_t s);

uint64_t eliminate_encode_baseline(StageId id, const uint8_t* d_in, uint64_t n, uint8_t* d_out, cudaStream_t s);
// offset: the payloads' exclusive prefix (the table checked and scanned already).
void launch_decode_baseline(StageId id, const uint8_t* d_blob, const uint64_t* offset, uint64_t n, uint8_t* d_out,
                            DeviceStatus* st, cudaStream_t s);

}  // namespace sciz::stages::cuda
