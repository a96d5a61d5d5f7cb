// PLACEHOLDER, to be replaced by the real CUDA twin (single compression kernel with a
// decoupled look-back over per-layer payload sizes, single decompression kernel; see
// docs/DELTA.md, "GPU mapping"). It exists so that a CUDA build links; until then the
// pipeline's CUDA path refuses with Status::unsupported.
#include <sciz/error.hpp>

#include "predict/delta/delta.hpp"

namespace sciz::delta {
namespace {
[[noreturn]] void not_built() { fail(Status::unsupported, "delta: CUDA twin not yet built (use --device cpu)"); }
}  // namespace

template <class T>
Encoded encode_cuda(const T*, uint64_t, double, cudaStream_t, Stats*) {
  not_built();
}
template <class T>
void decode_cuda(const Sections&, uint64_t, double, T*, cudaStream_t) {
  not_built();
}

template Encoded encode_cuda<float>(const float*, uint64_t, double, cudaStream_t, Stats*);
template Encoded encode_cuda<double>(const double*, uint64_t, double, cudaStream_t, Stats*);
template void decode_cuda<float>(const Sections&, uint64_t, double, float*, cudaStream_t);
template void decode_cuda<double>(const Sections&, uint64_t, double, double*, cudaStream_t);

}  // namespace sciz::delta
