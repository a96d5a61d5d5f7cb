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
  uint32_t gaps;          // zero-filled ranges: after the header and each section, and the tail
  uint64_t gap_at[kMaxSections + 1];
  uint32_t gap_len[kMaxSections + 1];
};
static_assert(sizeof(HeaderImage) <= 4000, "a kernel argument holds at most 4 KB");

// One thread: the header with the section digests filled in, then its own checksum. The
// header is at most a few KB, so a single thread hashes it in a few microseconds.
__global__ void finish_header_kernel(HeaderImage h, const uint64_t* __restrict__ sums, uint8_t* __restrict__ dst) {
  if (blockIdx.x != 0) return;
  for (uint32_t i = threadIdx.x; i < h.size - 8; i += blockDim.x) dst[i] = h.bytes[i];
  for (uint32_t g = 0; g < h.gaps; ++g)
    for (uint32_t i = threadIdx.x; i < h.gap_len[g]; i += blockDim.x) dst[h.gap_at[g] + i] = 0;
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

struct Gaps {
  uint64_t at[kMaxSections + 1];
  uint32_t len[kMaxSections + 1];
  uint32_t count;
};

// A CTA per gap: every padding byte must be zero (the checksums do not cover them).
__global__ void padding_kernel(const uint8_t* __restrict__ chunk, Gaps g, uint32_t where, DeviceStatus* st) {
  for (uint32_t k = blockIdx.x; k < g.count; k += gridDim.x)
    for (uint32_t i = threadIdx.x; i < g.len[k]; i += blockDim.x)
      if (chunk[g.at[k] + i] != 0) report(st, kStatusPadding, where, g.at[k] + i, 0);
}

// The stored checksums ride as a kernel argument: a pageable upload would wait for the stream.
struct Stored {
  uint64_t sum[kMaxSections];
  uint32_t id[kMaxSections], chunk[kMaxSections];
  uint32_t k;
};

__global__ void compare_kernel(const uint64_t* __restrict__ sums, Stored stored, DeviceStatus* st) {
  const uint32_t i = threadIdx.x;
  if (i < stored.k && sums[i] != stored.sum[i]) report(st, kStatusChecksum, stored.chunk[i], stored.id[i], sums[i]);
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
  std::vector<uint64_t> lengths;
  for (const auto& s : secs) lengths.push_back(s.size);
  return chunk_layout(chunk_header_bytes(pipeline, params_bytes, secs.size()), lengths).bytes;
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
  const ChunkLayout l = chunk_layout(head.size(), lengths);
  uint64_t end = head.size();
  std::vector<digest::Range> ranges;
  for (size_t i = 0; i < secs.size(); ++i) {
    h.gap_at[h.gaps] = end;
    h.gap_len[h.gaps++] = static_cast<uint32_t>(l.offsets[i] - end);
    // Copied into place by the digest's own threads, which read the section once for both.
    ranges.push_back({secs[i].data, secs[i].size, d_dst + l.offsets[i]});
    end = l.offsets[i] + secs[i].size;
  }
  h.gap_at[h.gaps] = end;
  h.gap_len[h.gaps++] = static_cast<uint32_t>(l.bytes - end);
  dev::Buffer<uint64_t> sums(secs.size(), s);
  if (!ranges.empty()) digest::chunked_device(ranges.data(), ranges.size(), kDigestBlockV4, sums.get(), s);
  finish_header_kernel<<<1, 128, 0, s>>>(h, sums.get(), d_dst);
  SCIZ_CUDA_CHECK_LAUNCH("finish_header_kernel");
}

void verify_chunks(const std::vector<ChunkCheck>& chunks, DeviceStatus* st, cudaStream_t s) {
  std::vector<digest::Range> ranges;
  for (const auto& c : chunks) {
    Gaps g{};
    uint64_t end = c.head_bytes;
    for (const auto& x : c.secs) {
      const uint64_t off = static_cast<uint64_t>(x.data - c.d_chunk);
      g.at[g.count] = end;
      g.len[g.count++] = static_cast<uint32_t>(off - end);
      end = off + x.size;
      ranges.push_back({x.data, x.size});
    }
    g.at[g.count] = end;
    g.len[g.count++] = static_cast<uint32_t>(c.bytes - end);
    padding_kernel<<<g.count, 64, 0, s>>>(c.d_chunk, g, c.index, st);
    SCIZ_CUDA_CHECK_LAUNCH("padding_kernel");
  }
  if (ranges.empty()) return;
  dev::Buffer<uint64_t> sums(ranges.size(), s);
  digest::chunked_device(ranges.data(), ranges.size(), kDigestBlockV4, sums.get(), s);
  Stored batch{};
  size_t at = 0;
  auto flush = [&] {
    if (batch.k == 0) return;
    compare_kernel<<<1, kMaxSections, 0, s>>>(sums.get() + at - batch.k, batch, st);
    SCIZ_CUDA_CHECK_LAUNCH("compare_kernel");
    batch.k = 0;
  };
  for (const auto& c : chunks)
    for (size_t i = 0; i < c.secs.size(); ++i) {
      batch.sum[batch.k] = c.stored[i];
      batch.id[batch.k] = c.secs[i].id;
      batch.chunk[batch.k++] = c.index;
      ++at;
      if (batch.k == kMaxSections) flush();
    }
  flush();
}

}  // namespace sciz::devstream
