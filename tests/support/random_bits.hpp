// Bit streams for the mdr coder tests: n bytes whose bits are independently set with the given
// density, reproducible from the seed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace sciz::test {

inline std::vector<uint8_t> random_bits(size_t n, double density, uint32_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution bit(density);
  std::vector<uint8_t> v(n, 0);
  for (auto& b : v)
    for (int k = 0; k < 8; ++k) b |= static_cast<uint8_t>(bit(rng)) << k;
  return v;
}

}  // namespace sciz::test
