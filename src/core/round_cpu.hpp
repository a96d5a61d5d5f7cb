// Round-half-even and |v| for the host's vectorizable loops (the delta and lorenzo CPU twins).
// rint/rintf is a libm call on x86-64 without SSE4.1 and blocks vectorization; rint_ne is an
// inline equal to it bit for bit in round-to-nearest-even (the default mode, which the formats
// assume for every operation) whenever T arithmetic is evaluated in T (FLT_EVAL_METHOD == 0:
// x86-64 SSE, ARM; otherwise it is std::rint). Proof, with M = 2^(p-1) (p = 24 or 53
// significand bits) and a = |v|:
//  - a < M (finite): a + M lies in [M, 2M), where representable numbers are exactly the
//    integers, so the addition returns the integer nearest to a + M, ties to the even one; M is
//    even, so that is M + rint(a). M + rint(a) <= 2M is representable and (M + rint(a)) - M is
//    exact (Sterbenz), so t = rint(a). rint is odd-symmetric under round-half-even (rint(-a) =
//    -rint(a), including -0 for a < 1/2), and copysign(t, v) puts back v's sign (t >= 0).
//  - a >= M (finite): v has no fraction bits (its ulp is >= 1), so rint(v) = v.
//  - NaN: a < M is false, v is returned (a NaN, as rint). +-Inf: rint(+-Inf) = +-Inf = v.
// The compiler may not fold (a + M) - M into a: the project is built without -ffast-math or
// -fassociative-math (the formats forbid them). Tested against std::rint on edge values, whole
// binades around M and random bit patterns (tests/core/round_cpu_test.cpp).
//
// GCC keeps FP operations that might raise a flag out of if-converted (vectorized) code under
// its default -ftrapping-math; the loops that call these sit in a no-trapping-math region of
// their own, and these helpers carry the same option so that they inline there. It changes no
// value (every operation is still exactly rounded in the default mode). The builtins are the
// plain fabs/copysign (std::fabs would be defined outside the region).
#pragma once
#include <cfloat>
#include <cmath>

namespace sciz {

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif
inline float fabs_nt(float v) { return __builtin_fabsf(v); }
inline double fabs_nt(double v) { return __builtin_fabs(v); }
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
inline float rint_ne(float v) {
  const float a = __builtin_fabsf(v);
  const float t = __builtin_copysignf((a + 0x1p23f) - 0x1p23f, v);
  return a < 0x1p23f ? t : v;
}
inline double rint_ne(double v) {
  const double a = __builtin_fabs(v);
  const double t = __builtin_copysign((a + 0x1p52) - 0x1p52, v);
  return a < 0x1p52 ? t : v;
}
#else
inline float rint_ne(float v) { return std::rint(v); }
inline double rint_ne(double v) { return std::rint(v); }
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

}  // namespace sciz
