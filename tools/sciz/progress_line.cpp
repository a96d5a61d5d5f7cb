#include "progress_line.hpp"

#include <unistd.h>

#include <cstdio>

#include "io.hpp"

namespace sciz::cli {

ProgressLine::ProgressLine(const std::string& what, uint64_t chunks, uint64_t total_bytes, bool quiet)
    : what_(what), chunks_(chunks), total_(total_bytes),
      on_(!quiet && ::isatty(STDERR_FILENO) && total_bytes > Progress::kThreshold),
      t0_(std::chrono::steady_clock::now()), last_(t0_) {}

ProgressLine::~ProgressLine() { done(); }

void ProgressLine::update(uint64_t chunks_done, uint64_t bytes_done) {
  if (!on_) return;
  const auto now = std::chrono::steady_clock::now();
  if (chunks_done < chunks_ && now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  const double s = std::chrono::duration<double>(now - t0_).count();
  const double rate = s > 0 ? static_cast<double>(bytes_done) / s : 0.0;
  const double left = rate > 0 ? static_cast<double>(total_ - bytes_done) / rate : 0.0;
  std::fprintf(stderr, "\rsciz: %s chunk %llu/%llu, %s of %s, %.2f GB/s, %.0f s left   ", what_.c_str(),
               static_cast<unsigned long long>(chunks_done), static_cast<unsigned long long>(chunks_),
               human_bytes(bytes_done).c_str(), human_bytes(total_).c_str(), rate / 1e9, left);
  std::fflush(stderr);
  open_ = true;
}

void ProgressLine::done() {
  if (open_) std::fputc('\n', stderr);
  open_ = false;
}

}  // namespace sciz::cli
