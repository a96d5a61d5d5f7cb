// The counting pass of the device encoders (stats_cuda.hpp); `auto` runs it without the runs
// (histogram, zero runs, maximal and centre runs, continuations by value) and again for the
// runs only where their floor leaves them in the running (codes_cuda.cu). A CTA takes whole 65536-code
// tiles (grid-stride), in steps of 2,048 codes, 8 consecutive codes a thread. Zero runs and
// run lengths need the position of the previous token / run start, which one block scan (max)
// per step gives, carried from step to step; histograms go to shared bins (values below a few
// thousand) or straight to global memory (rare large values), and the most frequent length,
// 0, is counted in registers so that dense tokens do not all hit one shared bin. (Counting
// the centre code in registers as well was measured slower: 0.78 against 0.63 ms for the
// three counts of 125M codes on the H100; the shared bins are not what limits the pass. So
// were 16 codes a thread, 0.81 ms, and a cap of 40 registers for 6 CTAs an SM, 0.64 ms. Nor
// are the block scans the limit: each warp walking its own eighth of a tile with warp scans,
// one barrier a tile, settling the lengths that cross parts at the tile's end, counted the same
// (CodesStatsCuda) in 0.87 ms, and lorenzo's 4 GB compression fell from 238 to 210 GB/s. ncu on
// this version: 10.7 cycles per issued instruction, 42% achieved occupancy (64 registers, 4
// CTAs an SM), 59% of the SM's issue rate, 35% of DRAM bandwidth.)
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>

#include "core/cuda_check.cuh"
#include "lossless/bitpack/bitpack_math.hpp"
#include "lossless/codes/stats_cuda.hpp"

namespace sciz::codes::cuda {
namespace {

constexpr int kThreads = 256;
constexpr uint32_t kStep = kThreads * 8;
constexpr uint32_t kValueBins = 4096;  // shared bins for code values
constexpr uint32_t kLenBins = 1024;    // shared bins for zero runs and run lengths
constexpr unsigned kFull = 0xffffffffu;
// A shared u32 bin gains at most 65536 a tile: a CTA may take at most this many tiles.
constexpr uint64_t kMaxTilesPerCta = 65535;
static_assert(kTile % kStep == 0, "tiles are whole steps");

// 1 + tile offset of the last token / run start seen so far; 0 for none.
struct Last {
  uint32_t tok, start;
};
struct MaxLast {
  __device__ Last operator()(const Last& a, const Last& b) const { return {max(a.tok, b.tok), max(a.start, b.start)}; }
};

__device__ void load8(const uint16_t* __restrict__ sym, uint64_t n, uint64_t i, uint16_t (&c)[8]) {
  if (i + 8 <= n) {
    const uint4 q = __ldg(reinterpret_cast<const uint4*>(sym + i));
    const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int j = 0; j < 8; ++j) c[j] = static_cast<uint16_t>(w[j / 2] >> (16 * (j % 2)));
  } else {
#pragma unroll
    for (int j = 0; j < 8; ++j) c[j] = i + j < n ? sym[i + j] : uint16_t(0);
  }
}

// k more of value s: shared bin, global bin, or a symbol outside the alphabet.
__device__ void count_value(uint32_t s, uint32_t k, uint32_t* sbins, uint32_t nshared, uint32_t alphabet,
                            uint64_t* ghist, uint64_t& bad) {
  if (s < nshared)
    atomicAdd(&sbins[s], k);
  else if (s < alphabet)
    atomicAdd(reinterpret_cast<unsigned long long*>(&ghist[s]), static_cast<unsigned long long>(k));
  else
    bad += k;
}

// One zero run or run length: 0 in a register, small ones in shared bins, the rest global.
__device__ void count_length(uint32_t v, uint64_t& zero, uint32_t* sbins, uint64_t* ghist) {
  if (v == 0)
    ++zero;
  else if (v < kLenBins)
    atomicAdd(&sbins[v], 1u);
  else
    atomicAdd(reinterpret_cast<unsigned long long*>(&ghist[v]), 1ull);
}

__device__ uint64_t warp_sum(uint64_t v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(kFull, v, off);
  return v;
}

__device__ void add_scalar(uint64_t* at, uint64_t v) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0 && v) atomicAdd(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(v));
}

__device__ void flush_bins(const uint32_t* sbins, uint32_t nbins, uint32_t from, uint64_t* ghist) {
  for (uint32_t b = from + threadIdx.x; b < nbins; b += kThreads)
    if (sbins[b]) atomicAdd(reinterpret_cast<unsigned long long*>(&ghist[b]), static_cast<unsigned long long>(sbins[b]));
}

template <uint32_t F>
uint32_t shared_bytes(uint32_t alphabet) {
  const uint32_t nv = std::min(alphabet, kValueBins);
  return 4 * (((F & kStatsHist) ? nv : 0) + ((F & kStatsRuns) ? nv + kLenBins : 0) + ((F & kStatsTokens) ? kLenBins : 0) +
              ((F & kStatsCont) ? nv : 0));
}

