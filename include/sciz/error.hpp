// Errors are exceptions carrying a status code and a message naming the offending value.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace sciz {

enum class Status : int {
  ok = 0,
  invalid_argument = 1,   // bad dims, eb <= 0, unknown dtype/pipeline, size mismatch
  corrupt_stream = 2,     // bad magic, checksum, lengths or offsets
  unsupported = 3,        // unknown format version or pipeline parameters we cannot decode
  io_error = 4,           // file could not be read or written
  cuda_error = 5,         // a CUDA call failed (includes out of device memory)
  no_device = 6,          // CUDA asked for but no device (or built without CUDA)
  internal = 7,           // an invariant of ours broke: a bug, reported rather than hidden
  buffer_too_small = 8,   // a caller's output buffer: the message names the size needed
};

class Error : public std::runtime_error {
 public:
  Error(Status s, const std::string& msg, uint64_t needed = 0) : std::runtime_error(msg), status_(s), needed_(needed) {}
  Status status() const noexcept { return status_; }
  // buffer_too_small: the bytes the output needs.
  uint64_t needed_bytes() const noexcept { return needed_; }

 private:
  Status status_;
  uint64_t needed_;
};

[[noreturn]] inline void fail(Status s, const std::string& msg) { throw Error(s, msg); }

[[noreturn]] inline void fail_too_small(uint64_t capacity, uint64_t needed) {
  throw Error(Status::buffer_too_small,
              "output buffer of " + std::to_string(capacity) + " bytes is too small: the stream needs " +
                  std::to_string(needed),
              needed);
}

}  // namespace sciz

// Checks cond and throws Error(status, msg) when it fails. A macro so that msg, usually a
// concatenation naming the offending value, is only built on failure: validation loops run
// it millions of times on the success path.
#define SCIZ_REQUIRE(cond, status, msg)    \
  do {                                     \
    if (!(cond)) ::sciz::fail(status, msg); \
  } while (0)
