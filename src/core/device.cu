// Device memory from the stream-ordered pool and checked copies; see device.hpp.
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"

namespace sciz::dev {
namespace {

struct Probe {
  bool ok = false;
  std::string why;
};

// Probed once: without a driver cudaGetDeviceCount returns an error rather than aborting,
// which is what lets a CUDA build run on CPU-only machines.
const Probe& probe() {
  static const Probe p = [] {
    Probe r;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      r.why = std::string("no usable CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorString(err);
    } else if (count <= 0) {
      r.why = "no CUDA device found (cudaGetDeviceCount returned 0)";
    } else {
      r.ok = true;
    }
    return r;
  }();
  return p;
}

// Without a raised release threshold the pool hands memory back to the driver at every
// synchronization, and each call would pay cudaMalloc's cost again.
void keep_pool_memory(int device) {
  static std::mutex mu;
  static std::vector<bool> done;
  std::lock_guard<std::mutex> lock(mu);
  if (device < 0) return;
  if (static_cast<size_t>(device) >= done.size()) done.resize(device + 1, false);
  if (done[device]) return;
  cudaMemPool_t pool;
  SCIZ_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  uint64_t threshold = UINT64_MAX;
  SCIZ_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  done[device] = true;
}

}  // namespace

bool available() { return probe().ok; }

void require_available() {
  if (!probe().ok) fail(Status::no_device, probe().why);
}

void* alloc(size_t bytes, cudaStream_t s) {
  require_available();
  int device = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&device));
  keep_pool_memory(device);
  void* p = nullptr;
  const cudaError_t err = cudaMallocAsync(&p, bytes ? bytes : 1, s);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
    fail(Status::cuda_error, "out of GPU memory: needed " + std::to_string(bytes) + " bytes (" +
                                 std::to_string(free_b) + " of " + std::to_string(total_b) + " free)");
  }
  SCIZ_CUDA_CHECK(err);
  return p;
}

void release(void* p, cudaStream_t s) noexcept {
  if (p && cudaFreeAsync(p, s) != cudaSuccess) (void)cudaGetLastError();
}

void copy_to_device(void* d, const void* h, size_t bytes, cudaStream_t s) {
  if (bytes) SCIZ_CUDA_CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s));
}

void copy_to_host(void* h, const void* d, size_t bytes, cudaStream_t s) {
  if (bytes) SCIZ_CUDA_CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
}

void copy_on_device(void* dst, const void* src, size_t bytes, cudaStream_t s) {
  if (bytes) SCIZ_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
}

void sync(cudaStream_t s) { SCIZ_CUDA_CHECK(cudaStreamSynchronize(s)); }

bool is_device_pointer(const void* p) {
  if (!p || !available()) return false;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

}  // namespace sciz::dev
