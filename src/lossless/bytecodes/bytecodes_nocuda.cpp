// Built only without CUDA: the same refusal as every other CUDA entry point.
#include <sciz/error.hpp>

#include "lossless/bytecodes/bytecodes.hpp"

namespace sciz::bytecodes {

std::vector<uint8_t> encode_cuda(const uint8_t*, uint64_t, cudaStream_t) {
  fail(Status::no_device, "bytecodes: this sciz was built without CUDA");
}
void decode_cuda(std::span<const uint8_t>, uint8_t*, uint64_t, cudaStream_t) {
  fail(Status::no_device, "bytecodes: this sciz was built without CUDA");
}

}  // namespace sciz::bytecodes
