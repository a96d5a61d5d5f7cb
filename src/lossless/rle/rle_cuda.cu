// CUDA twin of rle.
//
// Runs: the symbols are cut into one contiguous segment per CTA. A first pass counts the run
// starts of every segment (count_runs_cuda is that pass plus a host sum); the host scans the
// few hundred counts, which also sizes the output exactly. A second pass re-reads the symbols
// and writes each run's start position at its global index (a block scan per tile, carried
// across the segment's tiles). Splitting runs longer than 65536 is then a scan of per-run piece
// counts and one scatter, both over runs, which are few for quant codes.
//
// Expand: an exclusive scan of the lengths gives each run's output offset; after the total is
// checked against n, each run marks the output tiles whose first position it covers, and one
// CTA per tile stages that tile's runs in shared memory and writes the tile with 16-byte
// stores. Work follows output positions, not runs, so a 65536-long run never serializes.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "lossless/rle/rle.hpp"

namespace sciz::rle {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 16;                      // symbols per thread and tile when finding runs
constexpr uint64_t kTile = kThreads * kItems;   // power of two: tile arithmetic stays shifts
constexpr uint32_t kGroup = 8;                  // symbols per 16-byte store when expanding
constexpr int kSegmentsPerSm = 8;               // resident CTAs per SM at 256 threads
constexpr uint64_t kMaxGrid = 1u << 20;         // grid-stride beyond this

static_assert(kItems <= 32, "run starts of a thread's slice are one 32-bit mask");
static_assert(kTile % kGroup == 0, "tiles start on 16-byte boundaries of an aligned output");

__host__ __device__ constexpr uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
__host__ __device__ constexpr uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

unsigned grid_for(uint64_t items) {
  return static_cast<unsigned>(std::clamp<uint64_t>(div_up(items, kThreads), 1, kMaxGrid));
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// ---- finding runs ----------------------------------------------------------------------

// Contiguous tiles per CTA: one segment per CTA, as many CTAs as fill the device once.
struct Segments {
  uint64_t tiles_per_segment;
  unsigned count;
};

Segments segments_for(uint64_t n) {
  int device = 0, sms = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&device));
  SCIZ_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const uint64_t tiles = div_up(n, kTile), cap = static_cast<uint64_t>(std::max(sms, 1)) * kSegmentsPerSm;
  const uint64_t per = div_up(tiles, std::min(tiles, cap));
  return {per, static_cast<unsigned>(div_up(tiles, per))};
}

__device__ void unpack(uint4 w, uint16_t* x) {
  const uint32_t word[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    x[2 * k] = static_cast<uint16_t>(word[k]);
    x[2 * k + 1] = static_cast<uint16_t>(word[k] >> 16);
  }
}

// Bit k set when position p + k (< n) starts a run. vec: sym is 16-byte aligned, so a full
// slice (p is a multiple of kItems) loads as two 16-byte words.
__device__ uint32_t start_mask(const uint16_t* __restrict__ sym, uint64_t n, uint64_t p, bool vec) {
  uint16_t x[kItems];
  if (vec && p + kItems <= n) {
    const uint4* w = reinterpret_cast<const uint4*>(sym + p);
    unpack(w[0], x);
    unpack(w[1], x + 8);
  } else {
#pragma unroll
    for (int k = 0; k < kItems; ++k) x[k] = p + k < n ? sym[p + k] : 0;
  }
  uint16_t prev = p > 0 ? sym[p - 1] : static_cast<uint16_t>(~x[0]);  // position 0 always starts a run
  uint32_t mask = 0;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (p + k < n && x[k] != prev) mask |= 1u << k;
    prev = x[k];
  }
  return mask;
}

__device__ uint64_t slice_of(uint64_t tile) { return tile * kTile + static_cast<uint64_t>(threadIdx.x) * kItems; }

__global__ void __launch_bounds__(kThreads)
    count_starts_kernel(const uint16_t* __restrict__ sym, uint64_t n, uint64_t tiles_per_segment, bool vec,
                        uint64_t* __restrict__ count) {
  const uint64_t tiles = div_up(n, kTile), first = blockIdx.x * tiles_per_segment;
  const uint64_t last = min_u64(first + tiles_per_segment, tiles);
  uint64_t acc = 0;
  for (uint64_t t = first; t < last; ++t) {
    const uint64_t p = slice_of(t);
    if (p < n) acc += __popc(start_mask(sym, n, p, vec));
  }
  using Reduce = cub::BlockReduce<uint64_t, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const uint64_t total = Reduce(tmp).Sum(acc);
  if (threadIdx.x == 0) count[blockIdx.x] = total;
}