template <uint32_t F>
__global__ void __launch_bounds__(kThreads)
    stats_kernel(const uint16_t* __restrict__ sym, uint64_t n, uint32_t alphabet, uint16_t centre, StatsOut out) {
  constexpr bool kH = F & kStatsHist, kT = F & kStatsTokens, kR = F & kStatsRuns, kW = F & kStatsWidths,
                 kC = F & kStatsCont;
  static_assert(!kC || kH, "continuations are counted in the histogram's loop");
  using Scan = cub::BlockScan<Last, kThreads>;
  using Reduce = cub::BlockReduce<uint64_t, kThreads>;
  __shared__ union {
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } tmp;
  extern __shared__ uint32_t bins[];
  const uint32_t nv = min(alphabet, kValueBins);
  uint32_t* s_hist = bins;
  uint32_t* s_rval = s_hist + (kH ? nv : 0);
  uint32_t* s_zrun = s_rval + (kR ? nv : 0);
  uint32_t* s_rlen = s_zrun + (kT ? kLenBins : 0);
  uint32_t* s_cont = s_rlen + (kR ? kLenBins : 0);
  const uint32_t nbins = (kH ? nv : 0) + (kR ? nv + kLenBins : 0) + (kT ? kLenBins : 0) + (kC ? nv : 0);
  for (int b = threadIdx.x; b < static_cast<int>(nbins); b += kThreads) bins[b] = 0;
  __syncthreads();

  const unsigned lane = threadIdx.x & 31;
  uint64_t zrun0 = 0, rlen0 = 0, tokens = 0, forced = 0, runs = 0, changes = 0, cruns = 0, words = 0, bad = 0;
  const uint64_t tiles = (n + kTile - 1) / kTile;
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {  // same trips in every thread
    const uint64_t lo = t * kTile;
    const uint32_t len = static_cast<uint32_t>(min(kTile, n - lo));
    Last carry{0, 0};
    uint32_t tile_tok = 0, tile_run = 0;
    for (uint32_t base = 0; base < len; base += kStep) {  // same trips in every thread: barriers are safe
      const uint32_t q = base + threadIdx.x * 8;
      const uint64_t i = lo + q;
      uint16_t v[8];
      load8(sym, n, i, v);
      const uint32_t nvalid = q < len ? min(8u, len - q) : 0u;
      // The code before v[0]: the left lane's last, or for lane 0 a load (cached: a
      // neighbouring warp has just read it).
      const uint32_t left = __shfl_up_sync(kFull, static_cast<uint32_t>(v[7]), 1);
      const uint16_t before = lane != 0 ? static_cast<uint16_t>(left) : (i > 0 && nvalid ? sym[i - 1] : uint16_t(0));
      uint32_t tokm = 0, startm = 0;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const bool valid = static_cast<uint32_t>(j) < nvalid;
        const uint16_t pv = j == 0 ? before : v[j - 1];
        if (kR) startm |= static_cast<uint32_t>(valid && (q + j == 0 || v[j] != pv)) << j;
        if (kR || kT) changes += valid && i + j > 0 && v[j] != pv;
        if (kT) {
          cruns += valid && v[j] == centre && (i + j == 0 || pv != centre);
          const bool fixed = q + j == kTile - 1;  // lo is a multiple of the tile: i + j = 65535 mod 65536
          tokm |= static_cast<uint32_t>(valid && (v[j] != centre || fixed)) << j;
          forced += valid && fixed && v[j] == centre;
        }
      }
      if (kT || kR) {
        Last mine{tokm ? q + 32 - static_cast<uint32_t>(__clz(tokm)) : 0u,
                  startm ? q + 32 - static_cast<uint32_t>(__clz(startm)) : 0u};
        Last prev, step;
        Scan(tmp.scan).ExclusiveScan(mine, prev, Last{0, 0}, MaxLast{}, step);
        uint32_t ptok = max(carry.tok, prev.tok), pstart = max(carry.start, prev.start);
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          if (kT && (tokm >> j & 1u)) {
            count_length(q + j - ptok, zrun0, s_zrun, out.zrun_hist);
            ptok = q + j + 1;
          }
          if (kR && (startm >> j & 1u)) {
            if (pstart) count_length(q + j - pstart, rlen0, s_rlen, out.run_len_hist);  // the previous run ends here
            count_value(v[j], 1, s_rval, nv, alphabet, out.run_value_hist, bad);
            pstart = q + j + 1;
          }
        }
        carry = MaxLast{}(carry, step);
        tile_tok += __popc(tokm);
        tile_run += __popc(startm);
      }
      if (kH && nvalid) {  // equal neighbours merged: smooth codes cost one atomic, not eight
        uint32_t cur = v[0], k = 0;
        // A segment of k equal codes holds k - 1 continuations, one more where the first one
        // continues the code before this thread's eight.
        uint32_t lead = kC && i > 0 && before == v[0];
        auto flush = [&] {
          count_value(cur, k, s_hist, nv, alphabet, out.hist, bad);
          if (kC && cur != centre && k - 1 + lead) {
            uint64_t ignored = 0;  // a bad symbol is counted once, by the histogram
            count_value(cur, k - 1 + lead, s_cont, nv, alphabet, out.cont_hist, ignored);
          }
          lead = 0;
        };
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          if (static_cast<uint32_t>(j) >= nvalid) break;
          if (v[j] != cur) {
            flush();
            cur = v[j];
            k = 0;
          }
          ++k;
        }
        flush();
      }
      if (kW) {  // a bitpack block of 32 codes is 4 neighbouring lanes; padding counts as the centre
        uint32_t z = 0;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          if (static_cast<uint32_t>(j) < nvalid) z |= bitpack::zigzag(v[j], centre);
        z |= __shfl_xor_sync(kFull, z, 1);
        z |= __shfl_xor_sync(kFull, z, 2);
        if ((lane & 3) == 0) words += bitpack::bit_width(z);
      }
      __syncthreads();  // tmp is reused by the next step
    }
    if (threadIdx.x == 0) {
      if (kR) count_length(len - carry.start, rlen0, s_rlen, out.run_len_hist);  // the tile's last run
      if (kT && t + 1 == tiles) out.scalars[kTail] = len - carry.tok;
    }
    if (kT || kR) {
      const uint64_t both = Reduce(tmp.reduce).Sum(static_cast<uint64_t>(tile_tok) | static_cast<uint64_t>(tile_run) << 32);
      if (threadIdx.x == 0) {
        if (kT) out.tile_tokens[t] = both & 0xffffffffu;
        if (kR) out.tile_runs[t] = both >> 32;
        tokens += both & 0xffffffffu;
        runs += both >> 32;
      }
      __syncthreads();
    }
  }
  __syncthreads();
  if (kH) flush_bins(s_hist, nv, 0, out.hist);
  if (kC) flush_bins(s_cont, nv, 0, out.cont_hist);
  if (kR) {
    flush_bins(s_rval, nv, 0, out.run_value_hist);
    flush_bins(s_rlen, kLenBins, 1, out.run_len_hist);
    add_scalar(&out.run_len_hist[0], rlen0);
    add_scalar(&out.scalars[kRuns], runs);
  }
  if (kR || kT) add_scalar(&out.scalars[kChanges], changes);
  if (kT) {
    flush_bins(s_zrun, kLenBins, 1, out.zrun_hist);
    add_scalar(&out.zrun_hist[0], zrun0);
    add_scalar(&out.scalars[kTokens], tokens);
    add_scalar(&out.scalars[kForcedCentre], forced);
    add_scalar(&out.scalars[kCentreRuns], cruns);
  }
  if (kW) add_scalar(&out.scalars[kWidthWords], words);
  add_scalar(&out.scalars[kBadSymbols], bad);
}

