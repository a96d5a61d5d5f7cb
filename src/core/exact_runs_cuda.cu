// The exact-values runs section written, parsed and scattered on the device (see
// exact_runs_cuda.hpp; the layout is core/exact_runs.hpp's).
//
// Writing: a run starts at every entry whose index does not follow its predecessor's or whose
// bits differ from it; the run starts are compacted (cub select), each run's two varint sizes
// summed (cub scan), and one CTA builds the palette in first-appearance order with a shared
// hash table (it stops at the 257th distinct pattern, as write_runs does). The host learns the
// size in one synchronization, then one kernel writes every run at its offset.
//
// Parsing: one CTA finds the records window by window (below), making every check read_runs
// makes and reporting the first failure read_runs would throw.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/bit>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/exact_runs_cuda.cuh"
#include "core/exact_runs_cuda.hpp"

namespace sciz::runs {
namespace {

constexpr uint64_t kHeaderBytes = 24;
constexpr uint32_t kMaxPalette = 256;

template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <class T>
__device__ __forceinline__ Bits<T> bits_of(T v) {
  return cuda::std::bit_cast<Bits<T>>(v);
}

__device__ __forceinline__ uint32_t varint_bytes(uint64_t v) {
  return v == 0 ? 1u : (64u - static_cast<uint32_t>(__clzll(static_cast<long long>(v))) + 6u) / 7u;
}

__device__ __forceinline__ uint8_t* put_varint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

// What entries idx/val hold; the run boundaries follow from it.
template <class T>
struct Entries {
  const uint64_t* idx;
  const T* val;
  uint64_t count;
  // A run starts at entry k unless k continues entry k - 1's run.
  __device__ bool starts_run(uint64_t k) const {
    return k == 0 || idx[k] != idx[k - 1] + 1 || bits_of(val[k]) != bits_of(val[k - 1]);
  }
};

// Run r's two varint fields: the gap from the previous run's end, and its length - 1.
struct RunFields {
  uint64_t gap, len_minus_1;
};
template <class T>
__device__ __forceinline__ RunFields run_fields(const Entries<T>& in, const uint64_t* head, uint64_t nruns,
                                                uint64_t r) {
  const uint64_t e = head[r], next = r + 1 < nruns ? head[r + 1] : in.count;
  const uint64_t prev_end = r == 0 ? 0 : in.idx[e - 1] + 1;
  return {in.idx[e] - prev_end, next - e - 1};
}

template <class T>
struct IsRunStart {
  Entries<T> in;
  __device__ bool operator()(uint64_t k) const { return in.starts_run(k); }
};

// Varint bytes of run r, zero past the last run (the scan runs over count + 1 items, since the
// run count is only known on the device).
template <class T>
struct VarintBytes {
  Entries<T> in;
  const uint64_t* head;
  const uint64_t* nruns;
  __device__ uint64_t operator()(uint64_t r) const {
    const uint64_t n = *nruns;
    if (r >= n) return 0;
    const RunFields f = run_fields(in, head, n, r);
    return varint_bytes(f.gap) + varint_bytes(f.len_minus_1);
  }
};

// meta[] (device) as the kernels fill it and the host reads it back.
enum Meta : int { kRuns, kDistinct, kUsePalette, kVarintBytes, kSize, kMetaWords };

constexpr int kPaletteThreads = 1024;
constexpr uint32_t kSlots = 2048;  // >= 256 known + 1024 new patterns of one step: never full
constexpr uint64_t kEmptyKey = ~0ull;

// The CPU's palette: distinct bit patterns in the order their first run appears, up to 256. One
// CTA steps through the runs 1024 at a time: a lookup in a shared open-addressing table, then,
// for a step that meets new patterns, an insertion by atomicCAS (keys written once, never
// moved) and their ranking by first run. The all-ones key (a NaN pattern of double) would
// clash with the empty mark, so it has its own slot kSlots.
template <class T>
__global__ void __launch_bounds__(kPaletteThreads) palette_kernel(Entries<T> in, const uint64_t* head,
                                                                  const uint64_t* off, uint8_t* pal_index,
                                                                  Bits<T>* palette, uint64_t* meta) {
  __shared__ unsigned long long key[kSlots];
  __shared__ unsigned long long first[kSlots + 1];
  __shared__ int16_t slot_index[kSlots + 1];
  __shared__ uint16_t fresh[kPaletteThreads];
  __shared__ unsigned fresh_count, ones_claimed;
  const uint32_t tid = threadIdx.x;
  for (uint32_t i = tid; i < kSlots; i += kPaletteThreads) key[i] = kEmptyKey;
  for (uint32_t i = tid; i <= kSlots; i += kPaletteThreads) first[i] = ~0ull;
  if (tid == 0) ones_claimed = 0;
  __syncthreads();

  auto hash = [](unsigned long long k) { return static_cast<uint32_t>((k * 0x9E3779B97F4A7C15ull) >> 53); };
  auto find = [&](unsigned long long k) -> int {
    if (k == kEmptyKey) return ones_claimed ? static_cast<int>(kSlots) : -1;
    for (uint32_t h = hash(k);; h = (h + 1) % kSlots) {
      if (key[h] == k) return static_cast<int>(h);
      if (key[h] == kEmptyKey) return -1;
    }
  };
  auto insert = [&](unsigned long long k, bool& created) -> int {
    if (k == kEmptyKey) {
      created = atomicCAS(&ones_claimed, 0u, 1u) == 0u;
      return static_cast<int>(kSlots);
    }
    for (uint32_t h = hash(k);; h = (h + 1) % kSlots) {
      const unsigned long long old = atomicCAS(&key[h], kEmptyKey, k);
      if (old == kEmptyKey || old == k) {
        created = old == kEmptyKey;
        return static_cast<int>(h);
      }
    }
  };

  const uint64_t nruns = meta[kRuns];
  uint32_t distinct = 0;
  bool overflow = false;
  auto load = [&](uint64_t r) -> unsigned long long { return r < nruns ? bits_of(in.val[head[r]]) : 0; };
  unsigned long long next = load(tid);
  for (uint64_t base = 0; base < nruns; base += kPaletteThreads) {
    const uint64_t r = base + tid;
    const bool have = r < nruns;
    const unsigned long long k = next;
    next = load(r + kPaletteThreads);  // in flight during this step
    int slot = have ? find(k) : 0;
    const bool miss = have && slot < 0;
    if (__syncthreads_or(miss)) {
      if (tid == 0) fresh_count = 0;
      __syncthreads();
      if (miss) {
        bool created = false;
        slot = insert(k, created);
        atomicMin(&first[slot], static_cast<unsigned long long>(r));
        if (created) fresh[atomicAdd(&fresh_count, 1u)] = static_cast<uint16_t>(slot);
      }
      __syncthreads();
      const uint32_t nf = fresh_count;
      if (distinct + nf > kMaxPalette) {  // the 257th pattern: no palette
        overflow = true;
        break;
      }
      if (tid < nf) {
        const uint32_t s = fresh[tid];
        const unsigned long long f = first[s];
        uint32_t rank = 0;
        for (uint32_t u = 0; u < nf; ++u) rank += first[fresh[u]] < f;
        slot_index[s] = static_cast<int16_t>(distinct + rank);
        palette[distinct + rank] = static_cast<Bits<T>>(s == kSlots ? kEmptyKey : key[s]);
      }
      __syncthreads();
      distinct += nf;
    }
    if (have) pal_index[r] = static_cast<uint8_t>(slot_index[slot]);
  }
  if (tid == 0) {
    const uint64_t size = sizeof(T);
    const bool use = !overflow && distinct * size + nruns < nruns * size;
    meta[kDistinct] = overflow ? kMaxPalette + 1 : distinct;
    meta[kUsePalette] = use;
    meta[kVarintBytes] = off[in.count];
    meta[kSize] = kHeaderBytes + (use ? distinct * size : 0) + off[in.count] + nruns * (use ? 1 : size);
  }
}

template <class T>
__global__ void write_kernel(Entries<T> in, const uint64_t* head, const uint64_t* off, const uint8_t* pal_index,
                             const Bits<T>* palette, uint64_t nruns, uint32_t distinct, bool use, uint8_t* out) {
  const uint64_t vsize = use ? 1 : sizeof(T);
  const uint64_t front = kHeaderBytes + (use ? distinct * sizeof(T) : 0);
  if (blockIdx.x == 0) {
    for (uint32_t i = threadIdx.x; i < front; i += blockDim.x) {
      uint8_t b = 0;
      if (i < 8) b = static_cast<uint8_t>(in.count >> (8 * i));
      else if (i < 16) b = static_cast<uint8_t>(nruns >> (8 * (i - 8)));
      else if (i == 16) b = use ? 1 : 0;
      else if (i == 17) b = use ? static_cast<uint8_t>(distinct - 1) : 0;
      else if (i >= kHeaderBytes) {
        const uint32_t at = i - kHeaderBytes;
        b = static_cast<uint8_t>(static_cast<uint64_t>(palette[at / sizeof(T)]) >> (8 * (at % sizeof(T))));
      }
      out[i] = b;
    }
  }
  const uint64_t r = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= nruns) return;
  const RunFields f = run_fields(in, head, nruns, r);
  uint8_t* p = out + front + off[r] + r * vsize;
  p = put_varint(p, f.gap);
  p = put_varint(p, f.len_minus_1);
  if (use) {
    *p = pal_index[r];
  } else {
    const Bits<T> b = bits_of(in.val[head[r]]);
#pragma unroll
    for (uint32_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<uint8_t>(b >> (8 * i));
  }
}

// ---- parsing ----
//
// LEB128 fields between raw values do not resynchronize, so where records start is a chain:
// each record's start follows from the one before. One CTA walks it a window of the section at
// a time: the window is staged in shared memory, every thread computes the length a record
// would have at each of its byte offsets (most are not record starts; that work is parallel
// and cheap), one thread then follows the chain through those lengths (one shared read a
// record), and the records found are decoded, prefix-summed (gaps and lengths give each run's
// start, entries before it, its slot) and checked in parallel. The first record that fails a
// check is the one reported, with what read_runs would say of it: its varints first, then the
// bounds, then its value. (One thread reading the section byte by byte from global memory took
// 130-180 us per chunk on the H100, most of a delta chunk's decode.)

constexpr int kParseThreads = 256;
constexpr uint32_t kWindow = 8192;  // record starts handled per step
constexpr uint32_t kLook = 32;      // a record takes at most 10 + 10 + 8 bytes
constexpr uint32_t kMaxRecords = kWindow / 3 + 1;

enum RecordError : uint8_t { kRecOk = 0, kRecVarintShort, kRecVarintLong, kRecValueShort };

// A record starting at w[o], with `avail` bytes staged from w[0] up to the end of the section or
// of the staged window: its fields, byte length and what stopped it (get_varint's rules).
struct Record {
  uint64_t gap = 0, len1 = 0;
  uint32_t bytes = 0, value_at = 0;  // value_at: offset of the value byte(s) from w
  uint8_t err = kRecOk;
};
__device__ inline bool read_varint(const uint8_t* w, uint32_t& i, uint32_t avail, uint64_t& v, uint8_t& err) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (i >= avail) {
      err = kRecVarintShort;
      return false;
    }
    const uint8_t b = w[i++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  err = kRecVarintLong;
  return false;
}
__device__ inline Record read_record(const uint8_t* w, uint32_t o, uint32_t avail, uint32_t vsize) {
  Record r;
  uint32_t i = o;
  if (!read_varint(w, i, avail, r.gap, r.err) || !read_varint(w, i, avail, r.len1, r.err)) return r;
  r.value_at = i;
  if (avail - i < vsize) {
    r.err = kRecValueShort;
    return r;
  }
  r.bytes = i + vsize - o;
  return r;
}

struct Sums {  // per record: gap + run (the end moves by it), run, whether it holds entries
  uint64_t end, held, stored;
  __device__ Sums operator+(const Sums& o) const { return {end + o.end, held + o.held, stored + o.stored}; }
};
struct SumOp {
  __device__ Sums operator()(const Sums& a, const Sums& b) const { return a + b; }
};

template <class T>
__global__ void __launch_bounds__(kParseThreads) parse_kernel(const uint8_t* sec, uint64_t len, uint64_t bound,
                                                              DeviceStatus* st, uint32_t where, uint64_t capacity,
                                                              uint64_t* start, uint64_t* length, uint64_t* first,
                                                              T* value, uint64_t* count) {
  using Scan = cub::BlockScan<Sums, kParseThreads>;
  __shared__ typename Scan::TempStorage scan_tmp;
  __shared__ uint8_t win[kWindow + kLook];
  __shared__ uint8_t rec_len[kWindow];  // 0: no valid record at that offset
  __shared__ uint16_t rec_at[kMaxRecords];
  __shared__ Bits<T> pal[kMaxPalette];
  __shared__ uint32_t s_records, s_next, s_fail;
  __shared__ Sums s_carry;
  const uint32_t tid = threadIdx.x;
  if (tid == 0) {
    count[0] = 0;  // the runs are empty unless the whole section checks out
    count[1] = 0;
  }
  if (failed(st)) return;
  if (len < kHeaderBytes) {  // which field read_runs was reading when the bytes ran out
    if (tid == 0)
      report(st, kStatusRunsTruncated, where, len < 8 ? 0 : len < 16 ? 8 : len < 17 ? 16 : len < 18 ? 17 : 18, 0);
    return;
  }
  auto le64 = [&](uint64_t at) {
    uint64_t v = 0;
    for (uint32_t b = 0; b < 8; ++b) v |= static_cast<uint64_t>(sec[at + b]) << (8 * b);
    return v;
  };
  const uint64_t entries = le64(0), nruns = le64(8);
  const uint8_t mode = sec[16];
  const uint32_t psize = sec[17] + 1u;
  // nruns <= capacity follows from the second test: every run takes at least 3 bytes.
  if (!(mode <= 1 && entries <= bound && nruns <= entries) || nruns > (len - kHeaderBytes) / 3 + 1) {
    if (tid == 0) report(st, kStatusRunsHeader, where, entries, nruns);
    return;
  }
  uint64_t pos = kHeaderBytes;
  if (mode == 1) {
    if (len - pos < uint64_t{psize} * sizeof(T)) {
      if (tid == 0) report(st, kStatusRunsTruncated, where, pos, 0);
      return;
    }
    for (uint32_t i = tid; i < psize; i += kParseThreads) {
      Bits<T> v = 0;
      for (uint32_t b = 0; b < sizeof(T); ++b) v |= static_cast<Bits<T>>(sec[pos + i * sizeof(T) + b]) << (8 * b);
      pal[i] = v;
    }
    pos += uint64_t{psize} * sizeof(T);
  }
  const uint32_t vsize = mode == 1 ? 1u : static_cast<uint32_t>(sizeof(T));
  Sums carry{0, 0, 0};
  uint64_t k = 0;  // records done
  while (k < nruns) {
    // Stage the window, then the length of a record at each offset that could start one.
    const uint64_t staged = min(uint64_t{kWindow + kLook}, len - pos);
    for (uint32_t i = tid; i < staged; i += kParseThreads) win[i] = sec[pos + i];
    __syncthreads();
    const uint32_t avail = static_cast<uint32_t>(staged);
    const uint32_t starts = min(avail, kWindow);
    for (uint32_t o = tid; o < starts; o += kParseThreads) {
      const Record r = read_record(win, o, avail, vsize);
      rec_len[o] = r.err == kRecOk ? static_cast<uint8_t>(r.bytes) : 0;
    }
    __syncthreads();
    // The chain: records from offset 0 until the window, the runs or the section end, or a
    // record that cannot be read (kept as the last, to report it).
    if (tid == 0) {
      uint32_t o = 0, m = 0;
      while (k + m < nruns && o < kWindow) {
        rec_at[m++] = static_cast<uint16_t>(o);
        if (o >= avail || rec_len[o] == 0) break;  // bytes run out or a bad field: report it
        o += rec_len[o];
      }
      s_records = m;
      s_next = o;
      s_fail = ~0u;
    }
    __syncthreads();
    const uint32_t m = s_records;
    const uint32_t per = (m + kParseThreads - 1) / kParseThreads, j0 = min(m, tid * per), j1 = min(m, j0 + per);
    Sums mine{0, 0, 0};
    for (uint32_t j = j0; j < j1; ++j) {
      const Record r = read_record(win, rec_at[j], avail, vsize);
      const uint64_t run = r.len1 + 1;
      mine = mine + Sums{r.gap + run, run, run > 0 ? 1u : 0u};
    }
    Sums before;
    Scan(scan_tmp).ExclusiveScan(mine, before, Sums{0, 0, 0}, SumOp{});
    Sums at = carry + before;
    for (uint32_t j = j0; j < j1; ++j) {
      const Record r = read_record(win, rec_at[j], avail, vsize);
      const uint64_t run = r.len1 + 1;  // wraps to 0 for 2^64 - 1, as read_runs' does
      const bool overrun = !(r.gap <= bound - at.end && run <= bound - at.end - r.gap && run <= entries - at.held);
      uint32_t pi = 0;
      if (r.err == kRecOk && mode == 1) pi = win[r.value_at];
      if (r.err != kRecOk || overrun || pi >= psize) {
        atomicMin(&s_fail, j);
        break;  // later records of this thread follow a bad one
      }
      const uint64_t s0 = at.end + r.gap;
      if (run > 0 && at.stored < capacity) {  // a zero-length run holds no entry: nothing to keep
        Bits<T> bits;
        if (mode == 1) {
          bits = pal[pi];
        } else {
          bits = 0;
          for (uint32_t b = 0; b < sizeof(T); ++b) bits |= static_cast<Bits<T>>(win[r.value_at + b]) << (8 * b);
        }
        start[at.stored] = s0;
        length[at.stored] = run;
        first[at.stored] = at.held;
        value[at.stored] = cuda::std::bit_cast<T>(bits);
      }
      at = at + Sums{r.gap + run, run, run > 0 ? 1u : 0u};
    }
    __syncthreads();
    const uint32_t bad = s_fail;
    if (bad != ~0u) {
      // The thread holding the first bad record reports it as read_runs would.
      if (bad >= j0 && bad < j1) {
        const Record r = read_record(win, rec_at[bad], avail, vsize);
        Sums pre = carry + before;
        for (uint32_t j = j0; j < bad; ++j) {
          const Record q = read_record(win, rec_at[j], avail, vsize);
          pre = pre + Sums{q.gap + q.len1 + 1, q.len1 + 1, q.len1 + 1 > 0 ? 1u : 0u};
        }
        const uint64_t run = r.len1 + 1;
        if (r.err == kRecVarintShort) {
          report(st, kStatusRunsTruncated, where, len, 0);  // the bytes ran out inside a varint
        } else if (r.err == kRecVarintLong) {
          report(st, kStatusRunsOverrun, where, k + bad, 0);  // a varint past 64 bits
        } else if (!(r.gap <= bound - pre.end && run <= bound - pre.end - r.gap && run <= entries - pre.held)) {
          report(st, kStatusRunsOverrun, where, k + bad, 0);
        } else if (r.err == kRecValueShort) {
          report(st, kStatusRunsTruncated, where, mode == 1 ? len : pos + r.value_at, 0);
        } else {
          report(st, kStatusRunsPalette, where, k + bad, win[r.value_at]);
        }
      }
      return;
    }
    // Every thread's last `at` past its records: the carry is the total, taken from the last
    // thread with records (the scan's aggregate).
    if (tid == kParseThreads - 1) s_carry = carry + before + mine;
    __syncthreads();
    carry = s_carry;
    k += m;
    pos += s_next;
    __syncthreads();  // win and rec_len are rewritten next
  }
  if (tid == 0) {
    if (carry.held != entries || pos != len) {
      report(st, kStatusRunsTotals, where, carry.held, entries);
      return;
    }
    count[0] = carry.stored;
    count[1] = carry.held;
  }
}

}  // namespace

namespace detail {
int scatter_blocks() {
  static std::mutex mu;
  static std::vector<int> known;  // per device: SMs x resident blocks of 256 threads
  int dev = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  if (static_cast<size_t>(dev) >= known.size()) known.resize(dev + 1, 0);
  if (known[dev] == 0) {
    int sms = 0;
    SCIZ_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    known[dev] = std::max(sms, 1) * 8;
  }
  return known[dev];
}
}  // namespace detail

template <class T>
DeviceBlob write_device(const uint64_t* d_idx, const T* d_val, uint64_t count, cudaStream_t s) {
  DeviceBlob blob;
  if (count == 0) {  // entries 0, runs 0, raw, no palette: 24 zero bytes
    blob.bytes = dev::Buffer<uint8_t>(kHeaderBytes, s);
    SCIZ_CUDA_CHECK(cudaMemsetAsync(blob.bytes.get(), 0, kHeaderBytes, s));
    blob.size = kHeaderBytes;
    return blob;
  }
  const Entries<T> in{d_idx, d_val, count};
  dev::Buffer<uint64_t> head(count, s), off(count + 1, s), meta(kMetaWords, s);
  dev::Buffer<uint8_t> pal_index(count, s);
  dev::Buffer<Bits<T>> palette(kMaxPalette, s);
  const auto items = static_cast<int64_t>(count);
  const thrust::counting_iterator<uint64_t> index(0);
  const IsRunStart<T> starts{in};
  const auto varint_bytes_of = thrust::make_transform_iterator(index, VarintBytes<T>{in, head.get(), meta.get()});
  size_t select_bytes = 0, scan_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceSelect::If(nullptr, select_bytes, index, head.get(), meta.get() + kRuns, items, starts, s));
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, varint_bytes_of, off.get(), items + 1, s));
  dev::Buffer<uint8_t> temp(std::max(select_bytes, scan_bytes), s);
  SCIZ_CUDA_CHECK(
      cub::DeviceSelect::If(temp.get(), select_bytes, index, head.get(), meta.get() + kRuns, items, starts, s));
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), scan_bytes, varint_bytes_of, off.get(), items + 1, s));
  palette_kernel<T><<<1, kPaletteThreads, 0, s>>>(in, head.get(), off.get(), pal_index.get(), palette.get(),
                                                   meta.get());
  SCIZ_CUDA_CHECK_LAUNCH("palette_kernel (exact runs)");
  uint64_t m[kMetaWords];
  dev::copy_to_host(m, meta.get(), sizeof m, s);
  dev::sync(s);  // the one synchronization: the section's size
  blob.size = m[kSize];
  blob.bytes = dev::Buffer<uint8_t>(blob.size, s);
  const uint64_t nruns = m[kRuns];
  const bool use = m[kUsePalette] != 0;
  constexpr uint32_t kThreads = 256;
  const uint64_t blocks = std::max<uint64_t>((nruns + kThreads - 1) / kThreads, 1);
  write_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(
      in, head.get(), off.get(), pal_index.get(), palette.get(), nruns, use ? static_cast<uint32_t>(m[kDistinct]) : 0,
      use, blob.bytes.get());
  SCIZ_CUDA_CHECK_LAUNCH("write_kernel (exact runs)");
  return blob;
}

