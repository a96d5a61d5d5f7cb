#include "refactor/mdr/order.hpp"

namespace sciz::mdr {

std::vector<std::pair<int, int>> greedy_order(const std::vector<LevelInfo>& levels,
                                              const std::vector<std::vector<uint64_t>>& sizes) {
  const int nl = static_cast<int>(levels.size());
  std::vector<int> t(nl, 0);
  std::vector<std::pair<int, int>> order;
  for (;;) {
    // The best run of next groups over every level and length: a group that gains little
    // but precedes one that gains much is taken with it (a convex-hull step, not a myopic one).
    int best_l = -1, best_j = 0;
    double best = 0;
    bool left = false;
    for (int l = 0; l < nl; ++l) {
      const LevelInfo& lv = levels[l];
      double cost = 0;
      for (int j = 1; t[l] + j <= lv.groups(); ++j) {
        left = true;
        cost += static_cast<double>(sizes[l][t[l] + j - 1]);
        const double gain = lv.err[t[l]] - lv.err[t[l] + j];
        if (gain > 0 && gain / cost > best) best = gain / cost, best_l = l, best_j = j;
      }
    }
    if (!left) return order;
    if (best_l < 0) {  // nothing left lowers the sum: the rest, level by level
      for (int l = 0; l < nl; ++l)
        for (; t[l] < levels[l].groups(); ++t[l]) order.emplace_back(l, t[l]);
      return order;
    }
    for (int j = 0; j < best_j; ++j) order.emplace_back(best_l, t[best_l]++);
  }
}

}  // namespace sciz::mdr