// start[k] = position of run k; base[b] = runs that start before segment b. The last CTA also
// writes start[runs] = n, so that run k's length is start[k + 1] - start[k].
__global__ void __launch_bounds__(kThreads)
    write_starts_kernel(const uint16_t* __restrict__ sym, uint64_t n, uint64_t tiles_per_segment, bool vec,
                        const uint64_t* __restrict__ base, uint64_t runs, uint64_t* __restrict__ start) {
  const uint64_t tiles = div_up(n, kTile), first = blockIdx.x * tiles_per_segment;
  const uint64_t last = min_u64(first + tiles_per_segment, tiles);
  using Scan = cub::BlockScan<uint32_t, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
  uint64_t next = base[blockIdx.x];
  for (uint64_t t = first; t < last; ++t) {  // same trip count in every thread: the scan is safe
    const uint64_t p = slice_of(t);
    uint32_t mask = p < n ? start_mask(sym, n, p, vec) : 0, rank = 0, tile_total = 0;
    Scan(tmp).ExclusiveSum(static_cast<uint32_t>(__popc(mask)), rank, tile_total);
    for (uint64_t o = next + rank; mask; mask &= mask - 1, ++o) start[o] = p + (__ffs(mask) - 1);
    next += tile_total;
    __syncthreads();  // tmp is reused by the next tile's scan
  }
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) start[runs] = n;
}

// Pieces of run i when split at kMaxRun; index runs reads as 0 so the scan's last entry is
// the total.
struct PiecesAt {
  const uint64_t* start;
  uint64_t runs;
  __host__ __device__ uint64_t operator()(uint64_t i) const {
    return i < runs ? (start[i + 1] - start[i] + kMaxRun - 1) / kMaxRun : 0;
  }
};

__global__ void __launch_bounds__(kThreads)
    split_kernel(const uint16_t* __restrict__ sym, const uint64_t* __restrict__ start,
                 const uint64_t* __restrict__ piece, uint64_t runs, uint16_t* __restrict__ value,
                 uint16_t* __restrict__ len_m1) {
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * kThreads;
  for (uint64_t r = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; r < runs; r += step) {
    const uint16_t v = sym[start[r]];
    uint64_t len = start[r + 1] - start[r], o = piece[r];
    for (; len > kMaxRun; len -= kMaxRun, ++o) {
      value[o] = v;
      len_m1[o] = static_cast<uint16_t>(kMaxRun - 1);
    }
    value[o] = v;
    len_m1[o] = static_cast<uint16_t>(len - 1);
  }
}

// Run starts of every segment, on the host (synchronizes s).
std::vector<uint64_t> segment_counts(const uint16_t* d_sym, uint64_t n, const Segments& seg, cudaStream_t s) {
  dev::Buffer<uint64_t> d_count(seg.count, s);
  count_starts_kernel<<<seg.count, kThreads, 0, s>>>(d_sym, n, seg.tiles_per_segment, aligned16(d_sym), d_count.get());
  SCIZ_CUDA_CHECK_LAUNCH("rle count_starts_kernel");
  std::vector<uint64_t> h(seg.count);
  dev::copy_to_host(h.data(), d_count.get(), seg.count * sizeof(uint64_t), s);
  dev::sync(s);
  return h;
}

// start[0..runs] for the maximal runs of d_sym; returns the buffer and sets runs.
dev::Buffer<uint64_t> run_starts(const uint16_t* d_sym, uint64_t n, uint64_t& runs, cudaStream_t s) {
  const Segments seg = segments_for(n);
  std::vector<uint64_t> base = segment_counts(d_sym, n, seg, s);
  runs = std::accumulate(base.begin(), base.end(), uint64_t{0});
  std::exclusive_scan(base.begin(), base.end(), base.begin(), uint64_t{0});
  dev::Buffer<uint64_t> d_base(seg.count, s), start(runs + 1, s);
  dev::copy_to_device(d_base.get(), base.data(), seg.count * sizeof(uint64_t), s);
  write_starts_kernel<<<seg.count, kThreads, 0, s>>>(d_sym, n, seg.tiles_per_segment, aligned16(d_sym), d_base.get(),
                                                     runs, start.get());
  SCIZ_CUDA_CHECK_LAUNCH("rle write_starts_kernel");
  return start;
}

