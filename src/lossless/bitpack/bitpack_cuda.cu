// CUDA twin of bitpack: one warp per 32-symbol block, so a block's OR is a shuffle reduction
// and each bit plane is one ballot. Widths -> exclusive scan -> word offsets -> pack.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <sciz/types.hpp>

#include <algorithm>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "lossless/bitpack/bitpack.hpp"
#include "lossless/bitpack/bitpack_cuda.cuh"
#include "lossless/bitpack/bitpack_math.hpp"
#include "lossless/codes/device_check.cuh"

namespace sciz::bitpack {
namespace {

constexpr int kThreads = 256;
constexpr int kWarpsPerCta = kThreads / 32;
constexpr uint64_t kMaxGrid = 1u << 20;  // grid-stride beyond this; far below the launch limit

unsigned grid_for(uint64_t nb) {
  return static_cast<unsigned>(std::min<uint64_t>((nb + kWarpsPerCta - 1) / kWarpsPerCta, kMaxGrid));
}

__device__ uint32_t zigzag_at(const uint16_t* sym, uint64_t n, uint64_t k, uint16_t centre) {
  return k < n ? zigzag(sym[k], centre) : 0;  // the last block is padded with the centre
}

__device__ uint32_t warp_or(uint32_t v) {
  for (int off = 16; off > 0; off >>= 1) v |= __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

__global__ void __launch_bounds__(kThreads)
    widths_kernel(const uint16_t* __restrict__ sym, uint64_t n, uint16_t centre, uint8_t* __restrict__ enc) {
  const uint64_t nb = num_blocks(n), wo = words_offset(n);
  const uint64_t gtid = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (gtid < kHeaderBytes) {  // header: u64 n, u16 centre, zero bytes
    uint8_t byte = 0;
    if (gtid < 8) byte = static_cast<uint8_t>(n >> (8 * gtid));
    else if (gtid < 10) byte = static_cast<uint8_t>(centre >> (8 * (gtid - 8)));
    enc[gtid] = byte;
  } else if (gtid < kHeaderBytes + (wo - kHeaderBytes - nb)) {  // padding before the words
    enc[kHeaderBytes + nb + (gtid - kHeaderBytes)] = 0;
  }
  const unsigned lane = threadIdx.x % 32;
  for (uint64_t b = gtid / 32; b < nb; b += static_cast<uint64_t>(gridDim.x) * kWarpsPerCta) {
    const uint32_t acc = warp_or(zigzag_at(sym, n, b * kBlock + lane, centre));
    if (lane == 0) enc[kHeaderBytes + b] = static_cast<uint8_t>(bit_width(acc));
  }
}

__global__ void __launch_bounds__(kThreads)
    pack_kernel(const uint16_t* __restrict__ sym, uint64_t n, uint16_t centre, const uint64_t* __restrict__ offset,
                uint32_t* __restrict__ words) {
  const uint64_t nb = num_blocks(n);
  const unsigned lane = threadIdx.x % 32;
  const uint64_t warp = (static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x) / 32;
  for (uint64_t b = warp; b < nb; b += static_cast<uint64_t>(gridDim.x) * kWarpsPerCta) {
    const uint32_t z = zigzag_at(sym, n, b * kBlock + lane, centre);
    const uint32_t w = bit_width(warp_or(z));
    uint32_t mine = 0;
    for (uint32_t k = 0; k < w; ++k) {  // w is warp-uniform: every lane takes part in each ballot
      const uint32_t plane = __ballot_sync(0xffffffffu, (z >> k) & 1u);
      if (lane == k) mine = plane;
    }
    if (lane < w) words[offset[b] + lane] = mine;
  }
}

// centre_of: a host value, or the header's centre read on the device; nothing is written when st
// (nullable) holds a failure.
template <class Centre>
__global__ void __launch_bounds__(kThreads)
    unpack_kernel(const uint8_t* __restrict__ widths, const uint32_t* __restrict__ words,
                  const uint64_t* __restrict__ offset, uint64_t n, Centre centre_of, uint16_t* __restrict__ out,
                  const DeviceStatus* st) {
  if (check::gate(st)) return;
  const uint16_t centre = static_cast<uint16_t>(centre_of());
  const uint64_t nb = num_blocks(n);
  const unsigned lane = threadIdx.x % 32;
  const uint64_t warp = (static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x) / 32;
  for (uint64_t b = warp; b < nb; b += static_cast<uint64_t>(gridDim.x) * kWarpsPerCta) {
    const uint32_t w = widths[b];
    const uint32_t mine = lane < w ? words[offset[b] + lane] : 0;
    uint32_t z = 0;
    for (uint32_t k = 0; k < w; ++k) z |= ((__shfl_sync(0xffffffffu, mine, k) >> lane) & 1u) << k;
    const uint64_t i = b * kBlock + lane;
    if (i < n) out[i] = unzigzag(z, centre);
  }
}

// Width of block i as a scan input; index nb reads as 0 so the scan's last entry is the total.
struct WidthAt {
  const uint8_t* widths;
  uint64_t nb;
  __host__ __device__ uint64_t operator()(uint64_t i) const { return i < nb ? widths[i] : 0; }
};

// offset[b] = words before block b, offset[nb] = total words.
dev::Buffer<uint64_t> word_offsets(const uint8_t* d_widths, uint64_t nb, cudaStream_t s) {
  dev::Buffer<uint64_t> off(nb + 1, s);
  auto in = thrust::make_transform_iterator(thrust::make_counting_iterator<uint64_t>(0), WidthAt{d_widths, nb});
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, off.get(), nb + 1, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, in, off.get(), nb + 1, s));
  return off;
}

// The header's symbol count (parse()'s first check, by the host for host sections).
__global__ void head_kernel(const uint8_t* enc, uint64_t n, uint64_t* centre, DeviceStatus* st) {
  if (failed(st)) return;
  const uint64_t got = check::load_le(enc, 8);
  if (got != n) return report(st, kStatusCodesCount, static_cast<uint32_t>(Lossless::bitpack), got, n);
  *centre = check::load_le(enc + 8, 2);
}

__global__ void __launch_bounds__(kThreads)
    check_widths_kernel(const uint8_t* __restrict__ widths, uint64_t nb, DeviceStatus* st) {
  if (check::block_failed(st)) return;
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * kThreads;
  for (uint64_t b = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; b < nb; b += step)
    if (widths[b] > kMaxWidth) report(st, kStatusBitpackWidth, 0, b, widths[b]);
}

__global__ void payload_kernel(const uint64_t* offset, uint64_t nb, uint64_t payload, DeviceStatus* st) {
  if (failed(st)) return;
  if (offset[nb] * 4 != payload) report(st, kStatusBitpackPayload, 0, offset[nb] * 4, payload);
}

}  // namespace

