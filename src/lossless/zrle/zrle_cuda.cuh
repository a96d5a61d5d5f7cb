// Device-resident pieces of the zero-run CUDA twin: tokens placed from the stats pass's tile
// counts, and an expansion whose token count, tail, centre and validation stay on the device.
// No synchronization in either. Host-only interface (zrle_cuda.cu).
#pragma once
#include <cstdint>

#include "core/cuda_fwd.hpp"
#include "core/device_status.hpp"

namespace sciz::zrle::cuda {

// The tokens of d_sym[0, n) (16-byte aligned) into d_value and d_zrun, given each 65536-code
// tile's token count (d_tile_tokens). The tail is the stats pass's.
void fill_tokens(const uint16_t* d_sym, uint64_t n, uint16_t centre, const uint64_t* d_tile_tokens, uint16_t* d_value,
                 uint16_t* d_zrun, cudaStream_t s);

// Expands *d_count tokens (at most count_max, which the caller has checked) with tail *d_tail
// and centre *d_centre (device words) into d_out[0, n) (16-byte aligned), after checking on the
// device that they cover n codes (kStatusCodesCover, where = `where`). Nothing is written when
// st holds a failure, this one or an earlier one.
void expand_device(const uint16_t* d_value, const uint16_t* d_zrun, const uint64_t* d_count, uint64_t count_max,
                   const uint64_t* d_tail, const uint64_t* d_centre, uint16_t* d_out, uint64_t n, DeviceStatus* st,
                   uint32_t where, cudaStream_t s);

}  // namespace sciz::zrle::cuda
