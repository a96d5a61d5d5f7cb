// Lossless stage `huffman`: 16-bit symbols <-> canonical Huffman bits, CPU and CUDA twins
// writing one format (docs/FORMAT.md, docs/LOSSLESS.md for the decoder design).
//
// Symbols are cut into chunks of `chunk` symbols; a chunk's code bits follow the previous
// chunk's without padding and its bit count is stored as a u16, so any chunk can be decoded
// on its own once a prefix sum over the counts gives its first bit.
//
// Blob: u64 n, u32 chunk, u32 used symbols, u64 total bits, u32 codebook bytes, u32 0,
//       codebook, zero pad to 4, u16 chunk bits [ceil(n / chunk)], zero pad to 4,
//       u32 words [ceil(total bits / 32)], MSB-first.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "lossless/huffman/codebook.hpp"

namespace sciz::huffman {

// Counts per symbol value, a bin per value up to the largest one present at least (on the CPU:
// exactly that many for inputs below 2^18 symbols, 65536 above); `alphabet` bins on the GPU,
// where a symbol >= alphabet is an internal error. Consumers read missing bins as zeros.
std::vector<uint64_t> histogram_cpu(std::span<const uint16_t> sym);
std::vector<uint64_t> histogram_cuda(const uint16_t* d_sym, uint64_t n, uint32_t alphabet, cudaStream_t s);

// Exact blob size for n symbols whose codes take `bits` in total.
uint64_t encoded_bytes(const Codebook& cb, uint64_t n, uint64_t bits, uint32_t chunk = kDefaultChunk);
// The same from the codebook's serialized size (codebook_bytes()).
uint64_t blob_bytes(uint64_t n, uint64_t bits, uint64_t codebook_bytes, uint32_t chunk = kDefaultChunk);

// Every symbol must have a code in cb (built from a histogram covering these symbols).
std::vector<uint8_t> encode_cpu(std::span<const uint16_t> sym, const Codebook& cb, uint32_t chunk = kDefaultChunk);
// The path encode_cpu takes from 2^18 symbols on (every chunk sized, then written, in threads),
// for any input: the tests hold the one-pass path of smaller inputs to its bytes.
std::vector<uint8_t> encode_cpu_chunked(std::span<const uint16_t> sym, const Codebook& cb,
                                        uint32_t chunk = kDefaultChunk);
std::vector<uint8_t> encode_cuda(const uint16_t* d_sym, uint64_t n, const Codebook& cb, cudaStream_t s,
                                 uint32_t chunk = kDefaultChunk);
// Histogram + codebook + encode in one call.
std::vector<uint8_t> encode_cpu(std::span<const uint16_t> sym);
std::vector<uint8_t> encode_cuda(const uint16_t* d_sym, uint64_t n, uint32_t alphabet, cudaStream_t s);

// Both decoders call parse() first: header, codebook, every chunk's bit count and the total
// against the blob size, before touching memory. A chunk whose codes do not end exactly at
// its stated bit count is reported as corrupt_stream.
void decode_cpu(std::span<const uint8_t> blob, std::span<uint16_t> out);
void decode_cuda(std::span<const uint8_t> blob, uint16_t* d_out, uint64_t n, cudaStream_t s);

struct Parsed {
  uint64_t n = 0;
  uint32_t chunk = 0;
  uint64_t chunks = 0;
  uint64_t total_bits = 0;
  Codebook cb;
  size_t chunk_bits_at = 0;  // byte offsets inside the blob
  size_t words_at = 0;
  uint64_t words = 0;
};
Parsed parse(std::span<const uint8_t> blob, uint64_t expected_n);

// Layout shared by the writers.
struct Layout {
  size_t chunk_bits_at, words_at, bytes;
};
Layout layout(size_t codebook_bytes, uint64_t chunks, uint64_t words);
std::vector<uint8_t> header_and_codebook(const Lengths& l, uint64_t n, uint32_t chunk, uint64_t total_bits);
std::vector<uint8_t> header_and_codebook(const Codebook& cb, uint64_t n, uint32_t chunk, uint64_t total_bits);

}  // namespace sciz::huffman
