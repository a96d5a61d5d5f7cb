// Runs a call on a given CUDA device and restores the caller's current device after, as the
// array libraries expect: sciz works on the current device, arrays may live on another.
#pragma once
#include "core/device.hpp"

namespace sciz::py {

class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (device < 0) return;  // host memory: nothing to select
    prev_ = dev::current_device();
    if (prev_ != device) dev::set_device(device);
    else prev_ = -1;
  }
  ~DeviceScope() {
    if (prev_ >= 0) {
      try {
        dev::set_device(prev_);
      } catch (...) {  // restoring a device that existed a moment ago cannot fail meaningfully
      }
    }
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int prev_ = -1;
};

inline cudaStream_t as_stream(uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }

}  // namespace sciz::py
