// xxHash64 arithmetic (written from the published algorithm description: four lanes of 8-byte
// multiply-rotate rounds over 32-byte stripes, a merge, the tail, an avalanche), once, for the
// host's checksums and the GPU's digest kernels alike.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/hd.hpp"

namespace sciz::xxh {

inline constexpr uint64_t P1 = 0x9E3779B185EBCA87ull;
inline constexpr uint64_t P2 = 0xC2B2AE3D27D4EB4Full;
inline constexpr uint64_t P3 = 0x165667B19E3779F9ull;
inline constexpr uint64_t P4 = 0x85EBCA77C2B2AE63ull;
inline constexpr uint64_t P5 = 0x27D4EB2F165667C5ull;

SCIZ_HD uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Little-endian loads at any alignment (the stream is little-endian and so are our hosts).
SCIZ_HD uint64_t load64(const unsigned char* p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
SCIZ_HD uint32_t load32(const unsigned char* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

SCIZ_HD uint64_t round(uint64_t acc, uint64_t input) {
  acc += input * P2;
  return rotl(acc, 31) * P1;
}
SCIZ_HD uint64_t merge(uint64_t acc, uint64_t lane) {
  acc ^= round(0, lane);
  return acc * P1 + P4;
}

// Lane k's accumulator before any stripe.
SCIZ_HD uint64_t lane_init(int k, uint64_t seed) {
  return k == 0 ? seed + P1 + P2 : k == 1 ? seed + P2 : k == 2 ? seed : seed - P1;
}

// The four lanes after their stripes, merged into one state.
SCIZ_HD uint64_t converge(uint64_t v1, uint64_t v2, uint64_t v3, uint64_t v4) {
  uint64_t h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
  h = merge(h, v1);
  h = merge(h, v2);
  h = merge(h, v3);
  return merge(h, v4);
}

// The last len % 32 bytes at p, then the avalanche. h already holds converge() (or
// seed + P5 for inputs under 32 bytes) plus the total length.
SCIZ_HD uint64_t finish(uint64_t h, const unsigned char* p, size_t rest) {
  // Counts, not `p + 8 <= end`: forming a pointer past the end (or any offset from the null
  // pointer of an empty range) is undefined even when nothing is read through it.
  for (; rest >= 8; rest -= 8, p += 8) {
    h ^= round(0, load64(p));
    h = rotl(h, 27) * P1 + P4;
  }
  if (rest >= 4) {
    h ^= static_cast<uint64_t>(load32(p)) * P1;
    h = rotl(h, 23) * P2 + P3;
    p += 4;
    rest -= 4;
  }
  for (; rest > 0; --rest, ++p) {
    h ^= static_cast<uint64_t>(*p) * P5;
    h = rotl(h, 11) * P1;
  }
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

// The whole hash of len bytes, sequentially (host checksums; small buffers on the device).
SCIZ_HD uint64_t hash(const void* data, size_t len, uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h;
  const size_t stripes = len / 32;
  if (stripes) {
    uint64_t v1 = lane_init(0, seed), v2 = lane_init(1, seed), v3 = lane_init(2, seed), v4 = lane_init(3, seed);
    for (size_t s = 0; s < stripes; ++s, p += 32) {
      v1 = round(v1, load64(p));
      v2 = round(v2, load64(p + 8));
      v3 = round(v3, load64(p + 16));
      v4 = round(v4, load64(p + 24));
    }
    h = converge(v1, v2, v3, v4);
  } else {
    h = seed + P5;
  }
  return finish(h + static_cast<uint64_t>(len), p, len % 32);
}

}  // namespace sciz::xxh
