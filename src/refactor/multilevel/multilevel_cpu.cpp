// CPU twin of the multilevel decomposition: OpenMP over the rows of each class's sub-grid.
// Nodes of one level depend only on coarser levels, so a level is one parallel loop.
#include "refactor/multilevel/multilevel.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
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

namespace {

// predict() for a node whose every +s neighbour exists (all but the last node or row of each
// axis of the class): the same corners in the same order and the same halvings, with the
// corner offsets worked out once per class instead of a walk over the corners a node.
template <int N>
inline double predict_inside(const double* x, uint64_t at, const int64_t* delta) {
  double v[1 << N];
  for (int k = 0; k < (1 << N); ++k) v[k] = x[at + delta[k]];
  for (int b = N - 1; b >= 0; --b)
    for (int k = 0; k < (1 << b); ++k) v[k] = mean2(v[k], v[k + (1 << b)]);
  return v[0];
}

// One run of at most kRecomposeRun nodes along the fastest axis of a class's row: nodes
// a0 .. a0 + len - 1 of row r.
template <int N>
void recompose_run(const Grid& g, const Class& c, const int64_t* delta, uint64_t r, uint64_t a0, uint64_t len,
                   const double* coeff, double* x) {
  uint64_t i[kAxes];
  i[0] = coord(c, 0, r / (c.m[1] * c.m[2]));
  i[1] = coord(c, 1, (r / c.m[2]) % c.m[1]);
  i[2] = coord(c, 2, r % c.m[2]);
  i[3] = coord(c, 3, a0);
  // The slower axes' +s neighbours are the row's; the fastest axis's only the last node lacks.
  bool inside = true;
  for (int b = 0; b < N; ++b)
    if (c.ax[b] != kAxes - 1) inside = inside && i[c.ax[b]] + c.s < g.e[c.ax[b]];
  const bool fastest = (c.q >> (kAxes - 1)) & 1;
  const uint64_t step = coord(c, 3, 1) - coord(c, 3, 0);
  uint64_t at = field_index(g, i);
  auto load = [x](uint64_t p) { return x[p]; };
  for (uint64_t a = 0; a < len; ++a, i[3] += step, at += step) {
    const bool in = inside && (!fastest || i[3] + c.s < g.e[kAxes - 1]);
    x[at] = (in ? predict_inside<N>(x, at, delta) : predict(g, c, i, at, load)) + coeff[a];
  }
}

// The nodes of class c in runs of at most kRecomposeRun along the fastest axis, each with its
// coefficients from src: f(row, first node of the run, length, coefficients). Runs, not rows,
// are the unit of parallel work: a 1-D field is one row a class.
template <class F>
void for_each_run(const Class& c, size_t ci, CoeffSource src, F&& f) {
  const uint64_t rows = c.m[0] * c.m[1] * c.m[2], per_row = (c.m[3] + kRecomposeRun - 1) / kRecomposeRun;
  const uint64_t items = rows * per_row;
  const int nt = thread_count(items, c.count() * 8);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (uint64_t it = 0; it < items; ++it) {
    const uint64_t r = it / per_row, a0 = (it % per_row) * kRecomposeRun;
    const uint64_t len = std::min(kRecomposeRun, c.m[3] - a0);
    double coeff[kRecomposeRun];
    src.fill(src.ctx, ci, r * c.m[3] + a0, len, coeff);
    f(r, a0, len, coeff);
  }
}

template <int N>
void recompose_class(const Grid& g, const Class& c, size_t ci, CoeffSource src, double* x) {
  int64_t delta[1 << N];
  for (int k = 0; k < (1 << N); ++k) {
    delta[k] = 0;
    for (int b = 0; b < N; ++b) delta[k] += (k >> b) & 1 ? static_cast<int64_t>(c.step[b]) : -static_cast<int64_t>(c.step[b]);
  }
  for_each_run(c, ci, src, [&](uint64_t r, uint64_t a0, uint64_t len, const double* coeff) {
    recompose_run<N>(g, c, delta, r, a0, len, coeff, x);
  });
}

}  // namespace

