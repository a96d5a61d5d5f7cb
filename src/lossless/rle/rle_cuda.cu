// CUDA twin of rle.
//
// Runs: the format cuts runs at every multiple of kMaxRun, so each kMaxRun-symbol tile holds
// whole runs only and is coded without looking at its neighbours. A first pass counts each
// tile's runs; a device scan of the counts gives each tile's first run index and the total,
// read back once to size the output. A second pass gives each tile to one CTA, which walks it
// in chunks: a block scan ranks the chunk's run starts, the starts go to shared memory, and
// consecutive starts give the lengths, so value[] and len_m1[] are written once, coalesced,
// with nothing per run in between. Only the run still open at a chunk's end carries over.
//
// Expand: the runs are cut into blocks of kBlockRuns. A first pass sums each block's lengths;
// a device scan turns the sums into output offsets, and the total is checked against n before
// anything is written. A block whose output is longer than kUnitSyms is cut into several units
// of work, so a block of 65536-long runs does not fall to one CTA. Each unit's CTA scans its
// block's lengths again. Short runs (the block's output fits kWindow) are expanded one thread
// per run into shared memory and copied out with aligned 16-byte stores; longer ones are
// written in groups of 8 symbols, each group looking up its runs in the block's offsets.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/container.hpp"
#include "core/host_memory.hpp"
#include "lossless/codes/device_check.cuh"
#include "lossless/rle/rle.hpp"
#include "lossless/rle/rle_cuda.cuh"

