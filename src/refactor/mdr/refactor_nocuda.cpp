// Built only without CUDA (see lorenzo_nocuda.cpp).
#include <sciz/error.hpp>

#include "refactor/mdr/refactor_cuda.hpp"

namespace sciz::mdr {
std::vector<uint8_t> refactor_cuda(const FieldView&, const RefactorOptions&) {
  fail(Status::no_device, "mdr: this sciz was built without CUDA; refactor with device cpu");
}
}  // namespace sciz::mdr
