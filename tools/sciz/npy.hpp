// Reader for the .npy preamble (format versions 1.0, 2.0, 3.0): dtype, shape, data offset.
// Only little-endian float32/float64 in C order are accepted; anything else is refused by name
// rather than reinterpreted.
#pragma once
#include <sciz/types.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace sciz::cli {

inline constexpr size_t kNpyMagicLen = 6;
inline constexpr size_t kNpyFixedLen = 12;  // enough for magic, version and any length field

bool has_npy_magic(const uint8_t* p, size_t n);

// Size of the whole preamble (magic .. end of the header dict), from its first kNpyFixedLen
// bytes (fewer only if the file is that short). `what` names the file in messages.
uint64_t npy_preamble_size(const uint8_t* p, size_t n, const std::string& what);

struct NpyHeader {
  DType dtype;
  Shape shape;
  uint64_t data_offset;
};

// p holds the whole preamble (npy_preamble_size bytes).
NpyHeader parse_npy_preamble(const uint8_t* p, size_t n, const std::string& what);

}  // namespace sciz::cli
