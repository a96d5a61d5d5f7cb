// sciz._core: the compiled half of the Python package. Python (python/sciz) recognises
// arrays (numpy, DLPack, __cuda_array_interface__), picks streams and allocates outputs; this
// module runs sciz on raw pointers with the GIL released and turns sciz::Error into the
// package's exception classes.
#pragma once
#include <nanobind/nanobind.h>

namespace sciz::py {

void bind_errors(nanobind::module_& m);
void bind_codec(nanobind::module_& m);
void bind_device(nanobind::module_& m);
void bind_metrics(nanobind::module_& m);
void bind_mdr(nanobind::module_& m);

}  // namespace sciz::py
