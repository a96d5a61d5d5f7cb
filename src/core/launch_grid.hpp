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

}  // namespace sciz::gpu
