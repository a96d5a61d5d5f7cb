// Lossless coding of uint8 quant codes (interp's codes section), one function each way so
// that the stage lists (`interp-cr`, `interp-tp`) can replace the body without touching the
// pipeline. Today: the codes widened to 16 bits through the 16-bit stages of
// lossless/codes (huffman, rle, rle+huffman, zrle+huffman, the smallest sized exactly).
//
// Section: u8 stage (a Lossless value), 7 zero bytes, then that stage's blob.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace sciz::bytecodes {

inline constexpr uint16_t kCentre = 128;  // the code of a zero residual

std::vector<uint8_t> encode_cpu(std::span<const uint8_t> codes);
// Bytes encode_cpu would write (the tuner sizes samples with it).
uint64_t encoded_bytes(std::span<const uint8_t> codes);
// Validates the section (the stage's own checks, and every code < 256) before writing out.
void decode_cpu(std::span<const uint8_t> sec, std::span<uint8_t> out);
// The stage a section names, for display ("unknown" when damaged).
const char* stage_name(std::span<const uint8_t> sec);

}  // namespace sciz::bytecodes
