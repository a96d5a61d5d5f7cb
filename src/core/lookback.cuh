// Decoupled look-back (Merrill & Garland, "Single-pass parallel prefix scan with decoupled
// look-back", 2016): a kernel whose tiles each need the sum of every earlier tile's counts
// (output offsets) gets them in the same pass that produces the counts, so the field is read
// once. Tile ids come from an atomic counter, not blockIdx, so every earlier tile is already
// running when a tile waits on it (no deadlock whatever order the hardware starts CTAs in).
//
// The counts are three 64-bit counters (Counts<3>), added word by word. Each tile publishes its
// own aggregate first, packed with its flag in one word (flag 1), then, once it knows its
// exclusive prefix, the inclusive one (flag 2): written before its flag with a fence between,
// read after the flag with a fence and L1-bypassing loads.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda_check.cuh"
#include "core/device.hpp"

namespace sciz::lookback {

template <int N>
struct Counts {
  static constexpr int kWords = N;
  unsigned long long w[N];
};
template <int N>
__device__ inline Counts<N> operator+(const Counts<N>& a, const Counts<N>& b) {
  Counts<N> r;
#pragma unroll
  for (int i = 0; i < N; ++i) r.w[i] = a.w[i] + b.w[i];
  return r;
}

// How a tile's own aggregate is packed beside its flag in one 64-bit status word: word i of
// the aggregate gets Bits[i] bits (sum <= 62). One status word per predecessor is then all a
// look-back round reads, one atomic 64-bit load, no fence: the aggregate cannot be seen
// before its flag. Only the inclusive prefix (full 64-bit words) lives apart, behind a fence.
template <int B0, int B1, int B2>
struct Packing {
  static constexpr int kShift1 = B0, kShift2 = B0 + B1;
  static_assert(B0 + B1 + B2 <= 62, "flag and aggregate must share one 64-bit word");
  static constexpr unsigned long long kMax0 = (1ull << B0) - 1, kMax1 = (1ull << B1) - 1, kMax2 = (1ull << B2) - 1;
};

// Device state for `tiles` tiles: status words, inclusive prefixes and the tile-id counter.
// Reset it (one memset) before every launch that uses it.
template <int N>
struct State {
  unsigned long long* status;  // tiles + 1 words; the last one is the tile-id counter
  Counts<N>* inclusive;        // tiles
};

// Owns the memory of a State for up to `tiles` tiles, and `extra` more words that the same
// reset zeroes (a kernel's other per-launch flags, without a memset of their own).
template <int N>
class Storage {
 public:
  Storage(uint64_t tiles, cudaStream_t s, uint64_t extra = 0)
      : tiles_(tiles), extra_(extra), status_(tiles + 1 + extra, s), incl_(tiles, s) {}
  State<N> state() const { return {status_.get(), incl_.get()}; }
  unsigned long long* extra() const { return status_.get() + tiles_ + 1; }
  void reset(cudaStream_t s) const {  // status words, counter and extra words to zero, before each launch
    SCIZ_CUDA_CHECK(cudaMemsetAsync(status_.get(), 0, (tiles_ + 1 + extra_) * sizeof(unsigned long long), s));
  }
  // The last tile's inclusive counts: the grand totals, once the kernel has finished.
  void totals(Counts<N>* out, cudaStream_t s) const {
    dev::copy_to_host(out, incl_.get() + (tiles_ - 1), sizeof(Counts<N>), s);
  }

 private:
  uint64_t tiles_, extra_;
  dev::Buffer<unsigned long long> status_;
  dev::Buffer<Counts<N>> incl_;
};

// Called by every thread of the CTA; thread 0's atomic decides. Needs one shared word.
template <int N>
__device__ inline uint64_t next_tile(const State<N>& st, uint64_t tiles, unsigned long long* s_tile) {
  if (threadIdx.x == 0) *s_tile = atomicAdd(st.status + tiles, 1ull);
  __syncthreads();
  return *s_tile;
}

constexpr unsigned long long kFlagAggregate = 1ull << 62, kFlagInclusive = 2ull << 62;

template <class P>
__device__ inline unsigned long long pack(const Counts<3>& a) {
  return a.w[0] | a.w[1] << P::kShift1 | a.w[2] << P::kShift2;
}
template <class P>
__device__ inline Counts<3> unpack(unsigned long long v) {
  return {{v & P::kMax0, (v >> P::kShift1) & P::kMax1, (v >> P::kShift2) & P::kMax2}};
}

__device__ inline unsigned long long load_status(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned long long*>(p);
}
__device__ inline void store_status(unsigned long long* p, unsigned long long v) {
  *reinterpret_cast<volatile unsigned long long*>(p) = v;
}

template <int N>
__device__ inline Counts<N> load_cg(const Counts<N>* p) {
  Counts<N> r;
#pragma unroll
  for (int i = 0; i < N; ++i) r.w[i] = __ldcg(&p->w[i]);
  return r;
}
template <int N>
__device__ inline void store_cg(Counts<N>* p, const Counts<N>& v) {
#pragma unroll
  for (int i = 0; i < N; ++i) __stcg(&p->w[i], v.w[i]);
}

// Run by one whole warp (all 32 lanes) of tile `tile`, `agg` its own aggregate (the same in
// every lane, each word within its Packing width). Returns the exclusive prefix of the tile in
// every lane and publishes the tile's inclusive counts. Lane l inspects tile (window - l), so
// 32 predecessors are read per round; the nearest one with an inclusive prefix ends the walk.
template <class P>
__device__ inline Counts<3> exclusive_prefix(const State<3>& st, uint64_t tile, const Counts<3>& agg) {
  const unsigned lane = threadIdx.x & 31;
  const Counts<3> zero{{0, 0, 0}};
  if (tile == 0) {
    if (lane == 0) {
      store_cg(st.inclusive, agg);
      __threadfence();
      store_status(st.status, kFlagInclusive);
    }
    return zero;
  }
  if (lane == 0) store_status(st.status + tile, kFlagAggregate | pack<P>(agg));
  Counts<3> run = zero;
  int64_t window = static_cast<int64_t>(tile) - 1;
  while (true) {
    const int64_t j = window - static_cast<int64_t>(lane);
    unsigned long long v = kFlagInclusive;  // before tile 0: an inclusive prefix of zero
    if (j >= 0) {
      do {
        v = load_status(st.status + j);
      } while ((v >> 62) == 0);
    }
    const bool incl = (v >> 62) == 2;
    const unsigned mask = __ballot_sync(0xffffffffu, incl);
    const unsigned stop = mask ? static_cast<unsigned>(__ffs(static_cast<int>(mask)) - 1) : 31u;
    Counts<3> c = zero;
    if (j >= 0 && lane <= stop) {
      if (incl) {
        __threadfence();  // the flag was seen: the inclusive words written before it are visible
        c = load_cg(st.inclusive + j);
      } else {
        c = unpack<P>(v);
      }
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1)
#pragma unroll
      for (int i = 0; i < 3; ++i) c.w[i] += __shfl_xor_sync(0xffffffffu, c.w[i], d);
    run = run + c;
    if (mask) break;
    window -= 32;
  }
  if (lane == 0) {
    store_cg(st.inclusive + tile, run + agg);
    __threadfence();
    store_status(st.status + tile, kFlagInclusive | pack<P>(agg));
  }
  return run;
}

}  // namespace sciz::lookback
