// Field-sized copies between host and device at PCIe speed. Pinned host memory is copied by
// DMA directly; pageable memory goes through pinned staging buffers (kept for the process and
// reused across calls), filled or drained by host threads in parallel while the DMA of the
// previous piece runs: a plain pageable cudaMemcpy ran at 7.7 GB/s H2D and 14 D2H on the H100
// host, one host thread's memcpy is the limit.
#pragma once
#include <cstddef>

#include "core/cuda_fwd.hpp"

namespace sciz::dev {

// Queues the copy of h_src[0, bytes) to d_dst on s. Pinned h_src: asynchronous, keep it alive
// until s is synchronized. Pageable h_src: returns once every byte has been read from it.
void upload(void* d_dst, const void* h_src, size_t bytes, cudaStream_t s);

// Copies d_src[0, bytes) (after the work queued on s) to h_dst and returns when h_dst holds
// it (synchronizes s).
void download(void* h_dst, const void* d_src, size_t bytes, cudaStream_t s);

// Frees the staging buffers of every device once their last copies are done (a later call
// pins new ones).
void release_staging();

}  // namespace sciz::dev
