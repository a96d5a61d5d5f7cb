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

// The same over the 8 / W symbols of an 8-byte little-endian word at once (symbols never
// straddle words: W divides 8), so both twins move whole words. Each symbol is a lane of W
// bytes; a shift across lanes brings in a neighbour's bit, which the lane masks clear.
template <int W>
SCIZ_HD constexpr uint64_t lane_low() {  // bit 0 of every lane
  return W == 1 ? 0x0101010101010101ull : W == 2 ? 0x0001000100010001ull : W == 4 ? 0x0000000100000001ull : 1ull;
}
template <int W>
SCIZ_HD constexpr uint64_t lane_high() {  // the top bit of every lane
  return lane_low<W>() << (8 * W - 1);
}
template <int W>
SCIZ_HD constexpr uint64_t lane_ones() {  // one lane of ones: times a lane's low bit, that lane all ones
  return W == 8 ? ~0ull : (1ull << (8 * W)) - 1;
}

template <int W>
SCIZ_HD uint64_t tcms_forward_word(uint64_t x) {
  return ((x << 1) & ~lane_low<W>()) ^ (((x & lane_high<W>()) >> (8 * W - 1)) * lane_ones<W>());
}

template <int W>
SCIZ_HD uint64_t tcms_inverse_word(uint64_t x) {
  return ((x >> 1) & ~lane_high<W>()) ^ ((x & lane_low<W>()) * lane_ones<W>());
}

}  // namespace sciz::stages
