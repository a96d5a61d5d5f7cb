#include "core/container_cuda.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <cstring>

#include "core/checksum.hpp"
#include "core/container.hpp"
#include "core/cuda_check.cuh"
#include "core/digest_cuda.hpp"
#include "core/xxh64_math.hpp"

namespace sciz::devstream {
namespace {

// A chunk header travels as a kernel argument: no staging buffer, no host synchronization.
// 64 sections x 32 bytes + the name and params fit with room to spare.
constexpr uint32_t kMaxHeaderBytes = 3072;
struct HeaderImage {
  uint8_t bytes[kMaxHeaderBytes];
  uint32_t size;          // header bytes, checksum included
  uint32_t table_at;      // first section entry
  uint32_t sections;
};

// One thread: the header with the section digests filled in, then its own checksum. The
// header is at most a few KB, so a single thread hashes it in a few microseconds.
__global__ void finish_header_kernel(HeaderImage h, const uint64_t* __restrict__ sums, uint8_t* __restrict__ dst) {
  if (blockIdx.x != 0) return;
  for (uint32_t i = threadIdx.x; i < h.size - 8; i += blockDim.x) dst[i] = h.bytes[i];
  __syncthreads();
  for (uint32_t k = threadIdx.x; k < h.sections; k += blockDim.x) {
    const uint64_t v = sums[k];
    uint8_t* at = dst + h.table_at + k * 32 + 24;
    for (int b = 0; b < 8; ++b) at[b] = static_cast<uint8_t>(v >> (8 * b));
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint64_t v = xxh::hash(dst, h.size - 8, 0);
    for (int b = 0; b < 8; ++b) dst[h.size - 8 + b] = static_cast<uint8_t>(v >> (8 * b));
  }
}

__global__ void compare_kernel(const uint64_t* __restrict__ sums, const uint64_t* __restrict__ stored,
                               const uint32_t* __restrict__ ids, uint32_t k, uint32_t chunk, DeviceStatus* st) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < k && sums[i] != stored[i]) report(st, kStatusChecksum, chunk, ids[i], sums[i]);
}

std::vector<digest::Range> ranges_of(const std::vector<Section>& secs, uint8_t* base, uint64_t first) {
  std::vector<digest::Range> r;
  uint64_t at = first;
  for (const auto& s : secs) {
    r.push_back({base ? base + at : s.data, s.size});
    at += s.size;
  }
  return r;
}

// A grid-stride copy that first asks whether the decode it follows failed its checks.
__global__ void copy_if_ok_kernel(uint8_t* __restrict__ dst, const uint8_t* __restrict__ src, uint64_t bytes,
                                  const DeviceStatus* st) {
  if (failed(st)) return;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < bytes; i += stride) dst[i] = src[i];
}

// Range r of the gather lands at out_off[r]; a CTA per range.
__global__ void gather_kernel(const uint8_t* __restrict__ base, const uint64_t* __restrict__ meta, uint64_t k,
                              uint8_t* __restrict__ out) {
  for (uint64_t r = blockIdx.x; r < k; r += gridDim.x) {
    const uint64_t off = meta[3 * r], len = meta[3 * r + 1], to = meta[3 * r + 2];
    for (uint64_t i = threadIdx.x; i < len; i += blockDim.x) out[to + i] = base[off + i];
  }
}

}  // namespace

void copy_if_ok(void* dst, const void* src, uint64_t bytes, const DeviceStatus* st, cudaStream_t s) {
  if (bytes == 0) return;
  const uint64_t blocks = std::min<uint64_t>((bytes + 255) / 256, 132 * 32);
  copy_if_ok_kernel<<<static_cast<unsigned>(blocks), 256, 0, s>>>(static_cast<uint8_t*>(dst),
                                                                  static_cast<const uint8_t*>(src), bytes, st);
  SCIZ_CUDA_CHECK_LAUNCH("copy_if_ok_kernel");
}

