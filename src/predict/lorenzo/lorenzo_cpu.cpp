// CPU twin of the Lorenzo predictor: loops over chunks, calling lorenzo_math.hpp for every
// decision so its output is bit-identical to the CUDA twin's.
#include <algorithm>
#include <numeric>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "predict/lorenzo/lorenzo.hpp"

namespace sciz::lorenzo {

template <class T>
QuantParams<T> make_params(double eb_abs, int32_t radius) {
  QuantParams<T> p;
  p.ebx2 = static_cast<T>(2.0 * eb_abs);
  p.inv_ebx2 = static_cast<T>(1.0 / (2.0 * eb_abs));
  // Hold the bound both as the double the user gave and as T(eb), whichever is tighter, so a
  // check done in either precision passes.
  p.eb_check = std::min(eb_abs, static_cast<double>(static_cast<T>(eb_abs)));
  p.radius = radius;
  return p;
}

namespace {

struct ChunkBox {  // a chunk's origin and its valid extent (edge chunks are partial)
  uint64_t z0, y0, x0;
  uint32_t vz, vy, vx;
};

ChunkBox chunk_box(uint64_t id, const Extent& e, const ChunkShape& c, const ChunkGrid& g) {
  const uint64_t ix = id % g.gx, iy = (id / g.gx) % g.gy, iz = id / (g.gx * g.gy);
  ChunkBox b{iz * c.cz, iy * c.cy, ix * c.cx, 0, 0, 0};
  b.vz = static_cast<uint32_t>(std::min<uint64_t>(c.cz, e.nz - b.z0));
  b.vy = static_cast<uint32_t>(std::min<uint64_t>(c.cy, e.ny - b.y0));
  b.vx = static_cast<uint32_t>(std::min<uint64_t>(c.cx, e.nx - b.x0));
  return b;
}

inline uint64_t linear(const Extent& e, const ChunkBox& b, uint32_t z, uint32_t y, uint32_t x) {
  return ((b.z0 + z) * e.ny + (b.y0 + y)) * e.nx + (b.x0 + x);
}

template <class T>
struct ThreadOut {
  std::vector<uint64_t> oi, ei;
  std::vector<int32_t> ov;
  std::vector<T> ev;
};

}  // namespace

template <class T>
void compress_cpu(const T* x, const Extent& e, const ChunkShape& c, const QuantParams<T>& p, uint16_t* codes,
                  Sparse<T>& sp) {
  const ChunkGrid g = chunk_grid(e, c);
  const int64_t nchunks = static_cast<int64_t>(g.count());
  int nthreads = 1;
#if defined(_OPENMP)
  nthreads = omp_get_max_threads();
#endif
  std::vector<ThreadOut<T>> outs(nthreads);
#pragma omp parallel num_threads(nthreads)
  {
    int tid = 0;
#if defined(_OPENMP)
    tid = omp_get_thread_num();
#endif
    ThreadOut<T>& o = outs[tid];
    std::vector<int32_t> d(c.volume());
    std::vector<uint8_t> fill(c.cx);
    // Static schedule: thread t takes a contiguous run of chunks, so concatenating the
    // per-thread lists in thread order keeps outliers in chunk-major order.
#pragma omp for schedule(static)
    for (int64_t id = 0; id < nchunks; ++id) {
      const ChunkBox b = chunk_box(static_cast<uint64_t>(id), e, c, g);
      std::fill(d.begin(), d.end(), 0);
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y) {
          int32_t* row = &d[(z * c.cy + y) * c.cx];
          int64_t first_valid = -1;
          for (uint32_t xx = 0; xx < b.vx; ++xx) {
            const uint64_t gi = linear(e, b, z, y, xx);
            const Prequant pq = prequantize(x[gi], p, row[xx]);
            if (pq != Prequant::kQuantized) {
              o.ei.push_back(gi);
              o.ev.push_back(x[gi]);
            }
            fill[xx] = pq == Prequant::kExactFill;
            if (!fill[xx] && first_valid < 0) first_valid = xx;
          }
          int32_t carry = first_valid >= 0 ? row[first_valid] : 0;  // the row fill rule
          for (uint32_t xx = 0; xx < b.vx; ++xx) {
            if (fill[xx])
              row[xx] = carry;
            else
              carry = row[xx];
          }
        }
      auto at = [&](int z, int y, int xx) -> int32_t {
        return (z < 0 || y < 0 || xx < 0) ? 0 : d[(static_cast<uint32_t>(z) * c.cy + y) * c.cx + xx];
      };
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y)
          for (uint32_t xx = 0; xx < b.vx; ++xx) {
            const int32_t dl = delta(at, static_cast<int>(z), static_cast<int>(y), static_cast<int>(xx), e.ndim);
            uint16_t code;
            if (!to_code(dl, p.radius, code)) {
              o.oi.push_back(chunk_major_index(static_cast<uint64_t>(id), c, z, y, xx));
              o.ov.push_back(dl);
            }
            codes[linear(e, b, z, y, xx)] = code;
          }
    }
  }
  sp = Sparse<T>{};
  std::vector<std::pair<uint64_t, T>> exact;
  for (auto& o : outs) {
    sp.outlier_idx.insert(sp.outlier_idx.end(), o.oi.begin(), o.oi.end());
    sp.outlier_val.insert(sp.outlier_val.end(), o.ov.begin(), o.ov.end());
    for (size_t i = 0; i < o.ei.size(); ++i) exact.emplace_back(o.ei[i], o.ev[i]);
  }
  std::sort(exact.begin(), exact.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  sp.exact_idx.reserve(exact.size());
  sp.exact_val.reserve(exact.size());
  for (auto& [i, v] : exact) {
    sp.exact_idx.push_back(i);
    sp.exact_val.push_back(v);
  }
}

