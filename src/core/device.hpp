// Device memory and copies behind a host-only interface, so pipelines (which hold no kernels)
// can move data without including the CUDA runtime. Allocations come from the device's
// stream-ordered pool, whose release threshold we raise once so memory is reused across calls.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/cuda_fwd.hpp"

namespace sciz {
struct DeviceAllocator;
}

namespace sciz::dev {

bool available();                      // a CUDA device is present and usable
void require_available();              // throws Error(no_device) naming why not
// From the calling thread's allocator (AllocatorScope) when it has one, else the pool. Throws
// Error(cuda_error, "out of GPU memory ...") naming the size.
void* alloc(size_t bytes, cudaStream_t s);
void release(void* p, size_t bytes, cudaStream_t s, const DeviceAllocator* a) noexcept;
// Waits for each device's queued work, then hands the memory its pool holds idle back to the
// driver (blocks in use stay).
void trim_pools();
const DeviceAllocator* current_allocator();

// Makes `a` the calling thread's allocator for the scope (nullptr: the pool). API calls open one
// for the caller's allocator; worker threads open their own.
class AllocatorScope {
 public:
  explicit AllocatorScope(const DeviceAllocator* a);
  ~AllocatorScope();
  AllocatorScope(const AllocatorScope&) = delete;
  AllocatorScope& operator=(const AllocatorScope&) = delete;

 private:
  const DeviceAllocator* prev_;
};

int device_count();         // 0 without a usable device
int current_device();
void set_device(int d);     // throws Error(invalid_argument) naming a device that does not exist
// Bytes sciz can allocate on the current device now: free memory, plus what its pool holds idle
// (unless the calling thread has its own allocator).
uint64_t free_memory();
bool is_pinned_host_pointer(const void* p);  // page-locked host memory (cudaHostAlloc / registered)
void copy_to_device(void* d, const void* h, size_t bytes, cudaStream_t s);
void copy_to_host(void* h, const void* d, size_t bytes, cudaStream_t s);
void copy_on_device(void* dst, const void* src, size_t bytes, cudaStream_t s);
void zero(void* d, size_t bytes, cudaStream_t s);  // queued; no host synchronization
void sync(cudaStream_t s);
bool is_device_pointer(const void* p);
// The CUDA device that holds p (device or managed memory), -1 for any other pointer. For
// arrays that arrive through __cuda_array_interface__, which names no device.
int device_of_pointer(const void* p);

template <class T>
class Buffer {  // RAII, stream-ordered
 public:
  Buffer() = default;
  Buffer(size_t n, cudaStream_t s) : n_(n), s_(s), a_(current_allocator()) {
    p_ = static_cast<T*>(alloc(n * sizeof(T) + (n == 0), s));
  }
  ~Buffer() { reset(); }
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      reset();
      std::swap(p_, o.p_);
      std::swap(n_, o.n_);
      std::swap(s_, o.s_);
      std::swap(a_, o.a_);
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  T* get() const { return p_; }
  size_t size() const { return n_; }
  void reset() {
    if (p_) release(p_, n_ * sizeof(T) + (n_ == 0), s_, a_);
    p_ = nullptr;
    n_ = 0;
  }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
  cudaStream_t s_ = nullptr;
  const DeviceAllocator* a_ = nullptr;  // the allocator it came from (nullptr: the pool)
};

}  // namespace sciz::dev
