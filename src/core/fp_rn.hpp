// Exactly rounded float/double operations that no compiler may fuse with a neighbour: on the
// device the _rn intrinsics (immune to --fmad and to any contraction), on the host the plain
// operators (the project builds with -ffp-contract=off and without fast-math). Predictors
// whose reconstructed values feed later predictions (interp) call these for every operation,
// so the twins round identically by construction.
#pragma once
#include <cmath>

#include "core/hd.hpp"

namespace sciz::fp {

#if defined(__CUDA_ARCH__)
SCIZ_HD float add_rn(float a, float b) { return __fadd_rn(a, b); }
SCIZ_HD double add_rn(double a, double b) { return __dadd_rn(a, b); }
SCIZ_HD float sub_rn(float a, float b) { return __fsub_rn(a, b); }
SCIZ_HD double sub_rn(double a, double b) { return __dsub_rn(a, b); }
SCIZ_HD float mul_rn(float a, float b) { return __fmul_rn(a, b); }
SCIZ_HD double mul_rn(double a, double b) { return __dmul_rn(a, b); }
SCIZ_HD float div_rn(float a, float b) { return __fdiv_rn(a, b); }
SCIZ_HD double div_rn(double a, double b) { return __ddiv_rn(a, b); }
#else
SCIZ_HD float add_rn(float a, float b) { return a + b; }
SCIZ_HD double add_rn(double a, double b) { return a + b; }
SCIZ_HD float sub_rn(float a, float b) { return a - b; }
SCIZ_HD double sub_rn(double a, double b) { return a - b; }
SCIZ_HD float mul_rn(float a, float b) { return a * b; }
SCIZ_HD double mul_rn(double a, double b) { return a * b; }
SCIZ_HD float div_rn(float a, float b) { return a / b; }
SCIZ_HD double div_rn(double a, double b) { return a / b; }
#endif

}  // namespace sciz::fp
