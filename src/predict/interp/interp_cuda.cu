// CUDA twin of the interp predictor. The anchor levels run a kernel per pass over the anchor
// grid (a thread per point; the points of a pass are independent); then one CTA per block
// keeps the block's 17^3 box in shared memory and runs its levels and passes with
// __syncthreads() between passes. Every decision is interp_math.hpp's, so the codes, outliers
// and exact values equal the CPU twin's; codes land at their closed-form positions, outliers and
// exact values are appended by atomics and sorted on the host as the CPU twin sorts them.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/device_status.hpp"
#include "core/exact_runs_cuda.hpp"
#include "core/trace.hpp"
#include "predict/interp/interp.hpp"

namespace sciz::interp {
namespace {

constexpr int kThreads = 256;
// Threads of a 3-D block's group, a CTA each. Small CTAs: a block runs up to 28 passes with a
// barrier after each, many of a few points, so an SM wants many independent boxes in flight
// rather than many threads per box (17^3 values of shared memory each).
#ifndef SCIZ_INTERP_BOX_THREADS
#define SCIZ_INTERP_BOX_THREADS 64
#endif
constexpr int kBoxThreads = SCIZ_INTERP_BOX_THREADS;
// CTA size of a block kernel whose groups have G threads: a group per CTA in 3-D, else
// kThreads / G groups (a warp per 2-D box, a thread per 1-D box).
constexpr int cta_threads(int G) { return G >= 64 ? G : kThreads; }
// CTAs an SM must hold at once: the register cap (128) that the seven stencil shapes' loops
// are compiled under.
constexpr int min_ctas(int G) { return 65536 / (cta_threads(G) * 128); }

template <class T>
struct LevelTable {  // per level l (index l - 1): its configuration and quantizer
  LevelConfig cfg[kMaxLevels + 1];
  LevelQuant<T> q[kMaxLevels + 1];
  // What every block runs, the same for all blocks: per block level its passes and their
  // stencils over the box, in 32-bit offsets (the hot loop's registers).
  int np[kBlockLevels];
  Pass pass[kBlockLevels][7];
  StencilT<int32_t> st[kBlockLevels][7];
};

template <class T>
LevelTable<T> level_table(const Choice& ch) {
  LevelTable<T> t{};
  for (size_t l = 0; l < ch.config.size(); ++l) t.cfg[l] = ch.config[l], t.q[l] = level_quant<T>(ch.eb[l]);
  const int32_t pitch[3] = {kBoxPlane, kBox, 1};
  for (int l = 1; l <= kBlockLevels; ++l) {
    const LevelConfig cfg = t.cfg[l - 1];
    t.np[l - 1] = level_passes(cfg.scheme, t.pass[l - 1]);
    for (int pi = 0; pi < t.np[l - 1]; ++pi)
      t.st[l - 1][pi] = make_stencil<int32_t>(t.pass[l - 1][pi].pred, int32_t{1} << (l - 1), pitch, cfg.spline,
                                              cfg.scheme == kCross);
  }
  return t;
}

// Outliers and exact values found by the kernels, appended in any order (sorted on the host).
template <class T>
struct Sinks {
  unsigned long long* count;  // [0] outliers, [1] exact values
  uint64_t* out_pos;
  int32_t* out_q;
  uint64_t* ex_idx;
  T* ex_val;
  uint64_t cap;  // entries each list holds; beyond it only the count grows
};

template <class T>
__device__ void note(const Sinks<T>& k, uint8_t code, uint64_t field_idx, T x, uint64_t pos, int32_t q) {
  if (code == kOutlierCode) {
    const unsigned long long i = atomicAdd(&k.count[0], 1ull);
    if (i < k.cap) k.out_pos[i] = pos, k.out_q[i] = q;
  } else if (code == kExactCode) {
    const unsigned long long i = atomicAdd(&k.count[1], 1ull);
    if (i < k.cap) k.ex_idx[i] = field_idx, k.ex_val[i] = x;
  }
}

struct AnchorGridDev {
  int64_t n[3];
  int64_t pitch[3];
};

AnchorGridDev anchor_grid_dev(const Layout& L) {
  AnchorGridDev a;
  for (int k = 0; k < 3; ++k) a.n[k] = static_cast<int64_t>((L.n[k] - 1) / kAnchorStride + 1);
  a.pitch[2] = 1, a.pitch[1] = a.n[2], a.pitch[0] = a.n[1] * a.n[2];
  return a;
}

__device__ inline uint64_t field_index(const Layout& L, uint64_t z, uint64_t y, uint64_t x) {
  return (z * L.n[1] + y) * L.n[2] + x;
}

__device__ inline void pass_point(const PassGrid& g, int64_t t, int64_t c[3]) {
  const int64_t ix = t % g.cnt[2], r = t / g.cnt[2];
  c[0] = g.start[0] + (r / g.cnt[1]) * g.step[0];
  c[1] = g.start[1] + (r % g.cnt[1]) * g.step[1];
  c[2] = g.start[2] + ix * g.step[2];
}

__device__ inline uint64_t anchor_pos(const Layout& L, int l, const AnchorGridDev& a, const int64_t c[3]) {
  const int64_t s = int64_t{1} << (l - 1 - kBlockLevels);
  uint64_t m[3], i[3];
  for (int k = 0; k < 3; ++k) m[k] = static_cast<uint64_t>((a.n[k] - 1) / s + 1), i[k] = static_cast<uint64_t>(c[k] / s);
  return L.base[l] + level_rank(m, i);
}

template <class T>
__global__ void gather_boxes_kernel(const T* x, const Layout* Lp, const uint64_t* blocks, T* boxes) {
  const Layout& L = *Lp;
  const BoxGeom g = box_geom(L, blocks[blockIdx.x]);
  T* box = boxes + uint64_t(blockIdx.x) * kBoxVolume;
  for (int i = threadIdx.x; i < kBoxVolume; i += blockDim.x) {
    const int64_t z = i / kBoxPlane, y = (i / kBox) % kBox, xx = i % kBox;
    box[i] = z < g.w[0] && y < g.w[1] && xx < g.w[2] ? x[field_index(L, g.o[0] + z, g.o[1] + y, g.o[2] + xx)] : T(0);
  }
}

// A[i] = x at anchor i of a grid of extents n (a window of the anchor grid, or all of it).
template <class T>
__global__ void gather_anchors_kernel(const T* x, const Layout* Lp, int64_t n1, int64_t n2, uint64_t count, T* A) {
  const Layout& L = *Lp;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t xx = i % n2, y = (i / n2) % n1, z = i / (n1 * n2);
    A[i] = x[field_index(L, z * kAnchorStride, y * kAnchorStride, xx * kAnchorStride)];
  }
}

int grid_for(uint64_t n) { return static_cast<int>(std::min<uint64_t>((n + kThreads - 1) / kThreads, 65535 * 16)); }

// ---- encoder ----

template <class T>
__global__ void root_encode_kernel(T* A, const Layout* Lp, LevelQuant<T> q, double ebc, uint8_t* codes, Sinks<T> sk) {
  const Layout& L = *Lp;
  T rec;
  int32_t big = 0;
  const uint64_t pos = L.base[L.levels];
  const uint8_t code = quantize<T>(A[0], T(0), q, ebc, rec, big);
  codes[pos] = code;
  note(sk, code, 0, A[0], pos, big);
  A[0] = rec;
}

template <class T>
__global__ void anchor_pass_encode_kernel(T* A, AnchorGridDev a, PassGrid g, Stencil st, int l, LevelQuant<T> q,
                                          double ebc, const Layout* Lp, uint8_t* codes, Sinks<T> sk) {
  const Layout& L = *Lp;
  const int64_t s = int64_t{1} << (l - 1 - kBlockLevels);
  const int64_t total = g.points();
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += int64_t(gridDim.x) * blockDim.x) {
    int64_t c[3];
    pass_point(g, t, c);
    const int64_t off = c[0] * a.pitch[0] + c[1] * a.pitch[1] + c[2];
    const T pred = predict_any<T>(A, off, c, a.n, s, st);
    const T xv = A[off];
    T rec;
    int32_t big = 0;
    const uint8_t code = quantize<T>(xv, pred, q, ebc, rec, big);
    const uint64_t pos = anchor_pos(L, l, a, c);
    codes[pos] = code;
    note(sk, code, field_index(L, c[0] * kAnchorStride, c[1] * kAnchorStride, c[2] * kAnchorStride), xv, pos, big);
    A[off] = rec;
  }
}

// Blocks are processed by groups of G threads: a CTA per block for 3-D boxes (17^3 values), a
// warp per block for 2-D (17^2), a thread per block for 1-D (17), so that small boxes still
// fill the GPU. A group's box lies at its own place in shared memory (17^ndim values).
template <int G>
__device__ inline void group_sync() {
  if constexpr (G >= 64) __syncthreads();
  else if constexpr (G == 32) __syncwarp();
}

struct GroupOf {
  uint64_t block;  // the group's block id
  int lane;        // its thread's index in the group
  int group;       // the group's index in the CTA
};

template <int G>
__device__ inline GroupOf group_of(uint64_t first) {
  return {first + uint64_t(blockIdx.x) * (cta_threads(G) / G) + threadIdx.x / G, int(threadIdx.x % G),
          int(threadIdx.x / G)};
}

