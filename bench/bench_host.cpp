#include "bench_host.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

namespace sciz::bench {

std::vector<float> load_tiled(const std::string& path, const Shape& dims, const Shape& tile, Shape& out_shape) {
  std::vector<float> src(dims.count());
  std::ifstream f(path, std::ios::binary);
  SCIZ_REQUIRE(static_cast<bool>(f), Status::io_error, "cannot open " + path);
  f.read(reinterpret_cast<char*>(src.data()), static_cast<std::streamsize>(src.size() * 4));
  SCIZ_REQUIRE(static_cast<uint64_t>(f.gcount()) == src.size() * 4, Status::io_error,
          path + " holds fewer than " + dims.str() + " f32 values");
  out_shape = dims;
  for (size_t k = 0; k < dims.dims.size(); ++k) out_shape.dims[k] *= tile.dims[k];
  out_shape.validate();
  const auto& sd = dims.dims;
  const auto& od = out_shape.dims;
  const size_t nd = od.size();
  std::vector<float> out(out_shape.count());
  const uint64_t row = od[nd - 1], nrows = out.size() / row;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < static_cast<int64_t>(nrows); ++r) {
    uint64_t rem = static_cast<uint64_t>(r), src_row = 0, mul = 1;
    for (size_t k = nd - 1; k-- > 0;) {  // the source row of this output row, axis by axis
      src_row += (rem % od[k]) % sd[k] * mul;
      mul *= sd[k];
      rem /= od[k];
    }
    const float* s = &src[src_row * sd[nd - 1]];
    float* o = &out[static_cast<uint64_t>(r) * row];
    for (uint64_t x = 0; x < row; ++x) o[x] = s[x % sd[nd - 1]];
  }
  return out;
}

void check_quality(const std::vector<float>& x, const std::vector<float>& y, double eb, Quality& q) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sq = 0, mx = 0;
  uint64_t bad = 0, finite = 0;
#pragma omp parallel for reduction(min : lo) reduction(max : hi, mx) reduction(+ : sq, bad, finite)
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    const float a = x[i], b = y[i];
    if (!std::isfinite(a)) {
      bad += std::memcmp(&a, &b, 4) != 0;
      continue;
    }
    const double err = std::fabs(static_cast<double>(a) - static_cast<double>(b));
    bad += !(err <= eb) || !(std::fabs(a - b) <= static_cast<float>(eb)) || !std::isfinite(b);
    mx = std::max(mx, err);
    sq += err * err;
    lo = std::min(lo, static_cast<double>(a));
    hi = std::max(hi, static_cast<double>(a));
    ++finite;
  }
  q.bad_points = bad;
  q.max_err = mx;
  const double mse = finite ? sq / static_cast<double>(finite) : 0;
  q.psnr = mse > 0 ? 20 * std::log10(hi - lo) - 10 * std::log10(mse) : std::numeric_limits<double>::infinity();
}

}  // namespace sciz::bench
