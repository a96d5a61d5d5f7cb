// Chunked digests on the device (core/digest_cuda.hpp). A block's xxh64 is a chain of
// multiply-rotate rounds per lane, so the parallelism is across blocks and lanes: four threads
// per block, one lane each, over 8-byte words at stride 32; the lanes meet by shuffles and the
// first finishes the block. Then one warp per range digests the block digests the same way.
// Sections lie at any byte offset inside a stream, so words are assembled from aligned loads
// by funnel shifts when a range is not 8-byte aligned.
//
// A lane's rounds wait on its loads unless they are issued well ahead: each lane keeps the
// next 16 stripes' words in flight while it runs the current 16 (measured on the H100, a 17 MB
// chunk's sections: 62-97 us with one group of loads at a time in 256-thread CTAs, which also
// left most SMs idle for a chunk of ~1,000 blocks; CTAs are 64 threads now).
#include <sciz/error.hpp>

#include <algorithm>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/digest_cuda.hpp"
#include "core/xxh64_math.hpp"

namespace sciz::digest {
namespace {

constexpr int kRangesPerLaunch = 64;

constexpr int kDigestThreads = 64;  // 16 blocks per CTA: a chunk's ~1,000 blocks reach every SM

struct Batch {
  const uint8_t* data[kRangesPerLaunch];
  uint8_t* copy_to[kRangesPerLaunch];  // null: hash only
  uint64_t len[kRangesPerLaunch];
  uint64_t first_block[kRangesPerLaunch + 1];  // prefix of block counts; [k] = total
  uint64_t out_at[kRangesPerLaunch];           // where the range's block digests start
  int k;
  uint64_t block;
};

// The 8 bytes at p, any alignment: two aligned loads and a funnel shift. The second aligned
// word reaches up to 7 bytes past p + 8; where that would pass `end` (the range may end at its
// allocation's last byte) the missing bytes are read one by one instead.
__device__ __forceinline__ uint64_t word_at(const uint8_t* p, const uint8_t* end) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const unsigned off = a & 7;
  const uint64_t* w = reinterpret_cast<const uint64_t*>(a - off);
  if (off == 0) return __ldg(w);
  const uint64_t lo = __ldg(w);
  uint64_t hi;
  if (reinterpret_cast<const uint8_t*>(w + 2) <= end) {
    hi = __ldg(w + 1);
  } else {
    hi = 0;
    const uint8_t* b = reinterpret_cast<const uint8_t*>(w + 1);
    for (unsigned i = 0; i < off; ++i) hi |= static_cast<uint64_t>(__ldg(b + i)) << (8 * i);
  }
  return (lo >> (8 * off)) | (hi << (64 - 8 * off));
}

// Lane `lane` (0..3) of xxh64 over the stripes of [p, p + len); the quad's four threads call
// it together and the first gets the full hash (finish included). With `to`, every byte of the
// range is also stored there (whole words when p and to are both 8-byte aligned, else byte by
// byte). Loads run a batch of 16 stripes ahead of the rounds that consume them.
__device__ uint64_t quad_hash(const uint8_t* p, uint64_t len, unsigned lane, unsigned quad_mask, uint8_t* to = nullptr) {
  const uint64_t stripes = len / 32;
  uint64_t v = xxh::lane_init(static_cast<int>(lane), 0);
  const uint8_t* q = p + 8 * lane;
  uint64_t s = 0;
  if (((reinterpret_cast<uintptr_t>(p) | reinterpret_cast<uintptr_t>(to)) & 7) == 0) {
    const uint64_t* w = reinterpret_cast<const uint64_t*>(q);
    uint64_t* out = to ? reinterpret_cast<uint64_t*>(to + 8 * lane) : nullptr;
    constexpr int kAhead = 16;  // stripes per batch; the next batch's loads fly during this one's rounds
    uint64_t cur[kAhead], nxt[kAhead];
    if (stripes >= kAhead) {
#pragma unroll
      for (int k = 0; k < kAhead; ++k) cur[k] = __ldg(w + 4 * k);
    }
    for (; s + kAhead <= stripes; s += kAhead) {
      const bool more = s + 2 * kAhead <= stripes;
      if (more) {
#pragma unroll
        for (int k = 0; k < kAhead; ++k) nxt[k] = __ldg(w + 4 * (s + kAhead + k));
      }
      if (out) {
#pragma unroll
        for (int k = 0; k < kAhead; ++k) out[4 * (s + k)] = cur[k];
      }
#pragma unroll
      for (int k = 0; k < kAhead; ++k) v = xxh::round(v, cur[k]);
#pragma unroll
      for (int k = 0; k < kAhead; ++k) cur[k] = nxt[k];
    }
    for (; s < stripes; ++s) {
      const uint64_t x = __ldg(w + 4 * s);
      if (out) out[4 * s] = x;
      v = xxh::round(v, x);
    }
  } else {
    const uint8_t* end = p + len;
    for (; s + 8 <= stripes; s += 8) {
      uint64_t buf[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) buf[k] = word_at(q + 32 * (s + k), end);
      if (to) {
#pragma unroll
        for (int k = 0; k < 8; ++k)
          for (int b = 0; b < 8; ++b) to[8 * lane + 32 * (s + k) + b] = static_cast<uint8_t>(buf[k] >> (8 * b));
      }
#pragma unroll
      for (int k = 0; k < 8; ++k) v = xxh::round(v, buf[k]);
    }
    for (; s < stripes; ++s) {
      const uint64_t x = word_at(q + 32 * s, end);
      if (to)
        for (int b = 0; b < 8; ++b) to[8 * lane + 32 * s + b] = static_cast<uint8_t>(x >> (8 * b));
      v = xxh::round(v, x);
    }
  }
  if (to)  // the bytes after the last whole stripe, shared out over the quad
    for (uint64_t i = 32 * stripes + lane; i < len; i += 4) to[i] = p[i];
  const unsigned base = (threadIdx.x & 31) & ~3u;
  const uint64_t v1 = __shfl_sync(quad_mask, v, base), v2 = __shfl_sync(quad_mask, v, base + 1),
                 v3 = __shfl_sync(quad_mask, v, base + 2), v4 = __shfl_sync(quad_mask, v, base + 3);
  if (lane != 0) return 0;
  const uint64_t h = stripes ? xxh::converge(v1, v2, v3, v4) : xxh::P5;
  return xxh::finish(h + len, p + 32 * stripes, len % 32);
}

__global__ void block_digests(Batch b, uint64_t* __restrict__ blk) {
  const uint64_t total = b.first_block[b.k];
  const uint64_t g = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 4;
  const unsigned lane = threadIdx.x & 3;
  // Whole quads share the shuffle; a quad past the end sits out together.
  const unsigned quad_mask = 0xFu << ((threadIdx.x & 31) & ~3u);
  if (g >= total) return;
  int r = 0;
  while (r + 1 < b.k && b.first_block[r + 1] <= g) ++r;
  const uint64_t j = g - b.first_block[r];
  const uint64_t at = j * b.block, len = min(b.block, b.len[r] - at);
  uint8_t* to = b.copy_to[r] ? b.copy_to[r] + at : nullptr;
  const uint64_t h = quad_hash(b.data[r] + at, len, lane, quad_mask, to);
  if (lane == 0) blk[b.out_at[r] + j] = h;
}

// One warp per range: its first quad digests the range's block digests (little-endian u64s).
__global__ void range_digests(Batch b, const uint64_t* __restrict__ blk, uint64_t* __restrict__ out, uint64_t out0) {
  const int r = blockIdx.x;
  if (r >= b.k || threadIdx.x >= 4) return;
  const uint64_t nb = b.first_block[r + 1] - b.first_block[r];
  const uint64_t h = quad_hash(reinterpret_cast<const uint8_t*>(blk + b.out_at[r]), nb * 8, threadIdx.x, 0xFu);
  if (threadIdx.x == 0) out[out0 + r] = h;
}

}  // namespace

