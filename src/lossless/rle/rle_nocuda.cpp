// Built only without CUDA (see bitpack_nocuda.cpp).
#include <sciz/error.hpp>

#include "lossless/rle/rle.hpp"

namespace sciz::rle {
namespace {
[[noreturn]] void no_cuda() { fail(Status::no_device, "rle: this sciz was built without CUDA"); }
}  // namespace
DeviceRuns runs_cuda(const uint16_t*, uint64_t, cudaStream_t) { no_cuda(); }
void expand_cuda(const uint16_t*, const uint16_t*, uint64_t, uint16_t*, uint64_t, cudaStream_t) { no_cuda(); }
uint64_t count_runs_cuda(const uint16_t*, uint64_t, cudaStream_t) { no_cuda(); }
std::vector<uint8_t> encode_cuda(const uint16_t*, uint64_t, cudaStream_t) { no_cuda(); }
void decode_cuda(std::span<const uint8_t>, uint16_t*, uint64_t, cudaStream_t) { no_cuda(); }
}  // namespace sciz::rle
