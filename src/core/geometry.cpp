#include "core/geometry.hpp"

#include <vector>

namespace sciz {

Extent effective_extent(const Shape& s) {
  std::vector<uint64_t> d;
  for (auto v : s.dims)
    if (v != 1) d.push_back(v);
  if (d.empty()) d.push_back(1);
  while (d.size() > 3) {  // a stack of 3-D volumes: merge the two slowest axes
    d[1] *= d[0];
    d.erase(d.begin());
  }
  Extent e;
  e.ndim = static_cast<int>(d.size());
  e.nx = d.back();
  if (d.size() >= 2) e.ny = d[d.size() - 2];
  if (d.size() == 3) e.nz = d[0];
  return e;
}

}  // namespace sciz
