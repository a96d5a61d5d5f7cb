// The CLI's quality metrics (src/metrics), so that `python -m sciz eval` reports the same
// numbers as `sciz eval` for the same arrays.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "metrics/metrics.hpp"

namespace nb = nanobind;

namespace sciz::py {
namespace {

nb::dict compare(uintptr_t orig, uintptr_t dec, const std::string& dtype, const std::vector<uint64_t>& dims) {
  Shape shape{dims};
  shape.validate();
  metrics::Quality q;
  {
    nb::gil_scoped_release unlocked;
    if (parse_dtype(dtype) == DType::f32)
      q = metrics::compare_cpu(reinterpret_cast<const float*>(orig), reinterpret_cast<const float*>(dec), shape);
    else
      q = metrics::compare_cpu(reinterpret_cast<const double*>(orig), reinterpret_cast<const double*>(dec), shape);
  }
  nb::dict d;
  d["max_abs_err"] = q.max_abs_err;
  d["rmse"] = q.rmse;
  d["psnr_db"] = q.psnr_db;
  d["nrmse"] = q.nrmse;
  d["ssim"] = q.ssim;
  d["value_range"] = q.value_range;
  d["n"] = q.n;
  d["n_compared"] = q.n_compared;
  d["nonfinite_mismatch"] = q.nonfinite_mismatch;
  return d;
}

}  // namespace

void bind_metrics(nb::module_& m) { m.def("compare", &compare); }

}  // namespace sciz::py
