// Built only without CUDA: a Readback is only made by device paths, which refuse earlier.
#include <sciz/error.hpp>

#include "lossless/codes/readback.hpp"

namespace sciz {
void release_readback_cache() {}
Readback::~Readback() = default;
void Readback::allocate(cudaStream_t) { fail(Status::no_device, "this sciz was built without CUDA"); }
void Readback::fetch(cudaStream_t) { fail(Status::no_device, "this sciz was built without CUDA"); }
void Readback::fetch_deferred(cudaStream_t) { fail(Status::no_device, "this sciz was built without CUDA"); }
}  // namespace sciz
