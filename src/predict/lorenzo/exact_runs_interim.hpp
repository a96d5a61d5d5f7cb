// INTERIM, until core/exact_runs_cuda.cu lands (branch dev-a): runs::write_device,
// parse_device and scatter_device with the contracts of core/exact_runs_cuda.hpp, done through
// the host (the lists and the section cross PCIe, and each call synchronizes). The lorenzo
// device path calls them through one alias in lorenzo_cuda.cu; when dev-a is merged, that
// alias names sciz::runs and this file and its .cu go.
#pragma once
#include "core/exact_runs_cuda.hpp"

namespace sciz::lorenzo::interim_runs {

template <class T>
runs::DeviceBlob write_device(const uint64_t* d_idx, const T* d_val, uint64_t count, cudaStream_t s);
template <class T>
runs::DeviceRuns<T> parse_device(const uint8_t* d_sec, uint64_t len, uint64_t bound, DeviceStatus* st, uint32_t where,
                                 cudaStream_t s);
template <class T>
void scatter_device(const runs::DeviceRuns<T>& runs, T* d_out, const DeviceStatus* st, cudaStream_t s);

}  // namespace sciz::lorenzo::interim_runs
