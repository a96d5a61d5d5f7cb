// Zero-run coding of quant codes: the centre code (a zero residual) dominates smooth data, so
// only its runs are worth a length. Every other code becomes a token carrying itself and the
// number of centre codes before it; noisy stretches then cost no lengths at all, unlike plain
// rle, which spends one on every run of length 1.
//
// Tokens sit at every position i whose code is not the centre, and at every i with
// i % 65536 == 65535 (forced, whatever the code), so a zero run never exceeds 65535 and never
// crosses a 65536-aligned tile: each tile is coded on its own, in parallel. The centre codes
// after the last token form the tail (< 65536). CPU and CUDA twins produce the same tokens.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/hd.hpp"

namespace sciz::zrle {

inline constexpr uint64_t kTile = 65536;

SCIZ_HD bool is_token(uint64_t i, uint16_t code, uint16_t centre) { return code != centre || i % kTile == kTile - 1; }

struct Tokens {
  std::vector<uint16_t> value, zrun;  // zrun[k]: centre codes between token k-1 and token k
  uint32_t tail = 0;
};
Tokens tokens_cpu(std::span<const uint16_t> sym, uint16_t centre);
// Throws corrupt_stream unless the arrays match and sum(zrun + 1) + tail == out.size(),
// checked before anything is written.
void expand_cpu(std::span<const uint16_t> value, std::span<const uint16_t> zrun, uint32_t tail, uint16_t centre,
                std::span<uint16_t> out);

struct DeviceTokens {
  dev::Buffer<uint16_t> value, zrun;
  uint64_t count = 0;
  uint32_t tail = 0;
};
DeviceTokens tokens_cuda(const uint16_t* d_sym, uint64_t n, uint16_t centre, cudaStream_t s);
// Validates the total (one sync) before writing; never writes outside d_out[0, n).
void expand_cuda(const uint16_t* d_value, const uint16_t* d_zrun, uint64_t count, uint32_t tail, uint16_t centre,
                 uint16_t* d_out, uint64_t n, cudaStream_t s);

}  // namespace sciz::zrle