// 32-bit words of a bitmask over a box of box_vol points.
__host__ __device__ constexpr int mask_words(int box_vol) { return (box_vol + 31) / 32; }

// A block's box in 32-bit coordinates (it holds at most 17^3 points).
struct Box32 {
  int w[3];    // extent of the box
  int own[3];  // owned extent
};
__device__ inline Box32 box32(const BoxGeom& g) {
  return {{int(g.w[0]), int(g.w[1]), int(g.w[2])}, {int(g.own[0]), int(g.own[1]), int(g.own[2])}};
}

// q = t / d for t < 2^13 and 1 <= d <= 17 (a pass's points in a box), by a float product: the
// exact quotient (t + 0.5) / d lies at least 1/34 from an integer, far beyond the product's error.
__device__ inline int small_div(int t, float inv_d) { return __float2int_rz((float(t) + 0.5f) * inv_d); }

// The box's anchors (local coordinates 0 and 16 on each axis the box reaches) from A.
__device__ inline bool anchor_in_box(const Box32& bx, int j) {
  return !((j >> 2 & 1) && bx.w[0] <= kAnchorStride) && !((j >> 1 & 1) && bx.w[1] <= kAnchorStride) &&
         !((j & 1) && bx.w[2] <= kAnchorStride);
}
template <class T>
__device__ inline const T& anchor_of(const T* A, const AnchorGridDev& a, const BoxGeom& g, int z, int y, int x) {
  return A[(int64_t(g.b[0]) + z) * a.pitch[0] + (int64_t(g.b[1]) + y) * a.pitch[1] + int64_t(g.b[2]) + x];
}

// Loads a block's box for the encoder: the field's values, and the anchors' reconstructions at
// the anchor points. A thread issues kLoads loads before it stores any (one at a time, each
// store waited on its load's whole latency), and the index splits by small_div (the box holds
// < 2^13 points, extents <= 17), not by integer divisions.
template <class T, int G>
__device__ void load_box(T* v, const T* x, const T* A, const AnchorGridDev& a, const Layout& L, const BoxGeom& g,
                         const Box32& bx, int lane) {
  constexpr int kLoads = 4;
  const int vol = bx.w[0] * bx.w[1] * bx.w[2];
  const float inv2 = 1.0f / float(bx.w[2]), inv1 = 1.0f / float(bx.w[1]);
  const uint64_t plane = L.n[1] * L.n[2], row = L.n[2];
  const T* xb = x + field_index(L, g.o[0], g.o[1], g.o[2]);
  for (int i0 = lane; i0 < vol; i0 += kLoads * G) {
    T val[kLoads];
    int off[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      const int i = i0 + u * G;
      off[u] = -1;
      if (i < vol) {
        const int r = small_div(i, inv2), xx = i - r * bx.w[2];
        const int z = small_div(r, inv1), y = r - z * bx.w[1];
        off[u] = z * kBoxPlane + y * kBox + xx;
        val[u] = ((z | y | xx) & (kAnchorStride - 1)) == 0
                     ? anchor_of(A, a, g, z / kAnchorStride, y / kAnchorStride, xx / kAnchorStride)
                     : xb[uint64_t(z) * plane + uint64_t(y) * row + uint64_t(xx)];
      }
    }
#pragma unroll
    for (int u = 0; u < kLoads; ++u)
      if (off[u] >= 0) v[off[u]] = val[u];
  }
}

// The decoder's box starts with its anchors only: every other point is reconstructed by a pass
// before any later pass reads it.
template <class T, int G>
__device__ void load_anchors(T* v, const T* A, const AnchorGridDev& a, const BoxGeom& g, const Box32& bx, int lane) {
  for (int j = lane; j < 8; j += G) {
    if (!anchor_in_box(bx, j)) continue;
    const int z = j >> 2 & 1, y = j >> 1 & 1, x = j & 1;
    v[kAnchorStride * (z * kBoxPlane + y * kBox + x)] = anchor_of(A, a, g, z, y, x);
  }
}

// What a point of block level l needs beyond its pass: the stride's shift, the level's grid of
// owned points (m), the block's first code in the level, the quantizer.
template <class T>
struct BlockLevel {
  int shift;
  uint32_t m[3];
  uint64_t start;
  LevelQuant<T> q;
};

template <class T>
__device__ inline BlockLevel<T> block_level(const Layout& L, const LevelTable<T>& lt, const BoxGeom& g,
                                            const Box32& bx, int l) {
  BlockLevel<T> lv;
  lv.shift = l - 1;
  const int s = 1 << lv.shift;
  for (int k = 0; k < 3; ++k) lv.m[k] = uint32_t((bx.own[k] + s - 1) >> lv.shift);
  lv.start = block_level_start(L, l, g.b);
  lv.q = lt.q[l - 1];
  return lv;
}

template <class T>
__device__ inline uint64_t owned_code(const BlockLevel<T>& lv, const int c[3]) {
  const uint32_t i[3] = {uint32_t(c[0]) >> lv.shift, uint32_t(c[1]) >> lv.shift, uint32_t(c[2]) >> lv.shift};
  return lv.start + level_rank<uint32_t>(lv.m, i);
}

__device__ inline bool is_owned(const Box32& bx, const int c[3]) {
  return c[0] < bx.own[0] && c[1] < bx.own[1] && c[2] < bx.own[2];
}

// Runs the passes of block levels hi..lo (4..1 for a block) over the box v, calling
// point(lv, c, off, pred, visit) for every point of each pass by the group's threads, lv =
// level_of(l) once a level, visit = the point's place in the order the CPU's walk visits the
// level (pass by pass, then z, y, x); a group barrier after each pass (a pass reads only
// points of earlier passes). Each pass runs a loop compiled for its stencil's shape, in 32-bit
// box coordinates; predict_box gives predict_point's value without branching on where a point
// lies (but for the cross stencil's first try).
template <class T, int G, class LevelOf, class Point>
__device__ void run_levels(const T* v, const LevelTable<T>& lt, const Box32& bx, int lane, int hi, int lo,
                           LevelOf&& level_of, Point&& point) {
  for (int l = hi; l >= lo; --l) {
    const int s = 1 << (l - 1);
    const auto lv = level_of(l);
    const int np = lt.np[l - 1];
    int base = 0;  // points of the level's earlier passes
    for (int pi = 0; pi < np; ++pi) {
      const PassGridT<int> pg = pass_grid<int>(lt.pass[l - 1][pi], s, bx.w);
      const int total = pg.cnt[0] * pg.cnt[1] * pg.cnt[2];
      const float inv2 = 1.0f / float(pg.cnt[2] > 0 ? pg.cnt[2] : 1), inv1 = 1.0f / float(pg.cnt[1] > 0 ? pg.cnt[1] : 1);
      const StencilT<int32_t>& gst = lt.st[l - 1][pi];
      with_stencil_shape(gst, [&]<int K, int SPLINE, bool CROSS>() {
        const StencilT<int32_t> st = gst;
        for (int t = lane; t < total; t += G) {
          const int r = small_div(t, inv2), ix = t - r * pg.cnt[2];
          const int rz = small_div(r, inv1), ry = r - rz * pg.cnt[1];
          const int c[3] = {pg.start[0] + rz * pg.step[0], pg.start[1] + ry * pg.step[1], pg.start[2] + ix * pg.step[2]};
          const int off = c[0] * kBoxPlane + c[1] * kBox + c[2];
          const T pred = predict_box<T, K, CROSS, int32_t>(v, off, c, bx.w, s, st);
          point(lv, c, off, pred, base + t);
        }
      });
      base += total;
      group_sync<G>();
    }
  }
}

template <class T, int G, class Point>
__device__ void run_block_levels(const T* v, const Layout& L, const LevelTable<T>& lt, const BoxGeom& g,
                                 const Box32& bx, int lane, Point&& point) {
  run_levels<T, G>(v, lt, bx, lane, kBlockLevels, 1, [&](int l) { return block_level<T>(L, lt, g, bx, l); },
                   [&](const BlockLevel<T>& lv, const int* c, int off, T pred, int) { point(lv, c, off, pred); });
}

template <class T, int G>
__global__ void __launch_bounds__(cta_threads(G), min_ctas(G)) block_encode_kernel(const T* x, const T* A, AnchorGridDev a, const Layout* Lp,
                                                                const LevelTable<T>* ltp, double ebc, uint8_t* codes,
                                                                Sinks<T> sk, uint64_t first, uint64_t nblocks,
                                                                int box_vol) {
  const Layout& L = *Lp;
  const LevelTable<T>& lt = *ltp;
  extern __shared__ __align__(16) unsigned char smem[];
  const GroupOf me = group_of<G>(first);
  if (me.block >= nblocks) return;  // only whole idle groups (G < kThreads) get here
  T* v = reinterpret_cast<T*>(smem) + me.group * box_vol;
  const BoxGeom g = box_geom(L, me.block);
  const Box32 bx = box32(g);
  load_box<T, G>(v, x, A, a, L, g, bx, me.lane);
  group_sync<G>();
  run_block_levels<T, G>(v, L, lt, g, bx, me.lane, [&](const BlockLevel<T>& lv, const int* c, int off, T pred) {
    const T xv = v[off];
    int32_t big = 0;
    const uint8_t code = quantize<T>(xv, pred, lv.q, ebc, v[off], big);
    if (is_owned(bx, c)) {  // owned: the code is this block's
      const uint64_t pos = owned_code(lv, c);
      codes[pos] = code;
      if (code == kOutlierCode || code == kExactCode)
        note(sk, code, field_index(L, g.o[0] + c[0], g.o[1] + c[1], g.o[2] + c[2]), xv, pos, big);
    }
  });
}

