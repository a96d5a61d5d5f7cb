// xxHash64 (seed 0) over a byte range: one checksum per stream section and one for the header.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sciz {
uint64_t xxh64(const void* data, size_t len, uint64_t seed = 0);
}
