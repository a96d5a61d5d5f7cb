// CUDA twin of zero-run coding. Encode: one CTA per 65536-code tile counts its tokens, the
// host turns the counts into each tile's first token, then one CTA per tile walks the tile in
// steps of 2,048 codes with a block scan of (token count, end of the last token), carrying
// both from step to step. Decode: blocks of tokens find their place with a scan of block
// spans and a block scan inside, and each block writes its span of the output (centre codes
// and tokens) once.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <string>

#include "core/cuda_check.cuh"
#include "lossless/codes/device_check.cuh"
#include "lossless/zrle/zrle.hpp"
#include "lossless/zrle/zrle_cuda.cuh"

namespace sciz::zrle {
namespace {

constexpr int kThreads = 256;
constexpr uint32_t kStep = kThreads * 8;  // codes per block-scan step
static_assert(kTile % kStep == 0);

// Eight codes from one 16-byte load, or code by code at the field's end.
__device__ void load8(const uint16_t* sym, uint64_t n, uint64_t i, uint16_t (&c)[8]) {
  if (i + 8 <= n) {
    const uint4 q = *reinterpret_cast<const uint4*>(sym + i);
    const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int j = 0; j < 8; ++j) c[j] = static_cast<uint16_t>(w[j / 2] >> (16 * (j % 2)));
  } else {
#pragma unroll
    for (int j = 0; j < 8; ++j) c[j] = i + j < n ? sym[i + j] : 0;
  }
}

__global__ void __launch_bounds__(kThreads)
    count_kernel(const uint16_t* __restrict__ sym, uint64_t n, uint16_t centre, uint32_t* __restrict__ tile_count) {
  using Reduce = cub::BlockReduce<uint32_t, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const uint64_t lo = static_cast<uint64_t>(blockIdx.x) * kTile, hi = min(n, lo + kTile);
  uint32_t c = 0;
  for (uint64_t i = lo + threadIdx.x * 8; i < hi; i += kStep) {
    uint16_t v[8];
    load8(sym, n, i, v);
#pragma unroll
    for (int j = 0; j < 8; ++j) c += i + j < hi && is_token(i + j, v[j], centre);
  }
  c = Reduce(tmp).Sum(c);
  if (threadIdx.x == 0) tile_count[blockIdx.x] = c;
}

struct Acc {
  uint32_t count;  // tokens
  uint32_t end;    // 1 + tile offset of the last token, 0 if none
};
struct Combine {
  __device__ Acc operator()(const Acc& a, const Acc& b) const { return {a.count + b.count, max(a.end, b.end)}; }
};

__global__ void __launch_bounds__(kThreads)
    fill_kernel(const uint16_t* __restrict__ sym, uint64_t n, uint16_t centre, const uint64_t* __restrict__ first,
                uint16_t* __restrict__ value, uint16_t* __restrict__ zrun, uint32_t* __restrict__ tail) {
  using Scan = cub::BlockScan<Acc, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
  // A step's tokens are staged here and leave with consecutive threads writing consecutive
  // tokens: dense tokens written straight from their threads were 8-wide strided stores.
  __shared__ uint32_t s_tok[kStep];  // value | zrun << 16
  const uint64_t lo = static_cast<uint64_t>(blockIdx.x) * kTile, hi = min(n, lo + kTile);
  Acc carry{0, 0};
  for (uint64_t base = lo; base < hi; base += kStep) {
    const uint64_t i = base + threadIdx.x * 8;
    uint16_t v[8];
    load8(sym, n, i, v);
    uint32_t flags = 0;
    Acc mine{0, 0};
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (i + j < hi && is_token(i + j, v[j], centre)) {
        flags |= 1u << j;
        ++mine.count;
        mine.end = static_cast<uint32_t>(i + j - lo) + 1;
      }
    Acc before, step;
    Scan(tmp).ExclusiveScan(mine, before, Acc{0, 0}, Combine{}, step);
    uint32_t k = before.count;
    uint32_t prev = max(carry.end, before.end);  // tile offset just after the previous token
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (flags >> j & 1u) {
        const uint32_t at = static_cast<uint32_t>(i + j - lo);
        s_tok[k++] = uint32_t{v[j]} | (at - prev) << 16;
        prev = at + 1;
      }
    __syncthreads();
    const uint64_t out0 = first[blockIdx.x] + carry.count;
    for (uint32_t t = threadIdx.x; t < step.count; t += kThreads) {
      value[out0 + t] = static_cast<uint16_t>(s_tok[t]);
      zrun[out0 + t] = static_cast<uint16_t>(s_tok[t] >> 16);
    }
    carry = Combine{}(carry, step);
    __syncthreads();  // tmp and s_tok are reused by the next step
  }
  if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) *tail = static_cast<uint32_t>(hi - lo - carry.end);
}