// ---- decoder ----

// Bytes equal to b among the 16 of w.
__device__ inline unsigned count_bytes(uint4 w, unsigned b) {
  const unsigned r = b * 0x01010101u;
  return (__popc(__vcmpeq4(w.x, r)) + __popc(__vcmpeq4(w.y, r)) + __popc(__vcmpeq4(w.z, r)) +
          __popc(__vcmpeq4(w.w, r))) >> 3;
}

// Outlier codes per run of 256 codes (for OutlierRanks on the device). A warp counts two runs
// at once, each lane 16 codes by one 16-byte load (bytes past n count nothing).
__global__ void count_outliers_kernel(const uint8_t* codes, uint64_t n, uint64_t* per256) {
  const uint64_t chunks = (n + 255) / 256;
  const int lane = threadIdx.x & 31;
  const uint64_t warp = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const uint64_t warps = (uint64_t(gridDim.x) * blockDim.x) >> 5;
  const bool aligned = (reinterpret_cast<uintptr_t>(codes) & 15) == 0;
  for (uint64_t c0 = warp * 2; c0 < chunks; c0 += warps * 2) {
    const uint64_t at = c0 * 256 + uint64_t(lane) * 16;
    unsigned k = 0;
    if (aligned && at + 16 <= n) {
      k = count_bytes(*reinterpret_cast<const uint4*>(codes + at), kOutlierCode);
    } else {
      for (uint64_t i = at; i < at + 16 && i < n; ++i) k += codes[i] == kOutlierCode;
    }
    for (int o = 8; o; o >>= 1) k += __shfl_xor_sync(~0u, k, o);  // within each half warp
    const uint64_t c = c0 + uint64_t(lane >> 4);
    if ((lane & 15) == 0 && c < chunks) per256[c] = k;
  }
}

struct Ranks {
  const uint8_t* codes;
  const uint64_t* before;  // exclusive sums of count_outliers_kernel's counts
  const int32_t* q;        // the outliers, in code order
  __device__ int32_t residual(uint64_t pos) const {
    const uint8_t c = codes[pos];
    if (c != kOutlierCode) return code_residual(c);
    uint64_t r = before[pos >> 8];
    for (uint64_t i = pos & ~uint64_t{255}; i < pos; ++i) r += codes[i] == kOutlierCode;
    return q[r];
  }
};

template <class T>
__global__ void root_decode_kernel(T* A, const T* out, const Layout* Lp, LevelQuant<T> q, Ranks rk,
                                   const DeviceStatus* st) {
  const Layout& L = *Lp;
  if (st && failed(st)) return;
  const uint64_t pos = L.base[L.levels];
  A[0] = rk.codes[pos] == kExactCode ? out[0] : reconstruct<T>(rk.residual(pos), T(0), q);
}

template <class T>
__global__ void anchor_pass_decode_kernel(T* A, const T* out, AnchorGridDev a, PassGrid g, Stencil st, int l,
                                          LevelQuant<T> q, const Layout* Lp, Ranks rk,
                                          const DeviceStatus* status) {
  const Layout& L = *Lp;
  if (status && failed(status)) return;
  const int64_t s = int64_t{1} << (l - 1 - kBlockLevels);
  const int64_t total = g.points();
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += int64_t(gridDim.x) * blockDim.x) {
    int64_t c[3];
    pass_point(g, t, c);
    const int64_t off = c[0] * a.pitch[0] + c[1] * a.pitch[1] + c[2];
    const uint64_t pos = anchor_pos(L, l, a, c);
    if (rk.codes[pos] == kExactCode)
      A[off] = out[field_index(L, c[0] * kAnchorStride, c[1] * kAnchorStride, c[2] * kAnchorStride)];
    else
      A[off] = reconstruct<T>(rk.residual(pos), predict_any<T>(A, off, c, a.n, s, st), q);
  }
}

template <class T>
__global__ void anchors_out_kernel(const T* A, const Layout* Lp, AnchorGridDev a, T* out,
                                   const DeviceStatus* st) {
  const Layout& L = *Lp;
  if (st && failed(st)) return;
  const uint64_t count = uint64_t(a.n[0] * a.n[1] * a.n[2]);
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t xx = i % a.n[2], y = (i / a.n[2]) % a.n[1], z = i / (a.n[1] * a.n[2]);
    out[field_index(L, z * kAnchorStride, y * kAnchorStride, xx * kAnchorStride)] = A[i];
  }
}

// Far-face codes of a 3-D box. A point on the far face of the axes in F (bit k set where c[k]
// = own[k]) is the point of neighbour block b + F at local coordinate 0 on those axes, in the
// same level (its other coordinates are not all multiples of 16): its code is that block's
// first code of the level plus level_rank over that block's level grid. Per level and F, the
// table holds the first code and the grid's y and x extents (level_rank reads no other), so a
// point costs a level_rank instead of code_index's walk from field coordinates.
struct FaceTable {
  uint64_t start[kBlockLevels][8];
  uint32_t my[kBlockLevels][8], mx[kBlockLevels][8];
};

template <int G>
__device__ void fill_face_table(FaceTable& ft, const Layout& L, const BoxGeom& g, int lane) {
  for (int j = lane; j < kBlockLevels * 8; j += G) {
    const int l = j / 8 + 1, F = j % 8;
    bool exists = F != 0;
    uint64_t nb[3];
    for (int k = 0; k < 3; ++k) {
      const bool far = F >> k & 1;
      exists = exists && (!far || g.own[k] < g.w[k]);
      nb[k] = g.b[k] + (far ? 1 : 0);
    }
    if (!exists) continue;
    const int sh = l - 1;
    const uint64_t s = uint64_t{1} << sh;
    ft.start[l - 1][F] = block_level_start(L, l, nb);
    ft.my[l - 1][F] = uint32_t((owned(L, 1, nb[1]) + s - 1) >> sh);
    ft.mx[l - 1][F] = uint32_t((owned(L, 2, nb[2]) + s - 1) >> sh);
  }
}

__device__ inline uint64_t far_face_code(const FaceTable& ft, const Box32& bx, int shift, const int c[3]) {
  const int F = int(c[0] >= bx.own[0]) | int(c[1] >= bx.own[1]) << 1 | int(c[2] >= bx.own[2]) << 2;
  const uint32_t m[3] = {0u, ft.my[shift][F], ft.mx[shift][F]};
  const uint32_t i[3] = {F & 1 ? 0u : uint32_t(c[0]) >> shift, F & 2 ? 0u : uint32_t(c[1]) >> shift,
                         F & 4 ? 0u : uint32_t(c[2]) >> shift};
  return ft.start[shift][F] + level_rank<uint32_t>(m, i);
}

template <class T, int G>
__global__ void __launch_bounds__(cta_threads(G), min_ctas(G)) block_decode_kernel(const T* A, AnchorGridDev a, const Layout* Lp, const LevelTable<T>* ltp,
                                                                Ranks rk, T* out, uint64_t first, uint64_t nblocks,
                                                                int box_vol, const DeviceStatus* st) {
  const Layout& L = *Lp;
  if (st && failed(st)) return;
  const LevelTable<T>& lt = *ltp;
  extern __shared__ __align__(16) unsigned char smem[];
  const GroupOf me = group_of<G>(first);
  if (me.block >= nblocks) return;
  T* v = reinterpret_cast<T*>(smem) + me.group * box_vol;
  // The box's exactly stored points: they stay as every reader found them in out.
  uint32_t* exact = reinterpret_cast<uint32_t*>(smem + size_t(cta_threads(G) / G) * box_vol * sizeof(T)) +
                    me.group * mask_words(box_vol);
  for (int i = me.lane; i < mask_words(box_vol); i += G) exact[i] = 0;
  const BoxGeom g = box_geom(L, me.block);
  const Box32 bx = box32(g);
  load_anchors<T, G>(v, A, a, g, bx, me.lane);
  FaceTable* ft = nullptr;
  if constexpr (G >= 64) {
    __shared__ FaceTable s_face;
    ft = &s_face;
    fill_face_table<G>(s_face, L, g, me.lane);
  }
  const uint64_t plane = L.n[1] * L.n[2], row = L.n[2];
  T* ob = out + field_index(L, g.o[0], g.o[1], g.o[2]);
  group_sync<G>();
  run_block_levels<T, G>(v, L, lt, g, bx, me.lane, [&](const BlockLevel<T>& lv, const int* c, int off, T pred) {
    const bool own = is_owned(bx, c);
    uint64_t pos;
    if (own) {
      pos = owned_code(lv, c);
    } else if constexpr (G >= 64) {  // a far-face point: its code is the neighbour's
      pos = far_face_code(*ft, bx, lv.shift, c);
    } else {
      const uint64_t gc[3] = {g.o[0] + c[0], g.o[1] + c[1], g.o[2] + c[2]};
      pos = code_index(L, gc);
    }
    const uint8_t code = rk.codes[pos];
    if (code == kExactCode) {  // scattered before any block ran; no block writes it
      v[off] = ob[uint64_t(c[0]) * plane + uint64_t(c[1]) * row + uint64_t(c[2])];
      atomicOr(&exact[off >> 5], 1u << (off & 31));
    } else {
      v[off] = reconstruct<T>(code == kOutlierCode ? rk.residual(pos) : code_residual(code), pred, lv.q);
    }
  });
  // The owned points leave once, row by row after the last pass (the passes visit them at
  // strides of 2s, which scattered 4- or 8-byte stores over every sector many times), but for
  // the block's anchor (its local origin) and exactly stored points, which other blocks read
  // from out meanwhile: as the CPU twin writes them.
  const int ox = bx.own[2], oy = bx.own[1], count = bx.own[0] * oy * ox;
  const float inv_x = 1.0f / float(ox), inv_y = 1.0f / float(oy);
  for (int i = me.lane; i < count; i += G) {
    const int r = small_div(i, inv_x), x = i - r * ox, z = small_div(r, inv_y), y = r - z * oy;
    const int off = z * kBoxPlane + y * kBox + x;
    if (i == 0 || (exact[off >> 5] >> (off & 31) & 1u)) continue;
    ob[uint64_t(z) * plane + uint64_t(y) * row + uint64_t(x)] = v[off];
  }
}