// Exclusive scan of f(i) for i in [0, count): out[i]; f(count - 1) should be 0 to get a total.
template <class F>
dev::Buffer<uint64_t> exclusive_sum(F f, uint64_t count, cudaStream_t s) {
  dev::Buffer<uint64_t> out(count, s);
  auto in = thrust::make_transform_iterator(thrust::make_counting_iterator<uint64_t>(0), f);
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, out.get(), count, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, in, out.get(), count, s));
  return out;
}

uint64_t read_back(const uint64_t* d, cudaStream_t s) {
  uint64_t h = 0;
  dev::copy_to_host(&h, d, sizeof h, s);
  dev::sync(s);
  return h;
}

// ---- expanding -------------------------------------------------------------------------

// Length of run i; index runs reads as 0 so the scan's last entry is the total.
struct LengthAt {
  const uint16_t* len_m1;
  uint64_t runs;
  __host__ __device__ uint64_t operator()(uint64_t i) const { return i < runs ? len_m1[i] + uint64_t{1} : 0; }
};

// first_run[t] = the run covering position t * kTile. Each run marks the tile starts inside
// it; since the offsets rise strictly to n, every tile is marked exactly once.
__global__ void __launch_bounds__(kThreads)
    mark_tiles_kernel(const uint64_t* __restrict__ off, uint64_t runs, uint64_t* __restrict__ first_run) {
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * kThreads;
  for (uint64_t r = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; r < runs; r += step)
    for (uint64_t t = div_up(off[r], kTile); t * kTile < off[r + 1]; ++t) first_run[t] = r;
}

// Index of the last run in rel[0, count) starting at or before p (rel[0] = 0 <= p).
__device__ uint32_t run_at(const uint32_t* rel, uint32_t count, uint32_t p) {
  uint32_t lo = 0, hi = count;
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (rel[mid] <= p) lo = mid;
    else hi = mid;
  }
  return lo;
}

__device__ uint32_t pair(uint16_t a, uint16_t b) { return a | static_cast<uint32_t>(b) << 16; }

// The kGroup symbols from tile position p, given run j covers p.
__device__ void group_values(const uint32_t* rel, const uint16_t* val, uint32_t count, uint32_t j, uint32_t p,
                             uint16_t* x) {
  if (j + 1 == count || rel[j + 1] >= p + kGroup) {  // the usual case: one run covers the group
    for (uint32_t k = 0; k < kGroup; ++k) x[k] = val[j];
    return;
  }
  for (uint32_t k = 0; k < kGroup; ++k) {
    while (j + 1 < count && rel[j + 1] <= p + k) ++j;
    x[k] = val[j];
  }
}

// One tile per CTA (grid-stride over tiles). The runs overlapping tile t are first_run[t]
// through first_run[t + 1]: at most kTile + 1 of them, as all but the first start inside
// (t0, t0 + kTile]. Their starts, relative to the tile and clamped to it, go to shared memory.
__global__ void __launch_bounds__(kThreads)
    expand_kernel(const uint16_t* __restrict__ value, const uint64_t* __restrict__ off,
                  const uint64_t* __restrict__ first_run, uint64_t runs, uint64_t n, bool vec,
                  uint16_t* __restrict__ out) {
  __shared__ uint32_t rel[kTile + 1];
  __shared__ uint16_t val[kTile + 1];
  const uint64_t tiles = div_up(n, kTile);
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const uint64_t t0 = t * kTile, r0 = first_run[t];
    const uint32_t len = static_cast<uint32_t>(min_u64(kTile, n - t0));
    const uint32_t count = static_cast<uint32_t>((t + 1 < tiles ? first_run[t + 1] + 1 : runs) - r0);
    for (uint32_t j = threadIdx.x; j < count; j += kThreads) {
      const uint64_t o = off[r0 + j];
      rel[j] = o > t0 ? static_cast<uint32_t>(min_u64(o - t0, kTile)) : 0;
      val[j] = value[r0 + j];
    }
    __syncthreads();
    for (uint32_t p = threadIdx.x * kGroup; p < len; p += kThreads * kGroup) {
      uint16_t x[kGroup];
      group_values(rel, val, count, run_at(rel, count, p), p, x);
      uint16_t* dst = out + t0 + p;
      if (vec && p + kGroup <= len) {
        *reinterpret_cast<uint4*>(dst) =
            make_uint4(pair(x[0], x[1]), pair(x[2], x[3]), pair(x[4], x[5]), pair(x[6], x[7]));
      } else {
        for (uint32_t k = 0; k < kGroup && p + k < len; ++k) dst[k] = x[k];
      }
    }
    __syncthreads();  // rel and val are refilled for the next tile
  }
}

