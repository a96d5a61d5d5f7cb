// Bytes in device memory whose length the host knows (from a container's section table):
// what a GPU decoder reads without copying the bytes to the host.
#pragma once
#include <cstdint>

namespace sciz {

struct DeviceSpan {
  const uint8_t* data = nullptr;
  uint64_t size = 0;
};

}  // namespace sciz
