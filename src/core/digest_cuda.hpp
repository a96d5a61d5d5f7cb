// Section checksums computed where the sections are: the chunked digest of checksum.hpp
// (xxh64 of the little-endian xxh64 digests of consecutive blocks) on the device, the same
// value chunked_xxh64() gives on the host. Host-only interface (digest_cuda.cu).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/cuda_fwd.hpp"

namespace sciz::digest {

struct Range {
  const void* data;  // device pointer
  uint64_t len;
  void* copy_to = nullptr;  // device pointer: the range is also copied there, in the same pass
};

// For each of the k ranges, writes chunked_xxh64(range, block) to d_out[i] (device memory), in
// a few launches queued on s and no synchronization. `ranges` is a host array (copied before
// return). block: a multiple of 32, at least 32. Ranges with copy_to (not overlapping their
// source) are copied there by the threads that hash them: a chunk's sections reach the stream
// and get their checksums in one read of them.
void chunked_device(const Range* ranges, size_t k, size_t block, uint64_t* d_out, cudaStream_t s);

}  // namespace sciz::digest
