// w-byte little-endian symbols inside byte buffers, for both twins. Blobs place symbols at any
// byte offset, so loads and stores never assume alignment.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/hd.hpp"

namespace sciz::stages {

template <int W>
using uint_t = std::conditional_t<W == 1, uint8_t,
                                  std::conditional_t<W == 2, uint16_t, std::conditional_t<W == 4, uint32_t, uint64_t>>>;

template <int W>
SCIZ_HD uint_t<W> load_sym(const uint8_t* p) {
#if defined(__CUDA_ARCH__)
  uint_t<W> v = 0;
#pragma unroll
  for (int k = 0; k < W; ++k) v |= static_cast<uint_t<W>>(static_cast<uint_t<W>>(p[k]) << (8 * k));
  return v;
#else
  uint_t<W> v;  // the host is little-endian (core/byteio.hpp asserts it)
  std::memcpy(&v, p, W);
  return v;
#endif
}

template <int W>
SCIZ_HD void store_sym(uint8_t* p, uint_t<W> v) {
#if defined(__CUDA_ARCH__)
#pragma unroll
  for (int k = 0; k < W; ++k) p[k] = static_cast<uint8_t>(v >> (8 * k));
#else
  std::memcpy(p, &v, W);
#endif
}

// The same at an address aligned to W (a symbol of a block staged in shared memory): one access
// on the device.
template <int W>
SCIZ_HD uint_t<W> load_sym_aligned(const uint8_t* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const uint_t<W>*>(p);
#else
  return load_sym<W>(p);
#endif
}

template <int W>
SCIZ_HD void store_sym_aligned(uint8_t* p, uint_t<W> v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint_t<W>*>(p) = v;
#else
  store_sym<W>(p, v);
#endif
}

// Calls f.template operator()<W>() for a runtime width of 1, 2, 4 or 8: one template body
// serves every width.
template <class F>
decltype(auto) with_width(int w, F&& f) {
  switch (w) {
    case 1: return f.template operator()<1>();
    case 2: return f.template operator()<2>();
    case 4: return f.template operator()<4>();
    default: return f.template operator()<8>();
  }
}

}  // namespace sciz::stages
