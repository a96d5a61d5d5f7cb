// Refactoring on the CPU: special values set apart, decomposition, per level the digits, the
// error table and the planes; the groups' coding, the order and the file are
// refactor_parts.cpp's, shared with the CUDA twin (refactor_cuda.cu). refactor() picks the twin.
#include <sciz/mdr.hpp>

#include <cmath>
#include <limits>
#include <optional>

#include "core/device.hpp"
#include "core/exact_runs.hpp"
#include "core/host_transfer.hpp"
#include "core/omp_threads.hpp"
#include "core/trace.hpp"
#include "refactor/bitplanes/bitplanes.hpp"
#include "refactor/mdr/refactor_cuda.hpp"
#include "refactor/mdr/refactor_parts.hpp"
#include "refactor/multilevel/multilevel.hpp"

namespace sciz::mdr {

namespace {

template <class T>
std::vector<uint8_t> refactor_t(const T* x, const std::vector<uint64_t>& dims, const RefactorOptions& opt) {
  using D = bitplanes::Digits<T>;
  using W = typename D::Word;
  check_refactor_options<T>(opt);
  const multilevel::Layout lay = layout_for(dims);
  const uint64_t n = lay.grid.count();

  // SCIZ_TRACE phases (core/trace.hpp), named as the GPU twin's.
  std::optional<TracePhase> t(std::in_place, "mdr refactor: field pass, exact");
  std::vector<double> xd(n);
  Stats st = stats_none();
  const int nt = thread_count(n, n * sizeof(T));
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    Stats loc = stats_none();
#pragma omp for schedule(static)
    for (uint64_t i = 0; i < n; ++i) {
      stats_visit(loc, x[i]);
      xd[i] = decomposed_value(x[i]);
    }
#pragma omp critical
    st = stats_combine(st, loc);
  }
  st = stats_canonical(st);
  Header h = header_for<T>(dims, st);

  std::vector<uint8_t> exact;
  if (st.special) {
    std::vector<uint64_t> idx;
    std::vector<T> val;
    idx.reserve(st.special);
    val.reserve(st.special);
    for (uint64_t i = 0; i < n; ++i)
      if (is_special(x[i])) idx.push_back(i), val.push_back(x[i]);
    exact = write_runs(idx, val);
    multilevel::fill_cpu(lay, xd.data(), fill_value(st));
  }

  t.emplace("mdr refactor: decompose");
  std::vector<double> coeff(n);
  multilevel::decompose_cpu(lay, xd.data(), coeff.data());
  std::vector<double>().swap(xd);

  t.emplace("mdr refactor: digits, errors, planes");
  std::vector<bitplanes::Level<W>> q(lay.levels());
  std::vector<std::vector<uint32_t>> planes(lay.levels());
  for (int j = 0; j < lay.levels(); ++j) {
    const double* c = coeff.data() + lay.level_offset[j];
    const uint64_t count = lay.level_count(j);
    q[j] = bitplanes::quantize_cpu<W>(c, count, D::scale, D::count);
    const int gp = group_planes_for(count, opt.planes_per_group, D::count);
    h.levels.push_back(level_entry(count, q[j], gp, bitplanes::level_errors_cpu<W>(c, q[j], D::scale, D::count, gp)));
    planes[j] = bitplanes::encode_planes_cpu<W>(q[j].nb.data(), count, q[j].top);
  }
  std::vector<double>().swap(coeff);
  std::vector<LevelDigits<W>> levels;
  for (int j = 0; j < lay.levels(); ++j) levels.push_back({&h.levels[j], q[j].nb.data(), planes[j].data()});
  t.emplace("mdr refactor: code groups");
  const CodedLevels groups = code_groups(levels, opt);
  t.emplace("mdr refactor: write file");
  return write_file(h, exact, groups);
}

}  // namespace

std::vector<uint8_t> refactor(const FieldView& field, const RefactorOptions& opt) {
  field.shape.validate();
  SCIZ_REQUIRE(field.data != nullptr || field.shape.count() == 0, Status::invalid_argument, "mdr: no field data");
  // auto: the GPU twin for a field in device memory, the CPU twin for one in host memory (the
  // GPU twin codes the groups on the host too; what it saves there is not measured yet). Both
  // write the same bytes, so the choice changes only where the work runs. No pointer check
  // here: it would start a CUDA context for every CPU refactoring on a machine with a GPU.
  Device d = opt.device;
  if (d == Device::auto_select) d = field.on_device ? Device::cuda : Device::cpu;
  if (d == Device::cuda) return refactor_cuda(field, opt);
  const void* data = field.data;
  std::vector<uint8_t> copy;
  if (field.on_device) {  // the CPU twin reads a host copy
    SCIZ_REQUIRE(dev::is_device_pointer(field.data), Status::invalid_argument,
                 "mdr: the field is marked on_device but its data is not device memory (a host pointer?)");
    copy.resize(field.shape.count() * dtype_size(field.dtype));
    dev::download(copy.data(), field.data, copy.size(), opt.stream);
    data = copy.data();
  }
  if (field.dtype == DType::f32) return refactor_t(static_cast<const float*>(data), field.shape.dims, opt);
  return refactor_t(static_cast<const double*>(data), field.shape.dims, opt);
}

}  // namespace sciz::mdr
