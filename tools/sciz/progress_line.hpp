// One updating line on a terminal for long runs: chunks done, data done, rate, time left.
// Silent on anything but a terminal (pipes, files, tests), with -q, and for small inputs.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace sciz::cli {

class ProgressLine {
 public:
  // what: "compressing" / "decompressing"; total_bytes: the field bytes the run will go through.
  ProgressLine(const std::string& what, uint64_t chunks, uint64_t total_bytes, bool quiet);
  ~ProgressLine();
  void update(uint64_t chunks_done, uint64_t bytes_done);
  void done();  // ends the line (also on destruction)

 private:
  std::string what_;
  uint64_t chunks_, total_;
  bool on_, open_ = false;
  std::chrono::steady_clock::time_point t0_, last_;
};

}  // namespace sciz::cli