// The checks of check_sparse on the device: as many exact codes as exact values, as many
// outlier codes as outliers, and every exact value on a point of code kExactCode.
__global__ void count_special_kernel(const uint8_t* codes, uint64_t n, unsigned long long* counts) {
  unsigned long long z = 0, o = 0;
  const uint64_t tid = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x, nt = uint64_t(gridDim.x) * blockDim.x;
  const bool aligned = (reinterpret_cast<uintptr_t>(codes) & 15) == 0;
  const uint64_t words = aligned ? n / 16 : 0;  // 16 codes a load; the rest one by one
  for (uint64_t i = tid; i < words; i += nt) {
    const uint4 w = reinterpret_cast<const uint4*>(codes)[i];
    z += count_bytes(w, kExactCode), o += count_bytes(w, kOutlierCode);
  }
  for (uint64_t i = words * 16 + tid; i < n; i += nt) z += codes[i] == kExactCode, o += codes[i] == kOutlierCode;
  for (int d = 16; d; d >>= 1) z += __shfl_xor_sync(~0u, z, d), o += __shfl_xor_sync(~0u, o, d);
  if ((threadIdx.x & 31) == 0) {
    if (z) atomicAdd(&counts[0], z);
    if (o) atomicAdd(&counts[1], o);
  }
}

__global__ void exact_on_exact_codes_kernel(const uint8_t* codes, const Layout* Lp, const uint64_t* idx, uint64_t count,
                                            unsigned long long* bad) {
  const Layout& L = *Lp;
  for (uint64_t k = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t i = idx[k];
    const uint64_t c[3] = {i / (L.n[1] * L.n[2]), (i / L.n[2]) % L.n[1], i % L.n[2]};
    if (i >= L.total || codes[code_index(L, c)] != kExactCode) atomicAdd(bad, 1ull);
  }
}

template <class T>
__global__ void scatter_exact_kernel(const uint64_t* idx, const T* val, uint64_t count, T* out) {
  for (uint64_t k = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += uint64_t(gridDim.x) * blockDim.x)
    out[idx[k]] = val[k];
}

int effective_ndim(const Layout& L) { return L.n[0] > 1 ? 3 : L.n[1] > 1 ? 2 : 1; }

// Launches kernel<T, G> over every block, G by the extent's dimensionality, in grids of at most
// 2^30 CTAs; each group's box takes 17^ndim values of shared memory.
template <class T, class Launch>
void launch_blocks(const Layout& L, cudaStream_t s, Launch&& launch) {
  const int nd = effective_ndim(L);
  const int box_vol = nd == 3 ? kBoxVolume : nd == 2 ? kBoxPlane : kBox;
  const int groups = nd == 3 ? 1 : nd == 2 ? kThreads / 32 : kThreads;
  // Each group's box, then each group's bitmask of exactly stored points (the decoder's).
  const size_t smem = size_t(groups) * (box_vol * sizeof(T) + size_t(mask_words(box_vol)) * 4);
  const uint64_t nblocks = L.g[0] * L.g[1] * L.g[2];
  const uint64_t per_grid = uint64_t{1} << 30;
  for (uint64_t first = 0; first < nblocks; first += per_grid * groups) {
    const uint64_t ctas = std::min<uint64_t>(per_grid, (nblocks - first + groups - 1) / groups);
    if (nd == 3) launch(std::integral_constant<int, kBoxThreads>{}, unsigned(ctas), smem, first, nblocks, box_vol);
    else if (nd == 2) launch(std::integral_constant<int, 32>{}, unsigned(ctas), smem, first, nblocks, box_vol);
    else launch(std::integral_constant<int, 1>{}, unsigned(ctas), smem, first, nblocks, box_vol);
  }
}

template <class K>
void allow_smem(K kernel, size_t bytes) {
  SCIZ_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

// Structs read with a dynamic index (level tables, the layout's bases) live in device memory:
// as kernel parameters, a dynamic index would copy them to every thread's local memory.
template <class V>
dev::Buffer<V> on_device(const V& v, cudaStream_t s) {
  dev::Buffer<V> b(1, s);
  dev::copy_to_device(b.get(), &v, sizeof(V), s);
  return b;
}

template <class T>
void upload(dev::Buffer<T>& b, const std::vector<T>& v, cudaStream_t s) {
  b = dev::Buffer<T>(v.size(), s);
  if (!v.empty()) dev::copy_to_device(b.get(), v.data(), v.size() * sizeof(T), s);
}

// ---- the tuner's block-level search (tune_block_levels of interp_tune_cpu.cpp) ----

// Threads of a tuning CTA (one sampled box each). A tuning launch holds a few dozen to a few
// hundred boxes, far fewer than the GPU's SMs can run, and each tuning round trip waits for its
// slowest box: more threads a box shorten that wait where the block kernels want many boxes.
constexpr int kTuneThreads = 256;

// One (sample, configuration) pair per CTA: block level l of the sample's box from its state,
// as run_sample_level runs it on the host: the state it leaves, every visited point's code at
// its visit position, the summed error cost and the outliers' LEB128 bytes (integers: any
// order of summation gives the host's sums).
template <class T>
__global__ void __launch_bounds__(kTuneThreads, 2) tune_level_kernel(const T* states, const Box32* boxes,
                                                                 const uint32_t* pair_sample, const uint8_t* pair_table,
                                                                 const LevelTable<T>* tables, int l, double ebc,
                                                                 T* out_states, uint8_t* out_codes,
                                                                 unsigned long long* out_cost,
                                                                 unsigned long long* out_obytes) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* v = reinterpret_cast<T*>(smem);
  __shared__ unsigned long long sums[2];
  const uint64_t pair = blockIdx.x;
  const uint64_t k = pair_sample[pair];
  const Box32 bx = boxes[k];
  const LevelTable<T>& lt = tables[pair_table[pair]];
  for (int i = threadIdx.x; i < kBoxVolume; i += kTuneThreads) v[i] = states[k * kBoxVolume + i];
  if (threadIdx.x < 2) sums[threadIdx.x] = 0;
  __syncthreads();
  unsigned long long cost = 0, ob = 0;
  uint8_t* codes = out_codes + pair * kBoxVolume;
  run_levels<T, kTuneThreads>(v, lt, bx, threadIdx.x, l, l, [&](int ll) { return lt.q[ll - 1]; },
                             [&](const LevelQuant<T>& q, const int*, int off, T pred, int visit) {
                               const T xv = v[off];
                               int32_t big = 0;
                               const uint8_t code = quantize<T>(xv, pred, q, ebc, v[off], big);
                               cost += err_cost(xv, pred, q);
                               codes[visit] = code;
                               if (code == kOutlierCode) ob += leb128_bytes(outlier_word(big));
                             });
  atomicAdd(&sums[0], cost);
  atomicAdd(&sums[1], ob);
  __syncthreads();
  if (threadIdx.x == 0) out_cost[pair] = sums[0], out_obytes[pair] = sums[1];
  for (int i = threadIdx.x; i < kBoxVolume; i += kTuneThreads) out_states[pair * kBoxVolume + i] = v[i];
}

// The sampled boxes on the GPU and their level runs: one launch runs one block level for a
// list of (sample, level table) pairs from the samples' current states.
template <class T>
class GpuSamples {
 public:
  struct Run {  // one launch's pairs (table-major) and what they left
    std::vector<uint32_t> sample;
    std::vector<uint8_t> table;
    dev::Buffer<T> states;
    dev::Buffer<uint8_t> codes;
    dev::Buffer<unsigned long long> cost, obytes;
  };