namespace sciz::rle {
namespace {

constexpr uint64_t kTileSyms = kMaxRun;  // no run crosses a multiple of this
constexpr uint64_t kMaxGrid = 1u << 20;  // grid-stride beyond this

// Finding runs: a thread takes kItems consecutive symbols (two 16-byte words) per step.
constexpr int kWords = 2;
constexpr int kItems = 8 * kWords;
constexpr int kCountThreads = 256;
constexpr int kRunThreads = 512;
constexpr int kRunMinCtas = 2;  // per SM; a tighter register budget measured slower
constexpr uint32_t kChunk = kRunThreads * kItems;  // symbols per step of a tile's CTA
static_assert(kItems <= 32, "a thread's run starts are one 32-bit mask");
static_assert(kTileSyms % kChunk == 0 && kTileSyms % (kCountThreads * kItems) == 0,
              "tiles split into whole steps, so only a step's first symbol can be a tile start");
static_assert(kTileSyms <= 65536, "a start inside a tile packs into 16 bits");

// Expanding.
constexpr int kExpThreads = 256;
constexpr int kExpMinCtas = 6;  // per SM: short blocks are latency-bound, so occupancy pays
constexpr int kExpItems = 8;                               // runs per thread, in 16-byte words
constexpr uint32_t kBlockRuns = kExpThreads * kExpItems;
constexpr uint64_t kUnitSyms = 65536;                      // output symbols per CTA at most
constexpr uint32_t kGroup = 8;                             // symbols per 16-byte store
constexpr uint32_t kWindow = 8192;                         // block output staged in shared memory
static_assert(kWindow <= kUnitSyms, "a staged block is one unit");
static_assert(kExpItems % 8 == 0, "a thread's runs load as whole 16-byte words");
static_assert(uint64_t{kBlockRuns} * kMaxRun < (1ull << 32), "a block's offsets fit 32 bits");

__host__ __device__ constexpr uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
__host__ __device__ constexpr uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
__host__ __device__ constexpr uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

unsigned grid_for(uint64_t ctas) { return static_cast<unsigned>(std::clamp<uint64_t>(ctas, 1, kMaxGrid)); }

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// W 16-byte words of symbols from position p; positions at or past n read as 0. vec: sym is
// 16-byte aligned (p is a multiple of 8 wherever this is called).
template <int W>
__device__ void fetch(const uint16_t* __restrict__ sym, uint64_t n, uint64_t p, bool vec, uint4 (&w)[W]) {
  if (vec && p + 8 * W <= n) {
    const uint4* src = reinterpret_cast<const uint4*>(sym + p);
#pragma unroll
    for (int v = 0; v < W; ++v) w[v] = __ldg(src + v);
    return;
  }
  uint32_t h[4 * W];
#pragma unroll
  for (int k = 0; k < 4 * W; ++k) {
    const uint64_t i = p + 2 * k;
    h[k] = (i < n ? sym[i] : 0u) | (i + 1 < n ? static_cast<uint32_t>(sym[i + 1]) << 16 : 0u);
  }
#pragma unroll
  for (int v = 0; v < W; ++v) w[v] = make_uint4(h[4 * v], h[4 * v + 1], h[4 * v + 2], h[4 * v + 3]);
}

template <int W>
__device__ void unpack(const uint4 (&w)[W], uint16_t (&x)[8 * W]) {
#pragma unroll
  for (int v = 0; v < W; ++v) {
    const uint32_t word[4] = {w[v].x, w[v].y, w[v].z, w[v].w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      x[8 * v + 2 * k] = static_cast<uint16_t>(word[k]);
      x[8 * v + 2 * k + 1] = static_cast<uint16_t>(word[k] >> 16);
    }
  }
}

// Bit k set when position p + k (< n) starts a run: k = 0 and `forced`, or its symbol differs
// from the one before. Each lane's slice follows its left neighbour's, whose last symbol comes
// by shuffle; lane 0 gets it as `before`. All 32 lanes must call this together.
template <int I>
__device__ uint32_t start_mask(const uint16_t (&x)[I], uint16_t before, uint64_t p, uint64_t n, bool forced) {
  const uint32_t left = __shfl_up_sync(0xffffffffu, static_cast<uint32_t>(x[I - 1]), 1);
  uint16_t prev = threadIdx.x % 32 == 0 ? before : static_cast<uint16_t>(left);
  uint32_t mask = 0;
#pragma unroll
  for (int k = 0; k < I; ++k) {
    if (p + k < n && ((k == 0 && forced) || x[k] != prev)) mask |= 1u << k;
    prev = x[k];
  }
  return mask;
}

// The symbol before p for lane 0 (others take theirs by shuffle); unused where p is forced.
__device__ uint16_t before_of(const uint16_t* __restrict__ sym, uint64_t n, uint64_t p) {
  return threadIdx.x % 32 == 0 && p > 0 && p < n ? sym[p - 1] : 0;
}

// ---- finding runs ----------------------------------------------------------------------

// count[t] = runs starting in tile t; count[tiles] = 0, so an exclusive scan ends in the total.
// kCut: every tile start starts a run (the format's runs); otherwise only position 0 is
// forced (maximal runs, for count_runs_cuda).
template <bool kCut>
__global__ void __launch_bounds__(kCountThreads)
    tile_count_kernel(const uint16_t* __restrict__ sym, uint64_t n, bool vec, uint64_t tiles,
                      uint64_t* __restrict__ count) {
  using Reduce = cub::BlockReduce<uint32_t, kCountThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    uint32_t acc = 0;
#pragma unroll 4
    for (uint32_t q = threadIdx.x * kItems; q < kTileSyms; q += kCountThreads * kItems) {  // same trips in every lane
      const uint64_t p = t * kTileSyms + q;
      uint4 w[kWords];
      fetch(sym, n, p, vec, w);
      uint16_t x[kItems];
      unpack(w, x);
      acc += __popc(start_mask(x, before_of(sym, n, p), p, n, kCut ? q == 0 : p == 0));
    }
    const uint32_t total = Reduce(tmp).Sum(acc);
    if (threadIdx.x == 0) count[t] = total;
    __syncthreads();  // tmp is reused by the next tile
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) count[tiles] = 0;
}

// One tile per CTA (grid-stride); first[t] = index of tile t's first run. Shared memory holds
// the run starts of one chunk as (start within the tile << 16 | value), after slot 0, which
// holds the run left open by the chunk before.
__global__ void __launch_bounds__(kRunThreads, kRunMinCtas)
    write_runs_kernel(const uint16_t* __restrict__ sym, uint64_t n, bool vec, uint64_t tiles,
                      const uint64_t* __restrict__ first, uint16_t* __restrict__ value,
                      uint16_t* __restrict__ len_m1) {
  using Scan = cub::BlockScan<uint32_t, kRunThreads>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ uint32_t st[kChunk + 1];
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const uint64_t t0 = t * kTileSyms;
    const uint32_t len = static_cast<uint32_t>(min_u64(kTileSyms, n - t0));
    const uint32_t chunks = static_cast<uint32_t>(div_up(len, kChunk));
    uint64_t o = first[t];
    uint32_t open = 0;  // meaningful in thread 0 only
    // The next chunk's words are loaded while this one is processed.
    uint4 w[kWords];
    uint16_t before = 0;
    auto load = [&](uint32_t c) {
      const uint64_t p = t0 + c * kChunk + threadIdx.x * kItems;
      fetch(sym, n, p, vec, w);
      before = before_of(sym, n, p);
    };
    load(0);
    for (uint32_t c = 0; c < chunks; ++c) {  // same trips in every thread: the barriers are safe
      const uint32_t q = c * kChunk + threadIdx.x * kItems;
      uint16_t x[kItems];
      unpack(w, x);
      const uint16_t bx = before;
      if (c + 1 < chunks) load(c + 1);
      const uint32_t mask = start_mask(x, bx, t0 + q, n, q == 0);
      uint32_t rank = 0, m = 0;
      Scan(tmp).ExclusiveSum(static_cast<uint32_t>(__popc(mask)), rank, m);
      if (threadIdx.x == 0 && c > 0) st[0] = open;
#pragma unroll
      for (int k = 0; k < kItems; ++k)
        if (mask >> k & 1) st[1 + rank++] = (q + k) << 16 | x[k];
      __syncthreads();
      // Run j (slot j) ends where slot j + 1 starts. A tile's first chunk has no open run.
      const uint32_t j0 = c == 0 ? 1 : 0;
      for (uint32_t j = j0 + threadIdx.x; j < m; j += kRunThreads) {
        const uint32_t a = st[j], b = st[j + 1];
        value[o + j - j0] = static_cast<uint16_t>(a);
        len_m1[o + j - j0] = static_cast<uint16_t>((b >> 16) - (a >> 16) - 1);
      }
      if (threadIdx.x == 0) open = st[m];
      o += m - j0;
      __syncthreads();  // st and tmp are refilled by the next chunk
    }
    if (threadIdx.x == 0) {
      value[o] = static_cast<uint16_t>(open);
      len_m1[o] = static_cast<uint16_t>(len - (open >> 16) - 1);
    }
  }
}

