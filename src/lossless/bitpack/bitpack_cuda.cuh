// Device-resident entry points of the bitpack CUDA twin, for callers that keep the encoding
// on the GPU (the benchmark); bitpack.hpp's encode_cuda/decode_cuda wrap them with copies.
#pragma once
#include <cstdint>

#include "core/cuda_fwd.hpp"
#include "core/device_status.hpp"

namespace sciz::bitpack::cuda {

// Writes the whole encoding (header included) of d_sym into d_enc, which must hold
// max_encoded_bytes(n), and returns its length. Synchronizes once, to learn that length.
uint64_t encode(const uint16_t* d_sym, uint64_t n, uint16_t centre, uint8_t* d_enc, cudaStream_t s);

// encode() without its synchronization, for callers that know the size from the codes' stats
// (words_offset(n) + 4 x the sum of the block widths).
void encode_async(const uint16_t* d_sym, uint64_t n, uint16_t centre, uint8_t* d_enc, cudaStream_t s);

// d_enc is an encoding of n symbols that bitpack::parse() has accepted on the host, now on the
// device; centre is the one parse() read. No synchronization.
void decode(const uint8_t* d_enc, uint64_t n, uint16_t centre, uint16_t* d_out, cudaStream_t s);

// A section of `size` bytes at d_enc (device, 4-byte aligned) validated on the device as
// parse() does on the host (the count, every width, the payload the widths call for), then
// decoded into d_out[0, n). Failures go to st; nothing is written once st holds one. No
// synchronization.
void decode_device(const uint8_t* d_enc, uint64_t size, uint64_t n, uint16_t* d_out, DeviceStatus* st, cudaStream_t s);

}  // namespace sciz::bitpack::cuda
