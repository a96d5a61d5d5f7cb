// TCMS_w: two's complement <-> magnitude-sign, per w-byte symbol, for both twins.
//
// Quant codes and differences cluster around zero in two's complement, where -1 is all ones;
// magnitude-sign puts the sign in bit 0 and the magnitude above it, so small values of either
// sign have only low bits set and the high bytes and bit planes become runs of zeros that
// RZE, RRE and BIT can remove.
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/hd.hpp"

namespace sciz::stages {

// (v << 1) ^ (v >> (8w - 1)) with an arithmetic shift: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ...
template <class U>
SCIZ_HD U tcms_forward(U v) {
  using S = std::make_signed_t<U>;
  const U sign = static_cast<U>(static_cast<S>(v) >> (8 * sizeof(U) - 1));
  return static_cast<U>(static_cast<U>(v << 1) ^ sign);
}

template <class U>
SCIZ_HD U tcms_inverse(U u) {
  return static_cast<U>(static_cast<U>(u >> 1) ^ static_cast<U>(U(0) - static_cast<U>(u & 1u)));
}

}  // namespace sciz::stages
