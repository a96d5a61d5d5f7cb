// The CUDA twin of refactoring (refactor_cuda.cu; refactor_nocuda.cpp without CUDA): the same
// file as the CPU twin, byte for byte. Host-only interface.
#pragma once
#include <sciz/mdr.hpp>

#include <cstdint>
#include <vector>

namespace sciz::mdr {

// field in host memory (uploaded once) or in the current device's memory (field.on_device, or
// found to be by the pointer check). Work is ordered on opt.stream, which is synchronized.
std::vector<uint8_t> refactor_cuda(const FieldView& field, const RefactorOptions& opt);

}  // namespace sciz::mdr
