// Device memory and copies behind a host-only interface, so pipelines (which hold no kernels)
// can move data without including the CUDA runtime. Allocations come from the device's
// stream-ordered pool, whose release threshold we raise once so memory is reused across calls.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/cuda_fwd.hpp"

namespace sciz::dev {

bool available();                      // a CUDA device is present and usable
void require_available();              // throws Error(no_device) naming why not
void* alloc(size_t bytes, cudaStream_t s);  // throws Error(cuda_error, "out of GPU memory ...")
void release(void* p, cudaStream_t s) noexcept;
void copy_to_device(void* d, const void* h, size_t bytes, cudaStream_t s);
void copy_to_host(void* h, const void* d, size_t bytes, cudaStream_t s);
void copy_on_device(void* dst, const void* src, size_t bytes, cudaStream_t s);
void sync(cudaStream_t s);
bool is_device_pointer(const void* p);

template <class T>
class Buffer {  // RAII, stream-ordered
 public:
  Buffer() = default;
  Buffer(size_t n, cudaStream_t s) : n_(n), s_(s) { p_ = static_cast<T*>(alloc(n * sizeof(T) + (n == 0), s)); }
  ~Buffer() { reset(); }
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      reset();
      std::swap(p_, o.p_);
      std::swap(n_, o.n_);
      std::swap(s_, o.s_);
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  T* get() const { return p_; }
  size_t size() const { return n_; }
  void reset() {
    if (p_) release(p_, s_);
    p_ = nullptr;
    n_ = 0;
  }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
  cudaStream_t s_ = nullptr;
};

}  // namespace sciz::dev
