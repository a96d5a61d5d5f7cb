// Grid sizes of the grid-stride kernels: enough CTAs to cover `items` at `per_cta` each, at
// least one (a launch of zero CTAs is an error), at most kMaxGrid (the kernels stride beyond).
// Host-only: the .cu files of every family share it, so their launch rules cannot drift.
#pragma once
#include <algorithm>
#include <cstdint>

namespace sciz::gpu {

inline constexpr uint64_t kMaxGrid = uint64_t{1} << 20;

inline unsigned grid_for(uint64_t items, uint64_t per_cta) {
  return static_cast<unsigned>(std::clamp<uint64_t>((items + per_cta - 1) / per_cta, 1, kMaxGrid));
}

// How n elements of `elem` bytes at `address` split for 16-byte vector loads: `head` elements
// before the first 16-byte boundary, then `vecs` whole vectors, then a scalar tail. An array
// not aligned to its element size, or too short to reach a boundary, is all head (vecs 0).
struct VectorSplit {
  uint64_t head, vecs;
};
inline VectorSplit vector_split(uintptr_t address, uint64_t n, uint64_t elem) {
  const uint64_t head = ((16 - (address & 15)) & 15) / elem;
  if (address % elem != 0 || head >= n) return {n, 0};
  return {head, (n - head) / (16 / elem)};
}

}  // namespace sciz::gpu