template <class T>
struct Add {
  __host__ __device__ T operator()(const T& a, const T& b) const { return a + b; }
};

template <class T, class Op>
dev::Buffer<T> exclusive_scan(const T* in, uint64_t count, Op op, T init, cudaStream_t s) {
  dev::Buffer<T> out(count, s);
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, temp_bytes, in, out.get(), op, init, count, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp.get(), temp_bytes, in, out.get(), op, init, count, s));
  return out;
}

template <class T>
T read_back(const T* d, cudaStream_t s) {
  T h{};
  dev::copy_to_host(&h, d, sizeof h, s);
  dev::sync(s);
  return h;
}

// ---- expanding -------------------------------------------------------------------------

// A block's output symbols and units of work; scanned, where they start.
struct Span {
  uint64_t syms, units;
  __host__ __device__ Span operator+(const Span& o) const { return {syms + o.syms, units + o.units}; }
};

// The expand kernels take the run count as a host value or, for runs a device header holds, a
// device word (check::HostValue / DeviceValue), and return at once when st (nullable) holds a
// failure.
template <class Count>
__global__ void __launch_bounds__(kExpThreads)
    block_sums_kernel(const uint16_t* __restrict__ len_m1, Count count, bool vec, Span* __restrict__ span,
                      const DeviceStatus* st) {
  using Reduce = cub::BlockReduce<uint32_t, kExpThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  if (check::gate(st)) return;
  const uint64_t runs = count(), blocks = div_up(runs, kBlockRuns);
  for (uint64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const uint64_t r = b * kBlockRuns + threadIdx.x * kExpItems;
    uint4 w[kExpItems / 8];
    fetch(len_m1, runs, r, vec, w);
    uint16_t l[kExpItems];
    unpack(w, l);
    uint32_t sum = 0;
#pragma unroll
    for (int k = 0; k < kExpItems; ++k) sum += r + k < runs ? l[k] + 1u : 0u;
    const uint32_t total = Reduce(tmp).Sum(sum);
    if (threadIdx.x == 0) span[b] = {total, max_u64(1, div_up(total, kUnitSyms))};
    __syncthreads();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) span[blocks] = {0, 0};
}

