// Every CUDA call and launch is checked: a failure becomes Error(cuda_error) naming the call
// and CUDA's own message, so a broken kernel can never pass silently as a wrong result.
#pragma once
#include <cuda_runtime.h>
#include <sciz/error.hpp>

#include <string>

namespace sciz::dev {

[[noreturn]] inline void cuda_fail(cudaError_t err, const char* what, const char* file, int line) {
  (void)cudaGetLastError();  // clear a non-sticky error so the next check reports its own call
  fail(Status::cuda_error, std::string(what) + " failed: " + cudaGetErrorString(err) + " (" + file + ":" +
                               std::to_string(line) + ")");
}

inline void cuda_check(cudaError_t err, const char* what, const char* file, int line) {
  if (err != cudaSuccess) cuda_fail(err, what, file, line);
}

}  // namespace sciz::dev

#define SCIZ_CUDA_CHECK(call) ::sciz::dev::cuda_check((call), #call, __FILE__, __LINE__)
// After a <<<...>>> launch: catches bad configurations now; faults inside the kernel surface
// at the next checked synchronization.
#define SCIZ_CUDA_CHECK_LAUNCH(kernel_name) \
  ::sciz::dev::cuda_check(cudaGetLastError(), "launch of " kernel_name, __FILE__, __LINE__)
