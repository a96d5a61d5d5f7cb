// The quant-code stages as chain stages, CUDA twin: the device encoders and decoders of
// src/lossless/codes (codes_device.hpp), with 1- or 2-byte codes gathered into the aligned
// 16-bit symbols they read, and scattered back (1-byte codes checked to fit a byte). 1-byte
// codes move 4 a thread where aligned; with an alphabet of 256 (interp's) no byte can lie outside
// it, so the check and the synchronization it costs are skipped.
#include <sciz/error.hpp>

#include <string>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "lossless/codes/codes_device.hpp"
#include "lossless/stages/registry.hpp"
#include "lossless/stages/stage_cpu.hpp"
#include "lossless/stages/stage_cuda.cuh"
#include "lossless/stages/stage_cuda.hpp"
#include "lossless/stages/stages_cuda.hpp"

namespace sciz::stages::cuda {
namespace {

// Codes of w bytes -> 16-bit symbols; the first index of a code outside the alphabet goes to *bad.
__global__ void __launch_bounds__(kThreads)
    widen_kernel(const uint8_t* __restrict__ in, uint64_t n, int w, uint32_t alphabet, uint16_t* __restrict__ out,
                 unsigned long long* bad) {
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<uint64_t>(gridDim.x) * kThreads) {
    const uint16_t v = w == 1 ? in[i] : static_cast<uint16_t>(in[2 * i] | in[2 * i + 1] << 8);
    out[i] = v;
    if (v >= alphabet && bad != nullptr) atomicMin(bad, static_cast<unsigned long long>(i));
  }
}

// 1-byte codes of a full alphabet (nothing to check), 4 a thread: a 4-byte load, an 8-byte store.
__global__ void __launch_bounds__(kThreads)
    widen_bytes_kernel(const uint32_t* __restrict__ in, uint64_t quads, uint2* __restrict__ out) {
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; i < quads;
       i += static_cast<uint64_t>(gridDim.x) * kThreads) {
    const uint32_t v = in[i];
    out[i] = make_uint2(__byte_perm(v, 0, 0x4140), __byte_perm(v, 0, 0x4342));  // bytes 0, 1 and 2, 3 zero-extended
  }
}

__global__ void __launch_bounds__(kThreads)
    narrow_kernel(const uint16_t* __restrict__ in, uint64_t n, int w, uint32_t id, uint8_t* __restrict__ out,
                  DeviceStatus* st, uint64_t base = 0) {
  if (check::gate(st)) return;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<uint64_t>(gridDim.x) * kThreads) {
    const uint16_t v = in[i];
    if (w == 1) {
      if (v > 255) report(st, kStatusStageCode, id, base + i, v);
      out[i] = static_cast<uint8_t>(v);
    } else {
      out[2 * i] = static_cast<uint8_t>(v);
      out[2 * i + 1] = static_cast<uint8_t>(v >> 8);
    }
  }
}

// 1-byte codes back, 4 a thread (out 4-byte aligned): an 8-byte load, a 4-byte store.
__global__ void __launch_bounds__(kThreads)
    narrow_bytes_kernel(const uint2* __restrict__ in, uint64_t quads, uint32_t id, uint32_t* __restrict__ out,
                        DeviceStatus* st) {
  if (check::gate(st)) return;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; i < quads;
       i += static_cast<uint64_t>(gridDim.x) * kThreads) {
    const uint2 v = in[i];
    if ((v.x | v.y) & 0xFF00FF00u) {  // a code above 255
      for (int k = 0; k < 4; ++k) {
        const uint32_t c = ((k < 2 ? v.x : v.y) >> (16 * (k % 2))) & 0xFFFFu;
        if (c > 255) report(st, kStatusStageCode, id, 4 * i + k, c);
      }
    }
    out[i] = __byte_perm(v.x, v.y, 0x6420);  // the low byte of each code
  }
}

}  // namespace

