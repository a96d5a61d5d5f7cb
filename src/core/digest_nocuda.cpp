// Built only without CUDA.
#include <sciz/error.hpp>

#include "core/digest_cuda.hpp"

namespace sciz::digest {
void chunked_device(const Range*, size_t, size_t, uint64_t*, cudaStream_t) {
  fail(Status::no_device, "this sciz was built without CUDA");
}
}  // namespace sciz::digest