template <class T>
DeviceRuns<T> parse_device(const uint8_t* d_sec, uint64_t len, uint64_t bound, DeviceStatus* st, uint32_t where,
                           cudaStream_t s) {
  DeviceRuns<T> runs;
  // read_runs accepts at most (len - 24) / 3 + 1 runs, and the parser stores no more.
  runs.capacity = len >= kHeaderBytes ? (len - kHeaderBytes) / 3 + 1 : 0;
  runs.start = dev::Buffer<uint64_t>(runs.capacity, s);
  runs.length = dev::Buffer<uint64_t>(runs.capacity, s);
  runs.first = dev::Buffer<uint64_t>(runs.capacity, s);
  runs.value = dev::Buffer<T>(runs.capacity, s);
  runs.count = dev::Buffer<uint64_t>(2, s);
  parse_kernel<T><<<1, kParseThreads, 0, s>>>(d_sec, len, bound, st, where, runs.capacity, runs.start.get(),
                                              runs.length.get(), runs.first.get(), runs.value.get(),
                                              runs.count.get());
  SCIZ_CUDA_CHECK_LAUNCH("parse_kernel (exact runs)");
  return runs;
}

namespace {
struct Identity {
  __device__ uint64_t operator()(uint64_t i) const { return i; }
};
}  // namespace

template <class T>
void scatter_device(const DeviceRuns<T>& runs, T* d_out, const DeviceStatus* st, cudaStream_t s) {
  scatter_device_mapped(runs, d_out, st, Identity{}, s);
}

#define SCIZ_EXACT_RUNS_CUDA(T)                                                                                     \
  template DeviceBlob write_device<T>(const uint64_t*, const T*, uint64_t, cudaStream_t);                         \
  template DeviceRuns<T> parse_device<T>(const uint8_t*, uint64_t, uint64_t, DeviceStatus*, uint32_t, cudaStream_t); \
  template void scatter_device<T>(const DeviceRuns<T>&, T*, const DeviceStatus*, cudaStream_t);
SCIZ_EXACT_RUNS_CUDA(float)
SCIZ_EXACT_RUNS_CUDA(double)
#undef SCIZ_EXACT_RUNS_CUDA

}  // namespace sciz::runs
