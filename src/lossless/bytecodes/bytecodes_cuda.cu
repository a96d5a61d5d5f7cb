// The bytecodes section from and into device memory: the codes widened to 16 bits on the device
// and coded by the 16-bit stages' CUDA twins (the same bytes as encode_cpu), and back.
#include <sciz/error.hpp>

#include <string>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "lossless/bytecodes/bytecodes.hpp"
#include "lossless/codes/codes.hpp"

namespace sciz::bytecodes {
namespace {

__global__ void widen_kernel(const uint8_t* in, uint64_t n, uint16_t* out) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

// Narrows and records the largest code (a damaged section may decode to codes >= 256).
__global__ void narrow_kernel(const uint16_t* in, uint64_t n, uint8_t* out, unsigned* worst) {
  unsigned w = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint16_t c = in[i];
    w = c > w ? c : w;
    out[i] = static_cast<uint8_t>(c);
  }
  if (w > 255) atomicMax(worst, w);
}

unsigned grid(uint64_t n) { return static_cast<unsigned>(n / 256 / 4 + 1 < 65535u * 8 ? n / 256 / 4 + 1 : 65535u * 8); }

}  // namespace

std::vector<uint8_t> encode_cuda(const uint8_t* d_codes, uint64_t n, cudaStream_t s) {
  dev::Buffer<uint16_t> wide(n, s);
  widen_kernel<<<grid(n), 256, 0, s>>>(d_codes, n, wide.get());
  SCIZ_CUDA_CHECK_LAUNCH("bytecodes widen_kernel");
  const codes::Encoded e = codes::encode_cuda(wide.get(), n, 256, kCentre, Lossless::auto_select, s);
  return with_header(e.stage, e.bytes);
}

void decode_cuda(std::span<const uint8_t> sec, uint8_t* d_out, uint64_t n, cudaStream_t s) {
  const Lossless stage = section_stage(sec);
  dev::Buffer<uint16_t> wide(n, s);
  codes::decode_cuda(stage, sec.subspan(kHeader), wide.get(), n, s);
  dev::Buffer<unsigned> worst(1, s);
  dev::zero(worst.get(), sizeof(unsigned), s);
  narrow_kernel<<<grid(n), 256, 0, s>>>(wide.get(), n, d_out, worst.get());
  SCIZ_CUDA_CHECK_LAUNCH("bytecodes narrow_kernel");
  unsigned w = 0;
  dev::copy_to_host(&w, worst.get(), sizeof w, s);
  dev::sync(s);
  SCIZ_REQUIRE(w < 256, Status::corrupt_stream, "interp codes section: code " + std::to_string(w) + " does not fit a byte");
}

}  // namespace sciz::bytecodes
