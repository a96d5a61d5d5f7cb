// What both refactoring twins compute per value before the decomposition (docs/MDR.md section
// 1, "Values stored apart"), once: which values are carried exactly, the value the
// decomposition sees, and the ranges the header stores. The CPU twin folds them per thread
// (refactor_cpu.cpp), the CUDA twin per block (refactor_cuda.cu).
#pragma once
#include <cmath>
#include <cstdint>

#include "core/hd.hpp"

namespace sciz::mdr {

// f64 values beyond this are carried exactly: a coefficient x - P(x) of two of them could
// overflow. No f32 value comes near it.
inline constexpr double kHuge = 0x1p1000;
inline constexpr double kMaxFinite = 0x1.fffffffffffffp1023;

// NaN, Inf and f64 values beyond kHuge. Written as one comparison that NaN fails.
template <class T>
SCIZ_HD bool is_special(T v) {
  return !(fabs(static_cast<double>(v)) <= kHuge);
}

// What the decomposition sees: the value in double, or NaN where fill_*() will put a value
// that costs no coefficient.
template <class T>
SCIZ_HD double decomposed_value(T v) {
  return is_special(v) ? static_cast<double>(NAN) : static_cast<double>(v);
}

// One pass over the field: the finite values' range (the header's, and a relative bound's),
// the range of the values the decomposition sees (the fill) and their max |x| (M).
struct Stats {
  double fmin, fmax;  // finite values
  double smin, smax;  // values that are not special
  double mabs;
  uint64_t special;
};

SCIZ_HD Stats stats_none() { return {INFINITY, -INFINITY, INFINITY, -INFINITY, 0.0, 0}; }

SCIZ_HD double min2(double a, double b) { return b < a ? b : a; }
SCIZ_HD double max2(double a, double b) { return b > a ? b : a; }

template <class T>
SCIZ_HD void stats_visit(Stats& s, T v) {
  const double d = static_cast<double>(v);
  if (fabs(d) <= kMaxFinite) s.fmin = min2(s.fmin, d), s.fmax = max2(s.fmax, d);
  if (is_special(v)) {
    ++s.special;
  } else {
    s.smin = min2(s.smin, d), s.smax = max2(s.smax, d), s.mabs = max2(s.mabs, fabs(d));
  }
}

SCIZ_HD Stats stats_combine(const Stats& a, const Stats& b) {
  return {min2(a.fmin, b.fmin), max2(a.fmax, b.fmax), min2(a.smin, b.smin),
          max2(a.smax, b.smax), max2(a.mabs, b.mabs), a.special + b.special};
}

// Which zero a min or a max keeps of -0 and +0 depends on the order of the reduction (the
// thread count, the blocks): + 0.0 turns -0 into +0 and leaves every other value alone, so the
// file depends on neither.
SCIZ_HD Stats stats_canonical(Stats s) {
  s.fmin += 0.0, s.fmax += 0.0, s.smin += 0.0, s.smax += 0.0;
  return s;
}

}  // namespace sciz::mdr
