// Lossless stages as named, composable steps (LC's model): each stage maps bytes to bytes and
// is known by a name ("rre4") and by a one-byte id that streams record. The ids are part of the
// stream format forever: never renumber one, only add.
//
// Two kinds of stage:
// - codes stages (huffman, rle, rle+huffman, zrle+huffman, bitpack) read quant codes of 1 or
//   2 bytes and need a Context (the code width, the alphabet and the centre code). A chain may
//   start with one of them and only there.
// - byte stages (tcms, bit, rre, rze in symbol widths 1, 2, 4, 8) read any bytes as w-byte
//   little-endian symbols, a trailing partial symbol carried verbatim, and need no context.
#pragma once
#include <cstdint>

#include "core/hd.hpp"

namespace sciz::stages {

// Codes stages keep the values of the Lossless enum (lorenzo's params byte); a byte stage's id
// is its family in the high nibble and log2 of its symbol width in the low two bits.
enum class StageId : uint8_t {
  bitpack = 1,
  huffman = 2,
  rle = 3,
  rle_huffman = 4,
  zrle_huffman = 5,
  tcms1 = 0x10, tcms2 = 0x11, tcms4 = 0x12, tcms8 = 0x13,
  bit1 = 0x20, bit2 = 0x21, bit4 = 0x22, bit8 = 0x23,
  rre1 = 0x30, rre2 = 0x31, rre4 = 0x32, rre8 = 0x33,
  rze1 = 0x40, rze2 = 0x41, rze4 = 0x42, rze8 = 0x43,
};

enum class Family : uint8_t { codes = 0, tcms = 1, bit = 2, rre = 3, rze = 4 };

SCIZ_HD Family family_of(StageId id) { return static_cast<Family>(static_cast<uint8_t>(id) >> 4); }
// Symbol width of a byte stage (1, 2, 4 or 8); 0 for a codes stage.
SCIZ_HD int width_of(StageId id) {
  return family_of(id) == Family::codes ? 0 : 1 << (static_cast<uint8_t>(id) & 3);
}
SCIZ_HD StageId byte_stage(Family f, int width) {
  const int log2w = width == 8 ? 3 : width == 4 ? 2 : width == 2 ? 1 : 0;
  return static_cast<StageId>((static_cast<uint8_t>(f) << 4) | log2w);
}

// What a codes stage needs besides the bytes. Byte stages ignore it.
struct Context {
  uint8_t code_width = 2;     // bytes per quant code at the chain's input: 1 (interp) or 2 (lorenzo)
  uint32_t alphabet = 65536;  // every code is below it (at most 256 for 1-byte codes)
  uint16_t centre = 0;        // the code of a zero residual (zrle+huffman, bitpack)
};

// The generic stages cut their input into independent blocks of this many bytes: one CTA per
// block on the GPU, one OpenMP iteration on the CPU. A multiple of every symbol width, so only
// the last block can end in a partial symbol.
inline constexpr uint32_t kBlockBytes = 16384;

}  // namespace sciz::stages