// unit_block[u] = the block unit u works on, for blocks of several units.
template <class Count>
__global__ void mark_units_kernel(const Span* __restrict__ start, Count count, uint64_t* __restrict__ unit_block,
                                  const DeviceStatus* st) {
  if (check::gate(st)) return;
  const uint64_t blocks = div_up(count(), kBlockRuns);
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t b = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += step)
    for (uint64_t u = start[b].units; u < start[b + 1].units; ++u) unit_block[u] = b;
}

// Index of the last of the first `count` runs starting at or before q (off[0] = 0 <= q).
__device__ uint32_t run_at(const uint32_t* off, uint32_t count, uint32_t q) {
  uint32_t lo = 0, hi = count;
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (off[mid] <= q) lo = mid;
    else hi = mid;
  }
  return lo;
}

// The `cnt` (<= kGroup) symbols from block position q, given run j covers q. off[] ends in the
// block total, past every q + k asked for, so the walk stays inside the block's runs.
__device__ void group_values(const uint32_t* off, const uint16_t* val, uint32_t j, uint32_t q, uint32_t cnt,
                             uint16_t (&x)[kGroup]) {
  if (off[j + 1] >= q + cnt) {  // the usual case for long runs: one run covers the group
#pragma unroll
    for (uint32_t k = 0; k < kGroup; ++k) x[k] = val[j];
    return;
  }
#pragma unroll
  for (uint32_t k = 0; k < kGroup; ++k) {
    if (k < cnt) {
      while (off[j + 1] <= q + k) ++j;
      x[k] = val[j];
    }
  }
}

__device__ uint32_t pair(uint16_t a, uint16_t b) { return a | static_cast<uint32_t>(b) << 16; }

// Writes len copies of v at win[a...]; 16-byte stores through the middle of longer runs.
__device__ void fill_window(uint16_t* win, uint32_t a, uint32_t len, uint16_t v) {
  const uint32_t e = a + len;
  if (len >= 2 * kGroup) {
    for (; a % kGroup; ++a) win[a] = v;
    const uint32_t p = pair(v, v);
    for (; a + kGroup <= e; a += kGroup) *reinterpret_cast<uint4*>(win + a) = make_uint4(p, p, p, p);
  }
  for (; a < e; ++a) win[a] = v;
}

// Output writes are grouped in the output's address space: element i lies in group
// (i + shift) / 8, so whole groups are 16-byte aligned when vec_out.
__device__ void store_group(uint16_t* out, const uint16_t (&x)[kGroup], uint32_t cnt, bool vec_out) {
  if (vec_out && cnt == kGroup) {
    *reinterpret_cast<uint4*>(out) = make_uint4(pair(x[0], x[1]), pair(x[2], x[3]), pair(x[4], x[5]), pair(x[6], x[7]));
  } else {
#pragma unroll
    for (uint32_t k = 0; k < kGroup; ++k)
      if (k < cnt) out[k] = x[k];
  }
}

// Shared memory of expand_kernel: a block's output staged whole, or its run offsets and values.
union ExpandShared {
  uint4 window[kWindow / kGroup + 1];  // + 1: the window starts up to 7 symbols into its first word
  struct {
    uint32_t off[kBlockRuns + 1];
    uint16_t val[kBlockRuns];
  } runs;
};

