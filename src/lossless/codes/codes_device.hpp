// Quant-code blobs that stay on the device: the same stages, the same choice and the same bytes
// as codes::encode_cpu / decode_cpu (docs/FORMAT.md), without the blob crossing PCIe.
//
// Encoding counts what the choice and the encoders need in one pass (stats_cuda.hpp; the runs
// in a second one, only where their floor does not rule them out), learns the counts in the
// caller's one synchronization (a Readback), decides on the host with the CPU's rule
// (select.hpp), then queues the encoders, which write into one device buffer of
// the exact size. Decoding reads every header on the device and validates as the CPU decoders
// do, reporting into a DeviceStatus; it never synchronizes.
// Host-only interface (codes_cuda.cu).
#pragma once
#include <sciz/types.hpp>

#include <cstdint>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/device_span.hpp"
#include "core/device_status.hpp"
#include "lossless/codes/readback.hpp"

namespace sciz::codes {

struct DeviceEncoded {
  Lossless stage = Lossless::auto_select;  // the stage written (never auto_select once finished)
  dev::Buffer<uint8_t> bytes;              // the blob on the device
  uint64_t size = 0;                       // its length in bytes
};

// A device encode in three steps around a synchronization the caller may share with its own
// device counters: the constructor reserves the counts in `rb`; after rb.allocate(), launch()
// queues the counting pass; after rb.fetch(), finish() chooses the stage and queues the
// encoders. d_codes (16-byte aligned) must stay valid until the encoders have run.
class DeviceEncoder {
 public:
  DeviceEncoder(const uint16_t* d_codes, uint64_t n, uint32_t alphabet, uint16_t centre, Lossless choice, Readback& rb);
  void launch(cudaStream_t s);
  // st: the encoders' self-checks (kStatusEncoderInternal and the huffman reader's codes on the
  // encoder's own codebook); any report there is a bug, not a property of the data. No
  // synchronization, but for `auto` where the runs' floor (select.hpp) leaves them in the
  // running: their counting pass, one more read-back and wait. Throws Error(internal) if a code
  // lies outside the alphabet.
  DeviceEncoded finish(DeviceStatus* st, cudaStream_t s);

 private:
  const uint16_t* codes_;
  uint64_t n_, tiles_;
  uint32_t alphabet_;
  uint16_t centre_;
  Lossless choice_;
  uint32_t flags_;
  Readback& rb_;
  size_t at_scalars_ = 0, at_hist_ = 0, at_zrun_ = 0, at_rval_ = 0, at_rlen_ = 0, at_scalars_runs_ = 0, at_cont_ = 0;
  dev::Buffer<uint64_t> tile_tokens_, tile_runs_;
};

// The three steps in one call, with one synchronization of its own (to learn the counts).
DeviceEncoded encode_device(const uint16_t* d_codes, uint64_t n, uint32_t alphabet, uint16_t centre, Lossless choice,
                            DeviceStatus* st, cudaStream_t s);

// Decodes the blob of `stage` in `blob` (device bytes, host-known length) into d_out[0, n)
// (16-byte aligned), validating it on the device as decode_cpu() does. A failure is reported
// into st and no later kernel writes d_out; only a chunk found corrupt while decoding may leave
// partial codes there, so callers check st before using them (lorenzo's reconstruction does).
// Nothing is written when st holds a failure already. A blob not 16-byte aligned is copied once
// to aligned scratch first. No synchronization.
void decode_device(Lossless stage, DeviceSpan blob, uint16_t* d_out, uint64_t n, DeviceStatus* st, cudaStream_t s);

}  // namespace sciz::codes
