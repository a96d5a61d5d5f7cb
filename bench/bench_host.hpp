// Host-side parts of sciz_bench, compiled as C++ so OpenMP applies: loading and tiling the
// field, and checking every decoded point against the bound.
#pragma once
#include <sciz/types.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace sciz::bench {

// Reads a raw little-endian f32 file of `dims` and repeats it tile[k] times along axis k
// (periodic copies). Throws Error(io_error) when the file is missing or short.
std::vector<float> load_tiled(const std::string& path, const Shape& dims, const Shape& tile, Shape& out_shape);

struct Quality {
  double ratio = 0, psnr = 0, max_err = 0, eb = 0;
  uint64_t bad_points = 0, stream_bytes = 0, outliers = 0, exact = 0;
  bool same_as_cpu = false;
};

// Every point against the bound, in double and in float as the tests check (non-finite
// values must come back bit for bit); PSNR over the finite value range.
void check_quality(const std::vector<float>& x, const std::vector<float>& y, double eb, Quality& q);

}  // namespace sciz::bench
