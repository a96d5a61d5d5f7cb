// Threads that drive chunks through GPUs: each keeps one CUDA stream per device, so chunks on
// different workers overlap (one's host synchronization and launches hide behind another's
// kernels and copies). Threads and streams are made once per process: a call that needs them
// pays neither thread creation nor stream creation.
#pragma once
#include <cstdint>
#include <functional>

#include "core/cuda_fwd.hpp"

namespace sciz::workers {

// Runs f(w) for w in [0, k) on pooled threads and returns when all have finished; rethrows the
// first exception. Calls from several threads share the pool; a task must never wait for a
// task of the same call that has not started (chunks are taken in order from a counter, so
// the task that holds chunk i - 1 is always running).
void run(int k, const std::function<void(int)>& f);

// The calling pooled thread's own stream on device `device` (made on first use, non-blocking).
cudaStream_t stream_for(int device);

}  // namespace sciz::workers
