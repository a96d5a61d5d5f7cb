// The exact-values runs section (core/exact_runs.hpp, docs/FORMAT.md) written and read on the
// device, byte for byte what write_runs/read_runs do on the host, so that a GPU encoder's
// section never crosses PCIe and a GPU decoder validates it without the host.
// Host-only interface (implementation in exact_runs_cuda.cu).
#pragma once
#include <cstdint>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/device_status.hpp"

namespace sciz::runs {

// The section as a GPU encoder leaves it on the device.
struct DeviceBlob {
  dev::Buffer<uint8_t> bytes;  // capacity >= size
  uint64_t size = 0;           // bytes of the section
};

// d_idx: count strictly ascending indices, d_val their values (device). Writes the section
// write_runs<T> writes for the same lists. count == 0 costs no synchronization (the 24-byte
// empty section); otherwise one, to learn the section size.
template <class T>
DeviceBlob write_device(const uint64_t* d_idx, const T* d_val, uint64_t count, cudaStream_t s);

// Runs parsed and validated on the device: at most len / 3 + 1 of them, so the storage is
// bounded by the section's own size, never by the entry count it declares.
template <class T>
struct DeviceRuns {
  dev::Buffer<uint64_t> start, length;  // per run, length >= 1
  dev::Buffer<uint64_t> first;          // per run, entries before it (the scatter balances by them)
  dev::Buffer<T> value;
  dev::Buffer<uint64_t> count;          // [0]: runs, [1]: entries (device)
  uint64_t capacity = 0;                // runs the buffers hold
};

// Parses d_sec[0, len) as read_runs<T> does for a field of `bound` values, on the device and
// without synchronizing. Every check of read_runs is made; a failure is reported into st
// (codes kStatusRuns*, where = `where`) and the runs are then empty. Does nothing when st
// already holds a failure.
template <class T>
DeviceRuns<T> parse_device(const uint8_t* d_sec, uint64_t len, uint64_t bound, DeviceStatus* st, uint32_t where,
                           cudaStream_t s);

// Writes every run's value at its indices of d_out (index i -> d_out[i]), unless st holds a
// failure. No synchronization. For codecs whose indices are not field positions (delta's
// serpentine chain), exact_runs_cuda.cuh offers the templated kernel with an index map.
template <class T>
void scatter_device(const DeviceRuns<T>& runs, T* d_out, const DeviceStatus* st, cudaStream_t s);

}  // namespace sciz::runs
