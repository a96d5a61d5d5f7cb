// RRE_w and RZE_w, CUDA twin, first version (kept as the baseline that SCIZ_STAGES_BASELINE=1
// selects, to compare with and to fall back on until eliminate_cuda.cu has run on GPUs): a CTA
// per 16 KiB block, the layout of eliminate_math.hpp.
//
// Thread t owns byte t of level k + 1 for every k, hence bytes 8t .. 8t + 7 of level k (level 1
// has at most 256 bytes, one per thread), and symbols 64t .. 64t + 63 (the bits of its 8
// level-0 bytes). So every compaction, in either direction, is one block scan of per-thread
// counts: the stored bytes of a level (popcounts of the level above) and the kept symbols
// (popcounts of level 0).
//
// Encoding: each block is coded in shared memory and written to its own 16 KiB slot with its
// size; a device scan of the sizes places the payloads; one copy of the total to the host
// learns the blob's size. Decoding: the table is checked and scanned on the device, and each
// block's CTA parses its payload in shared memory, checking every count against the payload
// before it reads, and writes its output only once the block checked out.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <sciz/error.hpp>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "lossless/stages/eliminate_math.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/eliminate_cuda.cuh"
#include "lossless/stages/stage_cuda.cuh"
#include "lossless/stages/stage_cuda.hpp"
#include "lossless/stages/symbols.hpp"

