// Exact-value runs on the device (core/exact_runs_cuda.hpp). The parser is one thread: LEB128
// varints between raw values do not resynchronize, so the section is a sequential read, and it
// is short (a land mask is a few runs; bound misses are rare). It makes every check read_runs
// makes, in the same order, so both sides refuse the same sections.
#include <sciz/error.hpp>

#include <cstring>
#include <vector>

#include "core/exact_download.hpp"
#include "core/exact_runs_cuda.cuh"

namespace sciz::runs {
namespace {

constexpr uint64_t kHeader = 24;

struct Reader {
  const uint8_t* p;
  uint64_t len, pos = 0;
  bool ok = true;
  __device__ uint64_t bytes_le(int k) {  // k <= 8 little-endian bytes, or !ok past the end
    if (len - pos < static_cast<uint64_t>(k)) {
      ok = false;
      return 0;
    }
    uint64_t v = 0;
    for (int b = 0; b < k; ++b) v |= static_cast<uint64_t>(p[pos + b]) << (8 * b);
    pos += k;
    return v;
  }
  __device__ uint64_t varint() {  // LEB128 of at most 64 bits, as get_varint reads it
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint64_t b = bytes_le(1);
      if (!ok) return 0;
      v |= (b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    ok = false;
    return 0;
  }
};

template <class T>
__device__ T value_at(const uint8_t* p) {
  T v;
  memcpy(&v, p, sizeof(T));
  return v;
}

template <class T>
__global__ void parse_kernel(const uint8_t* __restrict__ sec, uint64_t len, uint64_t bound, DeviceStatus* st,
                             uint32_t where, uint64_t* __restrict__ start, uint64_t* __restrict__ length,
                             T* __restrict__ value, uint64_t* __restrict__ count) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  count[0] = count[1] = 0;
  if (failed(st)) return;
  Reader r{sec, len};
  const uint64_t entries = r.bytes_le(8), nruns = r.bytes_le(8);
  const uint64_t mode = r.bytes_le(1), psize = r.bytes_le(1) + 1;
  r.bytes_le(6);
  if (!r.ok) return report(st, kStatusRunsTruncated, where, r.pos, 0);
  if (!(mode <= 1 && entries <= bound && nruns <= entries)) return report(st, kStatusRunsHeader, where, entries, nruns);
  if (!(nruns <= (len - r.pos) / 3 + 1)) return report(st, kStatusRunsHeader, where, entries, nruns);
  const uint8_t* palette = sec + r.pos;
  if (mode == 1) {
    if (len - r.pos < psize * sizeof(T)) return report(st, kStatusRunsTruncated, where, r.pos, 0);
    r.pos += psize * sizeof(T);
  }
  uint64_t end = 0, got = 0;
  for (uint64_t k = 0; k < nruns; ++k) {
    const uint64_t gap = r.varint();
    const uint64_t run = r.varint() + 1;
    if (!r.ok) return report(st, kStatusRunsTruncated, where, r.pos, 0);
    if (!(gap <= bound - end && run <= bound - end - gap && run <= entries - got))
      return report(st, kStatusRunsOverrun, where, k, 0);
    T v;
    if (mode == 1) {
      const uint64_t pi = r.bytes_le(1);
      if (!r.ok) return report(st, kStatusRunsTruncated, where, r.pos, 0);
      if (pi >= psize) return report(st, kStatusRunsPalette, where, k, pi);
      v = value_at<T>(palette + pi * sizeof(T));
    } else {
      if (len - r.pos < sizeof(T)) return report(st, kStatusRunsTruncated, where, r.pos, 0);
      v = value_at<T>(sec + r.pos);
      r.pos += sizeof(T);
    }
    start[k] = end + gap;
    length[k] = run;
    value[k] = v;
    end += gap + run;
    got += run;
  }
  if (got != entries || r.pos != len) return report(st, kStatusRunsTotals, where, got, entries);
  count[0] = nruns;
  count[1] = entries;
}

struct Identity {
  __device__ uint64_t operator()(uint64_t i) const { return i; }
};

}  // namespace

template <class T>
DeviceBlob write_device(const uint64_t* d_idx, const T* d_val, uint64_t count, cudaStream_t s) {
  // The lists are short in practice (no exact values, or a few runs of a land mask): they come
  // down, the host writes the runs, and the section goes up. One synchronization when there
  // are any; none for an empty list.
  auto [buf, size] = exact_runs_on_device<T>(d_idx, d_val, count, s);
  DeviceBlob b;
  b.bytes = std::move(buf);
  b.size = size;
  return b;
}

template <class T>
DeviceRuns<T> parse_device(const uint8_t* d_sec, uint64_t len, uint64_t bound, DeviceStatus* st, uint32_t where,
                           cudaStream_t s) {
  DeviceRuns<T> r;
  r.capacity = len / 3 + 1;
  r.start = dev::Buffer<uint64_t>(r.capacity, s);
  r.length = dev::Buffer<uint64_t>(r.capacity, s);
  r.value = dev::Buffer<T>(r.capacity, s);
  r.count = dev::Buffer<uint64_t>(2, s);
  parse_kernel<T><<<1, 32, 0, s>>>(d_sec, len, bound, st, where, r.start.get(), r.length.get(), r.value.get(),
                                   r.count.get());
  SCIZ_CUDA_CHECK_LAUNCH("exact runs parse_kernel");
  return r;
}

template <class T>
void scatter_device(const DeviceRuns<T>& runs, T* d_out, const DeviceStatus* st, cudaStream_t s) {
  scatter_device_mapped<T>(runs, d_out, st, Identity{}, s);
}

#define SCIZ_RUNS_INSTANTIATE(T)                                                                                \
  template DeviceBlob write_device<T>(const uint64_t*, const T*, uint64_t, cudaStream_t);                      \
  template DeviceRuns<T> parse_device<T>(const uint8_t*, uint64_t, uint64_t, DeviceStatus*, uint32_t, cudaStream_t); \
  template void scatter_device<T>(const DeviceRuns<T>&, T*, const DeviceStatus*, cudaStream_t);
SCIZ_RUNS_INSTANTIATE(float)
SCIZ_RUNS_INSTANTIATE(double)
#undef SCIZ_RUNS_INSTANTIATE

}  // namespace sciz::runs
