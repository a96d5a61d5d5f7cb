// INTERIM (exact_runs_interim.hpp): the exact-runs section through the host.
#include <sciz/error.hpp>

#include <cstring>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/exact_runs.hpp"
#include "lossless/codes/device_check.cuh"
#include "predict/lorenzo/exact_runs_interim.hpp"

namespace sciz::lorenzo::interim_runs {
namespace {

// Runs of length 1 (one per entry): start[j] = index, value[j] = value.
template <class T>
__global__ void scatter_kernel(const uint64_t* __restrict__ start, const T* __restrict__ value,
                               const uint64_t* __restrict__ count, T* __restrict__ out, const DeviceStatus* st) {
  if (check::block_failed(st)) return;
  const uint64_t m = count[0];
  for (uint64_t j = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < m;
       j += static_cast<uint64_t>(gridDim.x) * blockDim.x)
    out[start[j]] = value[j];
}

}  // namespace

template <class T>
runs::DeviceBlob write_device(const uint64_t* d_idx, const T* d_val, uint64_t count, cudaStream_t s) {
  std::vector<uint64_t> idx(count);
  std::vector<T> val(count);
  if (count) {
    dev::copy_to_host(idx.data(), d_idx, count * 8, s);
    dev::copy_to_host(val.data(), d_val, count * sizeof(T), s);
    dev::sync(s);
  }
  const std::vector<uint8_t> sec = write_runs<T>(idx, val);
  runs::DeviceBlob b;
  b.size = sec.size();
  b.bytes = dev::Buffer<uint8_t>(sec.size(), s);
  dev::copy_to_device(b.bytes.get(), sec.data(), sec.size(), s);
  return b;
}

template <class T>
runs::DeviceRuns<T> parse_device(const uint8_t* d_sec, uint64_t len, uint64_t bound, DeviceStatus* st, uint32_t where,
                                 cudaStream_t s) {
  std::vector<uint8_t> sec(len);
  DeviceStatus hs{};
  dev::copy_to_host(sec.data(), d_sec, len, s);
  dev::copy_to_host(&hs, st, sizeof hs, s);
  dev::sync(s);
  std::vector<uint64_t> idx;
  std::vector<T> val;
  if (hs.code == 0) {
    try {
      read_runs<T>(sec, bound, "exact values", idx, val);
    } catch (const Error&) {
      idx.clear();
      val.clear();
      check::report_from_host(st, kStatusRunsOverrun, where, 0, 0, s);
    }
  }
  runs::DeviceRuns<T> r;
  r.capacity = idx.size();
  r.start = dev::Buffer<uint64_t>(idx.size(), s);
  r.length = dev::Buffer<uint64_t>(idx.size(), s);
  r.value = dev::Buffer<T>(idx.size(), s);
  r.count = dev::Buffer<uint64_t>(2, s);
  const std::vector<uint64_t> ones(idx.size(), 1);
  const uint64_t c[2] = {idx.size(), idx.size()};
  dev::copy_to_device(r.start.get(), idx.data(), idx.size() * 8, s);
  dev::copy_to_device(r.length.get(), ones.data(), ones.size() * 8, s);
  dev::copy_to_device(r.value.get(), val.data(), val.size() * sizeof(T), s);
  dev::copy_to_device(r.count.get(), c, sizeof c, s);
  return r;
}

template <class T>
void scatter_device(const runs::DeviceRuns<T>& r, T* d_out, const DeviceStatus* st, cudaStream_t s) {
  const unsigned blocks = static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>((r.capacity + 255) / 256, 4096)));
  scatter_kernel<T><<<blocks, 256, 0, s>>>(r.start.get(), r.value.get(), r.count.get(), d_out, st);
  SCIZ_CUDA_CHECK_LAUNCH("interim exact scatter_kernel");
}

#define SCIZ_INSTANTIATE(T)                                                                                        \
  template runs::DeviceBlob write_device<T>(const uint64_t*, const T*, uint64_t, cudaStream_t);                   \
  template runs::DeviceRuns<T> parse_device<T>(const uint8_t*, uint64_t, uint64_t, DeviceStatus*, uint32_t,      \
                                               cudaStream_t);                                                      \
  template void scatter_device<T>(const runs::DeviceRuns<T>&, T*, const DeviceStatus*, cudaStream_t);
SCIZ_INSTANTIATE(float)
SCIZ_INSTANTIATE(double)
#undef SCIZ_INSTANTIATE

}  // namespace sciz::lorenzo::interim_runs
