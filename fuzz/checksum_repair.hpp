// Rewrites a (mutated) stream's checksums to match its bytes, so the fuzzer's mutations reach
// the code behind the checksum checks: a random byte flip almost never keeps an xxHash64 right,
// and without this nearly every input would stop at "checksum mismatch".
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace sciz::fuzz {

// A copy of `in` with the header checksum, every chunk header checksum and every section
// checksum recomputed wherever the (untrusted) layout fields locate them inside the buffer.
// Fields that point outside the buffer are left alone: the decoder must refuse those itself.
std::vector<uint8_t> with_checksums_repaired(std::span<const uint8_t> in);

}  // namespace sciz::fuzz
