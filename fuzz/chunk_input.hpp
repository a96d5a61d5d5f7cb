// One chunk as the pipelines' decoders see it, without the container around it: the format of
// the fuzz_chunk target's inputs, so that mutations land in params and sections rather than
// in framing the container would refuse first. Little-endian:
//
//   u8 format version, u8 dtype (1 f32, 2 f64), u8 ndims (1..4), u16 dims[ndims],
//   f64 resolved bound, u8 name length, name, u16 params length, params,
//   u8 section count, per section { u32 id, u32 length, bytes }
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/container.hpp"

namespace sciz::fuzz {

// A parsed chunk that owns the bytes its section views point into.
struct OwnedChunk {
  std::vector<uint8_t> bytes;
  ParsedChunk chunk;
};

// nullopt when the input does not follow the layout above (not an error of the decoder).
std::optional<OwnedChunk> read_chunk_input(std::span<const uint8_t> in);

// The layout above for a chunk parsed from a real stream (the seed corpus); nullopt when its
// shape does not fit in u16 dims.
std::optional<std::vector<uint8_t>> write_chunk_input(const ParsedChunk& c);

}  // namespace sciz::fuzz