  // states[k]: box k's state (kBoxVolume values), box k being sample k % smp.size() (several
  // copies of the samples, for as many sets of bounds); tables: the level tables pairs refer to.
  // The upload is timed as the SCIZ_TRACE phase `phase`.
  GpuSamples(const std::vector<TuneSample<T>>& smp, const std::vector<const std::vector<T>*>& states,
             const std::vector<LevelTable<T>>& tables, double ebc, cudaStream_t s, const char* phase)
      : smp_(smp), boxes_n_(states.size()), ebc_(ebc), s_(s) {
    TracePhase t(phase, true, s);
    all_finite_.resize(smp.size());
    for (size_t k = 0; k < smp.size(); ++k)
      all_finite_[k] = std::all_of(smp[k].x.begin(), smp[k].x.end(), [](T v) { return finite(v); });
    const size_t n = states.size();
    std::vector<Box32> boxes(n);
    std::vector<T> all(n * kBoxVolume);
    for (size_t k = 0; k < n; ++k) {
      const BoxGeom& g = smp[k % smp.size()].g;
      boxes[k] = {{int(g.w[0]), int(g.w[1]), int(g.w[2])}, {int(g.own[0]), int(g.own[1]), int(g.own[2])}};
      std::copy(states[k]->begin(), states[k]->begin() + kBoxVolume, all.begin() + k * kBoxVolume);
    }
    upload(boxes_, boxes, s);
    upload(states_, all, s);
    upload(tables_, tables, s);
    allow_smem(tune_level_kernel<T>, kBoxVolume * sizeof(T));
  }

  Run launch(int l, const std::vector<uint32_t>& samples, const std::vector<uint8_t>& tabs) const {
    Run r;
    for (uint8_t t : tabs)
      for (uint32_t k : samples) r.sample.push_back(k), r.table.push_back(t);
    return launch_pairs(l, std::move(r));
  }

  // Level l on each pair of r.sample and r.table.
  Run launch_pairs(int l, Run r) const {
    const size_t pairs = r.sample.size();
    dev::Buffer<uint32_t> d_sample;
    dev::Buffer<uint8_t> d_table;
    upload(d_sample, r.sample, s_);
    upload(d_table, r.table, s_);
    r.states = dev::Buffer<T>(pairs * kBoxVolume, s_);
    r.codes = dev::Buffer<uint8_t>(pairs * kBoxVolume, s_);
    r.cost = dev::Buffer<unsigned long long>(pairs, s_);
    r.obytes = dev::Buffer<unsigned long long>(pairs, s_);
    if (pairs) {
      tune_level_kernel<T><<<unsigned(pairs), kTuneThreads, kBoxVolume * sizeof(T), s_>>>(
          states_.get(), boxes_.get(), d_sample.get(), d_table.get(), tables_.get(), l, ebc_, r.states.get(),
          r.codes.get(), r.cost.get(), r.obytes.get());
      SCIZ_CUDA_CHECK_LAUNCH("interp tune_level_kernel");
    }
    return r;
  }

  // Level l on every box, box k with table table_of[k]; the boxes' states become what it left.
  // The run keeps its codes and outlier bytes on the device.
  Run step(int l, const std::vector<uint8_t>& table_of) {
    Run r;
    r.table = table_of;
    for (size_t k = 0; k < boxes_n_; ++k) r.sample.push_back(static_cast<uint32_t>(k));
    Run fin = launch_pairs(l, std::move(r));
    states_ = std::move(fin.states);
    return fin;
  }

  // A run's codes and outlier bytes, queued for the host (valid after the stream's next sync).
  struct Downloaded {
    std::vector<uint8_t> codes;
    std::vector<unsigned long long> obytes;
  };
  Downloaded download(const Run& r) const { return download(r, 0, r.sample.size()); }
  // Pairs [first, first + count) of a run.
  Downloaded download(const Run& r, size_t first, size_t count) const {
    Downloaded d;
    d.codes.resize(count * kBoxVolume);
    d.obytes.resize(count);
    dev::copy_to_host(d.codes.data(), r.codes.get() + first * kBoxVolume, d.codes.size(), s_);
    dev::copy_to_host(d.obytes.data(), r.obytes.get() + first, count * sizeof(unsigned long long), s_);
    return d;
  }

  // The boxes' states become what pairs [first, first + boxes) of a run left (queued).
  void adopt(const Run& r, size_t first) {
    dev::Buffer<T> next(boxes_n_ * kBoxVolume, s_);
    dev::copy_on_device(next.get(), r.states.get() + first * kBoxVolume, boxes_n_ * kBoxVolume * sizeof(T), s_);
    states_ = std::move(next);
  }

  // What level l (its passes: `scheme`) left in boxes [first, first + count) of a downloaded
  // run: the codes of finite points in visit order. A box without a non-finite value (the
  // common case) keeps all its visits' codes, one copy; the others are walked point by point.
  std::vector<TuneLevelCodes> level_codes(const Downloaded& d, int l, uint8_t scheme, size_t first, size_t count) const {
    Pass passes[7];
    const int np = level_passes(scheme, passes);
    const int64_t st = int64_t{1} << (l - 1);
    std::vector<TuneLevelCodes> out(count);
    for (size_t j = 0; j < count; ++j) {
      const size_t k = first + j;
      const size_t sk = k % smp_.size();
      const TuneSample<T>& sm = smp_[sk];
      out[j].outlier_bytes = d.obytes[k];
      const uint8_t* ck = d.codes.data() + k * kBoxVolume;
      if (all_finite_[sk]) {
        int64_t visits = 0;
        for (int pi = 0; pi < np; ++pi) visits += pass_grid(passes[pi], st, sm.g.w).points();
        out[j].codes.assign(ck, ck + visits);
        continue;
      }
      int64_t visit = 0;
      for (int pi = 0; pi < np; ++pi) {
        const PassGrid pg = pass_grid(passes[pi], st, sm.g.w);
        for (int64_t z = 0; z < pg.cnt[0]; ++z)
          for (int64_t y = 0; y < pg.cnt[1]; ++y)
            for (int64_t x = 0; x < pg.cnt[2]; ++x, ++visit) {
              const int64_t off = (pg.start[0] + z * pg.step[0]) * kBoxPlane + (pg.start[1] + y * pg.step[1]) * kBox +
                                  pg.start[2] + x * pg.step[2];
              if (finite(sm.x[off])) out[j].codes.push_back(ck[visit]);
            }
      }
    }
    return out;
  }

  // The samples' states, back on the host.
  void states_to(std::vector<TuneSample<T>>& smp) const {
    std::vector<T> all(smp.size() * kBoxVolume);
    dev::copy_to_host(all.data(), states_.get(), all.size() * sizeof(T), s_);
    dev::sync(s_);
    for (size_t k = 0; k < smp.size(); ++k)
      std::copy(all.begin() + k * kBoxVolume, all.begin() + (k + 1) * kBoxVolume, smp[k].v.begin());
  }

 private:
  const std::vector<TuneSample<T>>& smp_;
  std::vector<char> all_finite_;  // per sample: its box holds no NaN or Inf (zeros past its extent)
  size_t boxes_n_;  // boxes on the device: copies of the samples
  double ebc_;
  cudaStream_t s_;
  dev::Buffer<Box32> boxes_;
  dev::Buffer<T> states_;
  dev::Buffer<LevelTable<T>> tables_;
};

// A level table whose every block level has configuration cfg[l - 1] and bound ebs[l - 1].
template <class T>
LevelTable<T> block_table(const std::vector<LevelConfig>& cfg, const std::vector<double>& ebs) {
  Choice ch;
  ch.config.assign(cfg.begin(), cfg.begin() + kBlockLevels);
  ch.eb.assign(ebs.begin(), ebs.begin() + kBlockLevels);
  return level_table<T>(ch);
}

// The same search as tune_block_levels, its level runs on the GPU, one round trip a level:
// every candidate runs on every sample in one launch; the costs come back and the host makes
// the host's two-step choice from them (the candidates of the first spline, then the other
// spline with the best scheme, the first least total winning, summed over the compared samples
// only: every other one at level 1); the chosen candidate's runs then become the samples'
// states on the device, and its codes come back behind the next level's launch. Running the
// candidates the host skips (the other spline of the losing schemes, the uncompared samples)
// costs idle SMs, not time: the round trips were the search's time.
template <class T>
void tune_block_levels_cuda(std::vector<TuneSample<T>>& smp, const std::vector<LevelConfig>& cand,
                            const std::vector<double>& ebs, double ebc, std::vector<LevelConfig>& config,
                            TuneSampleCodes& codes, cudaStream_t s) {
  const size_t n = smp.size(), nc = cand.size();
  codes.assign(kBlockLevels, std::vector<TuneLevelCodes>(n));
  if (n == 0) {
    for (int l = 1; l <= kBlockLevels; ++l) config[l - 1] = cand[0];
    return;
  }
  std::vector<LevelTable<T>> tables(nc);
  for (size_t c = 0; c < nc; ++c) tables[c] = block_table<T>(std::vector<LevelConfig>(kBlockLevels, cand[c]), ebs);
  std::vector<const std::vector<T>*> states(n);
  for (size_t k = 0; k < n; ++k) states[k] = &smp[k].v;
  GpuSamples<T> gs(smp, states, tables, ebc, s, "interp tune: search upload");
  std::vector<uint32_t> all(n);
  for (size_t k = 0; k < n; ++k) all[k] = static_cast<uint32_t>(k);
  std::vector<uint8_t> every(nc);
  for (size_t c = 0; c < nc; ++c) every[c] = static_cast<uint8_t>(c);
  uint8_t first_spline = cand[0].spline;  // cubic when it is a candidate
  for (const LevelConfig& c : cand)
    if (c.spline == kCubic) first_spline = kCubic;
  // The level before: its launch (the chosen runs' codes still on the device) and its pick.
  typename GpuSamples<T>::Run before;
  uint8_t before_pick = 0;
  // Copied behind the current launch, so that its wait is the costs' (a pageable copy returns
  // once the stream's earlier work and the copy are done).
  auto before_codes = [&] { return gs.download(before, size_t(before_pick) * n, n); };
  for (int l = kBlockLevels; l >= 1; --l) {
    const size_t stride = compared_stride(l, n);
    auto run = gs.launch(l, all, every);  // pair c n + k: candidate c on sample k
    typename GpuSamples<T>::Downloaded got;
    if (l < kBlockLevels) got = before_codes();
    std::vector<unsigned long long> cost(nc * n);
    dev::copy_to_host(cost.data(), run.cost.get(), cost.size() * sizeof(unsigned long long), s);
    dev::sync(s);
    if (l < kBlockLevels) codes[l] = gs.level_codes(got, l + 1, config[l].scheme, 0, n);
    uint8_t pick = 0;
    if (nc > 1) {
      std::vector<uint64_t> total(nc, 0);
      for (size_t c = 0; c < nc; ++c)
        for (size_t k = 0; k < n; k += stride) total[c] += cost[c * n + k];
      uint64_t best = ~uint64_t{0};
      for (size_t c = 0; c < nc; ++c)
        if (cand[c].spline == first_spline && total[c] < best) best = total[c], pick = static_cast<uint8_t>(c);
      const uint8_t scheme = cand[pick].scheme;
      for (size_t c = 0; c < nc; ++c)
        if (cand[c].scheme == scheme && cand[c].spline != first_spline && total[c] < best)
          best = total[c], pick = static_cast<uint8_t>(c);
    }
    config[l - 1] = cand[pick];
    gs.adopt(run, size_t(pick) * n);
    before = std::move(run), before_pick = pick;
  }
  const auto got = before_codes();
  gs.states_to(smp);  // its synchronization brings level 1's codes too
  codes[0] = gs.level_codes(got, 1, config[0].scheme, 0, n);
}

