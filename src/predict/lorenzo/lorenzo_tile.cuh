// What the Lorenzo kernels share: the compile-time tile shapes, where a tile sits in the
// field, and the thread <-> point mapping. One CTA of 256 threads owns one tile; its thread t
// holds points e = t + 256 k, so every warp covers 32 consecutive x of one row (coalesced).
#pragma once
#include <sciz/error.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/geometry.hpp"
#include "predict/lorenzo/lorenzo_math.hpp"

namespace sciz::lorenzo::cuda {

inline constexpr int kThreads = 256;
inline constexpr unsigned kFullMask = 0xffffffffu;

template <int CZ, int CY, int CX>
struct Tile {
  static constexpr int cz = CZ, cy = CY, cx = CX;
  static constexpr int volume = CZ * CY * CX;
  static constexpr int per_thread = volume / kThreads;
  static_assert(volume % kThreads == 0 && CX % 32 == 0, "a warp must cover whole 32-wide row pieces");
  __host__ __device__ static TileShape shape() { return {CZ, CY, CX}; }
  __host__ __device__ static constexpr int z_of(int e) { return e / (CY * CX); }
  __host__ __device__ static constexpr int y_of(int e) { return (e / CX) % CY; }
  __host__ __device__ static constexpr int x_of(int e) { return e % CX; }
  // Point t + 256 k sits k whole steps of (z_of(256), y_of(256), x_of(256)) after point t,
  // for every t and k: no step carries from one axis into the next. Checked exhaustively.
  static constexpr bool steps_without_carry() {
    for (int i = 0; i < volume; ++i) {
      const int t = i % kThreads, k = i / kThreads;
      if (z_of(i) != z_of(t) + k * z_of(kThreads) || y_of(i) != y_of(t) + k * y_of(kThreads) ||
          x_of(i) != x_of(t) + k * x_of(kThreads))
        return false;
    }
    return true;
  }
};

using Tile1 = Tile<1, 1, 2048>;  // default_tile(1)
using Tile2 = Tile<1, 32, 32>;   // default_tile(2)
using Tile3 = Tile<8, 8, 32>;    // default_tile(3)

inline bool same_shape(const TileShape& a, const TileShape& b) {
  return a.cz == b.cz && a.cy == b.cy && a.cx == b.cx;
}

inline std::string shape_str(const TileShape& c) {
  return std::to_string(c.cz) + "x" + std::to_string(c.cy) + "x" + std::to_string(c.cx);
}

// The one list of tiles the kernels are built for: calls f(Tile{}) for the tile matching c and
// returns true, or returns false for any other shape.
template <class F>
bool visit_tile(const TileShape& c, F&& f) {
  if (same_shape(c, Tile1::shape())) return f(Tile1{}), true;
  if (same_shape(c, Tile2::shape())) return f(Tile2{}), true;
  if (same_shape(c, Tile3::shape())) return f(Tile3{}), true;
  return false;
}

// Throws unsupported, before any device work, unless the kernels are built for c.
inline void require_tile(const TileShape& c) {
  if (!visit_tile(c, [](auto) {}))
    fail(Status::unsupported, "lorenzo (CUDA): tile shape " + shape_str(c) +
                                  " is not one the CUDA kernels are built for (1x1x2048, 1x32x32, 8x8x32); decode on the CPU");
}

// Calls f(Tile{}) for the tile matching c; throws unsupported for any other shape.
template <class F>
void with_tile(const TileShape& c, F&& f) {
  if (!visit_tile(c, f)) require_tile(c);
}

// One CTA per tile: the grid's x dimension bounds the tile count.
inline unsigned tile_blocks(const TileGrid& g) {
  SCIZ_REQUIRE(g.count() <= 0x7fffffffull, Status::unsupported,
          "lorenzo (CUDA): " + std::to_string(g.count()) + " tiles exceed one kernel launch");
  return static_cast<unsigned>(g.count());
}

// Grid for persistent CTAs: as many as can be resident at once (occupancy x SMs, queried once
// per kernel and device), never more than there are tiles.
template <class Kernel>
unsigned persistent_blocks(unsigned tiles, Kernel kernel) {
  static int resident[64] = {};  // per device ordinal; a benign race: every writer stores the same value
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return tiles;
  if (resident[dev] == 0) {
    int per_sm = 0, sms = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || per_sm * sms <= 0) {
      (void)cudaGetLastError();
      return tiles;
    }
    resident[dev] = per_sm * sms;
  }
  return std::min<unsigned>(tiles, static_cast<unsigned>(resident[dev]));
}

// A tile's first point (linear index) and its valid extent; edge tiles are partial.
struct Box {
  uint64_t base;
  uint64_t row, plane;  // strides of y and z in the field, hoisted out of every point's index
  int vz, vy, vx;
};

// Tile ids and grid extents fit in 32 bits (tile_blocks refuses more than 2^31 - 1 tiles),
// so the coordinates come from 32-bit division: 64-bit division is a long software routine,
// and every thread of every tile runs this.
template <class Tl>
__device__ Box tile_box(uint64_t id, const Extent& e, const TileGrid& g) {
  const uint32_t id32 = static_cast<uint32_t>(id), gx = static_cast<uint32_t>(g.gx), gy = static_cast<uint32_t>(g.gy);
  const uint32_t row = id32 / gx, ix = id32 - row * gx, iz = row / gy, iy = row - iz * gy;
  const uint64_t z0 = uint64_t{iz} * Tl::cz, y0 = uint64_t{iy} * Tl::cy, x0 = uint64_t{ix} * Tl::cx;  // origins can pass 2^32
  Box b;
  b.row = e.nx;
  b.plane = e.ny * e.nx;
  b.base = z0 * b.plane + y0 * b.row + x0;
  b.vz = static_cast<int>(e.nz - z0 < Tl::cz ? e.nz - z0 : Tl::cz);
  b.vy = static_cast<int>(e.ny - y0 < Tl::cy ? e.ny - y0 : Tl::cy);
  b.vx = static_cast<int>(e.nx - x0 < Tl::cx ? e.nx - x0 : Tl::cx);
  return b;
}

__device__ inline bool inside(const Box& b, int z, int y, int x) { return z < b.vz && y < b.vy && x < b.vx; }

__device__ inline uint64_t linear_index(const Box& b, const Extent&, int z, int y, int x) {
  return b.base + static_cast<uint64_t>(z) * b.plane + static_cast<uint64_t>(y) * b.row + static_cast<uint64_t>(x);
}

// Field index of a thread's points: its first point plus k steps, one add per point instead of
// recomputing z, y, x and their strides (index arithmetic, not memory, was the kernels' limit).
template <class Tl>
struct PointWalk {
  static_assert(Tl::steps_without_carry(), "the tile's thread mapping must step without carries");
  uint64_t first, step;
  __device__ explicit PointWalk(const Box& b) {
    const int t = static_cast<int>(threadIdx.x);
    first = b.base + static_cast<uint64_t>(Tl::z_of(t)) * b.plane + static_cast<uint64_t>(Tl::y_of(t)) * b.row +
            static_cast<uint64_t>(Tl::x_of(t));
    step = static_cast<uint64_t>(Tl::z_of(kThreads)) * b.plane + static_cast<uint64_t>(Tl::y_of(kThreads)) * b.row +
           static_cast<uint64_t>(Tl::x_of(kThreads));
  }
  __device__ uint64_t at(int k) const { return first + static_cast<uint64_t>(k) * step; }
};

__device__ inline unsigned lane_id() { return threadIdx.x & 31u; }

}  // namespace sciz::lorenzo::cuda