namespace cuda {

void encode_async(const uint16_t* d_sym, uint64_t n, uint16_t centre, uint8_t* d_enc, cudaStream_t s) {
  const uint64_t nb = num_blocks(n), wo = words_offset(n);
  const unsigned grid = std::max(1u, grid_for(nb));  // at least one CTA writes the header
  widths_kernel<<<grid, kThreads, 0, s>>>(d_sym, n, centre, d_enc);
  SCIZ_CUDA_CHECK_LAUNCH("bitpack widths_kernel");
  if (nb == 0) return;
  dev::Buffer<uint64_t> off = word_offsets(d_enc + kHeaderBytes, nb, s);
  pack_kernel<<<grid, kThreads, 0, s>>>(d_sym, n, centre, off.get(), reinterpret_cast<uint32_t*>(d_enc + wo));
  SCIZ_CUDA_CHECK_LAUNCH("bitpack pack_kernel");
}

uint64_t encode(const uint16_t* d_sym, uint64_t n, uint16_t centre, uint8_t* d_enc, cudaStream_t s) {
  encode_async(d_sym, n, centre, d_enc, s);
  const uint64_t nb = num_blocks(n);
  if (nb == 0) return words_offset(n);
  // The widths the kernel wrote, summed again: the encoder's one synchronization learns the size.
  const dev::Buffer<uint64_t> off = word_offsets(d_enc + kHeaderBytes, nb, s);
  uint64_t total_words = 0;
  dev::copy_to_host(&total_words, off.get() + nb, sizeof(uint64_t), s);
  dev::sync(s);
  return words_offset(n) + total_words * 4;
}

void decode(const uint8_t* d_enc, uint64_t n, uint16_t centre, uint16_t* d_out, cudaStream_t s) {
  const uint64_t nb = num_blocks(n);
  if (nb == 0) return;
  dev::Buffer<uint64_t> off = word_offsets(d_enc + kHeaderBytes, nb, s);
  unpack_kernel<<<grid_for(nb), kThreads, 0, s>>>(d_enc + kHeaderBytes,
                                                   reinterpret_cast<const uint32_t*>(d_enc + words_offset(n)),
                                                   off.get(), n, check::HostValue{centre}, d_out, nullptr);
  SCIZ_CUDA_CHECK_LAUNCH("bitpack unpack_kernel");
}

void decode_device(const uint8_t* d_enc, uint64_t size, uint64_t n, uint16_t* d_out, DeviceStatus* st, cudaStream_t s) {
  const uint64_t nb = num_blocks(n), wo = words_offset(n);
  SCIZ_REQUIRE(reinterpret_cast<uintptr_t>(d_enc) % 4 == 0, Status::internal, "bitpack (device): section is not 4-byte aligned");
  if (size < wo) {  // the header, or the widths of n symbols, do not fit: nothing more to read
    check::report_from_host(st, kStatusSectionTruncated, 1, size, wo, s);
    return;
  }
  dev::Buffer<uint64_t> centre(1, s);
  head_kernel<<<1, 1, 0, s>>>(d_enc, n, centre.get(), st);
  SCIZ_CUDA_CHECK_LAUNCH("bitpack head_kernel");
  if (nb == 0) {  // no blocks, so no words either
    if (size != wo) check::report_from_host(st, kStatusBitpackPayload, 0, 0, size - wo, s);
    return;
  }
  const unsigned grid = static_cast<unsigned>(std::min<uint64_t>((nb + kThreads - 1) / kThreads, kMaxGrid));
  check_widths_kernel<<<grid, kThreads, 0, s>>>(d_enc + kHeaderBytes, nb, st);
  SCIZ_CUDA_CHECK_LAUNCH("bitpack check_widths_kernel");
  dev::Buffer<uint64_t> off = word_offsets(d_enc + kHeaderBytes, nb, s);
  payload_kernel<<<1, 1, 0, s>>>(off.get(), nb, size - wo, st);
  SCIZ_CUDA_CHECK_LAUNCH("bitpack payload_kernel");
  unpack_kernel<<<grid_for(nb), kThreads, 0, s>>>(d_enc + kHeaderBytes, reinterpret_cast<const uint32_t*>(d_enc + wo),
                                                   off.get(), n, check::DeviceValue{centre.get()}, d_out, st);
  SCIZ_CUDA_CHECK_LAUNCH("bitpack unpack_kernel");
}

}  // namespace cuda

std::vector<uint8_t> encode_cuda(const uint16_t* d_sym, uint64_t n, uint16_t centre, cudaStream_t stream) {
  dev::Buffer<uint8_t> enc(max_encoded_bytes(n), stream);
  const uint64_t bytes = cuda::encode(d_sym, n, centre, enc.get(), stream);
  std::vector<uint8_t> out(bytes);
  dev::copy_to_host(out.data(), enc.get(), bytes, stream);
  dev::sync(stream);
  return out;
}

void decode_cuda(std::span<const uint8_t> enc, uint16_t* d_out, uint64_t n, cudaStream_t stream) {
  const Parsed p = parse(enc, n);  // every width and length checked before the device sees them
  dev::Buffer<uint8_t> d_enc(enc.size(), stream);
  dev::copy_to_device(d_enc.get(), enc.data(), enc.size(), stream);
  cuda::decode(d_enc.get(), n, p.centre, d_out, stream);
}

}  // namespace sciz::bitpack
