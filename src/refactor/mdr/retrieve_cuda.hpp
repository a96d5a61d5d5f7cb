// Retrieval's reconstruction on the GPU (retrieve_cuda.cu; retrieve_nocuda.cpp without CUDA):
// from the digits the host decoded to the field in device memory, bit for bit what the host
// reconstruction (retriever.cpp) writes. Host-only interface.
#pragma once
#include <cstdint>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "refactor/bitplanes/bitplanes_math.hpp"
#include "refactor/multilevel/multilevel.hpp"

namespace sciz::mdr {

// How one level's coefficients come back from its digits: both reconstructions take these.
struct LevelRecon {
  uint64_t offset = 0, count = 0;  // in the flat coefficient array
  int exponent = 0;
  int unknown = 0;    // low digits not read
  bool read = false;  // any group read (else every coefficient is 0)
};

// nb: the field's digits in host memory, read before returning and only in the levels read
// (the others may be undefined). exact_bits: the special values' bit patterns, low sizeof(T)
// bytes. Queued on s; d_out holds the field once s is synchronized.
template <class T>
void reconstruct_into_device(const multilevel::Layout& lay, const std::vector<LevelRecon>& levels,
                             const typename bitplanes::Digits<T>::Word* nb, const std::vector<uint64_t>& exact_idx,
                             const std::vector<uint64_t>& exact_bits, T* d_out, cudaStream_t s);

}  // namespace sciz::mdr