void chunked_device(const Range* ranges, size_t k, size_t block, uint64_t* d_out, cudaStream_t s) {
  SCIZ_REQUIRE(block >= 32 && block % 32 == 0, Status::internal, "digest block " + std::to_string(block));
  for (size_t first = 0; first < k; first += kRangesPerLaunch) {
    Batch b{};
    b.k = static_cast<int>(std::min<size_t>(kRangesPerLaunch, k - first));
    b.block = block;
    uint64_t blocks = 0;
    for (int i = 0; i < b.k; ++i) {
      b.data[i] = static_cast<const uint8_t*>(ranges[first + i].data);
      b.copy_to[i] = static_cast<uint8_t*>(ranges[first + i].copy_to);
      b.len[i] = ranges[first + i].len;
      b.first_block[i] = blocks;
      b.out_at[i] = blocks;
      blocks += (b.len[i] + block - 1) / block;
    }
    b.first_block[b.k] = blocks;
    dev::Buffer<uint64_t> blk(std::max<uint64_t>(blocks, 1), s);
    if (blocks) {
      const uint64_t threads = blocks * 4;
      block_digests<<<static_cast<unsigned>((threads + kDigestThreads - 1) / kDigestThreads), kDigestThreads, 0, s>>>(
          b, blk.get());
      SCIZ_CUDA_CHECK_LAUNCH("block_digests");
    }
    range_digests<<<b.k, 32, 0, s>>>(b, blk.get(), d_out, first);
    SCIZ_CUDA_CHECK_LAUNCH("range_digests");
  }
}

}  // namespace sciz::digest
