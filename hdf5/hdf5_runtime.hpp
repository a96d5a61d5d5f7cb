// The HDF5 functions the plugin calls, looked up at run time in the libhdf5 that is calling
// it. A process may hold several libhdf5 copies at once (h5py and netCDF4 each bundle one;
// h5dump uses the system's), and handles (hid_t) from one mean nothing to another, so each
// callback resolves the functions of the library it was called from.
#pragma once
#include <cstddef>
#include <string>

#include "hdf5_abi.hpp"

namespace sciz::h5 {

struct Hdf5Api {
  int (*tget_class)(h5abi::hid_t) = nullptr;
  size_t (*tget_size)(h5abi::hid_t) = nullptr;
  int (*tget_order)(h5abi::hid_t) = nullptr;
  int (*pget_chunk)(h5abi::hid_t, int, h5abi::hsize_t*) = nullptr;
  h5abi::herr_t (*pget_filter_by_id2)(h5abi::hid_t, h5abi::filter_t, unsigned*, size_t*, unsigned*, size_t, char*,
                                      unsigned*) = nullptr;
  h5abi::herr_t (*pmodify_filter)(h5abi::hid_t, h5abi::filter_t, unsigned, size_t, const unsigned*) = nullptr;
  // Optional: HDF5 builds that check their own allocations need buffers from them.
  void* (*allocate_memory)(size_t, bool) = nullptr;
  h5abi::herr_t (*free_memory)(void*) = nullptr;
  // Optional: the error stack that h5py and the tools print.
  h5abi::herr_t (*epush2)(h5abi::hid_t, const char*, const char*, unsigned, h5abi::hid_t, h5abi::hid_t,
                          h5abi::hid_t, const char*, ...) = nullptr;
  const h5abi::hid_t* err_class = nullptr;  // H5E_ERR_CLS_g
  const h5abi::hid_t* err_major = nullptr;  // H5E_PLINE_g
  const h5abi::hid_t* err_minor = nullptr;  // H5E_CALLBACK_g
  std::string library;                      // path of the libhdf5 these came from, for messages

  bool has_dataset_calls() const {
    return tget_class && tget_size && tget_order && pget_chunk && pget_filter_by_id2 && pmodify_filter;
  }
  void* allocate(size_t bytes) const;
  void release(void* p) const;
  // Puts `message` on HDF5's error stack (when this libhdf5 exports what that takes).
  void report(const char* function, const std::string& message) const;
};

// The API of the libhdf5 that holds `caller` (a return address inside it); the library the
// process resolves global symbols from when that fails. Never null; resolved once per library.
const Hdf5Api& api_for_caller(const void* caller);

}  // namespace sciz::h5
