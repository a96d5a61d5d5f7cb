// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "lossless/codes/codes_device.hpp"

namespace sciz::codes {
namespace {
[[noreturn]] void no_cuda() { fail(Status::no_device, "codes: this sciz was built without CUDA"); }
}  // namespace
DeviceEncoder::DeviceEncoder(const uint16_t*, uint64_t, uint32_t, uint16_t, Lossless, Readback& rb) : rb_(rb) { no_cuda(); }
void DeviceEncoder::launch(cudaStream_t) { no_cuda(); }
DeviceEncoded DeviceEncoder::finish(DeviceStatus*, cudaStream_t) { no_cuda(); }
DeviceEncoded encode_device(const uint16_t*, uint64_t, uint32_t, uint16_t, Lossless, DeviceStatus*, cudaStream_t) { no_cuda(); }
void decode_device(Lossless, DeviceSpan, uint16_t*, uint64_t, DeviceStatus*, cudaStream_t) { no_cuda(); }
}  // namespace sciz::codes
