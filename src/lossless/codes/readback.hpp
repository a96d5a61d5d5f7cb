// Device words that several producers fill (counters, histograms), brought to the host in one
// copy: the one synchronization a device encoder spends to learn its sizes learns them all.
// The host side is pinned memory taken from a small process-wide cache (pinning is slow, so a
// buffer is reused across calls), which keeps the copy a DMA at full speed.
#pragma once
#include <cstddef>
#include <cstdint>

#include <sciz/error.hpp>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"

namespace sciz {

// Frees the pinned blocks the cache holds idle (those in use go back to it as ever).
void release_readback_cache();

class Readback {
 public:
  Readback() = default;
  ~Readback();
  Readback(const Readback&) = delete;
  Readback& operator=(const Readback&) = delete;

  // Reserves `words` u64 words before allocate(); returns their offset. Deferred words (all
  // reserved after every other) are left out of fetch(): a producer that may never run fills
  // them, and fetch_deferred() brings them when it has.
  size_t reserve(size_t words, bool deferred = false) {
    SCIZ_REQUIRE(deferred || fetched_ == words_, Status::internal, "readback: a word reserved after deferred ones");
    const size_t at = words_;
    words_ += words;
    if (!deferred) fetched_ = words_;
    return at;
  }
  // Device words for everything reserved, zeroed on s (histograms accumulate into them).
  void allocate(cudaStream_t s);
  uint64_t* device(size_t at) const { return d_.get() + at; }
  // One copy of every word but the deferred ones to the host and one synchronization of s.
  void fetch(cudaStream_t s);
  // The same for the deferred words only.
  void fetch_deferred(cudaStream_t s);
  const uint64_t* host(size_t at) const { return host_ + at; }

 private:
  size_t words_ = 0, fetched_ = 0;
  dev::Buffer<uint64_t> d_;
  uint64_t* host_ = nullptr;  // pinned, from the cache
  size_t host_bytes_ = 0;
};

}  // namespace sciz
