#include "hdf5_runtime.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

namespace sciz::h5 {

namespace {

template <class F>
void bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
}

template <class T>
void bind_var(void* lib, const char* name, const T*& v) {
  v = static_cast<const T*>(dlsym(lib, name));
}

Hdf5Api resolve(void* lib, std::string name) {
  Hdf5Api a;
  a.library = std::move(name);
  bind(lib, "H5Tget_class", a.tget_class);
  bind(lib, "H5Tget_size", a.tget_size);
  bind(lib, "H5Tget_order", a.tget_order);
  bind(lib, "H5Pget_chunk", a.pget_chunk);
  bind(lib, "H5Pget_filter_by_id2", a.pget_filter_by_id2);
  bind(lib, "H5Pmodify_filter", a.pmodify_filter);
  bind(lib, "H5allocate_memory", a.allocate_memory);
  bind(lib, "H5free_memory", a.free_memory);
  bind(lib, "H5Epush2", a.epush2);
  bind_var(lib, "H5E_ERR_CLS_g", a.err_class);
  bind_var(lib, "H5E_PLINE_g", a.err_major);
  bind_var(lib, "H5E_CALLBACK_g", a.err_minor);
  // Buffers must come from and go back to one allocator: take HDF5's only as a pair.
  if (!a.allocate_memory || !a.free_memory) a.allocate_memory = nullptr, a.free_memory = nullptr;
  return a;
}

struct Known {
  const void* base;  // load address of the library, the cache key
  std::unique_ptr<Hdf5Api> api;
};

}  // namespace

void* Hdf5Api::allocate(size_t bytes) const {
  return allocate_memory ? allocate_memory(bytes, false) : std::malloc(bytes);
}

void Hdf5Api::release(void* p) const {
  if (free_memory) free_memory(p);
  else std::free(p);
}

void Hdf5Api::report(const char* function, const std::string& message) const {
  if (!epush2 || !err_class || !err_major || !err_minor) return;
  epush2(h5abi::kDefaultErrorStack, __FILE__, function, __LINE__, *err_class, *err_major, *err_minor, "%s",
         message.c_str());
}

const Hdf5Api& api_for_caller(const void* caller) {
  static std::mutex mu;
  static std::vector<Known> known;  // a handful at most: one per libhdf5 in the process
  Dl_info info{};
  const bool located = caller && dladdr(caller, &info) && info.dli_fname;
  const void* key = located ? info.dli_fbase : nullptr;
  std::lock_guard<std::mutex> lock(mu);
  for (const Known& k : known)
    if (k.base == key) return *k.api;
  Hdf5Api api;
  if (located) {
    // RTLD_NOLOAD: only a handle to what is already mapped, never a second copy.
    void* lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (lib) api = resolve(lib, info.dli_fname);
  }
  if (!api.has_dataset_calls()) api = resolve(RTLD_DEFAULT, "the process's global symbols");
  known.push_back({key, std::make_unique<Hdf5Api>(std::move(api))});
  return *known.back().api;
}

}  // namespace sciz::h5