template <uint32_t F>
void launch(const uint16_t* d_sym, uint64_t n, uint32_t alphabet, uint16_t centre, const StatsOut& out, cudaStream_t s) {
  const uint64_t tiles = (n + kTile - 1) / kTile;
  if (tiles == 0) return;
  const uint32_t smem = shared_bytes<F>(alphabet);
  int dev = 0, sms = 0, per_sm = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&dev));
  SCIZ_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  SCIZ_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stats_kernel<F>, kThreads, smem));
  const uint64_t resident = static_cast<uint64_t>(std::max(1, sms * std::max(per_sm, 1)));
  const uint64_t grid = std::min(tiles, std::max(resident, (tiles + kMaxTilesPerCta - 1) / kMaxTilesPerCta));
  stats_kernel<F><<<static_cast<unsigned>(grid), kThreads, smem, s>>>(d_sym, n, alphabet, centre, out);
  SCIZ_CUDA_CHECK_LAUNCH("codes stats_kernel");
}

}  // namespace

void launch_stats(const uint16_t* d_sym, uint64_t n, uint32_t alphabet, uint16_t centre, uint32_t flags,
                  const StatsOut& out, cudaStream_t s) {
  SCIZ_REQUIRE(reinterpret_cast<uintptr_t>(d_sym) % 16 == 0, Status::internal, "codes stats: symbols must be 16-byte aligned");
  SCIZ_REQUIRE(alphabet >= 1 && alphabet <= 65536, Status::internal, "codes stats: alphabet must be 1..65536");
  switch (flags) {
    case kStatsHist: return launch<kStatsHist>(d_sym, n, alphabet, centre, out, s);
    case kStatsHist | kStatsTokens: return launch<kStatsHist | kStatsTokens>(d_sym, n, alphabet, centre, out, s);
    case kStatsRuns: return launch<kStatsRuns>(d_sym, n, alphabet, centre, out, s);
    case kStatsWidths: return launch<kStatsWidths>(d_sym, n, alphabet, centre, out, s);
    case kStatsHist | kStatsTokens | kStatsRuns:
      return launch<kStatsHist | kStatsTokens | kStatsRuns>(d_sym, n, alphabet, centre, out, s);
    case kStatsHist | kStatsTokens | kStatsCont:
      return launch<kStatsHist | kStatsTokens | kStatsCont>(d_sym, n, alphabet, centre, out, s);
  }
  fail(Status::internal, "codes stats: unsupported flag set " + std::to_string(flags));
}

}  // namespace sciz::codes::cuda
