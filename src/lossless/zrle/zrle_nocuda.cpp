// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "lossless/zrle/zrle.hpp"

namespace sciz::zrle {
DeviceTokens tokens_cuda(const uint16_t*, uint64_t, uint16_t, cudaStream_t) {
  fail(Status::no_device, "zero runs: this sciz was built without CUDA");
}
void expand_cuda(const uint16_t*, const uint16_t*, uint64_t, uint32_t, uint16_t, uint16_t*, uint64_t, cudaStream_t) {
  fail(Status::no_device, "zero runs: this sciz was built without CUDA");
}
}  // namespace sciz::zrle