namespace sciz::stages::cuda {
namespace {

static_assert(kThreads * 64 >= kBlockBytes, "a thread owns 64 symbols, so a CTA covers a block of 1-byte symbols");
static_assert(kThreads * 8 * 8 >= kBlockBytes, "level 1 has at most one byte per thread");

using Scan = cub::BlockScan<uint32_t, kThreads>;

struct Shared {
  uint8_t in[kBlockBytes];   // encode: the block; decode: its payload
  uint8_t out[kBlockBytes];  // encode: the payload; decode: the block
  uint8_t bm[kMaxLevelBytes];
  typename Scan::TempStorage scan;
};

// Exclusive prefix of v over the CTA, and the total.
__device__ uint32_t exclusive_sum(Shared& sh, uint32_t v, uint32_t& total) {
  uint32_t r;
  Scan(sh.scan).ExclusiveSum(v, r, total);
  __syncthreads();  // the temp storage is reused by the next scan
  return r;
}

// Level k + 1's byte t (0 past its end): the count of stored bytes thread t owns in level k.
__device__ uint8_t owned_bits(const Shared& sh, const Levels& lv, int k) {
  return threadIdx.x < lv.size[k + 1] ? sh.bm[lv.at[k + 1] + threadIdx.x] : 0;
}

// Kept symbols among thread t's 64 (its 8 level-0 bytes).
__device__ uint32_t owned_kept(const Shared& sh, const Levels& lv) {
  uint32_t c = 0;
  for (uint32_t j = 8 * threadIdx.x; j < 8 * threadIdx.x + 8 && j < lv.size[0]; ++j) c += popcount8(sh.bm[j]);
  return c;
}

template <Family F, int W>
__global__ void __launch_bounds__(kThreads)
    encode_kernel(const uint8_t* __restrict__ in, uint64_t n, uint8_t* __restrict__ slots, uint64_t* __restrict__ sizes,
                  uint16_t* __restrict__ entries) {
  __shared__ Shared sh;
  const uint64_t blocks = block_count(n);
  if (blockIdx.x == 0 && threadIdx.x == 0) sizes[blocks] = 0;  // so the scan's last offset is the total
  for (uint64_t blk = blockIdx.x; blk < blocks; blk += gridDim.x) {
    const uint32_t bytes = block_size(n, blk), m = bytes / W, tail = bytes % W;
    const uint8_t* src = in + blk * kBlockBytes;
    uint8_t* slot = slots + blk * kBlockBytes;
    for (uint32_t i = threadIdx.x; i < bytes; i += kThreads) sh.in[i] = src[i];
    __syncthreads();
    const Levels lv = bitmap_levels(m);
    for (uint32_t j = threadIdx.x; j < lv.size[0]; j += kThreads) sh.bm[j] = level0_byte<F, W>(sh.in, m, j);
    __syncthreads();
    for (int k = 0; k < lv.top; ++k) {
      for (uint32_t j = threadIdx.x; j < lv.size[k + 1]; j += kThreads)
        sh.bm[lv.at[k + 1] + j] = upper_byte(sh.bm + lv.at[k], lv.size[k], j);
      __syncthreads();
    }
    // Offsets of everything a thread writes, and the payload's size, before writing anything.
    uint32_t level_off[kMaxLevels] = {}, level_at[kMaxLevels] = {};
    uint32_t pos = lv.size[lv.top];
    for (int k = lv.top - 1; k >= 0; --k) {
      uint32_t count;
      level_off[k] = exclusive_sum(sh, popcount8(owned_bits(sh, lv, k)), count);
      level_at[k] = pos;
      pos += count;
    }
    uint32_t kept;
    const uint32_t kept_off = exclusive_sum(sh, owned_kept(sh, lv), kept);
    const uint32_t size = pos + kept * W + tail;
    if (size >= bytes) {  // stored raw
      for (uint32_t i = threadIdx.x; i < bytes; i += kThreads) slot[i] = sh.in[i];
      if (threadIdx.x == 0) {
        entries[blk] = static_cast<uint16_t>(bytes | kRawFlag);
        sizes[blk] = bytes;
      }
      __syncthreads();
      continue;
    }
    if (threadIdx.x < lv.size[lv.top]) sh.out[threadIdx.x] = sh.bm[lv.at[lv.top] + threadIdx.x];
    for (int k = lv.top - 1; k >= 0; --k) {
      uint32_t o = level_at[k] + level_off[k];
      for (uint32_t j = 8 * threadIdx.x; j < 8 * threadIdx.x + 8 && j < lv.size[k]; ++j)
        if (sh.bm[lv.at[k] + j]) sh.out[o++] = sh.bm[lv.at[k] + j];
    }
    uint8_t* ko = sh.out + pos + kept_off * W;
    for (uint32_t j = 8 * threadIdx.x; j < 8 * threadIdx.x + 8 && j < lv.size[0]; ++j)
      for (uint32_t b = sh.bm[j]; b; b &= b - 1) {
        const uint32_t i = 8 * j + static_cast<uint32_t>(__ffs(b) - 1);
        for (int q = 0; q < W; ++q) ko[q] = sh.in[i * W + q];
        ko += W;
      }
    for (uint32_t i = threadIdx.x; i < tail; i += kThreads) sh.out[pos + kept * W + i] = sh.in[m * W + i];
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < size; i += kThreads) slot[i] = sh.out[i];
    if (threadIdx.x == 0) {
      entries[blk] = static_cast<uint16_t>(size);
      sizes[blk] = size;
    }
    __syncthreads();
  }
}

// Copies each block's payload from its slot to its place; block 0 also writes the header.
__global__ void __launch_bounds__(kThreads)
    place_kernel(const uint8_t* __restrict__ slots, const uint64_t* __restrict__ offset, const uint16_t* __restrict__ entries,
                 uint64_t n, uint64_t header, uint8_t* __restrict__ blob) {
  write_header_bytes(blob, header);
  const uint64_t blocks = block_count(n), payload_at = kHeaderBytes + 2 * blocks;
  for (uint64_t blk = blockIdx.x; blk < blocks; blk += gridDim.x) {
    const uint32_t size = entry_bytes(entries[blk]);
    uint8_t* dst = blob + payload_at + offset[blk];
    const uint8_t* src = slots + blk * kBlockBytes;
    for (uint32_t i = threadIdx.x; i < size; i += kThreads) dst[i] = src[i];
    if (threadIdx.x < 2) blob[kHeaderBytes + 2 * blk + threadIdx.x] = static_cast<uint8_t>(entries[blk] >> (8 * threadIdx.x));
  }
}

template <Family F, int W>
__global__ void __launch_bounds__(kThreads)
    decode_kernel(const uint8_t* __restrict__ blob, const uint64_t* __restrict__ offset, uint64_t n, uint32_t id,
                  uint8_t* __restrict__ out, DeviceStatus* st) {
  if (check::gate(st)) return;
  __shared__ Shared sh;
  const uint64_t blocks = block_count(n), payload_at = kHeaderBytes + 2 * blocks;
  for (uint64_t blk = blockIdx.x; blk < blocks; blk += gridDim.x) {
    const uint32_t bytes = block_size(n, blk), m = bytes / W, tail = bytes % W;
    const uint16_t e = static_cast<uint16_t>(check::load_le(blob + kHeaderBytes + 2 * blk, 2));
    const uint32_t size = entry_bytes(e);
    const uint8_t* src = blob + payload_at + offset[blk];
    uint8_t* dst = out + blk * kBlockBytes;
    if (e & kRawFlag) {
      for (uint32_t i = threadIdx.x; i < bytes; i += kThreads) dst[i] = src[i];
      continue;
    }
    for (uint32_t i = threadIdx.x; i < size; i += kThreads) sh.in[i] = src[i];
    const Levels lv = bitmap_levels(m);
    uint32_t fault = kBlockOk, pos = lv.size[lv.top];
    if (pos > size) fault = kBlockSize;
    else if (threadIdx.x < pos) sh.bm[lv.at[lv.top] + threadIdx.x] = src[threadIdx.x];
    __syncthreads();
    // Down the levels: every count is block-wide, so every thread reaches the same verdict.
    for (int k = lv.top; k >= 0 && fault == kBlockOk; --k) {
      if (lv.size[k] && (sh.bm[lv.at[k] + lv.size[k] - 1] & padding_mask(level_bits(lv, m, k)))) {
        fault = kBlockPadding;
        break;
      }
      if (k == 0) break;
      const uint8_t bits = owned_bits(sh, lv, k - 1);
      uint32_t count;
      uint32_t r = pos + exclusive_sum(sh, popcount8(bits), count);
      if (pos + count > size) {
        fault = kBlockSize;
        break;
      }
      for (uint32_t t = 0; t < 8; ++t) {
        const uint32_t j = 8 * threadIdx.x + t;
        if (j < lv.size[k - 1]) sh.bm[lv.at[k - 1] + j] = ((bits >> t) & 1) ? sh.in[r++] : 0;
      }
      pos += count;
      __syncthreads();
    }
    uint32_t kept = 0, kept_off = 0;
    if (fault == kBlockOk) {
      kept_off = exclusive_sum(sh, owned_kept(sh, lv), kept);
      if (pos + kept * W + tail != size) fault = kBlockSize;
      else if (F == Family::rre && m > 0 && !(sh.bm[0] & 1)) fault = kBlockFirst;
    }
    if (fault != kBlockOk) {
      if (threadIdx.x == 0) report(st, kStatusStageBlock, id, blk, fault);
      __syncthreads();
      continue;
    }
    const uint8_t* ks = sh.in + pos;
    uint32_t rank = kept_off;
    uint_t<W> cur = (F == Family::rre && rank > 0) ? load_sym<W>(ks + (rank - 1) * W) : uint_t<W>(0);
    for (uint32_t i = 64 * threadIdx.x; i < 64 * threadIdx.x + 64 && i < m; ++i) {
      if ((sh.bm[i / 8] >> (i % 8)) & 1) cur = load_sym<W>(ks + (rank++) * W);
      else if (F == Family::rze) cur = 0;
      store_sym<W>(sh.out + i * W, cur);
    }
    for (uint32_t i = threadIdx.x; i < tail; i += kThreads) sh.out[m * W + i] = sh.in[pos + kept * W + i];
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < bytes; i += kThreads) dst[i] = sh.out[i];
    __syncthreads();
  }
}

