// The bytecodes blob from and into device memory: the codes widened to 16 bits on the device
// and coded by the 16-bit stages' CUDA twins (the same bytes as encode_cpu), and back.
#include <sciz/error.hpp>

#include <string>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "lossless/bytecodes/bytecodes.hpp"
#include "lossless/codes/codes.hpp"
#include "lossless/codes/codes_device.hpp"

namespace sciz::bytecodes {
namespace {

__global__ void widen_kernel(const uint8_t* in, uint64_t n, uint16_t* out) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

// Narrows, reporting a code >= 256 (a damaged blob may decode to one) into st; writes nothing
// when st holds a failure (the stage's decoder may have reported one).
__global__ void narrow_kernel(const uint16_t* in, uint64_t n, uint8_t* out, DeviceStatus* st) {
  if (failed(st)) return;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint16_t c = in[i];
    if (c > 255) report(st, kStatusInterpFirst + 0, 0, i, c);
    out[i] = static_cast<uint8_t>(c);
  }
}

unsigned grid(uint64_t n) { return static_cast<unsigned>(n / 1024 + 1 < 65535u * 8 ? n / 1024 + 1 : 65535u * 8); }

dev::Buffer<uint16_t> widen(const uint8_t* d_codes, uint64_t n, cudaStream_t s) {
  dev::Buffer<uint16_t> wide(n, s);
  widen_kernel<<<grid(n), 256, 0, s>>>(d_codes, n, wide.get());
  SCIZ_CUDA_CHECK_LAUNCH("bytecodes widen_kernel");
  return wide;
}

}  // namespace

Packed encode_cuda(const uint8_t* d_codes, uint64_t n, cudaStream_t s) {
  const dev::Buffer<uint16_t> wide = widen(d_codes, n, s);
  codes::Encoded e = codes::encode_cuda(wide.get(), n, 256, kCentre, Lossless::auto_select, s);
  return {static_cast<uint8_t>(e.stage), std::move(e.bytes)};
}

void decode_cuda(uint8_t stage, std::span<const uint8_t> blob, uint8_t* d_out, uint64_t n, cudaStream_t s) {
  const Lossless ls = checked_stage(stage);
  dev::Buffer<uint16_t> wide(n, s);
  codes::decode_cuda(ls, blob, wide.get(), n, s);
  dev::Buffer<DeviceStatus> st(1, s);
  dev::zero(st.get(), sizeof(DeviceStatus), s);
  narrow_kernel<<<grid(n), 256, 0, s>>>(wide.get(), n, d_out, st.get());
  SCIZ_CUDA_CHECK_LAUNCH("bytecodes narrow_kernel");
  DeviceStatus h;
  dev::copy_to_host(&h, st.get(), sizeof h, s);
  dev::sync(s);
  throw_if_failed(h, "interp codes");
}

DevicePacked encode_device(const uint8_t* d_codes, uint64_t n, DeviceStatus* st, cudaStream_t s) {
  const dev::Buffer<uint16_t> wide = widen(d_codes, n, s);
  codes::DeviceEncoded e = codes::encode_device(wide.get(), n, 256, kCentre, Lossless::auto_select, st, s);
  DevicePacked p;
  p.stage = static_cast<uint8_t>(e.stage);
  p.bytes = std::move(e.bytes);
  p.size = e.size;
  return p;  // the widened codes are released in stream order, after the encoders read them
}

void decode_device(uint8_t stage, DeviceSpan blob, uint8_t* d_out, uint64_t n, DeviceStatus* st, cudaStream_t s) {
  const Lossless ls = checked_stage(stage);
  dev::Buffer<uint16_t> wide(n, s);
  codes::decode_device(ls, blob, wide.get(), n, st, s);
  narrow_kernel<<<grid(n), 256, 0, s>>>(wide.get(), n, d_out, st);
  SCIZ_CUDA_CHECK_LAUNCH("bytecodes narrow_kernel");
}

}  // namespace sciz::bytecodes