void recompose_cpu(const Layout& l, CoeffSource coeff, double* x) {
  const Grid& g = l.grid;
  for (size_t ci = 0; ci < l.classes.size(); ++ci) {
    const Class& c = l.classes[ci];
    if (l.class_level[ci] == 0) {
      // Level 0 is the coefficients themselves, in the class's storage order.
      std::vector<double> v(c.count());
      for (uint64_t k = 0; k < v.size(); k += kRecomposeRun)
        coeff.fill(coeff.ctx, ci, k, std::min<uint64_t>(kRecomposeRun, v.size() - k), v.data() + k);
      for_each_node(g, c, [&](uint64_t k, const uint64_t*, uint64_t at) { x[at] = v[k]; });
      continue;
    }
    switch (c.nax) {
      case 1: recompose_class<1>(g, c, ci, coeff, x); break;
      case 2: recompose_class<2>(g, c, ci, coeff, x); break;
      case 3: recompose_class<3>(g, c, ci, coeff, x); break;
      default: recompose_class<4>(g, c, ci, coeff, x); break;
    }
  }
}

void recompose_cpu(const Layout& l, const double* coeff, double* x) {
  struct Ctx {
    const Layout* l;
    const double* coeff;
  } ctx{&l, coeff};
  const CoeffSource src{[](const void* p, size_t ci, uint64_t k, uint64_t count, double* dst) {
                          const Ctx& c = *static_cast<const Ctx*>(p);
                          std::memcpy(dst, c.coeff + c.l->class_offset[ci] + k, count * sizeof(double));
                        },
                        &ctx};
  recompose_cpu(l, src, x);
}

namespace {

// Index in the grid of the even points (coordinates halved) of an even point of the field.
uint64_t even_index(const Grid& g, const Grid& half, uint64_t at) {
  uint64_t i[kAxes];
  for (int k = kAxes - 1; k >= 0; --k) i[k] = (at % g.e[k]) / 2, at /= g.e[k];
  return field_index(half, i);
}

// The finest level's nodes of class c, run [a0, a0 + len) of row r: every corner is an even
// point, read from xc (the even points' values, halved coordinates), and the node goes straight
// to the output in T. predict_inside's corners and halvings, with offsets into xc.
template <int N, class T>
void finest_run(const Grid& g, const Grid& half, const Class& c, const int64_t* delta, uint64_t r, uint64_t a0,
                uint64_t len, const double* coeff, const double* xc, T* out) {
  uint64_t i[kAxes], h[kAxes];
  i[0] = coord(c, 0, r / (c.m[1] * c.m[2]));
  i[1] = coord(c, 1, (r / c.m[2]) % c.m[1]);
  i[2] = coord(c, 2, r % c.m[2]);
  i[3] = coord(c, 3, a0);
  bool inside = true;
  for (int b = 0; b < N; ++b)
    if (c.ax[b] != kAxes - 1) inside = inside && i[c.ax[b]] + 1 < g.e[c.ax[b]];
  // The corner with every -1: the node's coordinates halved (rounded down) on every axis.
  for (int k = 0; k < kAxes; ++k) h[k] = i[k] / 2;
  const bool fastest = (c.q >> (kAxes - 1)) & 1;
  uint64_t at = field_index(g, i), base = field_index(half, h);
  auto load = [&](uint64_t p) { return xc[even_index(g, half, p)]; };
  for (uint64_t a = 0; a < len; ++a, i[3] += 2, at += 2, ++base) {
    double pred;
    if (inside && (!fastest || i[3] + 1 < g.e[kAxes - 1])) {
      double v[1 << N];
      for (int k = 0; k < (1 << N); ++k) v[k] = xc[base + delta[k]];
      for (int b = N - 1; b >= 0; --b)
        for (int k = 0; k < (1 << b); ++k) v[k] = mean2(v[k], v[k + (1 << b)]);
      pred = v[0];
    } else {
      pred = predict(g, c, i, at, load);
    }
    out[at] = static_cast<T>(pred + coeff[a]);
  }
}

template <int N, class T>
void finest_class(const Grid& g, const Grid& half, const Class& c, size_t ci, CoeffSource src, const double* xc, T* out) {
  int64_t delta[1 << N];
  for (int k = 0; k < (1 << N); ++k) {
    delta[k] = 0;
    for (int b = 0; b < N; ++b)
      if ((k >> b) & 1) delta[k] += static_cast<int64_t>(half.field_stride(c.ax[b]));
  }
  for_each_run(c, ci, src, [&](uint64_t r, uint64_t a0, uint64_t len, const double* coeff) {
    finest_run<N, T>(g, half, c, delta, r, a0, len, coeff, xc, out);
  });
}

}  // namespace

