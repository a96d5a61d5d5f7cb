// The CLI's .npy preamble reader (tools/sciz/npy.cpp) on any bytes, as io.cpp drives it: the
// magic, the preamble size from the first bytes, then the header dict. A preamble it accepts
// must describe a usable field inside the bytes read.
#include <sciz/error.hpp>

#include <cstdint>

#include "cli_error.hpp"
#include "npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sciz::cli;
  if (!has_npy_magic(data, size)) return 0;
  try {
    const uint64_t total = npy_preamble_size(data, size < kNpyFixedLen ? size : kNpyFixedLen, "fuzz");
    if (total > size) return 0;
    const NpyHeader h = parse_npy_preamble(data, total, "fuzz");
    if (h.data_offset != total) __builtin_trap();
    h.shape.validate();  // accepted shapes are usable: this must not throw
  } catch (const CliError&) {
  }
  return 0;
}
