// TCMS_w, CUDA twin: the map of tcms_math.hpp. Where input and output are 8-byte aligned (a
// chain's buffers, and every blob body at offset 8 of one), a thread maps two 8-byte words at
// a time (16-byte accesses where both allow), whole symbols per word; elsewhere a thread per
// symbol with byte accesses.
#include "core/cuda_check.cuh"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cuda.cuh"
#include "lossless/stages/stage_cuda.hpp"
#include "lossless/stages/symbols.hpp"
#include "lossless/stages/tcms_math.hpp"

namespace sciz::stages::cuda {
namespace {

template <int W, bool Forward>
__device__ uint64_t map_word(uint64_t v) {
  return Forward ? tcms_forward_word<W>(v) : tcms_inverse_word<W>(v);
}

// Byte p of the output for an input of n bytes (the symbols of the last word and the partial
// symbol, which the word loop leaves).
template <int W, bool Forward>
__device__ uint8_t map_byte(const uint8_t* in, uint64_t n, uint64_t p) {
  const uint64_t s = p / W;
  if ((s + 1) * W > n) return in[p];  // the partial symbol: verbatim
  const uint_t<W> v = load_sym<W>(in + s * W);
  const uint_t<W> u = Forward ? tcms_forward(v) : tcms_inverse(v);
  return static_cast<uint8_t>(u >> (8 * (p % W)));
}

// Pairs of 8-byte words; `Wide`: 16-byte accesses (both pointers 16-byte aligned).
template <int W, bool Forward, bool Wide>
__global__ void __launch_bounds__(kThreads)
    tcms_words_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, uint64_t n, uint64_t header,
                      uint8_t* header_dst, const DeviceStatus* st) {
  if (check::gate(st)) return;
  write_header_bytes(header_dst, header);
  const uint64_t pairs = n / 16;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; i < pairs;
       i += static_cast<uint64_t>(gridDim.x) * kThreads) {
    if constexpr (Wide) {
      ulonglong2 v = reinterpret_cast<const ulonglong2*>(in)[i];
      v.x = map_word<W, Forward>(v.x);
      v.y = map_word<W, Forward>(v.y);
      reinterpret_cast<ulonglong2*>(out)[i] = v;
    } else {
      const uint64_t a = reinterpret_cast<const uint64_t*>(in)[2 * i], b = reinterpret_cast<const uint64_t*>(in)[2 * i + 1];
      reinterpret_cast<uint64_t*>(out)[2 * i] = map_word<W, Forward>(a);
      reinterpret_cast<uint64_t*>(out)[2 * i + 1] = map_word<W, Forward>(b);
    }
  }
  const uint64_t done = 16 * pairs;
  if (blockIdx.x == 0 && threadIdx.x < n - done) out[done + threadIdx.x] = map_byte<W, Forward>(in, n, done + threadIdx.x);
}

// Any alignment: a thread per symbol.
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
  const uintptr_t align = reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out);
  const uint64_t header = make_header(id, n);
  with_width(width_of(id), [&]<int W>() {
    if (align % 16 == 0) {
      tcms_words_kernel<W, Forward, true><<<grid_for(n / 16, kThreads), kThreads, 0, s>>>(in, out, n, header, header_dst, st);
    } else if (align % 8 == 0) {
      tcms_words_kernel<W, Forward, false><<<grid_for(n / 16, kThreads), kThreads, 0, s>>>(in, out, n, header, header_dst, st);
    } else {
      tcms_kernel<W, Forward><<<grid_for(n / W, kThreads), kThreads, 0, s>>>(in, out, n, header, header_dst, st);
    }
    SCIZ_CUDA_CHECK_LAUNCH("tcms_kernel");
  });
}

}  // namespace

void tcms_map(StageId id, const uint8_t* d_in, uint8_t* d_out, uint64_t n, bool forward, const DeviceStatus* st,
              cudaStream_t s) {
  if (forward) launch<true>(id, d_in, d_out, n, nullptr, st, s);
  else launch<false>(id, d_in, d_out, n, nullptr, st, s);
}

void tcms_encode(StageId id, const uint8_t* d_in, uint64_t n, uint8_t* d_out, cudaStream_t s) {
  launch<true>(id, d_in, d_out + kHeaderBytes, n, d_out, nullptr, s);
}

void tcms_decode(StageId id, const uint8_t* d_blob, uint64_t n, uint8_t* d_out, DeviceStatus* st, cudaStream_t s) {
  check_header(id, d_blob, n, st, s);
  launch<false>(id, d_blob + kHeaderBytes, d_out, n, nullptr, st, s);
}

}  // namespace sciz::stages::cuda