// The expand kernels take the token count and the centre as host values or, where a device
// header holds them, device words (check::HostValue / DeviceValue), and return at once when st
// (nullable) holds a failure.

// Decoding places tokens by blocks of kPlace: one pass sums each block's span (runs + tokens),
// a scan of those few sums gives each block's first position, and a second pass scans inside
// the block and writes its span. No per-token position array goes through global memory.
constexpr uint32_t kPlace = kThreads * 8;

// Eight zero runs of token block `blk`, thread `t`; positions past the end read as -1 so
// their span (run + 1) is 0.
__device__ void load_runs(const uint16_t* zrun, uint64_t count, uint64_t first, uint32_t (&z)[8], bool (&real)[8]) {
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    real[j] = first + j < count;
    z[j] = real[j] ? zrun[first + j] : 0;
  }
}

// Grid-stride over the token blocks: one CTA per block of kPlace tokens.
template <class Count>
__global__ void __launch_bounds__(kThreads)
    span_kernel(const uint16_t* __restrict__ zrun, Count count_of, uint64_t* __restrict__ span, const DeviceStatus* st) {
  using Reduce = cub::BlockReduce<uint32_t, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  if (check::gate(st)) return;
  const uint64_t count = count_of(), blocks = (count + kPlace - 1) / kPlace;
  for (uint64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const uint64_t first = b * kPlace + threadIdx.x * 8;
    uint32_t z[8];
    bool real[8];
    load_runs(zrun, count, first, z, real);
    uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) sum += real[j] ? z[j] + 1 : 0;
    sum = Reduce(tmp).Sum(sum);
    if (threadIdx.x == 0) span[b] = sum;
    __syncthreads();  // tmp is reused
  }
}


// Decoding writes each output code once. A CTA takes a block of kPlace tokens, places them
// by a block scan of (zrun + 1), and writes the block's whole span (centre codes and tokens)
// window by window through shared memory, so its stores are coalesced 16-byte ones; only the
// span's two edge vectors, shared with the neighbouring blocks, go code by code. (The output
// used to be filled with the centre first and the tokens scattered over it by 2-byte stores:
// written twice, the second time in partial sectors; ~6 ms of GPU time in a 4 GB lorenzo
// decompression, the largest item after huffman decoding.)
constexpr uint32_t kWindow = 16384;  // codes a window holds (32 KB of shared memory)

// Codes [p0, p1) of out (16-byte aligned): 16-byte stores of vec(q), the 8 codes from q, where
// a vector lies inside the range, and code(p) one by one in the two edge vectors, whose other
// codes belong to a neighbouring range. This thread takes vectors first, first + stride, ...
template <class Vec, class Code>
__device__ void write_range(uint16_t* __restrict__ out, uint64_t p0, uint64_t p1, uint64_t first, uint64_t stride,
                            Vec vec, Code code) {
  const uint64_t v0 = p0 & ~uint64_t{7}, vecs = (p1 - v0 + 7) / 8;
  for (uint64_t i = first; i < vecs; i += stride) {
    const uint64_t q = v0 + 8 * i;
    if (q >= p0 && q + 8 <= p1) {
      *reinterpret_cast<uint4*>(out + q) = vec(q);
    } else {
      for (uint64_t p = max(q, p0); p < min(q + 8, p1); ++p) out[p] = code(p);
    }
  }
}

