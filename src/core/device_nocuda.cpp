// Built only without CUDA: every device entry point says so clearly instead of failing to link.
#include <sciz/error.hpp>

#include "core/device.hpp"

namespace sciz::dev {
namespace {
[[noreturn]] void no_cuda() { fail(Status::no_device, "this sciz was built without CUDA; use --device cpu"); }
}  // namespace
bool available() { return false; }
void require_available() { no_cuda(); }
void* alloc(size_t, cudaStream_t) { no_cuda(); }
void release(void*, size_t, cudaStream_t, const DeviceAllocator*) noexcept {}
void trim_pools() {}
const DeviceAllocator* current_allocator() { return nullptr; }
AllocatorScope::AllocatorScope(const DeviceAllocator* a) : prev_(a) {}
AllocatorScope::~AllocatorScope() = default;
int device_count() { return 0; }
int current_device() { no_cuda(); }
void set_device(int) { no_cuda(); }
uint64_t free_memory() { no_cuda(); }
bool is_pinned_host_pointer(const void*) { return false; }
void copy_to_device(void*, const void*, size_t, cudaStream_t) { no_cuda(); }
void copy_to_host(void*, const void*, size_t, cudaStream_t) { no_cuda(); }
void copy_on_device(void*, const void*, size_t, cudaStream_t) { no_cuda(); }
void sync(cudaStream_t) { no_cuda(); }
void zero(void*, size_t, cudaStream_t) { no_cuda(); }
bool is_device_pointer(const void*) { return false; }
int device_of_pointer(const void*) { return -1; }
}  // namespace sciz::dev

#include "core/device_streams.hpp"

namespace sciz::dev {
cudaStream_t make_stream(int) { fail(Status::no_device, "this sciz was built without CUDA; use --device cpu"); }
Event make_event() { fail(Status::no_device, "this sciz was built without CUDA; use --device cpu"); }
void destroy_event(Event) noexcept {}
void record(Event, cudaStream_t) {}
void wait(cudaStream_t, Event) {}
}  // namespace sciz::dev