void gather_to_host(const uint8_t* base, const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                    std::vector<uint8_t>& out, cudaStream_t s) {
  std::vector<uint64_t> meta;
  uint64_t total = 0;
  for (const auto& [off, len] : ranges) {
    meta.insert(meta.end(), {off, len, total});
    total += len;
  }
  out.resize(total);
  if (total == 0) return;
  dev::Buffer<uint64_t> d_meta(meta.size(), s);
  dev::Buffer<uint8_t> d_out(total, s);
  dev::copy_to_device(d_meta.get(), meta.data(), meta.size() * 8, s);
  const uint64_t blocks = std::min<uint64_t>(ranges.size(), 4096);
  gather_kernel<<<static_cast<unsigned>(blocks), 128, 0, s>>>(base, d_meta.get(), ranges.size(), d_out.get());
  SCIZ_CUDA_CHECK_LAUNCH("gather_kernel");
  dev::copy_to_host(out.data(), d_out.get(), total, s);
  dev::sync(s);
}

uint64_t chunk_bytes(const std::string& pipeline, size_t params_bytes, const std::vector<Section>& secs) {
  uint64_t n = chunk_header_bytes(pipeline, params_bytes, secs.size());
  for (const auto& s : secs) n += s.size;
  return n;
}

void write_chunk(const std::string& pipeline, const std::vector<uint8_t>& params, const std::vector<Section>& secs,
                 uint8_t* d_dst, cudaStream_t s) {
  std::vector<uint32_t> ids;
  std::vector<uint64_t> lengths, zeros(secs.size(), 0);
  for (const auto& x : secs) {
    ids.push_back(x.id);
    lengths.push_back(x.size);
  }
  const std::vector<uint8_t> head = write_chunk_header(pipeline, params, ids, lengths, zeros);
  SCIZ_REQUIRE(head.size() <= kMaxHeaderBytes, Status::internal, "chunk header of " + std::to_string(head.size()) + " bytes");
  HeaderImage h{};
  std::memcpy(h.bytes, head.data(), head.size());
  h.size = static_cast<uint32_t>(head.size());
  h.sections = static_cast<uint32_t>(secs.size());
  h.table_at = h.size - 8 - h.sections * 32;
  uint64_t at = head.size();
  for (const auto& x : secs) {
    dev::copy_on_device(d_dst + at, x.data, x.size, s);
    at += x.size;
  }
  dev::Buffer<uint64_t> sums(secs.size(), s);
  const auto ranges = ranges_of(secs, d_dst, head.size());
  if (!ranges.empty()) digest::chunked_device(ranges.data(), ranges.size(), kDigestBlockV4, sums.get(), s);
  finish_header_kernel<<<1, 128, 0, s>>>(h, sums.get(), d_dst);
  SCIZ_CUDA_CHECK_LAUNCH("finish_header_kernel");
}

void verify_sections(const std::vector<Section>& secs, const std::vector<uint64_t>& stored, uint32_t chunk,
                     DeviceStatus* st, cudaStream_t s) {
  if (secs.empty()) return;
  const uint32_t k = static_cast<uint32_t>(secs.size());
  // The stored checksums and ids ride in two small uploads; the digests stay on the device.
  dev::Buffer<uint64_t> d_stored(k, s), sums(k, s);
  dev::copy_to_device(d_stored.get(), stored.data(), k * 8, s);
  std::vector<uint32_t> ids32(k);
  for (uint32_t i = 0; i < k; ++i) ids32[i] = secs[i].id;
  dev::Buffer<uint32_t> d_ids(k, s);
  dev::copy_to_device(d_ids.get(), ids32.data(), k * 4, s);
  const auto ranges = ranges_of(secs, nullptr, 0);
  digest::chunked_device(ranges.data(), ranges.size(), kDigestBlockV4, sums.get(), s);
  compare_kernel<<<(k + 127) / 128, 128, 0, s>>>(sums.get(), d_stored.get(), d_ids.get(), k, chunk, st);
  SCIZ_CUDA_CHECK_LAUNCH("compare_kernel");
}

}  // namespace sciz::devstream