template <class Count, class Centre>
__global__ void __launch_bounds__(kThreads)
    place_span_kernel(const uint16_t* __restrict__ value, const uint16_t* __restrict__ zrun, Count count_of,
                      const uint64_t* __restrict__ block_start, Centre centre_of, uint16_t* __restrict__ out,
                      const DeviceStatus* st) {
  using Scan = cub::BlockScan<uint32_t, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ __align__(16) uint16_t win[kWindow];
  if (check::gate(st)) return;
  const uint64_t count = count_of(), blocks = (count + kPlace - 1) / kPlace;
  const uint32_t c1 = static_cast<uint16_t>(centre_of()), c2 = c1 | c1 << 16;
  const uint4 cq = make_uint4(c2, c2, c2, c2);
  for (uint64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const uint64_t first = b * kPlace + threadIdx.x * 8;
    uint32_t z[8];
    bool real[8];
    load_runs(zrun, count, first, z, real);
    uint16_t val[8];
    uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      val[j] = real[j] ? value[first + j] : uint16_t{0};
      sum += real[j] ? z[j] + 1 : 0;
    }
    uint32_t before = 0, span = 0;
    Scan(tmp).ExclusiveSum(sum, before, span);
    const uint64_t s0 = block_start[b], s1 = s0 + span;
    uint64_t pos[8];  // each token's place in out (past s1 for a thread's empty slots)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      before += real[j] ? z[j] : 0;
      pos[j] = real[j] ? s0 + before : ~uint64_t{0};
      before += real[j] ? 1 : 0;
    }
    for (uint64_t w0 = s0 & ~uint64_t{7}; w0 < s1; w0 += kWindow) {
      const uint64_t w1 = min(w0 + kWindow, s1);
      for (uint32_t i = threadIdx.x; i < kWindow / 8; i += kThreads) reinterpret_cast<uint4*>(win)[i] = cq;
      __syncthreads();
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (pos[j] >= w0 && pos[j] < w1) win[pos[j] - w0] = val[j];
      __syncthreads();
      write_range(
          out, max(w0, s0), w1, threadIdx.x, kThreads,
          [&](uint64_t q) { return *reinterpret_cast<const uint4*>(win + (q - w0)); },  // w0 is 8-aligned
          [&](uint64_t p) { return win[p - w0]; });
      __syncthreads();  // win is refilled by the next window
    }
  }
}

// The codes after the last token's block ([start of the end, n), the tail) are the centre.
template <class Count, class Centre>
__global__ void fill_tail_kernel(uint16_t* __restrict__ out, uint64_t n, const uint64_t* __restrict__ block_start,
                                 Count count_of, Centre centre_of, const DeviceStatus* st) {
  if (check::gate(st)) return;
  const uint64_t from = block_start[(count_of() + kPlace - 1) / kPlace];
  if (from >= n) return;
  const uint16_t c = static_cast<uint16_t>(centre_of());
  const uint32_t c2 = uint32_t{c} | uint32_t{c} << 16;
  const uint4 q = make_uint4(c2, c2, c2, c2);
  write_range(
      out, from, n, uint64_t(blockIdx.x) * blockDim.x + threadIdx.x, uint64_t(gridDim.x) * blockDim.x,
      [&](uint64_t) { return q; }, [&](uint64_t) { return c; });
}

template <class Count>
struct SpanAt {  // scan input: block b's span, zero past the tokens' blocks
  const uint64_t* span;
  Count count;
  uint64_t blocks_max;  // span's length: a damaged header may declare more tokens than were decoded
  __device__ uint64_t operator()(uint64_t b) const {
    return b < blocks_max && b < (count() + kPlace - 1) / kPlace ? span[b] : 0;
  }
};

