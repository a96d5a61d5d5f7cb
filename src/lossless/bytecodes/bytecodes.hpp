// Lossless coding of uint8 quant codes (interp's codes section), one function each way so
// that the stage lists (`interp-cr`, `interp-tp`) can replace the body without touching the
// pipeline. Today: the codes widened to 16 bits through the 16-bit stages of
// lossless/codes (huffman, rle, rle+huffman, zrle+huffman, the smallest sized exactly).
//
// Section: u8 stage (a Lossless value), 7 zero bytes, then that stage's blob.
#pragma once
#include <sciz/types.hpp>

#include <cstdint>
#include <span>
#include <vector>

#include "core/cuda_fwd.hpp"

namespace sciz::bytecodes {

inline constexpr uint16_t kCentre = 128;  // the code of a zero residual
inline constexpr size_t kHeader = 8;

// The section's header: its stage (throws corrupt_stream naming a bad one), and a header put
// in front of a stage's blob.
Lossless section_stage(std::span<const uint8_t> sec);
std::vector<uint8_t> with_header(Lossless stage, const std::vector<uint8_t>& blob);

std::vector<uint8_t> encode_cpu(std::span<const uint8_t> codes);
// Bytes encode_cpu would write (the tuner sizes samples with it).
uint64_t encoded_bytes(std::span<const uint8_t> codes);
// The same, estimated from small histograms: the smaller of the huffman and zrle+huffman
// candidates, each sized exactly (rle and rle+huffman, which these codes hardly ever take,
// are left out). A fraction of a millisecond on a sample where encoded_bytes() takes several
// (its 65,536-bin histograms), so the tuner sizes its candidates with this one.
uint64_t estimated_bytes(std::span<const uint8_t> codes);
// The stage estimate alone for any codes below `alphabet` around `centre` (the tuner sizes
// Lorenzo's 16-bit codes with it too).
template <class Sym>
uint64_t estimate_stage_bytes(std::span<const Sym> codes, uint32_t alphabet, uint16_t centre);
// Validates the section (the stage's own checks, and every code < 256) before writing out.
void decode_cpu(std::span<const uint8_t> sec, std::span<uint8_t> out);
// The same bytes from codes on the device (d_codes: n bytes), and back into device memory,
// validated as decode_cpu validates. No section crosses to the device: they are host bytes.
std::vector<uint8_t> encode_cuda(const uint8_t* d_codes, uint64_t n, cudaStream_t s);
void decode_cuda(std::span<const uint8_t> sec, uint8_t* d_out, uint64_t n, cudaStream_t s);

// The stage a section names, for display ("unknown" when damaged).
const char* stage_name(std::span<const uint8_t> sec);

}  // namespace sciz::bytecodes
