// Device-resident pieces of the rle CUDA twin: runs written where a caller's section wants
// them, and an expansion whose run count and validation stay on the device. No
// synchronization in either. Host-only interface (rle_cuda.cu).
#pragma once
#include <cstdint>

#include "core/cuda_fwd.hpp"
#include "core/device_status.hpp"

namespace sciz::rle::cuda {

// The runs of d_sym[0, n) (16-byte aligned) into d_value and d_len_m1 (any 2-byte address),
// given each 65536-code tile's run count (d_tile_runs, from the codes' stats pass).
void write_runs(const uint16_t* d_sym, uint64_t n, const uint64_t* d_tile_runs, uint16_t* d_value, uint16_t* d_len_m1,
                cudaStream_t s);

// Expands *d_runs runs (at most runs_max, which the caller has checked) into d_out[0, n) after
// checking on the device that their lengths cover n codes (kStatusCodesCover, where = `where`).
// Nothing is written when st holds a failure, this one or an earlier one.
void expand_device(const uint16_t* d_value, const uint16_t* d_len_m1, const uint64_t* d_runs, uint64_t runs_max,
                   uint16_t* d_out, uint64_t n, DeviceStatus* st, uint32_t where, cudaStream_t s);

}  // namespace sciz::rle::cuda