template <class T>
void decompress_cpu(const uint16_t* codes, const Sparse<T>& sp, const Extent& e, const ChunkShape& c,
                    const QuantParams<T>& p, T* out) {
  const ChunkGrid g = chunk_grid(e, c);
  const int64_t nchunks = static_cast<int64_t>(g.count());
  const uint32_t V = c.volume();
#pragma omp parallel
  {
    std::vector<int32_t> q(V);
#pragma omp for schedule(static)
    for (int64_t id = 0; id < nchunks; ++id) {
      const ChunkBox b = chunk_box(static_cast<uint64_t>(id), e, c, g);
      std::fill(q.begin(), q.end(), 0);
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y)
          for (uint32_t x = 0; x < b.vx; ++x)
            q[(z * c.cy + y) * c.cx + x] = from_code(codes[linear(e, b, z, y, x)], p.radius);
      // Fuse outliers into the residuals before reconstruction (cuSZ+ Alg. 1 line 9).
      const uint64_t lo = static_cast<uint64_t>(id) * V;
      auto it = std::lower_bound(sp.outlier_idx.begin(), sp.outlier_idx.end(), lo);
      for (; it != sp.outlier_idx.end() && *it < lo + V; ++it)
        q[*it - lo] = wrap_add(q[*it - lo], sp.outlier_val[it - sp.outlier_idx.begin()]);
      // N-D partial sum, one 1-D pass per axis: x, then y, then z (cuSZ+ IV-B).
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y) {
          int32_t* row = &q[(z * c.cy + y) * c.cx];
          for (uint32_t x = 1; x < b.vx; ++x) row[x] = wrap_add(row[x], row[x - 1]);
        }
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 1; y < b.vy; ++y)
          for (uint32_t x = 0; x < b.vx; ++x)
            q[(z * c.cy + y) * c.cx + x] = wrap_add(q[(z * c.cy + y) * c.cx + x], q[(z * c.cy + y - 1) * c.cx + x]);
      for (uint32_t z = 1; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y)
          for (uint32_t x = 0; x < b.vx; ++x)
            q[(z * c.cy + y) * c.cx + x] = wrap_add(q[(z * c.cy + y) * c.cx + x], q[((z - 1) * c.cy + y) * c.cx + x]);
      for (uint32_t z = 0; z < b.vz; ++z)
        for (uint32_t y = 0; y < b.vy; ++y)
          for (uint32_t x = 0; x < b.vx; ++x)
            out[linear(e, b, z, y, x)] = reconstruct(q[(z * c.cy + y) * c.cx + x], p.ebx2);
    }
  }
  for (size_t i = 0; i < sp.exact_idx.size(); ++i) out[sp.exact_idx[i]] = sp.exact_val[i];
}

#define SCIZ_INSTANTIATE(T)                                                                                   \
  template QuantParams<T> make_params<T>(double, int32_t);                                                    \
  template void compress_cpu<T>(const T*, const Extent&, const ChunkShape&, const QuantParams<T>&, uint16_t*, \
                                Sparse<T>&);                                                                  \
  template void decompress_cpu<T>(const uint16_t*, const Sparse<T>&, const Extent&, const ChunkShape&,       \
                                  const QuantParams<T>&, T*);
SCIZ_INSTANTIATE(float)
SCIZ_INSTANTIATE(double)
#undef SCIZ_INSTANTIATE

}  // namespace sciz::lorenzo
