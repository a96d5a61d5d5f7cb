// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "lossless/huffman/huffman.hpp"

namespace sciz::huffman {
namespace {
[[noreturn]] void no_cuda() { fail(Status::no_device, "huffman: this sciz was built without CUDA"); }
}  // namespace
std::vector<uint64_t> histogram_cuda(const uint16_t*, uint64_t, uint32_t, cudaStream_t) { no_cuda(); }
std::vector<uint8_t> encode_cuda(const uint16_t*, uint64_t, const Codebook&, cudaStream_t, uint32_t) { no_cuda(); }
std::vector<uint8_t> encode_cuda(const uint16_t*, uint64_t, uint32_t, cudaStream_t) { no_cuda(); }
void decode_cuda(std::span<const uint8_t>, uint16_t*, uint64_t, cudaStream_t) { no_cuda(); }
}  // namespace sciz::huffman