// sample_bits' runs on the GPU for every set j of bounds: the samples from their anchor-error
// states (states[j]) through the block levels with configurations config under bounds
// ebs[j]; what each level left. The sets run side by side (set j's boxes follow set j - 1's,
// each with its own table), every level is queued before anything comes back, and one
// synchronization ends it all: the tightening's estimates were a round trip per level and set.
template <class T>
void sample_levels_cuda(const std::vector<TuneSample<T>>& smp, const std::vector<std::vector<std::vector<T>>>& states,
                        const std::vector<LevelConfig>& config, const std::vector<std::vector<double>>& ebs,
                        double ebc, std::vector<TuneSampleCodes>& codes, cudaStream_t s) {
  const size_t n = smp.size(), sets = ebs.size();
  codes.assign(sets, TuneSampleCodes(kBlockLevels, std::vector<TuneLevelCodes>(n)));
  if (n == 0 || sets == 0) return;
  std::vector<LevelTable<T>> tables;
  std::vector<const std::vector<T>*> boxes;
  std::vector<uint8_t> table_of;
  for (size_t j = 0; j < sets; ++j) {
    tables.push_back(block_table<T>(config, ebs[j]));
    for (size_t k = 0; k < n; ++k) boxes.push_back(&states[j][k]), table_of.push_back(static_cast<uint8_t>(j));
  }
  // Phases (SCIZ_TRACE) split the sizing runs' time between the boxes' upload, the device's
  // levels with the copies back, and the host's walk over the codes.
  GpuSamples<T> gs(smp, boxes, tables, ebc, s, "interp tune: sizing upload");
  std::vector<typename GpuSamples<T>::Downloaded> got;
  {
    TracePhase t("interp tune: sizing levels + copies", true, s);
    std::vector<typename GpuSamples<T>::Run> runs;
    for (int l = kBlockLevels; l >= 1; --l) runs.push_back(gs.step(l, table_of));
    for (const auto& r : runs) got.push_back(gs.download(r));
    dev::sync(s);
  }
  TracePhase t("interp tune: sizing codes walk");
  for (int l = kBlockLevels; l >= 1; --l)
    for (size_t j = 0; j < sets; ++j)
      codes[j][l - 1] = gs.level_codes(got[size_t(kBlockLevels - l)], l, config[l - 1].scheme, j * n, n);
}

}  // namespace

template <class T>
TuneInput<T> gather_cuda(const T* d_x, const Layout& L, cudaStream_t s) {
  TuneInput<T> in;
  in.blocks = sample_blocks(L);
  anchor_window(L, in.window);
  const uint64_t na = static_cast<uint64_t>(in.window[0] * in.window[1] * in.window[2]);
  dev::Buffer<uint64_t> d_blocks;
  upload(d_blocks, in.blocks, s);
  const dev::Buffer<Layout> dL = on_device(L, s);
  dev::Buffer<T> d_boxes(in.blocks.size() * kBoxVolume, s), d_anchors(na, s);
  gather_boxes_kernel<T><<<static_cast<unsigned>(in.blocks.size()), kThreads, 0, s>>>(d_x, dL.get(), d_blocks.get(), d_boxes.get());
  SCIZ_CUDA_CHECK_LAUNCH("interp gather_boxes_kernel");
  gather_anchors_kernel<T><<<grid_for(na), kThreads, 0, s>>>(d_x, dL.get(), in.window[1], in.window[2], na, d_anchors.get());
  SCIZ_CUDA_CHECK_LAUNCH("interp gather_anchors_kernel");
  in.boxes.resize(in.blocks.size() * kBoxVolume);
  in.anchors.resize(na);
  dev::copy_to_host(in.boxes.data(), d_boxes.get(), in.boxes.size() * sizeof(T), s);
  dev::copy_to_host(in.anchors.data(), d_anchors.get(), na * sizeof(T), s);
  dev::sync(s);
  in.block_search = [s](std::vector<TuneSample<T>>& smp, const std::vector<LevelConfig>& cand,
                        const std::vector<double>& ebs, double ebc, std::vector<LevelConfig>& config,
                        TuneSampleCodes& codes) { tune_block_levels_cuda<T>(smp, cand, ebs, ebc, config, codes, s); };
  in.sample_levels = [s](const std::vector<TuneSample<T>>& smp, const std::vector<std::vector<std::vector<T>>>& states,
                         const std::vector<LevelConfig>& config, const std::vector<std::vector<double>>& ebs,
                         double ebc, std::vector<TuneSampleCodes>& codes) {
    sample_levels_cuda<T>(smp, states, config, ebs, ebc, codes, s);
  };
  return in;
}

namespace {

// What the encoding kernels leave on the device: the codes (the caller's buffer), and the
// outliers and exact values in the order the atomics gave them.
template <class T>
struct Lists {
  dev::Buffer<uint64_t> out_pos, ex_idx;
  dev::Buffer<int32_t> out_q;
  dev::Buffer<T> ex_val;
  uint64_t outliers = 0, exact = 0;
};

template <class T>
Lists<T> encode_lists(const T* d_x, const Layout& L, const Choice& ch, double eb, uint8_t* d_codes, cudaStream_t s) {
  const double ebc = eb_check<T>(eb);
  const LevelTable<T> lt = level_table<T>(ch);
  const AnchorGridDev a = anchor_grid_dev(L);
  const uint64_t na = static_cast<uint64_t>(a.n[0] * a.n[1] * a.n[2]);
  const dev::Buffer<Layout> dL = on_device(L, s);
  const dev::Buffer<LevelTable<T>> dlt = on_device(lt, s);
  // Outliers and exact values are rare; a first capacity that proves too small is raised to the
  // count found and the field encoded again (the same field gives the same count).
  uint64_t cap = L.total / 64 + 1024;
  for (int attempt = 0; attempt < 2; ++attempt) {
    Lists<T> out;
    out.out_pos = dev::Buffer<uint64_t>(cap, s);
    out.ex_idx = dev::Buffer<uint64_t>(cap, s);
    out.out_q = dev::Buffer<int32_t>(cap, s);
    out.ex_val = dev::Buffer<T>(cap, s);
    dev::Buffer<T> A(na, s);
    dev::Buffer<unsigned long long> count(2, s);
    dev::zero(count.get(), 2 * sizeof(unsigned long long), s);
    const Sinks<T> sk{count.get(), out.out_pos.get(), out.out_q.get(), out.ex_idx.get(), out.ex_val.get(), cap};
    gather_anchors_kernel<T><<<grid_for(na), kThreads, 0, s>>>(d_x, dL.get(), a.n[1], a.n[2], na, A.get());
    SCIZ_CUDA_CHECK_LAUNCH("interp gather_anchors_kernel");
    root_encode_kernel<T><<<1, 1, 0, s>>>(A.get(), dL.get(), lt.q[L.levels - 1], ebc, d_codes, sk);
    SCIZ_CUDA_CHECK_LAUNCH("interp root_encode_kernel");
    for (int l = L.levels - 1; l > kBlockLevels; --l) {
      const int64_t st_s = int64_t{1} << (l - 1 - kBlockLevels);
      Pass passes[7];
      const int np = level_passes(lt.cfg[l - 1].scheme, passes);
      for (int pi = 0; pi < np; ++pi) {
        const PassGrid pg = pass_grid(passes[pi], st_s, a.n);
        if (pg.points() == 0) continue;
        const Stencil st = make_stencil(passes[pi].pred, st_s, a.pitch, lt.cfg[l - 1].spline, lt.cfg[l - 1].scheme == kCross);
        anchor_pass_encode_kernel<T><<<grid_for(pg.points()), kThreads, 0, s>>>(A.get(), a, pg, st, l, lt.q[l - 1], ebc,
                                                                                dL.get(), d_codes, sk);
        SCIZ_CUDA_CHECK_LAUNCH("interp anchor_pass_encode_kernel");
      }
    }
    launch_blocks<T>(L, s, [&](auto g, unsigned ctas, size_t smem, uint64_t first, uint64_t nb, int box_vol) {
      constexpr int G = decltype(g)::value;
      allow_smem(block_encode_kernel<T, G>, smem);
      block_encode_kernel<T, G><<<ctas, cta_threads(G), smem, s>>>(d_x, A.get(), a, dL.get(), dlt.get(), ebc, d_codes, sk, first, nb,
                                                             box_vol);
      SCIZ_CUDA_CHECK_LAUNCH("interp block_encode_kernel");
    });
    unsigned long long got[2];
    dev::copy_to_host(got, count.get(), sizeof got, s);
    dev::sync(s);
    if (got[0] > cap || got[1] > cap) {
      cap = std::max<uint64_t>(got[0], got[1]);
      continue;
    }
    out.outliers = got[0];
    out.exact = got[1];
    return out;
  }
  fail(Status::internal, "interp: outlier and exact counts changed between two encodes of the same field");
}

int bits_for(uint64_t n) {
  int b = 1;
  while (b < 64 && (uint64_t{1} << b) < n) ++b;
  return b;
}

// Pairs (key, value) in key order on the device (keys < 2^end_bit, all distinct: code positions
// or field indices), as the CPU twin orders them. A host sort of the ~10^5 outliers of a 128 MiB
// chunk took milliseconds of the call; the radix sort takes microseconds.
template <class V>
void sort_pairs(const uint64_t* keys, const V* vals, uint64_t count, int end_bit, dev::Buffer<uint64_t>& keys_out,
                dev::Buffer<V>& vals_out, cudaStream_t s) {
  keys_out = dev::Buffer<uint64_t>(count, s);
  vals_out = dev::Buffer<V>(count, s);
  if (!count) return;
  size_t temp = 0;
  SCIZ_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp, keys, keys_out.get(), vals, vals_out.get(),
                                                   count, 0, end_bit, s));
  dev::Buffer<uint8_t> scratch(temp, s);
  SCIZ_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch.get(), temp, keys, keys_out.get(), vals, vals_out.get(),
                                                   count, 0, end_bit, s));
}

