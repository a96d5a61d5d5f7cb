// The filter's parameters in HDF5's cd_values (unsigned 32-bit words), a frozen layout that
// every file written with the filter carries: docs/HDF5.md states it word by word. Old files
// must stay readable, so the layout only ever grows behind a new layout version.
#pragma once
#include <sciz/sciz.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sciz::h5 {

// From the range HDF5 keeps for testing (256-511), until The HDF Group registers one.
inline constexpr int kFilterId = 306;
inline constexpr uint32_t kLayoutVersion = 1;
inline constexpr size_t kMaxPipelineName = 64;
inline constexpr size_t kMaxOptions = 16;
inline constexpr size_t kMaxChunkRank = 32;  // HDF5's own limit on a dataspace's rank

// Option ids of the layout (the values are those of docs/HDF5.md, not of the C++ enums).
enum class OptionId : uint32_t { radius = 1, lossless = 2, delta_chain = 3, szx_block = 4 };

// What set_local learns from the dataset.
struct ChunkLayout {
  DType dtype = DType::f32;
  std::vector<uint64_t> dims;  // the HDF5 chunk, slowest first (any rank up to kMaxChunkRank)
};

struct FilterParams {
  ErrorBound eb;
  std::string pipeline = "lorenzo";
  std::vector<std::pair<uint32_t, uint32_t>> options;  // (OptionId, value), in the order given
  std::optional<ChunkLayout> chunk;                     // absent until set_local has run
};

// Throws Error(invalid_argument) naming the word that is wrong, Error(unsupported) for a layout
// version this code does not know. Never reads outside `cd`.
FilterParams parse_cd_values(std::span<const unsigned> cd);
std::vector<unsigned> encode_cd_values(const FilterParams& p);

// The compression options the parameters ask for (bound, pipeline and its options).
CompressOptions compress_options(const FilterParams& p);

// The shape sciz sees for an HDF5 chunk: ranks above 4 merge their slowest axes, which keeps
// the bytes in place (a chunk is one C-order block).
Shape sciz_shape(const std::vector<uint64_t>& chunk_dims);

}  // namespace sciz::h5
