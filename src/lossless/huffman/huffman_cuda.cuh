// Device-level huffman entry points, for the benchmark's kernel-only timings and for callers
// that keep everything on the GPU. huffman_cuda.cu wraps them into blob in / blob out.
#pragma once
#include <cstdint>
#include <vector>

#include "core/device.hpp"
#include "lossless/huffman/codebook.hpp"

namespace sciz::huffman::cuda {

// Device copy of DecodeTables: primary, then limit/first/offset, then the sorted symbols.
inline constexpr uint32_t kPrimary = 1u << kTableBits, kSmall = kMaxLen + 1;
inline constexpr uint32_t kTableWords = kPrimary + 3 * kSmall;
std::vector<uint32_t> device_tables(const Codebook& cb);

struct DeviceEncoded {
  dev::Buffer<uint16_t> cbits;
  dev::Buffer<uint32_t> words;
  uint64_t chunks = 0, total_bits = 0;
};
// d_code: Codebook::code on the device. Syncs once, to size the words.
DeviceEncoded encode(const uint16_t* d_sym, uint64_t n, const uint32_t* d_code, uint32_t chunk, cudaStream_t s);
// Asynchronous; a corrupt chunk sets *d_err nonzero.
void decode(const uint16_t* d_cbits, const uint32_t* d_words, uint64_t nwords, uint64_t n, uint32_t chunk,
            const uint32_t* d_tables, uint16_t* d_out, uint32_t* d_err, cudaStream_t s);

}  // namespace sciz::huffman::cuda