DeviceBlob codes_encode_choice(Lossless choice, const uint8_t* d_in, uint64_t n, const Context& ctx, StageId& chosen,
                               cudaStream_t s) {
  const StageId id = static_cast<StageId>(choice);  // "?" in messages for auto_select
  const uint64_t syms = n / ctx.code_width;
  if (syms == 0) {  // no codes: the device coders are built for fields, which are never empty
    codes::Encoded e = cpu::codes_encode_choice(choice, {}, ctx);
    chosen = static_cast<StageId>(e.stage);
    const std::vector<uint8_t>& blob = e.bytes;
    DeviceBlob b{dev::Buffer<uint8_t>(blob.size(), s), blob.size()};
    dev::copy_to_device(b.bytes.get(), blob.data(), blob.size(), s);
    dev::sync(s);  // blob is a host temporary
    return b;
  }
  dev::Buffer<uint16_t> sym(syms, s);
  if (ctx.code_width == 1 && ctx.alphabet >= 256 && reinterpret_cast<uintptr_t>(d_in) % 4 == 0) {
    // Every byte is a code of the alphabet: widened in words, no check, no synchronization.
    const uint64_t quads = syms / 4;
    if (quads) {
      widen_bytes_kernel<<<grid_for(quads, kThreads), kThreads, 0, s>>>(reinterpret_cast<const uint32_t*>(d_in), quads,
                                                                     reinterpret_cast<uint2*>(sym.get()));
      SCIZ_CUDA_CHECK_LAUNCH("codes widen_bytes_kernel");
    }
    if (syms % 4) {
      widen_kernel<<<1, kThreads, 0, s>>>(d_in + 4 * quads, syms % 4, 1, ctx.alphabet, sym.get() + 4 * quads, nullptr);
      SCIZ_CUDA_CHECK_LAUNCH("codes widen_kernel");
    }
  } else {
    dev::Buffer<unsigned long long> bad(1, s);
    SCIZ_CUDA_CHECK(cudaMemsetAsync(bad.get(), 0xFF, sizeof(unsigned long long), s));
    widen_kernel<<<grid_for(syms, kThreads), kThreads, 0, s>>>(d_in, syms, ctx.code_width, ctx.alphabet, sym.get(), bad.get());
    SCIZ_CUDA_CHECK_LAUNCH("codes widen_kernel");
    unsigned long long first_bad = 0;
    dev::copy_to_host(&first_bad, bad.get(), sizeof first_bad, s);
    dev::sync(s);
    if (first_bad != ~0ull) {
      uint16_t v = 0;
      dev::copy_to_host(&v, sym.get() + first_bad, sizeof v, s);
      dev::sync(s);
      fail(Status::invalid_argument, std::string("stage ") + stage_name(id) + ": code " + std::to_string(v) + " at " +
                                         std::to_string(first_bad) + " is outside the alphabet of " +
                                         std::to_string(ctx.alphabet));
    }
  }
  dev::Buffer<DeviceStatus> st(1, s);
  dev::zero(st.get(), sizeof(DeviceStatus), s);
  codes::DeviceEncoded e = codes::encode_device(sym.get(), syms, ctx.alphabet, ctx.centre, choice, st.get(), s);
  DeviceStatus hs;
  dev::copy_to_host(&hs, st.get(), sizeof hs, s);
  dev::sync(s);
  SCIZ_REQUIRE(hs.code == 0, Status::internal,
               std::string("stage ") + stage_name(id) + " (CUDA encoder): " + device_status_message(hs));
  chosen = static_cast<StageId>(e.stage);
  return {std::move(e.bytes), e.size};
}

DeviceBlob codes_encode_blob(StageId id, const uint8_t* d_in, uint64_t n, const Context& ctx, cudaStream_t s) {
  StageId chosen;
  return codes_encode_choice(static_cast<Lossless>(id), d_in, n, ctx, chosen, s);
}

uint64_t codes_encode(StageId id, const uint8_t* d_in, uint64_t n, const Context& ctx, uint8_t* d_out,
                      uint64_t capacity, cudaStream_t s) {
  const DeviceBlob b = codes_encode_blob(id, d_in, n, ctx, s);
  SCIZ_REQUIRE(b.size <= capacity, Status::internal,
               std::string("stage ") + stage_name(id) + ": blob of " + std::to_string(b.size) +
                   " bytes exceeds its bound " + std::to_string(capacity));
  dev::copy_on_device(d_out, b.bytes.get(), b.size, s);
  return b.size;  // b is released in stream order, after the copy
}

void codes_decode(StageId id, const uint8_t* d_blob, uint64_t bytes, uint64_t n, const Context& ctx, uint8_t* d_out,
                  DeviceStatus* st, cudaStream_t s) {
  const uint64_t syms = n / ctx.code_width;
  if (syms == 0) {  // no codes: a valid blob is a few dozen bytes, checked by the CPU decoder
    SCIZ_REQUIRE(bytes <= 4096, Status::corrupt_stream,
                 std::string("stage ") + stage_name(id) + ": " + std::to_string(bytes) + " bytes for no codes");
    std::vector<uint8_t> blob(bytes);
    dev::copy_to_host(blob.data(), d_blob, bytes, s);
    dev::sync(s);
    cpu::codes_decode(id, blob, ctx, 0);
    return;
  }
  dev::Buffer<uint16_t> sym(syms, s);  // 16-byte aligned, as the decoders want
  codes::decode_device(static_cast<Lossless>(id), DeviceSpan{d_blob, bytes}, sym.get(), syms, st, s);
  const uint32_t sid = static_cast<uint32_t>(id);
  uint64_t done = 0;
  if (ctx.code_width == 1 && reinterpret_cast<uintptr_t>(d_out) % 4 == 0 && syms >= 4) {
    const uint64_t quads = syms / 4;
    narrow_bytes_kernel<<<grid_for(quads, kThreads), kThreads, 0, s>>>(reinterpret_cast<const uint2*>(sym.get()), quads,
                                                                     sid, reinterpret_cast<uint32_t*>(d_out), st);
    SCIZ_CUDA_CHECK_LAUNCH("codes narrow_bytes_kernel");
    done = 4 * quads;
  }
  if (done < syms) {
    narrow_kernel<<<grid_for(syms - done, kThreads), kThreads, 0, s>>>(sym.get() + done, syms - done, ctx.code_width, sid,
                                                                    d_out + done * ctx.code_width, st, done);
    SCIZ_CUDA_CHECK_LAUNCH("codes narrow_kernel");
  }
}

}  // namespace sciz::stages::cuda
