// The arithmetic of the multilevel decomposition (hierarchical basis, docs/MDR.md section 1),
// once, for both twins: the level and class geometry of any grid, where a level's k-th
// coefficient sits in the field, and the prediction of a node from the coarser grid. The
// decomposition, the fill of special values and the recomposition all call predict(), so
// the twins round identically by construction.
#pragma once
#include <cstdint>

#include "core/hd.hpp"

namespace sciz::multilevel {

inline constexpr int kAxes = 4;     // every field is handled as 4-D, leading extents 1
inline constexpr int kMaxLevels = 50;  // 2^49 > any extent of a field below 2^48 values

// Extents padded to four axes (slowest first) and the level count. A plain aggregate: it is
// passed by value to kernels.
struct Grid {
  uint64_t e[kAxes] = {1, 1, 1, 1};
  int detail = 0;  // J: detail levels; level 0 is G(2^J)
  SCIZ_HD uint64_t count() const { return e[0] * e[1] * e[2] * e[3]; }
  SCIZ_HD int levels() const { return detail + 1; }
  // Stride of level j: level 0 and level 1 share 2^(J-1)'s coarse grid G(2^J).
  SCIZ_HD uint64_t stride(int j) const { return uint64_t(1) << (j == 0 ? detail : detail - j); }
  SCIZ_HD uint64_t field_stride(int axis) const {
    uint64_t s = 1;
    for (int k = kAxes - 1; k > axis; --k) s *= e[k];
    return s;
  }
};

// Multiples of s in [0, e) that are odd multiples (the refined nodes of an axis at stride s),
// and multiples of 2s (the nodes kept from the coarser grid).
SCIZ_HD uint64_t odd_count(uint64_t e, uint64_t s) { return e > s ? (e - s - 1) / (2 * s) + 1 : 0; }
SCIZ_HD uint64_t even_count(uint64_t e, uint64_t s2) { return (e - 1) / s2 + 1; }

// A class of level j >= 1: the nodes odd on the axes of mask Q (bit k: axis k) and multiples
// of 2s on the others; level 0 is one "class" with Q = 0 at stride 2^J. Its sub-grid has
// extents m[] and is stored row-major.
struct Class {
  unsigned q = 0;
  uint64_t s = 1;     // the level's stride
  uint64_t even = 1;  // step of the axes outside q: 2s, or s on level 0
  uint64_t m[kAxes] = {1, 1, 1, 1};
  // The axes of q in increasing order and the field offset of one stride s along each: what
  // predict() walks for every node, worked out once per class.
  int nax = 0;
  int ax[kAxes] = {0, 0, 0, 0};
  uint64_t step[kAxes] = {0, 0, 0, 0};
  SCIZ_HD uint64_t count() const { return m[0] * m[1] * m[2] * m[3]; }
};

SCIZ_HD Class class_of(const Grid& g, int level, unsigned q) {
  Class c;
  c.q = q;
  c.s = g.stride(level);
  c.even = level == 0 ? c.s : 2 * c.s;
  for (int k = 0; k < kAxes; ++k) {
    c.m[k] = (q >> k) & 1 ? odd_count(g.e[k], c.s) : even_count(g.e[k], c.even);
    if ((q >> k) & 1) {
      c.ax[c.nax] = k;
      c.step[c.nax++] = c.s * g.field_stride(k);
    }
  }
  return c;
}

// Coordinate on axis k of a class's sub-grid index a.
SCIZ_HD uint64_t coord(const Class& c, int k, uint64_t a) {
  return (c.q >> k) & 1 ? c.s * (2 * a + 1) : c.even * a;
}

// The node's position in the field (row-major over the padded extents).
SCIZ_HD uint64_t field_index(const Grid& g, const uint64_t i[kAxes]) {
  return ((i[0] * g.e[1] + i[1]) * g.e[2] + i[2]) * g.e[3] + i[3];
}

// One rounding: both halvings are exact (but for subnormals), the sum rounds once. The
// result lies between a and b, so nested means never leave the range of their inputs.
SCIZ_HD double mean2(double a, double b) { return 0.5 * a + 0.5 * b; }

// Multilinear interpolation of node i of class c (field index `at`) from the coarse corners
// G(2s), read through load(field index). Corners are reduced innermost over the highest axis
// of the class; an axis without a +s neighbour contributes its -s corner alone (weights stay
// >= 0 and sum to 1: the error bound of docs/MDR.md rests on it).
template <class Load>
SCIZ_HD double predict(const Grid& g, const Class& c, const uint64_t i[kAxes], uint64_t at, Load&& load) {
  bool hi[kAxes];
  const int n = c.nax;
  for (int b = 0; b < n; ++b) hi[b] = i[c.ax[b]] + c.s < g.e[c.ax[b]];
  double v[1 << kAxes];
  const unsigned corners = 1u << n;
  for (unsigned k = 0; k < corners; ++k) {
    uint64_t p = at;
    bool exists = true;
    for (int b = 0; b < n; ++b) {
      if ((k >> b) & 1) {
        exists = exists && hi[b];
        p += c.step[b];
      } else {
        p -= c.step[b];
      }
    }
    v[k] = exists ? load(p) : 0.0;
  }
  for (int b = n - 1; b >= 0; --b) {
    const unsigned half = 1u << b;
    if (hi[b])
      for (unsigned k = 0; k < half; ++k) v[k] = mean2(v[k], v[k + half]);
  }
  return v[0];
}

}  // namespace sciz::multilevel
