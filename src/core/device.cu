// Device memory from the stream-ordered pool and checked copies; see device.hpp.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include <sciz/sciz.hpp>

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
  if (const char* v = std::getenv("SCIZ_POOL_DEPS"); v && *v == '0') {  // measurement switch
    int off = 0;
    SCIZ_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &off));
  }
  done[device] = true;
}

}  // namespace

bool available() { return probe().ok; }

void require_available() {
  if (!probe().ok) fail(Status::no_device, probe().why);
}

namespace {
thread_local const DeviceAllocator* t_allocator = nullptr;
}

const DeviceAllocator* current_allocator() { return t_allocator; }
AllocatorScope::AllocatorScope(const DeviceAllocator* a) : prev_(t_allocator) { t_allocator = a; }
AllocatorScope::~AllocatorScope() { t_allocator = prev_; }

namespace {

// Small blocks kept per worker stream. A chunk's encoder or decoder allocates about a hundred
// small buffers (level tables, counts, sort scratch, per-launch lists); from the pool each is a
// cudaMallocAsync and a cudaFreeAsync, and with several workers those calls contend in the
// driver (CUPTI: 1,730 of each, 10 us on average, in one 16-chunk interp call). A block freed
// on a stream is handed out again only on that stream, which orders its new use after every
// earlier use there: the pool's own rule for same-stream reuse. Only the engine's streams
// (make_stream: one per worker, never destroyed) keep blocks; a caller's stream never does.
constexpr int kMinClassLog = 8;                  // 256 B
constexpr int kMaxClassLog = 22;                 // 4 MiB: larger blocks go to the pool
constexpr int kClasses = kMaxClassLog - kMinClassLog + 1;
constexpr size_t kKeptPerStream = size_t{64} << 20;

struct StreamCache {
  int device = 0;
  std::mutex mu;
  std::vector<void*> free[kClasses];
  size_t bytes = 0;
};

std::mutex g_caches_mu;
std::vector<std::pair<cudaStream_t, StreamCache*>> g_caches;  // entries never removed
std::atomic<uint64_t> g_kept_bytes[64];                         // per device, for free_memory

StreamCache* cache_of(cudaStream_t s) {
  if (!s) return nullptr;
  thread_local cudaStream_t t_last = nullptr;
  thread_local StreamCache* t_cache = nullptr;
  if (s == t_last) return t_cache;
  StreamCache* c = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_caches_mu);
    for (const auto& [st, sc] : g_caches)
      if (st == s) c = sc;
  }
  t_last = s, t_cache = c;
  return c;
}

// The class of a request, or -1 for one the caches do not take.
int class_of(size_t bytes) {
  if (bytes > (size_t{1} << kMaxClassLog)) return -1;
  int k = kMinClassLog;
  while ((size_t{1} << k) < bytes) ++k;
  return k - kMinClassLog;
}

// Every kept block back to the pool (before trimming it, or when an allocation failed).
void drop_kept_blocks() {
  std::lock_guard<std::mutex> lock(g_caches_mu);
  int was = 0;
  if (cudaGetDevice(&was) != cudaSuccess) (void)cudaGetLastError();
  for (const auto& [st, c] : g_caches) {
    std::lock_guard<std::mutex> l(c->mu);
    if (c->bytes && cudaSetDevice(c->device) != cudaSuccess) (void)cudaGetLastError();
    for (auto& list : c->free) {
      for (void* p : list)
        if (cudaFreeAsync(p, st) != cudaSuccess) (void)cudaGetLastError();
      list.clear();
    }
    if (c->device >= 0 && c->device < 64) g_kept_bytes[c->device] -= c->bytes;
    c->bytes = 0;
  }
  if (cudaSetDevice(was) != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace

void* alloc(size_t bytes, cudaStream_t s) {
  require_available();
  if (const DeviceAllocator* a = t_allocator) {
    SCIZ_REQUIRE(a->allocate && a->deallocate, Status::invalid_argument, "device allocator lacks allocate or deallocate");
    void* p = a->allocate(a->ctx, bytes ? bytes : 1, s);
    if (!p) fail(Status::cuda_error, "out of GPU memory: the caller's allocator returned no memory for " +
                                         std::to_string(bytes) + " bytes");
    return p;
  }
  StreamCache* c = cache_of(s);
  const int k = c ? class_of(bytes) : -1;
  if (k >= 0) {
    std::lock_guard<std::mutex> lock(c->mu);
    if (!c->free[k].empty()) {
      void* p = c->free[k].back();
      c->free[k].pop_back();
      c->bytes -= size_t{1} << (k + kMinClassLog);
      g_kept_bytes[c->device] -= size_t{1} << (k + kMinClassLog);
      return p;
    }
  }
  // A block a stream may keep has its class's size, so that any request of the class fits it.
  const size_t want = k >= 0 ? size_t{1} << (k + kMinClassLog) : bytes ? bytes : 1;
  int device = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&device));
  keep_pool_memory(device);
  void* p = nullptr;
  cudaError_t err = cudaMallocAsync(&p, want, s);
  if (err == cudaErrorMemoryAllocation) {
    // Memory the pool and the streams hold idle may sit in blocks too small for this request:
    // hand it back to the device and try once more before giving up.
    (void)cudaGetLastError();
    drop_kept_blocks();
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess && cudaMemPoolTrimTo(pool, 0) == cudaSuccess)
      err = cudaMallocAsync(&p, want, s);
    else
      (void)cudaGetLastError();
  }
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

