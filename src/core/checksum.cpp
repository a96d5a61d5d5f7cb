// xxHash64 written from the published algorithm description (four lanes of 8-byte
// multiply-rotate rounds, a merge, then the tail and an avalanche).
#include "core/checksum.hpp"

#include <cstring>
#include <vector>

namespace sciz {
namespace {
constexpr uint64_t P1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t P2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t P3 = 0x165667B19E3779F9ull;
constexpr uint64_t P4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t P5 = 0x27D4EB2F165667C5ull;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline uint64_t load64(const unsigned char* p) {
  uint64_t v;  // the stream is little-endian and so are the hosts we build for
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t load32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t round(uint64_t acc, uint64_t input) {
  acc += input * P2;
  return rotl(acc, 31) * P1;
}
inline uint64_t merge(uint64_t acc, uint64_t lane) {
  acc ^= round(0, lane);
  return acc * P1 + P4;
}
}  // namespace

uint64_t xxh64(const void* data, size_t len, uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  const unsigned char* end = p + len;
  uint64_t h;
  if (len >= 32) {
    uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
    const unsigned char* limit = end - 32;
    do {
      v1 = round(v1, load64(p));
      v2 = round(v2, load64(p + 8));
      v3 = round(v3, load64(p + 16));
      v4 = round(v4, load64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(h, v1);
    h = merge(h, v2);
    h = merge(h, v3);
    h = merge(h, v4);
  } else {
    h = seed + P5;
  }
  h += static_cast<uint64_t>(len);
  while (p + 8 <= end) {
    h ^= round(0, load64(p));
    h = rotl(h, 27) * P1 + P4;
    p += 8;
  }
  if (p + 4 <= end) {
    h ^= static_cast<uint64_t>(load32(p)) * P1;
    h = rotl(h, 23) * P2 + P3;
    p += 4;
  }
  while (p < end) {
    h ^= static_cast<uint64_t>(*p) * P5;
    h = rotl(h, 11) * P1;
    ++p;
  }
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

uint64_t chunked_xxh64(const void* data, size_t len, size_t block) {
  const auto* p = static_cast<const unsigned char*>(data);
  const int64_t chunks = static_cast<int64_t>((len + block - 1) / block);
  std::vector<unsigned char> digests(static_cast<size_t>(chunks) * 8);
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (int64_t c = 0; c < chunks; ++c) {
    const size_t at = static_cast<size_t>(c) * block;
    const uint64_t d = xxh64(p + at, len - at < block ? len - at : block);
    for (int b = 0; b < 8; ++b) digests[static_cast<size_t>(c) * 8 + b] = static_cast<unsigned char>(d >> (8 * b));
  }
  return xxh64(digests.data(), digests.size());
}

}  // namespace sciz