// The outliers in code order, on the host: sorted on the device, then their residuals brought
// over (one synchronization).
template <class T>
std::vector<int32_t> outliers_in_order(const Lists<T>& li, const Layout& L, cudaStream_t s) {
  std::vector<int32_t> out(li.outliers);
  if (!li.outliers) return out;
  dev::Buffer<uint64_t> pos;
  dev::Buffer<int32_t> q;
  sort_pairs<int32_t>(li.out_pos.get(), li.out_q.get(), li.outliers, bits_for(L.total), pos, q, s);
  dev::copy_to_host(out.data(), q.get(), li.outliers * 4, s);
  dev::sync(s);
  return out;
}

}  // namespace

template <class T>
void compress_cuda(const T* d_x, const Layout& L, const Choice& ch, double eb, uint8_t* d_codes, Sparse<T>& sp,
                   cudaStream_t s) {
  const Lists<T> li = encode_lists<T>(d_x, L, ch, eb, d_codes, s);
  sp.outliers = outliers_in_order(li, L, s);
  sp.exact_idx.resize(li.exact);
  sp.exact_val.resize(li.exact);
  if (li.exact) {
    dev::Buffer<uint64_t> idx;
    dev::Buffer<T> val;
    sort_pairs<T>(li.ex_idx.get(), li.ex_val.get(), li.exact, bits_for(L.total), idx, val, s);
    dev::copy_to_host(sp.exact_idx.data(), idx.get(), li.exact * 8, s);
    dev::copy_to_host(sp.exact_val.data(), val.get(), li.exact * sizeof(T), s);
    dev::sync(s);
  }
}

template <class T>
DeviceSparseOut compress_device(const T* d_x, const Layout& L, const Choice& ch, double eb, uint8_t* d_codes,
                                cudaStream_t s) {
  Lists<T> li = encode_lists<T>(d_x, L, ch, eb, d_codes, s);
  DeviceSparseOut out;
  // Outliers: a few bytes each, serialized on the host and sent back.
  const std::vector<uint8_t> ol = write_outliers(outliers_in_order(li, L, s));
  out.outliers = dev::Buffer<uint8_t>(ol.size(), s);
  dev::copy_to_device(out.outliers.get(), ol.data(), ol.size(), s);
  out.outliers_size = ol.size();
  // Exact values (a NaN land mask may make them many): sorted by index on the device, then
  // the runs writer of core/exact_runs_cuda.hpp.
  dev::Buffer<uint64_t> idx;
  dev::Buffer<T> val;
  sort_pairs<T>(li.ex_idx.get(), li.ex_val.get(), li.exact, bits_for(L.total), idx, val, s);
  runs::DeviceBlob ex = runs::write_device<T>(idx.get(), val.get(), li.exact, s);
  out.exact = std::move(ex.bytes);
  out.exact_size = ex.size;
  // No synchronization: the outliers' host bytes were staged by the copy (pageable memory), the
  // device temporaries are released in stream order.
  return out;
}

template <class T>
void decompress_cuda(const uint8_t* d_codes, const Sparse<T>& sp, const Layout& L, const Choice& ch, T* d_out,
                     cudaStream_t s) {
  const LevelTable<T> lt = level_table<T>(ch);
  const AnchorGridDev a = anchor_grid_dev(L);
  const uint64_t na = static_cast<uint64_t>(a.n[0] * a.n[1] * a.n[2]);
  const dev::Buffer<Layout> dL = on_device(L, s);
  const dev::Buffer<LevelTable<T>> dlt = on_device(lt, s);
  // check_sparse, on the device.
  dev::Buffer<unsigned long long> counts(3, s);
  dev::zero(counts.get(), 3 * sizeof(unsigned long long), s);
  dev::Buffer<uint64_t> ex_idx;
  dev::Buffer<T> ex_val;
  dev::Buffer<int32_t> outl;
  upload(ex_idx, sp.exact_idx, s);
  upload(ex_val, sp.exact_val, s);
  upload(outl, sp.outliers, s);
  count_special_kernel<<<grid_for(L.total / 16 + 1), kThreads, 0, s>>>(d_codes, L.total, counts.get());
  SCIZ_CUDA_CHECK_LAUNCH("interp count_special_kernel");
  if (!sp.exact_idx.empty()) {
    exact_on_exact_codes_kernel<<<grid_for(sp.exact_idx.size()), kThreads, 0, s>>>(d_codes, dL.get(), ex_idx.get(),
                                                                                  sp.exact_idx.size(), counts.get() + 2);
    SCIZ_CUDA_CHECK_LAUNCH("interp exact_on_exact_codes_kernel");
  }
  unsigned long long got[3];
  dev::copy_to_host(got, counts.get(), sizeof got, s);
  dev::sync(s);
  SCIZ_REQUIRE(got[0] == sp.exact_idx.size(), Status::corrupt_stream,
               "interp: " + std::to_string(got[0]) + " points are marked exact but the exact-values section holds " +
                   std::to_string(sp.exact_idx.size()));
  SCIZ_REQUIRE(got[1] == sp.outliers.size(), Status::corrupt_stream,
               "interp: " + std::to_string(got[1]) + " points are marked outliers but the outliers section holds " +
                   std::to_string(sp.outliers.size()));
  SCIZ_REQUIRE(got[2] == 0, Status::corrupt_stream,
               "interp: " + std::to_string(got[2]) + " exact values belong to points that have a quant code");
  // Outlier ranks: counts per 256 codes, then their exclusive sums.
  const uint64_t chunks = (L.total + 255) / 256;
  dev::Buffer<uint64_t> per(chunks, s);
  dev::Buffer<uint64_t> before(chunks + 1, s);
  count_outliers_kernel<<<grid_for(chunks * 16), kThreads, 0, s>>>(d_codes, L.total, per.get());
  SCIZ_CUDA_CHECK_LAUNCH("interp count_outliers_kernel");
  size_t temp = 0;
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp, per.get(), before.get(), chunks, s));
  dev::Buffer<uint8_t> scratch(temp, s);
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.get(), temp, per.get(), before.get(), chunks, s));
  const Ranks rk{d_codes, before.get(), outl.get()};

  if (!sp.exact_idx.empty()) {
    scatter_exact_kernel<T><<<grid_for(sp.exact_idx.size()), kThreads, 0, s>>>(ex_idx.get(), ex_val.get(),
                                                                               sp.exact_idx.size(), d_out);
    SCIZ_CUDA_CHECK_LAUNCH("interp scatter_exact_kernel");
  }
  dev::Buffer<T> A(na, s);
  root_decode_kernel<T><<<1, 1, 0, s>>>(A.get(), d_out, dL.get(), lt.q[L.levels - 1], rk, nullptr);
  SCIZ_CUDA_CHECK_LAUNCH("interp root_decode_kernel");
  for (int l = L.levels - 1; l > kBlockLevels; --l) {
    const int64_t st_s = int64_t{1} << (l - 1 - kBlockLevels);
    Pass passes[7];
    const int np = level_passes(lt.cfg[l - 1].scheme, passes);
    for (int pi = 0; pi < np; ++pi) {
      const PassGrid pg = pass_grid(passes[pi], st_s, a.n);
      if (pg.points() == 0) continue;
      const Stencil st = make_stencil(passes[pi].pred, st_s, a.pitch, lt.cfg[l - 1].spline, lt.cfg[l - 1].scheme == kCross);
      anchor_pass_decode_kernel<T><<<grid_for(pg.points()), kThreads, 0, s>>>(A.get(), d_out, a, pg, st, l, lt.q[l - 1], dL.get(),
                                                                               rk, nullptr);
      SCIZ_CUDA_CHECK_LAUNCH("interp anchor_pass_decode_kernel");
    }
  }
  anchors_out_kernel<T><<<grid_for(na), kThreads, 0, s>>>(A.get(), dL.get(), a, d_out, nullptr);
  SCIZ_CUDA_CHECK_LAUNCH("interp anchors_out_kernel");
  launch_blocks<T>(L, s, [&](auto g, unsigned ctas, size_t smem, uint64_t first, uint64_t nb, int box_vol) {
    constexpr int G = decltype(g)::value;
    allow_smem(block_decode_kernel<T, G>, smem);
    block_decode_kernel<T, G><<<ctas, cta_threads(G), smem, s>>>(A.get(), a, dL.get(), dlt.get(), rk, d_out, first, nb, box_vol, nullptr);
    SCIZ_CUDA_CHECK_LAUNCH("interp block_decode_kernel");
  });
  dev::sync(s);  // the buffers above are freed on return
}

