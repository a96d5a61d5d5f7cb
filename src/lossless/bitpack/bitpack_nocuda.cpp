// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "lossless/bitpack/bitpack.hpp"

namespace sciz::bitpack {
std::vector<uint8_t> encode_cuda(const uint16_t*, uint64_t, uint16_t, cudaStream_t) {
  fail(Status::no_device, "bitpack: this sciz was built without CUDA");
}
void decode_cuda(std::span<const uint8_t>, uint16_t*, uint64_t, cudaStream_t) {
  fail(Status::no_device, "bitpack: this sciz was built without CUDA");
}
}  // namespace sciz::bitpack
