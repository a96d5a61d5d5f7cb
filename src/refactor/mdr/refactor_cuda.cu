// CUDA twin of refactoring: the field's pass (ranges, special values, the values the
// decomposition sees), the fill, the decomposition and per level the digits, the error table
// and the planes run on the GPU; the planes and digits come down once, and the groups are
// coded on the host by refactor_parts.cpp, the code the CPU twin runs, so the file is the same
// byte for byte. Every number the file takes from the device is exact: integers, minima and
// maxima (their zeros made +0 on both sides), and doubles computed by the shared math headers
// with FMA contraction off.
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "core/block_reduce.cuh"
#include "core/cuda_check.cuh"
#include "core/launch_grid.hpp"
#include "core/device.hpp"
#include "core/exact_runs.hpp"
#include "core/host_transfer.hpp"
#include "core/trace.hpp"
#include "refactor/mdr/refactor_cuda.hpp"
#include "refactor/mdr/refactor_parts.hpp"
#include "refactor/multilevel/multilevel.hpp"

namespace sciz::mdr {
namespace {

constexpr int kThreads = 256;
// One read of the field: its statistics, and the values the decomposition sees written beside.
template <class T>
struct FieldPass {
  const T* x;
  double* xd;
  __device__ void operator()(Stats& acc, uint64_t i) const {
    const T v = x[i];
    stats_visit(acc, v);
    xd[i] = decomposed_value(v);
  }
};
struct StatsMerge {
  __host__ __device__ Stats operator()(const Stats& a, const Stats& b) const { return stats_combine(a, b); }
};

template <class T>
struct IsSpecialAt {
  const T* x;
  __device__ bool operator()(uint64_t i) const { return is_special(x[i]); }
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    gather_kernel(const T* __restrict__ x, const uint64_t* __restrict__ idx, uint64_t count, T* __restrict__ val) {
  for (uint64_t k = blockIdx.x * uint64_t(kThreads) + threadIdx.x; k < count; k += uint64_t(gridDim.x) * kThreads)
    val[k] = x[idx[k]];
}

// The exact-values segment: the special points' indices (ascending, as CUB's selection keeps
// them) and values come down, and write_runs codes them as on the CPU.
template <class T>
std::vector<uint8_t> exact_segment(const T* d_x, uint64_t n, uint64_t count, cudaStream_t s) {
  dev::Buffer<uint64_t> d_idx(count, s), d_found(1, s);
  const thrust::counting_iterator<uint64_t> index(0);
  const IsSpecialAt<T> pick{d_x};
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, index, d_idx.get(), d_found.get(), static_cast<int64_t>(n),
                                        pick, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceSelect::If(temp.get(), temp_bytes, index, d_idx.get(), d_found.get(),
                                        static_cast<int64_t>(n), pick, s));
  dev::Buffer<T> d_val(count, s);
  gather_kernel<T><<<gpu::grid_for(count, kThreads), kThreads, 0, s>>>(d_x, d_idx.get(), count, d_val.get());
  SCIZ_CUDA_CHECK_LAUNCH("mdr gather_kernel (special values)");
  uint64_t found = 0;
  dev::copy_to_host(&found, d_found.get(), sizeof found, s);
  std::vector<uint64_t> idx(count);
  std::vector<T> val(count);
  dev::download(idx.data(), d_idx.get(), count * sizeof(uint64_t), s);
  dev::download(val.data(), d_val.get(), count * sizeof(T), s);
  SCIZ_REQUIRE(found == count, Status::internal,
               "mdr: the GPU selected " + std::to_string(found) + " special values, its count was " + std::to_string(count));
  return write_runs(idx, val);
}

template <class T>
std::vector<uint8_t> refactor_t(const T* x, bool on_device, const std::vector<uint64_t>& dims, const RefactorOptions& opt) {
  using D = bitplanes::Digits<T>;
  using W = typename D::Word;
  check_refactor_options<T>(opt);
  const multilevel::Layout lay = layout_for(dims);
  const uint64_t n = lay.grid.count();
  const cudaStream_t s = opt.stream;

  // SCIZ_TRACE phases (core/trace.hpp); the GPU ones synchronize only when tracing.
  std::optional<TracePhase> t(std::in_place, "mdr refactor: upload, field pass, exact", true, s);
  dev::Buffer<T> staged;  // a host field, uploaded once
  const T* d_x = x;
  if (!on_device) {
    staged = dev::Buffer<T>(n, s);
    dev::upload(staged.get(), x, n * sizeof(T), s);
    d_x = staged.get();
  }
  dev::Buffer<double> d_xd(n, s);
  const Stats st = stats_canonical(block_reduce::reduce(n, stats_none(), FieldPass<T>{d_x, d_xd.get()}, StatsMerge{}, s,
                                                        "launch of the mdr field pass"));
  Header h = header_for<T>(dims, st);
  std::vector<uint8_t> exact;
  if (st.special) {
    exact = exact_segment(d_x, n, st.special, s);
    multilevel::fill_cuda(lay, d_xd.get(), fill_value(st), s);
  }
  staged.reset();

  t.emplace("mdr refactor: decompose", true, s);
  dev::Buffer<double> d_c(n, s);
  multilevel::decompose_cuda(lay, d_xd.get(), d_c.get(), s);
  d_xd.reset();

  // Per level: the digits (quantize_cuda synchronizes to learn the exponent and top), the
  // error table (one reduction and synchronization per group), the planes, downloaded.
  t.emplace("mdr refactor: digits, errors, planes", true, s);
  dev::Buffer<W> d_nb(n, s);
  std::vector<std::unique_ptr<uint32_t[]>> planes(lay.levels());  // not zero-filled, as nb below
  for (int j = 0; j < lay.levels(); ++j) {
    const uint64_t count = lay.level_count(j), off = lay.level_offset[j];
    const double* c = d_c.get() + off;
    W* nb = d_nb.get() + off;
    const bitplanes::Level<W> q = bitplanes::quantize_cuda<W>(c, count, D::scale, D::count, nb, s);
    const int gp = group_planes_for(count, opt.planes_per_group, D::count);
    h.levels.push_back(
        level_entry(count, q, gp, bitplanes::level_errors_cuda<W>(c, nb, count, q, D::scale, D::count, gp, s)));
    if (q.top == 0) continue;
    const uint64_t words = static_cast<uint64_t>(q.top) * bitplanes::plane_words(count);
    dev::Buffer<uint32_t> d_words(words, s);
    bitplanes::encode_planes_cuda<W>(nb, count, q.top, d_words.get(), s);
    planes[j].reset(new uint32_t[words]);
    dev::download(planes[j].get(), d_words.get(), words * sizeof(uint32_t), s);
  }
  d_c.reset();
  // The split coder reads the digits themselves, coefficient by coefficient. Into memory not
  // zero-filled first: the staging drain's threads take its first touch (a fresh
  // std::vector<W>(n) was a serial zero-fill of the field's size before the copy; 244 MiB on
  // the 2-core host: 191 -> 90 ms).
  t.emplace("mdr refactor: digits down", true, s);
  const std::unique_ptr<W[]> nb(new W[n]);
  dev::download(nb.get(), d_nb.get(), n * sizeof(W), s);
  d_nb.reset();

  std::vector<LevelDigits<W>> levels;
  for (int j = 0; j < lay.levels(); ++j)
    levels.push_back({&h.levels[j], nb.get() + lay.level_offset[j], planes[j].get()});
  t.emplace("mdr refactor: code groups");
  const CodedLevels groups = code_groups(levels, opt);
  t.emplace("mdr refactor: write file");
  return write_file(h, exact, groups);
}

}  // namespace

std::vector<uint8_t> refactor_cuda(const FieldView& field, const RefactorOptions& opt) {
  dev::require_available();
  const bool on_device = field.on_device || dev::is_device_pointer(field.data);
  if (on_device) {
    SCIZ_REQUIRE(dev::is_device_pointer(field.data), Status::invalid_argument,
                 "mdr: the field is marked on_device but its data is not device memory (a host pointer?)");
    const int where = dev::device_of_pointer(field.data), here = dev::current_device();
    SCIZ_REQUIRE(where == here, Status::invalid_argument,
                 "mdr: the field is on CUDA device " + std::to_string(where) + ", the current device is " +
                     std::to_string(here) + " (make it current first)");
  }
  if (field.dtype == DType::f32)
    return refactor_t(static_cast<const float*>(field.data), on_device, field.shape.dims, opt);
  return refactor_t(static_cast<const double*>(field.data), on_device, field.shape.dims, opt);
}

}  // namespace sciz::mdr