// One unit per CTA (grid-stride). A block of short runs (output <= kWindow, one unit) is
// expanded by its threads, one thread per run, into shared memory, then copied out with
// aligned 16-byte stores. Otherwise each thread looks up the run of each 8-symbol group in the
// block's offsets, so a long run is written by many threads.
template <class Count>
__global__ void __launch_bounds__(kExpThreads, kExpMinCtas)
    expand_kernel(const uint16_t* __restrict__ value, const uint16_t* __restrict__ len_m1, Count count,
                  bool vec_value, bool vec_len, const Span* __restrict__ start,
                  const uint64_t* __restrict__ unit_block, uint32_t shift, bool vec_out,
                  uint16_t* __restrict__ out, const DeviceStatus* st) {
  using Scan = cub::BlockScan<uint32_t, kExpThreads>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ ExpandShared sh;
  if (check::gate(st)) return;
  const uint64_t runs = count(), units = start[div_up(runs, kBlockRuns)].units;
  for (uint64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const uint64_t b = unit_block ? unit_block[u] : u;
    const Span at = start[b];
    const uint64_t r = b * kBlockRuns + threadIdx.x * kExpItems;
    uint4 lw[kExpItems / 8], vw[kExpItems / 8];
    fetch(len_m1, runs, r, vec_len, lw);
    fetch(value, runs, r, vec_value, vw);
    uint16_t l[kExpItems], v[kExpItems];
    unpack(lw, l);
    unpack(vw, v);
    uint32_t len[kExpItems], sum = 0;
#pragma unroll
    for (int k = 0; k < kExpItems; ++k) {
      len[k] = r + k < runs ? l[k] + 1u : 0u;  // padding past the last run adds nothing
      sum += len[k];
    }
    uint32_t excl = 0, total = 0;
    Scan(tmp).ExclusiveSum(sum, excl, total);
    if (total <= kWindow) {  // the block is one unit
      uint16_t* win = reinterpret_cast<uint16_t*>(sh.window);
      // Window position lead + q holds block position q; lead puts whole words on output groups.
      const uint32_t lead = static_cast<uint32_t>((at.syms + shift) % kGroup);
#pragma unroll
      for (int k = 0; k < kExpItems; ++k) {
        fill_window(win, lead + excl, len[k], v[k]);
        excl += len[k];
      }
      __syncthreads();
      for (uint32_t w = threadIdx.x; w * kGroup < lead + total; w += kExpThreads) {
        const uint32_t e0 = max(w * kGroup, lead), e1 = min(w * kGroup + kGroup, lead + total);
        uint16_t* dst = out + (at.syms + e0 - lead);
        if (vec_out && e1 - e0 == kGroup) {
          *reinterpret_cast<uint4*>(dst) = sh.window[w];
        } else {
          for (uint32_t i = e0; i < e1; ++i) dst[i - e0] = win[i];
        }
      }
    } else {
      uint32_t* off = sh.runs.off;
      uint16_t* val = sh.runs.val;
#pragma unroll
      for (int k = 0; k < kExpItems; ++k) {
        off[threadIdx.x * kExpItems + k] = excl;
        val[threadIdx.x * kExpItems + k] = v[k];
        excl += len[k];
      }
      if (threadIdx.x == 0) off[kBlockRuns] = total;
      __syncthreads();
      const uint32_t count = static_cast<uint32_t>(min_u64(runs - b * kBlockRuns, kBlockRuns));
      const uint64_t lo = (u - at.units) * kUnitSyms, hi = min_u64(lo + kUnitSyms, total);
      const uint64_t a0 = at.syms + lo + shift, a1 = at.syms + hi + shift;
      for (uint64_t g = a0 / kGroup + threadIdx.x; g * kGroup < a1; g += kExpThreads) {
        const uint64_t e0 = max_u64(g * kGroup, a0), e1 = min_u64(g * kGroup + kGroup, a1);
        const uint32_t q = static_cast<uint32_t>(e0 - a0 + lo), cnt = static_cast<uint32_t>(e1 - e0);
        uint16_t x[kGroup];
        group_values(off, val, run_at(off, count, q), q, cnt, x);
        store_group(out + (e0 - shift), x, cnt, vec_out);
      }
    }
    __syncthreads();  // shared memory is refilled for the next unit
  }
}

[[noreturn]] void length_mismatch(uint64_t sum, uint64_t n) {
  fail(Status::corrupt_stream,
       "rle: run lengths sum to " + std::to_string(sum) + ", expected " + std::to_string(n) + " symbols");
}

}  // namespace

uint64_t count_runs_cuda(const uint16_t* d_sym, uint64_t n, cudaStream_t s) {
  if (n == 0) return 0;
  const uint64_t tiles = div_up(n, kTileSyms);
  dev::Buffer<uint64_t> count(tiles + 1, s);
  tile_count_kernel<false><<<grid_for(tiles), kCountThreads, 0, s>>>(d_sym, n, aligned16(d_sym), tiles, count.get());
  SCIZ_CUDA_CHECK_LAUNCH("rle tile_count_kernel");
  std::vector<uint64_t> h(tiles);
  dev::copy_to_host(h.data(), count.get(), tiles * sizeof(uint64_t), s);
  dev::sync(s);
  uint64_t total = 0;
  for (uint64_t c : h) total += c;
  return total;
}