[[noreturn]] void length_mismatch(uint64_t sum, uint64_t n) {
  fail(Status::corrupt_stream,
       "rle: run lengths sum to " + std::to_string(sum) + ", expected " + std::to_string(n) + " symbols");
}

}  // namespace

uint64_t count_runs_cuda(const uint16_t* d_sym, uint64_t n, cudaStream_t s) {
  if (n == 0) return 0;
  const std::vector<uint64_t> counts = segment_counts(d_sym, n, segments_for(n), s);
  return std::accumulate(counts.begin(), counts.end(), uint64_t{0});
}

DeviceRuns runs_cuda(const uint16_t* d_sym, uint64_t n, cudaStream_t s) {
  DeviceRuns r;
  if (n == 0) {
    r.value = dev::Buffer<uint16_t>(0, s);
    r.len_m1 = dev::Buffer<uint16_t>(0, s);
    return r;
  }
  uint64_t maximal = 0;
  const dev::Buffer<uint64_t> start = run_starts(d_sym, n, maximal, s);
  const dev::Buffer<uint64_t> piece = exclusive_sum(PiecesAt{start.get(), maximal}, maximal + 1, s);
  r.runs = read_back(piece.get() + maximal, s);
  r.value = dev::Buffer<uint16_t>(r.runs, s);
  r.len_m1 = dev::Buffer<uint16_t>(r.runs, s);
  split_kernel<<<grid_for(maximal), kThreads, 0, s>>>(d_sym, start.get(), piece.get(), maximal, r.value.get(),
                                                      r.len_m1.get());
  SCIZ_CUDA_CHECK_LAUNCH("rle split_kernel");
  return r;
}

void expand_cuda(const uint16_t* d_value, const uint16_t* d_len_m1, uint64_t runs, uint16_t* d_out, uint64_t n,
                 cudaStream_t s) {
  // Every run holds at least one symbol: this bounds the allocations below by n.
  SCIZ_REQUIRE(runs <= n, Status::corrupt_stream,
               "rle: " + std::to_string(runs) + " runs cannot make " + std::to_string(n) + " symbols");
  if (runs == 0) {
    if (n != 0) length_mismatch(0, n);
    return;
  }
  const dev::Buffer<uint64_t> off = exclusive_sum(LengthAt{d_len_m1, runs}, runs + 1, s);
  const uint64_t total = read_back(off.get() + runs, s);
  if (total != n) length_mismatch(total, n);
  const uint64_t tiles = div_up(n, kTile);
  dev::Buffer<uint64_t> first_run(tiles, s);
  mark_tiles_kernel<<<grid_for(runs), kThreads, 0, s>>>(off.get(), runs, first_run.get());
  SCIZ_CUDA_CHECK_LAUNCH("rle mark_tiles_kernel");
  const unsigned grid = static_cast<unsigned>(std::min(tiles, kMaxGrid));
  expand_kernel<<<grid, kThreads, 0, s>>>(d_value, off.get(), first_run.get(), runs, n, aligned16(d_out), d_out);
  SCIZ_CUDA_CHECK_LAUNCH("rle expand_kernel");
}

std::vector<uint8_t> encode_cuda(const uint16_t* d_sym, uint64_t n, cudaStream_t s) {
  const DeviceRuns r = runs_cuda(d_sym, n, s);
  std::vector<uint8_t> out(kHeaderBytes + 4 * r.runs);
  std::memcpy(out.data(), &n, 8);
  std::memcpy(out.data() + 8, &r.runs, 8);
  dev::copy_to_host(out.data() + kHeaderBytes, r.value.get(), 2 * r.runs, s);
  dev::copy_to_host(out.data() + kHeaderBytes + 2 * r.runs, r.len_m1.get(), 2 * r.runs, s);
  dev::sync(s);
  return out;
}

void decode_cuda(std::span<const uint8_t> enc, uint16_t* d_out, uint64_t n, cudaStream_t s) {
  const Parsed p = parse(enc, n);  // header and sizes checked before any allocation
  dev::Buffer<uint16_t> value(p.runs, s), len_m1(p.runs, s);
  dev::copy_to_device(value.get(), p.value, 2 * p.runs, s);
  dev::copy_to_device(len_m1.get(), p.len_m1, 2 * p.runs, s);
  expand_cuda(value.get(), len_m1.get(), p.runs, d_out, n, s);
}

}  // namespace sciz::rle
