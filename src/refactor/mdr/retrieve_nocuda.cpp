// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "refactor/mdr/retrieve_cuda.hpp"

namespace sciz::mdr {
template <class T>
void reconstruct_into_device(const multilevel::Layout&, const std::vector<LevelRecon>&,
                             const typename bitplanes::Digits<T>::Word*, const std::vector<uint64_t>&,
                             const std::vector<uint64_t>&, T*, cudaStream_t) {
  fail(Status::no_device, "mdr: this sciz was built without CUDA; retrieve into host memory");
}
template void reconstruct_into_device<float>(const multilevel::Layout&, const std::vector<LevelRecon>&, const uint32_t*,
                                             const std::vector<uint64_t>&, const std::vector<uint64_t>&, float*,
                                             cudaStream_t);
template void reconstruct_into_device<double>(const multilevel::Layout&, const std::vector<LevelRecon>&, const uint64_t*,
                                              const std::vector<uint64_t>&, const std::vector<uint64_t>&, double*,
                                              cudaStream_t);
}  // namespace sciz::mdr
