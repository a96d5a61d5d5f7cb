#include "core/host_transfer.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/host_memory.hpp"

namespace sciz::dev {
namespace {

// Two staging buffers per device, so the host fills (or drains) one while the DMA engine
// works on the other. Sized once; calls take turns through the mutex.
constexpr size_t kPiece = size_t{32} << 20;

struct Staging {
  std::mutex mu;
  void* buf[2] = {nullptr, nullptr};
  cudaEvent_t done[2] = {nullptr, nullptr};
  bool ready = false;
};

struct Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<Staging>> all;  // by device; a Staging is never destroyed
};
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: copies may run during static destruction
  return *r;
}

Staging& staging_for(int device) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (static_cast<size_t>(device) >= r.all.size()) r.all.resize(device + 1);
  if (!r.all[device]) r.all[device] = std::make_unique<Staging>();
  return *r.all[device];
}

void prepare(Staging& st) {
  if (st.ready) return;
  for (int k = 0; k < 2; ++k) {
    SCIZ_CUDA_CHECK(cudaHostAlloc(&st.buf[k], kPiece, cudaHostAllocPortable));
    SCIZ_CUDA_CHECK(cudaEventCreateWithFlags(&st.done[k], cudaEventDisableTiming));
  }
  st.ready = true;
}

}  // namespace

void upload(void* d_dst, const void* h_src, size_t bytes, cudaStream_t s) {
  if (bytes == 0) return;
  if (is_pinned_host_pointer(h_src) || bytes <= (size_t{1} << 20)) {
    SCIZ_CUDA_CHECK(cudaMemcpyAsync(d_dst, h_src, bytes, cudaMemcpyHostToDevice, s));
    return;
  }
  Staging& st = staging_for(current_device());
  std::lock_guard<std::mutex> lock(st.mu);
  prepare(st);
  for (size_t at = 0, k = 0; at < bytes; at += kPiece, k ^= 1) {
    const size_t n = std::min(kPiece, bytes - at);
    SCIZ_CUDA_CHECK(cudaEventSynchronize(st.done[k]));  // its previous DMA has read it
    parallel_copy(st.buf[k], static_cast<const char*>(h_src) + at, n);
    SCIZ_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(d_dst) + at, st.buf[k], n, cudaMemcpyHostToDevice, s));
    SCIZ_CUDA_CHECK(cudaEventRecord(st.done[k], s));
  }
  // The staging buffers are reused by the next call: it waits on their events.
}

void download(void* h_dst, const void* d_src, size_t bytes, cudaStream_t s) {
  if (bytes == 0) return;
  if (is_pinned_host_pointer(h_dst) || bytes <= (size_t{1} << 20)) {
    SCIZ_CUDA_CHECK(cudaMemcpyAsync(h_dst, d_src, bytes, cudaMemcpyDeviceToHost, s));
    SCIZ_CUDA_CHECK(cudaStreamSynchronize(s));
    return;
  }
  Staging& st = staging_for(current_device());
  std::lock_guard<std::mutex> lock(st.mu);
  prepare(st);
  advise_huge_pages(h_dst, bytes);
  const size_t pieces = (bytes + kPiece - 1) / kPiece;
  auto queue = [&](size_t p) {
    const size_t at = p * kPiece, n = std::min(kPiece, bytes - at);
    // The buffer's previous user may be an upload on another stream whose DMA has not read it
    // yet (the mutex orders the calls on the host, not their copies on the device): this
    // copy waits for it on the device. Without the wait, two workers streaming chunks from
    // pageable memory corrupted each other's uploads (H100, 4 GB, two of three pipelines).
    SCIZ_CUDA_CHECK(cudaStreamWaitEvent(s, st.done[p & 1], 0));
    SCIZ_CUDA_CHECK(cudaMemcpyAsync(st.buf[p & 1], static_cast<const char*>(d_src) + at, n, cudaMemcpyDeviceToHost, s));
    SCIZ_CUDA_CHECK(cudaEventRecord(st.done[p & 1], s));
  };
  queue(0);
  for (size_t p = 0; p < pieces; ++p) {
    if (p + 1 < pieces) queue(p + 1);  // the DMA of the next piece runs while this one drains
    SCIZ_CUDA_CHECK(cudaEventSynchronize(st.done[p & 1]));
    const size_t at = p * kPiece;
    parallel_copy(static_cast<char*>(h_dst) + at, st.buf[p & 1], std::min(kPiece, bytes - at));
  }
}

void release_staging() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& p : r.all) {
    if (!p) continue;
    Staging& st = *p;
    std::lock_guard<std::mutex> in_use(st.mu);
    if (!st.ready) continue;
    for (int k = 0; k < 2; ++k) {
      SCIZ_CUDA_CHECK(cudaEventSynchronize(st.done[k]));  // an upload may still be reading it
      SCIZ_CUDA_CHECK(cudaEventDestroy(st.done[k]));
      SCIZ_CUDA_CHECK(cudaFreeHost(st.buf[k]));
      st.done[k] = nullptr;
      st.buf[k] = nullptr;
    }
    st.ready = false;
  }
}

}  // namespace sciz::dev
