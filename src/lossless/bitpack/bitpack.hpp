// Lossless stage `bitpack`: 16-bit symbols <-> bytes. CPU and CUDA twins write one format.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/cuda_fwd.hpp"

namespace sciz::bitpack {

uint64_t max_encoded_bytes(uint64_t n);

// centre must satisfy |sym - centre| < 32768 for every symbol (true for quant codes, whose
// centre is the radius).
std::vector<uint8_t> encode_cpu(std::span<const uint16_t> sym, uint16_t centre);
// Throws invalid_argument unless context_fits(alphabet, centre) (bitpack_math.hpp): what both
// twins' codes stages check before they encode.
void require_context(uint32_t alphabet, uint16_t centre);
// Validates the header, every width and the total length against `out.size()` before
// writing anything; throws Error(corrupt_stream) on any mismatch.
void decode_cpu(std::span<const uint8_t> enc, std::span<uint16_t> out);

// CUDA twin: symbols / output on the device, encoded bytes on the host.
std::vector<uint8_t> encode_cuda(const uint16_t* d_sym, uint64_t n, uint16_t centre, cudaStream_t stream);
void decode_cuda(std::span<const uint8_t> enc, uint16_t* d_out, uint64_t n, cudaStream_t stream);

// Shared validation: parses the header and checks widths against the length. Returns the
// total number of 32-bit words. Both decoders call it before touching memory.
struct Parsed {
  uint64_t n;
  uint16_t centre;
  const uint8_t* widths;
  const uint32_t* words;  // may be unaligned in a caller's buffer: read with memcpy on host
  uint64_t total_words;
};
Parsed parse(std::span<const uint8_t> enc, uint64_t expected_n);

}  // namespace sciz::bitpack