// The tokens and the tail must cover exactly n codes; checked before anything is written.
__global__ void cover_kernel(const uint64_t* __restrict__ start, check::DeviceValue count, check::DeviceValue tail,
                             uint64_t n, DeviceStatus* st, uint32_t where) {
  if (failed(st)) return;
  const uint64_t total = start[(count() + kPlace - 1) / kPlace] + tail();
  if (total != n) report(st, kStatusCodesCover, where, total, n);
}

unsigned grid_for(uint64_t items) {
  return static_cast<unsigned>(std::clamp<uint64_t>((items + kThreads - 1) / kThreads, 1, 132 * 16));
}

void require_aligned(const void* p, const char* what) {
  SCIZ_REQUIRE(reinterpret_cast<uintptr_t>(p) % 16 == 0, Status::internal,
               std::string("zero runs: ") + what + " must be 16-byte aligned");
}

}  // namespace

DeviceTokens tokens_cuda(const uint16_t* d_sym, uint64_t n, uint16_t centre, cudaStream_t s) {
  DeviceTokens r;
  if (n == 0) return r;
  require_aligned(d_sym, "codes");
  const uint64_t tiles = (n + kTile - 1) / kTile;
  SCIZ_REQUIRE(tiles < (1ull << 31), Status::invalid_argument, "zero runs: more than 2^47 codes");
  dev::Buffer<uint32_t> d_count(tiles, s);
  count_kernel<<<static_cast<unsigned>(tiles), kThreads, 0, s>>>(d_sym, n, centre, d_count.get());
  SCIZ_CUDA_CHECK_LAUNCH("zrle count_kernel");
  std::vector<uint32_t> count(tiles);
  dev::copy_to_host(count.data(), d_count.get(), tiles * 4, s);
  dev::sync(s);
  std::vector<uint64_t> first(tiles + 1, 0);
  for (uint64_t t = 0; t < tiles; ++t) first[t + 1] = first[t] + count[t];
  r.count = first[tiles];
  dev::Buffer<uint64_t> d_first(tiles, s);
  dev::copy_to_device(d_first.get(), first.data(), tiles * 8, s);
  r.value = dev::Buffer<uint16_t>(r.count, s);
  r.zrun = dev::Buffer<uint16_t>(r.count, s);
  dev::Buffer<uint32_t> d_tail(1, s);
  fill_kernel<<<static_cast<unsigned>(tiles), kThreads, 0, s>>>(d_sym, n, centre, d_first.get(), r.value.get(),
                                                                r.zrun.get(), d_tail.get());
  SCIZ_CUDA_CHECK_LAUNCH("zrle fill_kernel");
  dev::copy_to_host(&r.tail, d_tail.get(), 4, s);
  dev::sync(s);
  return r;
}

void expand_cuda(const uint16_t* d_value, const uint16_t* d_zrun, uint64_t count, uint32_t tail, uint16_t centre,
                 uint16_t* d_out, uint64_t n, cudaStream_t s) {
  SCIZ_REQUIRE(count <= n && tail <= n, Status::corrupt_stream,
               "zero runs: " + std::to_string(count) + " tokens and a tail of " + std::to_string(tail) + " for " +
                   std::to_string(n) + " codes");
  if (n == 0) return;
  require_aligned(d_out, "output");
  const uint64_t blocks = (count + kPlace - 1) / kPlace;
  const check::HostValue cnt{count};
  dev::Buffer<uint64_t> span(blocks, s), start(blocks + 1, s);
  if (blocks) {
    span_kernel<<<static_cast<unsigned>(std::min<uint64_t>(blocks, 1u << 20)), kThreads, 0, s>>>(d_zrun, cnt, span.get(),
                                                                                                  nullptr);
    SCIZ_CUDA_CHECK_LAUNCH("zrle span_kernel");
  }
  auto in = thrust::make_transform_iterator(thrust::make_counting_iterator<uint64_t>(0),
                                            SpanAt<check::HostValue>{span.get(), cnt, blocks});
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, start.get(), blocks + 1, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, in, start.get(), blocks + 1, s));
  uint64_t total = 0;
  dev::copy_to_host(&total, start.get() + blocks, 8, s);
  dev::sync(s);
  SCIZ_REQUIRE(total + tail == n, Status::corrupt_stream,
               "zero runs: tokens cover " + std::to_string(total + tail) + " codes, expected " + std::to_string(n));
  if (blocks) {
    place_span_kernel<<<static_cast<unsigned>(std::min<uint64_t>(blocks, 1u << 20)), kThreads, 0, s>>>(
        d_value, d_zrun, cnt, start.get(), check::HostValue{centre}, d_out, nullptr);
    SCIZ_CUDA_CHECK_LAUNCH("zrle place_span_kernel");
  }
  if (tail)
    fill_tail_kernel<<<grid_for(tail / 8 + 1), kThreads, 0, s>>>(d_out, n, start.get(), cnt, check::HostValue{centre},
                                                                   nullptr);
  SCIZ_CUDA_CHECK_LAUNCH("zrle fill_tail_kernel");
}

