// A GPU timeline of one call, from CUPTI's activity records: where a whole-pipeline call spends
// its time (kernels, copies, memsets per CUDA stream, idle gaps between them) and what the host
// threads wait in (synchronizations, allocations). Nsight Systems is not on the device machine;
// this is the part of it the benchmark needs. Built only where CUPTI is found.
#pragma once
#include <cstdio>

namespace gputrace {

bool available();
// Starts recording (kernels, memcpy, memset, runtime API calls of every thread).
void begin();
// Stops, and prints under `title`: the GPU span and busy time, per-activity totals, the
// runtime calls that took the longest in total, and the first `timeline` activities in order.
void end_and_print(const char* title, std::FILE* out, int timeline = 60);

}  // namespace gputrace
