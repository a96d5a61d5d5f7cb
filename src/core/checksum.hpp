// xxHash64 (seed 0) over a byte range: the header checksum and, up to format version 2, one
// checksum per stream section. From version 3 a section's checksum is the chunked digest.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sciz {
uint64_t xxh64(const void* data, size_t len, uint64_t seed = 0);

// Chunked digest: xxh64 of the little-endian u64 xxh64 digests of the consecutive
// kChecksumChunk-byte chunks (the last one shorter; no chunk for an empty range). The chunks
// are hashed in parallel (OpenMP): a single xxh64 runs at one core's speed, 3.5 GB/s on the
// GPU host, slower than everything else a stream goes through.
// Format 3 digests 1 MiB blocks. Format 4 digests 16 KiB blocks: a block is a sequential
// chain of multiply-rotate rounds, and on the GPU a 1 MiB chain took longer than the rest of
// a compression; 16 KiB chains give the GPU enough independent work on any section.
inline constexpr size_t kChecksumChunk = size_t{1} << 20;
inline constexpr size_t kDigestBlockV4 = size_t{1} << 14;
uint64_t chunked_xxh64(const void* data, size_t len, size_t block = kChecksumChunk);
}