namespace cuda {

void fill_tokens(const uint16_t* d_sym, uint64_t n, uint16_t centre, const uint64_t* d_tile_tokens, uint16_t* d_value,
                 uint16_t* d_zrun, cudaStream_t s) {
  if (n == 0) return;
  require_aligned(d_sym, "codes");
  const uint64_t tiles = (n + kTile - 1) / kTile;
  SCIZ_REQUIRE(tiles < (1ull << 31), Status::invalid_argument, "zero runs: more than 2^47 codes");
  dev::Buffer<uint64_t> first(tiles, s);
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_tile_tokens, first.get(), tiles, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, d_tile_tokens, first.get(), tiles, s));
  dev::Buffer<uint32_t> tail(1, s);  // the caller knows the tail from the same stats
  fill_kernel<<<static_cast<unsigned>(tiles), kThreads, 0, s>>>(d_sym, n, centre, first.get(), d_value, d_zrun,
                                                                tail.get());
  SCIZ_CUDA_CHECK_LAUNCH("zrle fill_kernel");
}

void expand_device(const uint16_t* d_value, const uint16_t* d_zrun, const uint64_t* d_count, uint64_t count_max,
                   const uint64_t* d_tail, const uint64_t* d_centre, uint16_t* d_out, uint64_t n, DeviceStatus* st,
                   uint32_t where, cudaStream_t s) {
  if (n == 0) return;
  require_aligned(d_out, "output");
  const check::DeviceValue count{d_count};
  const uint64_t blocks_max = (count_max + kPlace - 1) / kPlace;
  dev::Buffer<uint64_t> span(blocks_max, s), start(blocks_max + 1, s);
  const unsigned grid = static_cast<unsigned>(std::clamp<uint64_t>(blocks_max, 1, 132 * 16));
  span_kernel<<<grid, kThreads, 0, s>>>(d_zrun, count, span.get(), st);
  SCIZ_CUDA_CHECK_LAUNCH("zrle span_kernel");
  auto in = thrust::make_transform_iterator(thrust::make_counting_iterator<uint64_t>(0),
                                            SpanAt<check::DeviceValue>{span.get(), count, blocks_max});
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, start.get(), blocks_max + 1, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, in, start.get(), blocks_max + 1, s));
  cover_kernel<<<1, 1, 0, s>>>(start.get(), count, check::DeviceValue{d_tail}, n, st, where);
  SCIZ_CUDA_CHECK_LAUNCH("zrle cover_kernel");
  place_span_kernel<<<grid, kThreads, 0, s>>>(d_value, d_zrun, count, start.get(), check::DeviceValue{d_centre}, d_out,
                                              st);
  SCIZ_CUDA_CHECK_LAUNCH("zrle place_span_kernel");
  // The tail's length is a device value here: a grid for the whole output, most of it idle.
  fill_tail_kernel<<<grid_for(n / 8 + 1), kThreads, 0, s>>>(d_out, n, start.get(), count, check::DeviceValue{d_centre},
                                                             st);
  SCIZ_CUDA_CHECK_LAUNCH("zrle fill_tail_kernel");
}

}  // namespace cuda

}  // namespace sciz::zrle
