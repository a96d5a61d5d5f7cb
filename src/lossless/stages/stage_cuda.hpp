// The CUDA twins of the stage families, behind the dispatch in stages_cuda.cpp (host-only
// interface; kernels in <family>_cuda.cu, stubs in stages_nocuda.cpp). Device pointers in and
// out, all work queued on s. Encoders write the blob into d_out, which has room for
// max_encoded_bytes(); decoders get the decoded size the caller learnt and checked from the
// header (declared_bytes_cuda) and report any failure into st, writing nothing once st holds
// one. Bytes are the CPU twin's.
#pragma once
#include <sciz/types.hpp>

#include <cstdint>

#include "core/cuda_fwd.hpp"
#include "core/device_status.hpp"
#include "lossless/stages/stage_id.hpp"
#include "lossless/stages/stages_cuda.hpp"

namespace sciz::stages::cuda {

// Size-preserving stages: no synchronization.
void tcms_encode(StageId id, const uint8_t* d_in, uint64_t n, uint8_t* d_out, cudaStream_t s);
void tcms_decode(StageId id, const uint8_t* d_blob, uint64_t n, uint8_t* d_out, DeviceStatus* st, cudaStream_t s);
void bit_encode(StageId id, const uint8_t* d_in, uint64_t n, uint8_t* d_out, cudaStream_t s);
void bit_decode(StageId id, const uint8_t* d_blob, uint64_t n, uint8_t* d_out, DeviceStatus* st, cudaStream_t s);

// TCMS's map alone, no header (the fused kernels' last blocks).
void tcms_map(StageId id, const uint8_t* d_in, uint8_t* d_out, uint64_t n, bool forward, const DeviceStatus* st,
              cudaStream_t s);
// TCMS_w then BIT_v in one pass (a chain's tcms1,bit1): d_out receives BIT's blob (16 + n bytes)
// of TCMS's blob of the n bytes at d_x; and back from such a blob to the n bytes, both headers
// checked on the device first. No synchronization.
void tcms_bit_encode(StageId tcms, StageId bit, const uint8_t* d_x, uint64_t n, uint8_t* d_out, cudaStream_t s);
void bit_tcms_decode(StageId bit, StageId tcms, const uint8_t* d_blob, uint64_t n, uint8_t* d_x, DeviceStatus* st,
                     cudaStream_t s);

// RRE and RZE: the encoder synchronizes once, to learn the blob's size, which it returns.
uint64_t eliminate_encode(StageId id, const uint8_t* d_in, uint64_t n, uint8_t* d_out, cudaStream_t s);
void eliminate_decode(StageId id, const uint8_t* d_blob, uint64_t bytes, uint64_t n, uint8_t* d_out, DeviceStatus* st,
                      cudaStream_t s);

// Codes stages (src/lossless/codes on the device). Encoding checks the codes against the
// alphabet (throws invalid_argument) and synchronizes to learn sizes; returns the blob's size.
uint64_t codes_encode(StageId id, const uint8_t* d_in, uint64_t n, const Context& ctx, uint8_t* d_out,
                      uint64_t capacity, cudaStream_t s);
// The same, the blob left in the encoder's own buffer (a chain's first stage: no copy).
DeviceBlob codes_encode_blob(StageId id, const uint8_t* d_in, uint64_t n, const Context& ctx, cudaStream_t s);
// The same for a Lossless choice, auto_select included; `chosen` receives the stage written.
DeviceBlob codes_encode_choice(Lossless choice, const uint8_t* d_in, uint64_t n, const Context& ctx, StageId& chosen,
                               cudaStream_t s);
void codes_decode(StageId id, const uint8_t* d_blob, uint64_t bytes, uint64_t n, const Context& ctx, uint8_t* d_out,
                  DeviceStatus* st, cudaStream_t s);

// Reports kStatusStageHeader unless the blob's first 8 bytes are make_header(id, n).
void check_header(StageId id, const uint8_t* d_blob, uint64_t n, DeviceStatus* st, cudaStream_t s);

}  // namespace sciz::stages::cuda
