// TCMS_w, CUDA twin: a thread per symbol (grid-stride), the map of tcms_math.hpp.
#include "core/cuda_check.cuh"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cuda.cuh"
#include "lossless/stages/stage_cuda.hpp"
#include "lossless/stages/symbols.hpp"
#include "lossless/stages/tcms_math.hpp"

namespace sciz::stages::cuda {
namespace {

template <int W, bool Forward>
__global__ void __launch_bounds__(kThreads)
    tcms_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, uint64_t n, uint64_t header,
                uint8_t* header_dst, const DeviceStatus* st) {
  if (check::gate(st)) return;
  write_header_bytes(header_dst, header);
  const uint64_t m = n / W;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; i < m;
       i += static_cast<uint64_t>(gridDim.x) * kThreads) {
    const uint_t<W> v = load_sym<W>(in + i * W);
    store_sym<W>(out + i * W, Forward ? tcms_forward(v) : tcms_inverse(v));
  }
  if (blockIdx.x == 0 && threadIdx.x < n - m * W) out[m * W + threadIdx.x] = in[m * W + threadIdx.x];  // partial symbol
}

template <bool Forward>
void launch(StageId id, const uint8_t* in, uint8_t* out, uint64_t n, uint8_t* header_dst, const DeviceStatus* st,
            cudaStream_t s) {
  with_width(width_of(id), [&]<int W>() {
    tcms_kernel<W, Forward><<<grid_for(n / W, kThreads), kThreads, 0, s>>>(in, out, n, make_header(id, n), header_dst, st);
    SCIZ_CUDA_CHECK_LAUNCH("tcms_kernel");
  });
}

}  // namespace

void tcms_encode(StageId id, const uint8_t* d_in, uint64_t n, uint8_t* d_out, cudaStream_t s) {
  launch<true>(id, d_in, d_out + kHeaderBytes, n, d_out, nullptr, s);
}

void tcms_decode(StageId id, const uint8_t* d_blob, uint64_t n, uint8_t* d_out, DeviceStatus* st, cudaStream_t s) {
  check_header(id, d_blob, n, st, s);
  launch<false>(id, d_blob + kHeaderBytes, d_out, n, nullptr, st, s);
}

}  // namespace sciz::stages::cuda
