// Lossless coding of uint8 quant codes (interp's codes section), one function each way per
// device so that the stage lists (`interp-cr`, `interp-tp`) can replace the bodies without
// touching the pipeline. Today: the codes widened to 16 bits through the 16-bit stages of
// lossless/codes (huffman, rle, rle+huffman, zrle+huffman, the smallest sized exactly); the
// stage used travels in the pipeline's params, the section is that stage's blob.
#pragma once
#include <sciz/types.hpp>

#include <cstdint>
#include <span>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/device_span.hpp"
#include "core/device_status.hpp"

namespace sciz::bytecodes {

inline constexpr uint16_t kCentre = 128;  // the code of a zero residual

struct Packed {
  uint8_t stage = 0;  // a Lossless value (never auto_select)
  std::vector<uint8_t> blob;
};

// Throws corrupt_stream naming a stage byte that names no stage.
Lossless checked_stage(uint8_t stage);

Packed encode_cpu(std::span<const uint8_t> codes);
// Validates the blob (the stage's own checks, and every code < 256) before writing out.
void decode_cpu(uint8_t stage, std::span<const uint8_t> blob, std::span<uint8_t> out);

// Bytes encode_cpu would write (its blob).
uint64_t encoded_bytes(std::span<const uint8_t> codes);
// The same, estimated from small histograms: the smaller of the huffman and zrle+huffman
// candidates, each sized exactly (rle and rle+huffman, which these codes hardly ever take,
// are left out). A fraction of a millisecond on a sample where encoded_bytes() takes several
// (its 65,536-bin histograms), so the tuner sizes its candidates with this one.
uint64_t estimated_bytes(std::span<const uint8_t> codes);
// The stage estimate for any codes below `alphabet` around `centre` (the tuner sizes
// Lorenzo's 16-bit codes with it too).
template <class Sym>
uint64_t estimate_stage_bytes(std::span<const Sym> codes, uint32_t alphabet, uint16_t centre);

// CUDA twins, the same bytes. From device codes to a host blob, and a host blob into device
// codes (validated as decode_cpu validates; throws).
Packed encode_cuda(const uint8_t* d_codes, uint64_t n, cudaStream_t s);
void decode_cuda(uint8_t stage, std::span<const uint8_t> blob, uint8_t* d_out, uint64_t n, cudaStream_t s);

// Device-resident: the blob stays on the device (one synchronization, to learn the counts the
// stage choice needs; st receives the encoders' self-checks), and a device blob decodes into
// device codes without synchronizing, failures reported into st (codes 500.., and the stages'
// own); nothing is written once st holds a failure.
struct DevicePacked {
  uint8_t stage = 0;
  dev::Buffer<uint8_t> bytes;
  uint64_t size = 0;
};
DevicePacked encode_device(const uint8_t* d_codes, uint64_t n, DeviceStatus* st, cudaStream_t s);
void decode_device(uint8_t stage, DeviceSpan blob, uint8_t* d_out, uint64_t n, DeviceStatus* st, cudaStream_t s);

}  // namespace sciz::bytecodes
