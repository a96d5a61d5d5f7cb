#include <cuda_runtime.h>

#include <mutex>
#include <vector>

#include <sciz/error.hpp>

#include "core/cuda_check.cuh"
#include "lossless/codes/readback.hpp"

namespace sciz {
namespace {

// Pinned blocks not in use. A handful is enough: each call holds one only between its
// allocate() and its destruction.
struct Cache {
  std::mutex mu;
  std::vector<std::pair<void*, size_t>> free;
};
Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: blocks may outlive static destruction order
  return *c;
}
constexpr size_t kMinBlock = size_t{1} << 21;
constexpr size_t kMaxCached = 8;

void* take(size_t bytes, size_t& got) {
  {
    std::lock_guard<std::mutex> lock(cache().mu);
    auto& f = cache().free;
    for (size_t i = 0; i < f.size(); ++i)
      if (f[i].second >= bytes) {
        void* p = f[i].first;
        got = f[i].second;
        f.erase(f.begin() + static_cast<std::ptrdiff_t>(i));
        return p;
      }
  }
  got = std::max(bytes, kMinBlock);
  void* p = nullptr;
  SCIZ_CUDA_CHECK(cudaMallocHost(&p, got));
  return p;
}

void give(void* p, size_t bytes) noexcept {
  if (!p) return;
  std::lock_guard<std::mutex> lock(cache().mu);
  auto& f = cache().free;
  if (f.size() < kMaxCached) {
    f.emplace_back(p, bytes);
    return;
  }
  if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace

void release_readback_cache() {
  std::vector<std::pair<void*, size_t>> idle;
  {
    std::lock_guard<std::mutex> lock(cache().mu);
    idle.swap(cache().free);
  }
  for (auto& [p, bytes] : idle) SCIZ_CUDA_CHECK(cudaFreeHost(p));
}

Readback::~Readback() { give(host_, host_bytes_); }

void Readback::allocate(cudaStream_t s) {
  d_ = dev::Buffer<uint64_t>(words_, s);
  if (words_) SCIZ_CUDA_CHECK(cudaMemsetAsync(d_.get(), 0, words_ * sizeof(uint64_t), s));
  give(host_, host_bytes_);
  host_ = static_cast<uint64_t*>(take(words_ * sizeof(uint64_t) + 8, host_bytes_));
}

void Readback::fetch(cudaStream_t s) {
  if (fetched_) SCIZ_CUDA_CHECK(cudaMemcpyAsync(host_, d_.get(), fetched_ * sizeof(uint64_t), cudaMemcpyDeviceToHost, s));
  dev::sync(s);
}

void Readback::fetch_deferred(cudaStream_t s) {
  if (words_ > fetched_)
    SCIZ_CUDA_CHECK(cudaMemcpyAsync(host_ + fetched_, d_.get() + fetched_, (words_ - fetched_) * sizeof(uint64_t),
                                    cudaMemcpyDeviceToHost, s));
  dev::sync(s);
}

}  // namespace sciz
