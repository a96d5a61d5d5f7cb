// Built only without CUDA: the same refusal as every other CUDA entry point.
#include <sciz/error.hpp>

#include "lossless/bytecodes/bytecodes.hpp"

namespace sciz::bytecodes {

Packed encode_cuda(const uint8_t*, uint64_t, cudaStream_t) {
  fail(Status::no_device, "bytecodes: this sciz was built without CUDA");
}
void decode_cuda(uint8_t, std::span<const uint8_t>, uint8_t*, uint64_t, cudaStream_t) {
  fail(Status::no_device, "bytecodes: this sciz was built without CUDA");
}
DevicePacked encode_device(const uint8_t*, uint64_t, DeviceStatus*, cudaStream_t) {
  fail(Status::no_device, "bytecodes: this sciz was built without CUDA");
}
void decode_device(uint8_t, DeviceSpan, uint8_t*, uint64_t, DeviceStatus*, cudaStream_t) {
  fail(Status::no_device, "bytecodes: this sciz was built without CUDA");
}

}  // namespace sciz::bytecodes
