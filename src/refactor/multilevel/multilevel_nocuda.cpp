// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "refactor/multilevel/multilevel.hpp"

namespace sciz::multilevel {
void fill_cuda(const Layout&, double*, double, cudaStream_t) {
  fail(Status::no_device, "multilevel: this sciz was built without CUDA");
}
void decompose_cuda(const Layout&, const double*, double*, cudaStream_t) {
  fail(Status::no_device, "multilevel: this sciz was built without CUDA");
}
void recompose_cuda(const Layout&, const double*, double*, cudaStream_t) {
  fail(Status::no_device, "multilevel: this sciz was built without CUDA");
}
}  // namespace sciz::multilevel
