// CPU twin of the multilevel decomposition: OpenMP over the rows of each class's sub-grid.
// Nodes of one level depend only on coarser levels, so a level is one parallel loop.
#include "refactor/multilevel/multilevel.hpp"

#include <sciz/error.hpp>

#include <cmath>
#include <string>

#include "core/omp_threads.hpp"

namespace sciz::multilevel {

Grid grid_of(const std::vector<uint64_t>& dims) {
  SCIZ_REQUIRE(!dims.empty() && dims.size() <= kAxes, Status::invalid_argument,
               "mdr: " + std::to_string(dims.size()) + " dims (1 to 4 supported)");
  Grid g;
  int k = kAxes;
  for (size_t d = dims.size(); d-- > 0;) {
    SCIZ_REQUIRE(dims[d] > 0, Status::invalid_argument, "mdr: a dim of 0");
    if (dims[d] > 1) g.e[--k] = dims[d];
  }
  uint64_t widest = 1;
  for (int a = 0; a < kAxes; ++a) widest = g.e[a] > widest ? g.e[a] : widest;
  while ((uint64_t(1) << g.detail) < widest) ++g.detail;  // 2^J >= every extent: G(2^J) = {0}
  return g;
}

int active_axes(const Grid& g) {
  int n = 0;
  for (int k = 0; k < kAxes; ++k) n += g.e[k] > 1;
  return n;
}

Layout layout_of(const Grid& g) {
  Layout l;
  l.grid = g;
  uint64_t off = 0;
  for (int j = 0; j < g.levels(); ++j) {
    l.level_offset.push_back(off);
    const unsigned first = j == 0 ? 0 : 1, last = j == 0 ? 0 : (1u << kAxes) - 1;
    for (unsigned q = first; q <= last; ++q) {
      const Class c = class_of(g, j, q);
      if (c.count() == 0) continue;
      l.classes.push_back(c);
      l.class_level.push_back(j);
      l.class_offset.push_back(off);
      off += c.count();
    }
  }
  l.level_offset.push_back(off);
  return l;
}

namespace {

// Calls f(k, i, at) for every node of a class: k its index in the class, i its coordinates, at
// its field index. Rows (the fastest sub-grid axis) are the unit of parallel work.
template <class F>
void for_each_node(const Grid& g, const Class& c, F&& f) {
  const uint64_t rows = c.m[0] * c.m[1] * c.m[2];
  const int nt = thread_count(rows, c.count() * 8);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (uint64_t r = 0; r < rows; ++r) {
    uint64_t i[kAxes];
    i[0] = coord(c, 0, r / (c.m[1] * c.m[2]));
    i[1] = coord(c, 1, (r / c.m[2]) % c.m[1]);
    i[2] = coord(c, 2, r % c.m[2]);
    i[3] = coord(c, 3, 0);
    uint64_t at = field_index(g, i);
    const uint64_t step = coord(c, 3, 1) - coord(c, 3, 0);  // along the fastest axis, whose stride is 1
    for (uint64_t a = 0; a < c.m[3]; ++a, i[3] += step, at += step) f(r * c.m[3] + a, i, at);
  }
}

}  // namespace

void fill_cpu(const Layout& l, double* x, double level0_fill) {
  const Grid& g = l.grid;
  for (size_t ci = 0; ci < l.classes.size(); ++ci) {
    const Class& c = l.classes[ci];
    const bool level0 = l.class_level[ci] == 0;
    for_each_node(g, c, [&](uint64_t, const uint64_t* i, uint64_t at) {
      double& v = x[at];
      if (!std::isnan(v)) return;
      v = level0 ? level0_fill : predict(g, c, i, at, [&](uint64_t p) { return x[p]; });
    });
  }
}

void decompose_cpu(const Layout& l, const double* x, double* coeff) {
  const Grid& g = l.grid;
  for (size_t ci = 0; ci < l.classes.size(); ++ci) {
    const Class& c = l.classes[ci];
    double* out = coeff + l.class_offset[ci];
    const bool level0 = l.class_level[ci] == 0;
    for_each_node(g, c, [&](uint64_t k, const uint64_t* i, uint64_t at) {
      const double v = x[at];
      out[k] = level0 ? v : v - predict(g, c, i, at, [&](uint64_t p) { return x[p]; });
    });
  }
}

void recompose_cpu(const Layout& l, const double* coeff, double* x) {
  const Grid& g = l.grid;
  for (size_t ci = 0; ci < l.classes.size(); ++ci) {
    const Class& c = l.classes[ci];
    const double* in = coeff + l.class_offset[ci];
    const bool level0 = l.class_level[ci] == 0;
    for_each_node(g, c, [&](uint64_t k, const uint64_t* i, uint64_t at) {
      x[at] = level0 ? in[k] : predict(g, c, i, at, [&](uint64_t p) { return x[p]; }) + in[k];
    });
  }
}

}  // namespace sciz::multilevel