void release(void* p, size_t bytes, cudaStream_t s, const DeviceAllocator* a) noexcept {
  if (!p) return;
  if (a) {
    a->deallocate(a->ctx, p, bytes, s);
    return;
  }
  // alloc gave a block of the class's size for the same (bytes, stream): it may be kept.
  if (StreamCache* c = cache_of(s)) {
    if (const int k = class_of(bytes); k >= 0) {
      const size_t size = size_t{1} << (k + kMinClassLog);
      std::lock_guard<std::mutex> lock(c->mu);
      if (c->bytes + size <= kKeptPerStream) {
        c->free[k].push_back(p);
        c->bytes += size;
        g_kept_bytes[c->device] += size;
        return;
      }
    }
  }
  if (cudaFreeAsync(p, s) != cudaSuccess) (void)cudaGetLastError();
}

void trim_pools() {
  drop_kept_blocks();
  const int n = device_count();
  const int was = n ? current_device() : 0;
  for (int d = 0; d < n; ++d) {
    // Blocks freed on a stream return to the pool only when that stream's work is done.
    SCIZ_CUDA_CHECK(cudaSetDevice(d));
    const cudaError_t synced = cudaDeviceSynchronize();
    SCIZ_CUDA_CHECK(cudaSetDevice(was));
    SCIZ_CUDA_CHECK(synced);
    cudaMemPool_t pool;
    SCIZ_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, d));
    SCIZ_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
  }
}

int device_count() {
  if (!available()) return 0;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

int current_device() {
  int d = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void set_device(int d) {
  const int n = device_count();
  SCIZ_REQUIRE(d >= 0 && d < n, Status::invalid_argument,
               "CUDA device " + std::to_string(d) + " does not exist (" + std::to_string(n) + " visible)");
  SCIZ_CUDA_CHECK(cudaSetDevice(d));
}

namespace {
// Memory the device's default pool holds but no allocation uses: the pool keeps what was freed
// (its release threshold is raised), so cudaMemGetInfo counts it as taken although sciz's next
// allocations reuse it.
uint64_t pool_idle(int device) {
  cudaMemPool_t pool;
  uint64_t reserved = 0, used = 0;
  if (cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return reserved > used ? reserved - used : 0;
}
}  // namespace

uint64_t free_memory() {
  size_t f = 0, t = 0;
  SCIZ_CUDA_CHECK(cudaMemGetInfo(&f, &t));
  if (t_allocator) return f;  // the caller's allocator does not draw on sciz's pool
  int device = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&device));
  return f + pool_idle(device) + (device >= 0 && device < 64 ? g_kept_bytes[device].load() : 0);
}

bool is_pinned_host_pointer(const void* p) {
  if (!p || !available()) return false;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
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

void zero(void* d, size_t bytes, cudaStream_t s) {
  if (bytes) SCIZ_CUDA_CHECK(cudaMemsetAsync(d, 0, bytes, s));
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

int device_of_pointer(const void* p) {
  if (!p || !available()) return -1;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ? a.device : -1;
}

}  // namespace sciz::dev

// ---- streams and events (core/device_streams.hpp) ----
#include "core/device_streams.hpp"

namespace sciz::dev {

cudaStream_t make_stream(int device) {
  int prev = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&prev));
  SCIZ_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t s = nullptr;
  SCIZ_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  SCIZ_CUDA_CHECK(cudaSetDevice(prev));
  if (device >= 0 && device < 64 && !std::getenv("SCIZ_NO_STREAM_CACHE")) {  // the env: a measurement switch
    auto* c = new StreamCache;  // lives as long as the stream: the process
    c->device = device;
    std::lock_guard<std::mutex> lock(g_caches_mu);
    g_caches.emplace_back(s, c);
  }
  return s;
}

Event make_event() {
  cudaEvent_t e = nullptr;
  SCIZ_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return e;
}

void destroy_event(Event e) noexcept {
  if (e && cudaEventDestroy(e) != cudaSuccess) (void)cudaGetLastError();
}

void record(Event e, cudaStream_t s) { SCIZ_CUDA_CHECK(cudaEventRecord(e, s)); }

void wait(cudaStream_t s, Event e) { SCIZ_CUDA_CHECK(cudaStreamWaitEvent(s, e, 0)); }

}  // namespace sciz::dev
