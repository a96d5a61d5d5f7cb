// Built only without CUDA.
#include <sciz/error.hpp>

#include "core/host_transfer.hpp"

namespace sciz::dev {
void upload(void*, const void*, size_t, cudaStream_t) { fail(Status::no_device, "this sciz was built without CUDA"); }
void download(void*, const void*, size_t, cudaStream_t) { fail(Status::no_device, "this sciz was built without CUDA"); }
void release_staging() {}
}  // namespace sciz::dev
