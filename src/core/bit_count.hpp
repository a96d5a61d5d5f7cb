// Set bits without a library call: std::popcount and __builtin_popcount are libgcc calls on the
// baseline x86-64 target (no POPCNT instruction), which took a seventh of an mdr retrieval's
// time; these are a dozen inline operations (SWAR).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>

namespace sciz {

inline int set_bits(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
}

inline int set_bits(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

// Set bits of a byte string, 8 bytes at a time.
inline uint64_t set_bits_in(std::span<const uint8_t> raw) {
  uint64_t c = 0;
  for (size_t at = 0; at < raw.size(); at += 8) {
    uint64_t x = 0;
    std::memcpy(&x, raw.data() + at, std::min<size_t>(8, raw.size() - at));
    c += static_cast<uint64_t>(set_bits(x));
  }
  return c;
}

}  // namespace sciz
