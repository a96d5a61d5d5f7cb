// Errors are exceptions carrying a status code and a message naming the offending value.
#pragma once
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
};

class Error : public std::runtime_error {
 public:
  Error(Status s, const std::string& msg) : std::runtime_error(msg), status_(s) {}
  Status status() const noexcept { return status_; }

 private:
  Status status_;
};

[[noreturn]] inline void fail(Status s, const std::string& msg) { throw Error(s, msg); }

}  // namespace sciz

// Checks cond and throws Error(status, msg) when it fails. A macro so that msg, usually a
// concatenation naming the offending value, is only built on failure: validation loops run
// it millions of times on the success path.
#define SCIZ_REQUIRE(cond, status, msg)    \
  do {                                     \
    if (!(cond)) ::sciz::fail(status, msg); \
  } while (0)