namespace {

// check_sparse's checks on the device, reported into st: one exact value per code 0 (the
// count the runs declare), one outlier per code 255, every exact value on a code-0 point.
__global__ void compare_counts_kernel(const unsigned long long* counts, const uint64_t* runs_count, uint64_t outliers,
                                      DeviceStatus* st) {
  if (counts[0] != runs_count[1]) report(st, kStatusInterpExactCount, 0, counts[0], runs_count[1]);
  if (counts[1] != outliers) report(st, kStatusInterpOutlierCount, 0, counts[1], outliers);
}

__global__ void exact_runs_on_exact_codes_kernel(const uint8_t* codes, const Layout* Lp, const uint64_t* start,
                                                 const uint64_t* length, const uint64_t* runs_count, DeviceStatus* st) {
  const Layout& L = *Lp;
  if (failed(st)) return;
  const uint64_t runs = runs_count[0];
  for (uint64_t k = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < runs; k += uint64_t(gridDim.x) * blockDim.x)
    for (uint64_t j = 0; j < length[k]; ++j) {
      const uint64_t i = start[k] + j;
      const uint64_t c[3] = {i / (L.n[1] * L.n[2]), (i / L.n[2]) % L.n[1], i % L.n[2]};
      if (codes[code_index(L, c)] != kExactCode) {
        report(st, kStatusInterpExactPlace, 0, i, 0);
        return;
      }
    }
}

}  // namespace

template <class T>
void decompress_device(const uint8_t* d_codes, DeviceSpan outliers, DeviceSpan exact, const Layout& L, const Choice& ch,
                       T* d_out, DeviceStatus* st, cudaStream_t s) {
  // The outliers section is small: it and the verdict so far (checksums, the codes' stage) come
  // to the host in one synchronization; a failure there stops everything before any write.
  std::vector<uint8_t> ol(outliers.size);
  DeviceStatus before;
  dev::copy_to_host(&before, st, sizeof before, s);
  if (outliers.size) dev::copy_to_host(ol.data(), outliers.data, outliers.size, s);
  dev::sync(s);
  throw_if_failed(before, "stream");
  std::vector<int32_t> q;
  read_outliers(ol, L.total, q);
  dev::Buffer<int32_t> d_q;
  upload(d_q, q, s);

  const LevelTable<T> lt = level_table<T>(ch);
  const AnchorGridDev a = anchor_grid_dev(L);
  const uint64_t na = static_cast<uint64_t>(a.n[0] * a.n[1] * a.n[2]);
  const dev::Buffer<Layout> dL = on_device(L, s);
  const dev::Buffer<LevelTable<T>> dlt = on_device(lt, s);
  const runs::DeviceRuns<T> ex = runs::parse_device<T>(exact.data, exact.size, L.total, st, 3, s);
  dev::Buffer<unsigned long long> counts(2, s);
  dev::zero(counts.get(), 2 * sizeof(unsigned long long), s);
  count_special_kernel<<<grid_for(L.total / 16 + 1), kThreads, 0, s>>>(d_codes, L.total, counts.get());
  SCIZ_CUDA_CHECK_LAUNCH("interp count_special_kernel");
  compare_counts_kernel<<<1, 1, 0, s>>>(counts.get(), ex.count.get(), q.size(), st);
  SCIZ_CUDA_CHECK_LAUNCH("interp compare_counts_kernel");
  if (ex.capacity) {
    exact_runs_on_exact_codes_kernel<<<grid_for(ex.capacity), kThreads, 0, s>>>(d_codes, dL.get(), ex.start.get(),
                                                                                ex.length.get(), ex.count.get(), st);
    SCIZ_CUDA_CHECK_LAUNCH("interp exact_runs_on_exact_codes_kernel");
  }
  const uint64_t chunks = (L.total + 255) / 256;
  dev::Buffer<uint64_t> per(chunks, s), before256(chunks + 1, s);
  count_outliers_kernel<<<grid_for(chunks * 16), kThreads, 0, s>>>(d_codes, L.total, per.get());
  SCIZ_CUDA_CHECK_LAUNCH("interp count_outliers_kernel");
  size_t temp = 0;
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp, per.get(), before256.get(), chunks, s));
  dev::Buffer<uint8_t> scratch(temp, s);
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.get(), temp, per.get(), before256.get(), chunks, s));
  const Ranks rk{d_codes, before256.get(), d_q.get()};
  // Every kernel below writes nothing once st holds a failure.
  runs::scatter_device(ex, d_out, st, s);
  dev::Buffer<T> A(na, s);
  root_decode_kernel<T><<<1, 1, 0, s>>>(A.get(), d_out, dL.get(), lt.q[L.levels - 1], rk, st);
  SCIZ_CUDA_CHECK_LAUNCH("interp root_decode_kernel");
  for (int l = L.levels - 1; l > kBlockLevels; --l) {
    const int64_t st_s = int64_t{1} << (l - 1 - kBlockLevels);
    Pass passes[7];
    const int np = level_passes(lt.cfg[l - 1].scheme, passes);
    for (int pi = 0; pi < np; ++pi) {
      const PassGrid pg = pass_grid(passes[pi], st_s, a.n);
      if (pg.points() == 0) continue;
      const Stencil sten = make_stencil(passes[pi].pred, st_s, a.pitch, lt.cfg[l - 1].spline, lt.cfg[l - 1].scheme == kCross);
      anchor_pass_decode_kernel<T><<<grid_for(pg.points()), kThreads, 0, s>>>(A.get(), d_out, a, pg, sten, l, lt.q[l - 1],
                                                                               dL.get(), rk, st);
      SCIZ_CUDA_CHECK_LAUNCH("interp anchor_pass_decode_kernel");
    }
  }
  anchors_out_kernel<T><<<grid_for(na), kThreads, 0, s>>>(A.get(), dL.get(), a, d_out, st);
  SCIZ_CUDA_CHECK_LAUNCH("interp anchors_out_kernel");
  launch_blocks<T>(L, s, [&](auto g, unsigned ctas, size_t smem, uint64_t first, uint64_t nb, int box_vol) {
    constexpr int G = decltype(g)::value;
    allow_smem(block_decode_kernel<T, G>, smem);
    block_decode_kernel<T, G><<<ctas, cta_threads(G), smem, s>>>(A.get(), a, dL.get(), dlt.get(), rk, d_out, first, nb, box_vol, st);
    SCIZ_CUDA_CHECK_LAUNCH("interp block_decode_kernel");
  });
  // Temporaries are released in stream order; the caller synchronizes once and reads st.
}

#define SCIZ_INTERP_CUDA(T)                                                                                       \
  template TuneInput<T> gather_cuda<T>(const T*, const Layout&, cudaStream_t);                                  \
  template void compress_cuda<T>(const T*, const Layout&, const Choice&, double, uint8_t*, Sparse<T>&, cudaStream_t); \
  template void decompress_cuda<T>(const uint8_t*, const Sparse<T>&, const Layout&, const Choice&, T*, cudaStream_t); \
  template DeviceSparseOut compress_device<T>(const T*, const Layout&, const Choice&, double, uint8_t*, cudaStream_t);  \
  template void decompress_device<T>(const uint8_t*, DeviceSpan, DeviceSpan, const Layout&, const Choice&, T*,         \
                                     DeviceStatus*, cudaStream_t);
SCIZ_INTERP_CUDA(float)
SCIZ_INTERP_CUDA(double)
#undef SCIZ_INTERP_CUDA

}  // namespace sciz::interp