DeviceRuns runs_cuda(const uint16_t* d_sym, uint64_t n, cudaStream_t s) {
  DeviceRuns r;
  if (n == 0) {
    r.value = dev::Buffer<uint16_t>(0, s);
    r.len_m1 = dev::Buffer<uint16_t>(0, s);
    return r;
  }
  const uint64_t tiles = div_up(n, kTileSyms);
  const bool vec = aligned16(d_sym);
  dev::Buffer<uint64_t> count(tiles + 1, s);
  tile_count_kernel<true><<<grid_for(tiles), kCountThreads, 0, s>>>(d_sym, n, vec, tiles, count.get());
  SCIZ_CUDA_CHECK_LAUNCH("rle tile_count_kernel");
  const dev::Buffer<uint64_t> first = exclusive_scan(count.get(), tiles + 1, Add<uint64_t>{}, uint64_t{0}, s);
  r.runs = read_back(first.get() + tiles, s);
  r.value = dev::Buffer<uint16_t>(r.runs, s);
  r.len_m1 = dev::Buffer<uint16_t>(r.runs, s);
  write_runs_kernel<<<grid_for(tiles), kRunThreads, 0, s>>>(d_sym, n, vec, tiles, first.get(), r.value.get(),
                                                             r.len_m1.get());
  SCIZ_CUDA_CHECK_LAUNCH("rle write_runs_kernel");
  return r;
}

void expand_cuda(const uint16_t* d_value, const uint16_t* d_len_m1, uint64_t runs, uint16_t* d_out, uint64_t n,
                 cudaStream_t s) {
  // Every run holds at least one symbol: this bounds the work below by n.
  SCIZ_REQUIRE(runs <= n, Status::corrupt_stream,
               "rle: " + std::to_string(runs) + " runs cannot make " + std::to_string(n) + " symbols");
  if (runs == 0) {
    if (n != 0) length_mismatch(0, n);
    return;
  }
  const uint64_t blocks = div_up(runs, kBlockRuns);
  const check::HostValue count{runs};
  dev::Buffer<Span> span(blocks + 1, s);
  block_sums_kernel<<<grid_for(blocks), kExpThreads, 0, s>>>(d_len_m1, count, aligned16(d_len_m1), span.get(), nullptr);
  SCIZ_CUDA_CHECK_LAUNCH("rle block_sums_kernel");
  const dev::Buffer<Span> start = exclusive_scan(span.get(), blocks + 1, Add<Span>{}, Span{0, 0}, s);
  const Span total = read_back(start.get() + blocks, s);
  if (total.syms != n) length_mismatch(total.syms, n);
  dev::Buffer<uint64_t> unit_block;
  if (total.units > blocks) {  // some block is cut into several units
    unit_block = dev::Buffer<uint64_t>(total.units, s);
    mark_units_kernel<<<grid_for(div_up(blocks, 256)), 256, 0, s>>>(start.get(), count, unit_block.get(), nullptr);
    SCIZ_CUDA_CHECK_LAUNCH("rle mark_units_kernel");
  }
  const uintptr_t addr = reinterpret_cast<uintptr_t>(d_out);
  const bool vec_out = addr % 2 == 0;
  const uint32_t shift = vec_out ? static_cast<uint32_t>(addr % 16 / 2) : 0;
  expand_kernel<<<grid_for(total.units), kExpThreads, 0, s>>>(d_value, d_len_m1, count, aligned16(d_value),
                                                              aligned16(d_len_m1), start.get(), unit_block.get(), shift,
                                                              vec_out, d_out, nullptr);
  SCIZ_CUDA_CHECK_LAUNCH("rle expand_kernel");
}

