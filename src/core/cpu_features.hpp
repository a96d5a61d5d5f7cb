// Whether a module's AVX2 path may run: the CPU has AVX2 and the module's baseline switch
// (SCIZ_<MODULE>_BASELINE_ISA, which ctest sets to run the scalar twins as well) is unset.
// Callers keep the answer in a function-local static: the environment is read once.
#pragma once
#include <cstdlib>

namespace sciz {

inline bool avx2_allowed(const char* baseline_switch) {
#if defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_supports("avx2") && std::getenv(baseline_switch) == nullptr;
#else
  (void)baseline_switch;
  return false;
#endif
}

}  // namespace sciz
