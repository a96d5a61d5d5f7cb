// Lossless stages and chains, CUDA twin (host-only interface): device pointers in and out, all
// work on the caller's stream, the CPU twin's bytes (stages.hpp). Built without CUDA, every
// call throws Error(no_device).
//
// Host synchronizations: a size-preserving stage (tcms, bit) none; a reducer (rre, rze) one,
// to learn its blob's size; a codes stage two (the alphabet check and the encoder's counts),
// one for 1-byte codes of a 256-code alphabet (nothing to check). A tcms stage followed by a bit
// stage runs as one pass, both ways (tcms_bit_cuda.cu).
// Decoding learns a reducer's or codes stage's declared size from its header (one
// synchronization, which also reads the status of the stage decoded before it), a tcms or bit
// blob's from its length, and validates everything else on the device, writing nothing once a
// check has failed.
#pragma once
#include <sciz/types.hpp>

#include <cstdint>
#include <span>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/device_status.hpp"
#include "lossless/stages/stage_id.hpp"

namespace sciz::stages {

// One stage. d_out has room for max_encoded_bytes(id, n, ctx) (else invalid_argument); returns
// the blob's size.
uint64_t encode_stage_cuda(StageId id, const uint8_t* d_in, uint64_t n, uint8_t* d_out, uint64_t capacity,
                           const Context& ctx, cudaStream_t s);
// The decoded size of a device blob, checked as the CPU decoder checks it before allocating
// (stage byte, max_out, the blob's size): one synchronization. Throws corrupt_stream.
uint64_t declared_bytes_cuda(StageId id, const uint8_t* d_blob, uint64_t bytes, uint64_t max_out, const Context& ctx,
                             cudaStream_t s);
// Decodes into d_out[0, out_bytes), out_bytes being what declared_bytes_cuda() returned.
// Failures go to st (device memory); nothing is written once st holds one. No synchronization,
// except for a codes stage of no codes, whose few bytes the CPU decoder checks (it throws).
void decode_stage_cuda(StageId id, const uint8_t* d_blob, uint64_t bytes, uint8_t* d_out, uint64_t out_bytes,
                       const Context& ctx, DeviceStatus* st, cudaStream_t s);

struct DeviceBlob {
  dev::Buffer<uint8_t> bytes;
  uint64_t size = 0;
};

// A codes stage by choice, auto_select included (encode_codes_cpu(): the same choice and
// bytes); `chosen` receives the stage written. Synchronizes as a codes stage does.
DeviceBlob encode_codes_cuda(Lossless choice, const uint8_t* d_in, uint64_t n, const Context& ctx, StageId& chosen,
                             cudaStream_t s);

// A chain (check_chain() rules).
DeviceBlob encode_cuda(std::span<const StageId> chain, const uint8_t* d_in, uint64_t n, const Context& ctx,
                       cudaStream_t s);
// Decodes to exactly out_bytes bytes at d_out, bounding every intermediate blob as decode_cpu()
// does; throws corrupt_stream naming the stage. Failures go to st when given (device memory;
// one already there, such as a checksum the caller's kernels found bad, stops every kernel and
// is the one reported), and the caller reads st; else to a status of its own, read at the end.
// Synchronizes to read the header of each reducer or codes stage but the first (a tcms or bit
// blob declares its size by its length, and the first stage decodes to out_bytes; the device
// checks their headers), and at the end when st is not given.
void decode_cuda(std::span<const StageId> chain, const uint8_t* d_blob, uint64_t bytes, uint8_t* d_out,
                 uint64_t out_bytes, const Context& ctx, cudaStream_t s, DeviceStatus* st = nullptr);
// Every stage of a chain of two or more but the first (decode_tail_cpu): the first stage's
// blob, left on the device. The same checks and synchronizations as decode_cuda().
DeviceBlob decode_tail_cuda(std::span<const StageId> chain, const uint8_t* d_blob, uint64_t bytes, uint64_t out_bytes,
                            const Context& ctx, cudaStream_t s, DeviceStatus* st = nullptr);

// Host bytes through the device twin (tests, tools): upload, run, download.
std::vector<uint8_t> encode_cuda_host(std::span<const StageId> chain, std::span<const uint8_t> in, const Context& ctx,
                                      cudaStream_t s);
std::vector<uint8_t> decode_cuda_host(std::span<const StageId> chain, std::span<const uint8_t> blob,
                                      uint64_t out_bytes, const Context& ctx, cudaStream_t s);

}  // namespace sciz::stages
