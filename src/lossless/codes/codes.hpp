// Lossless coding of quant codes: runs the stage a pipeline asks for, or picks one.
//
// Selection (Lossless::auto_select): the histogram gives the exact huffman size (building the
// codebook from 1,024 bins costs microseconds, so no estimate is needed). A run count gives
// the rle size, 4 bytes per run, and a floor for rle+huffman, 2 bits per run; when neither
// floor beats huffman the runs are never built. Otherwise the runs are built, their values and
// lengths get their own histograms and codebooks, and the smallest exact size wins. Ties go
// to the simpler stage. The choice depends on the counts only, so both devices make the same.
#pragma once
#include <sciz/sciz.hpp>

#include <cstdint>
#include <span>
#include <vector>

#include "core/cuda_fwd.hpp"

namespace sciz::codes {

struct Encoded {
  Lossless stage;  // never auto_select
  std::vector<uint8_t> bytes;
};

// alphabet: every code is < alphabet (2 x radius); centre: the code of a zero residual.
Encoded encode_cpu(std::span<const uint16_t> codes, uint32_t alphabet, uint16_t centre, Lossless choice);
Encoded encode_cuda(const uint16_t* d_codes, uint64_t n, uint32_t alphabet, uint16_t centre, Lossless choice,
                    cudaStream_t s);

// Stage-by-stage validation happens inside each decoder before it writes.
void decode_cpu(Lossless stage, std::span<const uint8_t> bytes, std::span<uint16_t> out);
void decode_cuda(Lossless stage, std::span<const uint8_t> bytes, uint16_t* d_out, uint64_t n, cudaStream_t s);

// Largest blob any stage may write for n codes (rle+huffman: two huffman blobs of n symbols,
// each at most 16 bits a symbol plus chunk counts and a full codebook).
inline uint64_t max_encoded_bytes(uint64_t n) { return 4 * n + 2 * (2 * n + n / 4 + 4 * 65536 + 64) + 64; }

// rle+huffman blob: u64 n, u64 runs, u64 bytes of the values' huffman blob, that blob, then the
// run lengths' huffman blob.
inline constexpr size_t kRleHuffmanHeader = 24;

}  // namespace sciz::codes
