// Lossless coding of quant codes: runs the stage a pipeline asks for, or picks one.
//
// Selection (Lossless::auto_select): the histogram gives the exact huffman size (building the
// codebook from 1,024 bins costs a fraction of a millisecond, so no estimate is needed). A run
// count gives floors for rle (4 bytes a run) and rle+huffman (rle_huffman_floor in select.hpp:
// the least Huffman cost the run values and lengths could have, given the histogram, the zero
// runs and the centre code's runs; never below 2 bits a run); the histogram
// without its centre bin gives one for zrle+huffman (the Huffman size of the non-centre codes
// plus a bit per token). A stage whose floor does not beat the best exact size so far is never
// built; the others are built, their streams get histograms and codebooks, and the smallest
// exact size wins, ties going to the simpler stage. The choice depends on counts only, so
// both devices make the same one.
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

// encode_cpu(codes, alphabet, centre, stage).bytes.size() for a concrete stage, from the
// histograms that choosing a stage builds (bitpack, which has none, is encoded to be sized).
uint64_t encoded_bytes_cpu(std::span<const uint16_t> codes, uint32_t alphabet, uint16_t centre, Lossless stage);

// Stage-by-stage validation happens inside each decoder before it writes.
void decode_cpu(Lossless stage, std::span<const uint8_t> bytes, std::span<uint16_t> out);
void decode_cuda(Lossless stage, std::span<const uint8_t> bytes, uint16_t* d_out, uint64_t n, cudaStream_t s);

// Largest blob any stage may write for n codes (rle+huffman: two huffman blobs of n symbols,
// each at most 16 bits a symbol plus chunk counts and a full codebook).
inline uint64_t max_encoded_bytes(uint64_t n) { return 4 * n + 2 * (2 * n + n / 4 + 4 * 65536 + 64) + 64; }

// rle+huffman blob: u64 n, u64 runs, u64 bytes of the values' huffman blob, that blob, then the
// run lengths' huffman blob.
inline constexpr size_t kRleHuffmanHeader = 24;
// zrle+huffman blob: u64 n, u64 tokens, u32 tail, u16 centre, u16 0, u64 bytes of the token
// values' huffman blob, that blob, then the zero runs' huffman blob.
inline constexpr size_t kZrleHuffmanHeader = 32;

}  // namespace sciz::codes
