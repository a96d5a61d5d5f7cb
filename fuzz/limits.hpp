// What one fuzz input may make a target do, so each execution stays short and any allocation
// far above these (libFuzzer's -malloc_limit_mb, set by scripts/fuzz.sh) is a reported bug.
#pragma once
#include <cstdint>

namespace sciz::fuzz {

// Decoded bytes a target asks for at most. A stream that declares more is only inspected:
// allocating what the fuzzer declares would measure the machine, not the decoder.
inline constexpr uint64_t kMaxDecodedBytes = uint64_t(4) << 20;

}  // namespace sciz::fuzz
