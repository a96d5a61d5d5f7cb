// Effective geometry the predictors see: leading/interior size-1 axes squeezed out, 4-D
// folded to a stack of 3-D volumes (slowest two axes merged), then cut into tiles.
#pragma once
#include <sciz/types.hpp>

#include <cstdint>

#include "core/hd.hpp"

namespace sciz {

struct Extent {
  uint64_t nz = 1, ny = 1, nx = 1;
  int ndim = 1;  // 1, 2 or 3 after squeezing
  SCIZ_HD uint64_t count() const { return nz * ny * nx; }
};

struct TileShape {
  uint32_t cz = 1, cy = 1, cx = 1;
  SCIZ_HD uint32_t volume() const { return cz * cy * cx; }
};

struct TileGrid {
  uint64_t gz = 1, gy = 1, gx = 1;  // tiles along each axis
  SCIZ_HD uint64_t count() const { return gz * gy * gx; }
};

Extent effective_extent(const Shape& s);

SCIZ_HD uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

SCIZ_HD TileGrid tile_grid(const Extent& e, const TileShape& c) {
  return {ceil_div(e.nz, c.cz), ceil_div(e.ny, c.cy), ceil_div(e.nx, c.cx)};
}

}  // namespace sciz