namespace {

// The run lengths must cover exactly n codes; checked before anything is written.
__global__ void cover_kernel(const Span* __restrict__ start, check::DeviceValue count, uint64_t n, DeviceStatus* st,
                             uint32_t where) {
  if (failed(st)) return;
  const uint64_t total = start[div_up(count(), kBlockRuns)].syms;
  if (total != n) report(st, kStatusCodesCover, where, total, n);
}

struct SpanAt {  // scan input: block b's span, zero past the runs' blocks
  const Span* span;
  check::DeviceValue count;
  __device__ Span operator()(uint64_t b) const { return b < div_up(count(), kBlockRuns) ? span[b] : Span{0, 0}; }
};

}  // namespace

namespace cuda {

void write_runs(const uint16_t* d_sym, uint64_t n, const uint64_t* d_tile_runs, uint16_t* d_value, uint16_t* d_len_m1,
                cudaStream_t s) {
  if (n == 0) return;
  const uint64_t tiles = div_up(n, kTileSyms);
  const dev::Buffer<uint64_t> first = exclusive_scan(d_tile_runs, tiles, Add<uint64_t>{}, uint64_t{0}, s);
  write_runs_kernel<<<grid_for(tiles), kRunThreads, 0, s>>>(d_sym, n, aligned16(d_sym), tiles, first.get(), d_value,
                                                             d_len_m1);
  SCIZ_CUDA_CHECK_LAUNCH("rle write_runs_kernel");
}

void expand_device(const uint16_t* d_value, const uint16_t* d_len_m1, const uint64_t* d_runs, uint64_t runs_max,
                   uint16_t* d_out, uint64_t n, DeviceStatus* st, uint32_t where, cudaStream_t s) {
  if (n == 0) return;  // a header that allows n == 0 allows no runs, and was checked
  const check::DeviceValue count{d_runs};
  const uint64_t blocks_max = div_up(runs_max, kBlockRuns);
  dev::Buffer<Span> span(blocks_max + 1, s), start(blocks_max + 1, s);
  // A block's span only ever reaches the scan for b < blocks, so the unwritten tail is never read.
  block_sums_kernel<<<grid_for(blocks_max), kExpThreads, 0, s>>>(d_len_m1, count, aligned16(d_len_m1), span.get(), st);
  SCIZ_CUDA_CHECK_LAUNCH("rle block_sums_kernel");
  {
    auto in = thrust::make_transform_iterator(thrust::make_counting_iterator<uint64_t>(0), SpanAt{span.get(), count});
    size_t temp_bytes = 0;
    SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, temp_bytes, in, start.get(), Add<Span>{}, Span{0, 0},
                                                   blocks_max + 1, s));
    dev::Buffer<uint8_t> temp(temp_bytes, s);
    SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp.get(), temp_bytes, in, start.get(), Add<Span>{}, Span{0, 0},
                                                   blocks_max + 1, s));
  }
  cover_kernel<<<1, 1, 0, s>>>(start.get(), count, n, st, where);
  SCIZ_CUDA_CHECK_LAUNCH("rle cover_kernel");
  // Lengths that cover n make at most one unit per block plus one per kUnitSyms codes.
  dev::Buffer<uint64_t> unit_block(blocks_max + div_up(n, kUnitSyms) + 1, s);
  mark_units_kernel<<<grid_for(div_up(blocks_max, 256)), 256, 0, s>>>(start.get(), count, unit_block.get(), st);
  SCIZ_CUDA_CHECK_LAUNCH("rle mark_units_kernel");
  const uintptr_t addr = reinterpret_cast<uintptr_t>(d_out);
  const bool vec_out = addr % 2 == 0;
  const uint32_t shift = vec_out ? static_cast<uint32_t>(addr % 16 / 2) : 0;
  expand_kernel<<<grid_for(blocks_max + div_up(n, kUnitSyms)), kExpThreads, 0, s>>>(
      d_value, d_len_m1, count, aligned16(d_value), aligned16(d_len_m1), start.get(), unit_block.get(), shift, vec_out,
      d_out, st);
  SCIZ_CUDA_CHECK_LAUNCH("rle expand_kernel");
}

}  // namespace cuda

std::vector<uint8_t> encode_cuda(const uint16_t* d_sym, uint64_t n, cudaStream_t s) {
  const DeviceRuns r = runs_cuda(d_sym, n, s);
  std::vector<uint8_t> out;
  reserve_large(out, kHeaderBytes + 4 * r.runs);
  out.resize(kHeaderBytes + 4 * r.runs);
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
