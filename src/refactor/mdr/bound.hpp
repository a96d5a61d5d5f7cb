// The guaranteed bound of a retrieval (docs/MDR.md section 1, "Rounding"): the sum of the
// levels' measured coefficient errors, plus every rounding the decomposition, the
// recomposition and the final cast to the field's type can add.
#pragma once
#include <sciz/types.hpp>

#include <algorithm>
#include <cmath>

namespace sciz::mdr {

struct BoundModel {
  DType dtype = DType::f32;
  int detail = 0;      // J: levels with a prediction
  int axes = 0;        // depth of a nested mean
  double max_abs = 0;  // M: max |value| the decomposition saw
};

// sum_err: the sum over levels of err[t] for what has been read.
inline double guaranteed_bound(const BoundModel& m, double sum_err) {
  const double u = 0x1p-53, eta = 0x1p-1074;
  const double d = m.axes, big = 2 * (m.max_abs + sum_err);  // M'': every intermediate lies within it
  const double per_level = d * (u * m.max_abs + eta) + 2.01 * u * m.max_abs  // forward: P^ and c^
                           + d * (u * big + eta) + 1.01 * u * big;            // inverse: P^ and P^ + c'
  double e = sum_err + m.detail * per_level;
  // The original is an f32 value, so rounding x' to the nearest f32 moves it by at most
  // min(half an ulp, |x' - x|).
  if (m.dtype == DType::f32) e += std::min(0x1p-24 * big + 0x1p-150, e);
  // Covers the roundings of this evaluation and of the sum of up to 2^12 level errors.
  return e * (1 + 0x1p-40) + eta;
}

}  // namespace sciz::mdr
