// The order of a file's level segments (docs/MDR.md section 5): greedy by error reduction per
// byte, independent of any bound, so that every retrieval is a prefix of it.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "refactor/mdr/format.hpp"

namespace sciz::mdr {

// (level, group) pairs, each level's groups in increasing order. sizes[l][g]: bytes of the
// segment of level l, group g.
std::vector<std::pair<int, int>> greedy_order(const std::vector<LevelInfo>& levels,
                                              const std::vector<std::vector<uint64_t>>& sizes);

}  // namespace sciz::mdr
