// CPU-only: the per-value reference of lorenzo::compress_cpu, for the LorenzoCpu tests.
#pragma once
#include "predict/lorenzo/lorenzo.hpp"

namespace sciz::lorenzo {

template <class T>
void compress_cpu_reference(const T* x, const Extent& e, const TileShape& c, const QuantParams<T>& p,
                            uint16_t* codes, Sparse<T>& sp);

}  // namespace sciz::lorenzo