template <class F>
decltype(auto) with_family(StageId id, F&& f) {
  return with_width(width_of(id), [&]<int W>() {
    return family_of(id) == Family::rze ? f.template operator()<Family::rze, W>() : f.template operator()<Family::rre, W>();
  });
}

}  // namespace

uint64_t eliminate_encode_baseline(StageId id, const uint8_t* d_in, uint64_t n, uint8_t* d_out, cudaStream_t s) {
  const uint64_t blocks = block_count(n);
  dev::Buffer<uint8_t> slots(n, s);
  dev::Buffer<uint64_t> sizes(blocks + 1, s), offset(blocks + 1, s);
  dev::Buffer<uint16_t> entries(blocks, s);
  with_family(id, [&]<Family F, int W>() {
    encode_kernel<F, W><<<grid_for(blocks, 1), kThreads, 0, s>>>(d_in, n, slots.get(), sizes.get(), entries.get());
    SCIZ_CUDA_CHECK_LAUNCH("eliminate encode_kernel");
  });
  exclusive_scan(sizes.get(), offset.get(), blocks + 1, s);
  place_kernel<<<grid_for(blocks, 1), kThreads, 0, s>>>(slots.get(), offset.get(), entries.get(), n, make_header(id, n),
                                                       d_out);
  SCIZ_CUDA_CHECK_LAUNCH("eliminate place_kernel");
  uint64_t total = 0;
  dev::copy_to_host(&total, offset.get() + blocks, sizeof total, s);
  dev::sync(s);  // the one synchronization: the caller needs the blob's size
  return kHeaderBytes + 2 * blocks + total;
}

void launch_decode_baseline(StageId id, const uint8_t* d_blob, const uint64_t* offset, uint64_t n, uint8_t* d_out,
                            DeviceStatus* st, cudaStream_t s) {
  const uint32_t sid = static_cast<uint32_t>(id);
  with_family(id, [&]<Family F, int W>() {
    decode_kernel<F, W><<<grid_for(block_count(n), 1), kThreads, 0, s>>>(d_blob, offset, n, sid, d_out, st);
    SCIZ_CUDA_CHECK_LAUNCH("eliminate decode_kernel (baseline)");
  });
}

}  // namespace sciz::stages::cuda