// The finest level's nodes are read by no other node: only the even points (every level but
// the finest, an eighth of a 3-D field) need their values in double. They are the grid of
// halved extents with one level fewer, whose classes are the field's coarser classes in the same
// order, sizes and node order, and whose predictions read the same corners (halved) with the
// same neighbours present: recomposed there, then the finest level from them straight into T.
template <class T>
void recompose_cpu(const Layout& l, CoeffSource coeff, T* out) {
  const Grid& g = l.grid;
  const uint64_t n = g.count();
  auto cast = [&](const double* x, uint64_t count, auto&& where) {
    const int nt = thread_count(count, count * 8);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (uint64_t k = 0; k < count; ++k) out[where(k)] = static_cast<T>(x[k]);
  };
  if (g.detail == 0) {  // one point
    const std::unique_ptr<double[]> x(new double[n]);
    recompose_cpu(l, coeff, x.get());
    cast(x.get(), n, [](uint64_t k) { return k; });
    return;
  }
  Grid half;
  for (int k = 0; k < kAxes; ++k) half.e[k] = (g.e[k] + 1) / 2;
  half.detail = g.detail - 1;
  const Layout lh = layout_of(half);
  size_t coarse = 0;
  while (coarse < l.classes.size() && l.class_level[coarse] < g.detail) ++coarse;
  SCIZ_REQUIRE(lh.classes.size() == coarse, Status::internal, "multilevel: the even points' classes differ");
  for (size_t ci = 0; ci < coarse; ++ci)
    SCIZ_REQUIRE(lh.classes[ci].count() == l.classes[ci].count() && lh.classes[ci].q == l.classes[ci].q, Status::internal,
                 "multilevel: the even points' classes differ");
  const uint64_t hn = half.count();
  const std::unique_ptr<double[]> xc(new double[hn]);
  recompose_cpu(lh, coeff, xc.get());  // class ci of lh is class ci of l: coeff's indices hold
  for (size_t ci = coarse; ci < l.classes.size(); ++ci) {
    const Class& c = l.classes[ci];
    switch (c.nax) {
      case 1: finest_class<1, T>(g, half, c, ci, coeff, xc.get(), out); break;
      case 2: finest_class<2, T>(g, half, c, ci, coeff, xc.get(), out); break;
      case 3: finest_class<3, T>(g, half, c, ci, coeff, xc.get(), out); break;
      default: finest_class<4, T>(g, half, c, ci, coeff, xc.get(), out); break;
    }
  }
  cast(xc.get(), hn, [&](uint64_t k) {
    uint64_t i[kAxes];
    for (int a = kAxes - 1; a >= 0; --a) i[a] = 2 * (k % half.e[a]), k /= half.e[a];
    return field_index(g, i);
  });
}
template void recompose_cpu<float>(const Layout&, CoeffSource, float*);

}  // namespace sciz::multilevel
