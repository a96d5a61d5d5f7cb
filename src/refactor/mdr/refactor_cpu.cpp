// Refactoring on the CPU: special values set apart, decomposition, per level the digits, the
// error table and the coded groups, then the greedy order and the file.
#include <sciz/mdr.hpp>

#include <cmath>
#include <limits>

#include "core/checksum.hpp"
#include "core/exact_runs.hpp"
#include "core/omp_threads.hpp"
#include "refactor/bitplanes/bitplanes.hpp"
#include "refactor/mdr/format.hpp"
#include "refactor/mdr/hybrid.hpp"
#include "refactor/mdr/order.hpp"
#include "refactor/mdr/split.hpp"
#include "refactor/multilevel/multilevel.hpp"

namespace sciz::mdr {

namespace {

// f64 values beyond this are carried exactly: a coefficient x - P(x) of two of them could
// overflow. No f32 value comes near it.
inline constexpr double kHuge = 0x1p1000;

// Planes per segment for a level: the option, or more where a group would hold fewer than
// kMinGroupWords plane words (256 bytes), so a tiny coarse level is a few segments instead of
// one index entry and one coder header per plane. Measured on Isabel, S3D and ETOPO at rel 1e-1
// to 1e-6 (sciz_mdr_bench): 64 read the fewest bytes of 1, 4, 16, 64 and 256. Measured again
// with the significance split (whose digits pack densely, so a small level no longer pays a
// word per plane): groups of at least 256, 512 or 1024 digits instead read 1-5 % more at rel
// 1e-1 and the same elsewhere (geomean over the 20 fields of ../shared/data).
inline constexpr uint64_t kMinGroupWords = 64;
int group_planes_for(uint64_t count, uint32_t opt, int digits) {
  const uint64_t words = bitplanes::plane_words(count);
  const uint64_t want = (kMinGroupWords + words - 1) / words;
  return static_cast<int>(std::min<uint64_t>(digits, std::max<uint64_t>(opt, want)));
}

template <class T>
bool is_special(T v) {
  return !std::isfinite(v) || std::fabs(static_cast<double>(v)) > kHuge;
}

struct Coded {
  LevelInfo info;
  std::vector<std::vector<uint8_t>> groups;
};

template <class W>
Coded code_level(const double* c, uint64_t n, int scale, int digits, const RefactorOptions& opt) {
  Coded out;
  const bitplanes::Level<W> q = bitplanes::quantize_cpu<W>(c, n, scale, digits);
  LevelInfo& lv = out.info;
  lv.count = n;
  lv.exponent = q.exponent;
  lv.top = q.top;
  lv.group_planes = group_planes_for(n, opt.planes_per_group, digits);
  lv.err = bitplanes::level_errors_cpu<W>(c, q, scale, digits, lv.group_planes);
  for (double& e : lv.err) e = stored_error(e, lv.exponent);  // what the file will say
  const std::vector<uint32_t> planes = bitplanes::encode_planes_cpu<W>(q.nb.data(), n, q.top);
  const uint64_t pw = bitplanes::plane_words(n);
  const HybridOptions ho{opt.copy_below, opt.min_ratio};
  out.groups.resize(lv.groups());
  const int ng = lv.groups();
#pragma omp parallel for schedule(dynamic) num_threads(thread_count(ng, n * sizeof(W))) if (ng > 1)
  for (int g = 0; g < ng; ++g) {
    const uint64_t first = static_cast<uint64_t>(g) * lv.group_planes * pw;
    const auto* raw = reinterpret_cast<const uint8_t*>(planes.data() + first);
    std::vector<uint8_t> plain = encode_group({raw, group_raw_bytes(lv, g)}, ho);
    std::vector<uint8_t> split = encode_split<W>(q.nb.data(), n, lv.group_high(g), lv.group_size(g), ho);
    out.groups[g] = split.size() < plain.size() ? std::move(split) : std::move(plain);
  }
  return out;
}

template <class T>
std::vector<uint8_t> refactor_t(const T* x, const std::vector<uint64_t>& dims, const RefactorOptions& opt) {
  using D = bitplanes::Digits<T>;
  SCIZ_REQUIRE(opt.planes_per_group >= 1 && opt.planes_per_group <= static_cast<uint32_t>(D::count),
               Status::invalid_argument,
               "mdr: planes per group " + std::to_string(opt.planes_per_group) + " (1.." + std::to_string(D::count) +
                   " for " + dtype_name(sizeof(T) == 4 ? DType::f32 : DType::f64) + ")");
  SCIZ_REQUIRE(std::isfinite(opt.min_ratio) && opt.min_ratio >= 0, Status::invalid_argument,
               "mdr: minimum ratio " + std::to_string(opt.min_ratio));
  const multilevel::Layout lay = layout_for(dims);
  const uint64_t n = lay.grid.count();

  Header h;
  h.dtype = sizeof(T) == 4 ? DType::f32 : DType::f64;
  h.dims = dims;
  h.scale = D::scale;
  // Ranges: finite values for the relative bound (as every pipeline resolves it), the values
  // the decomposition sees (not special) for the fill and M.
  constexpr double inf = std::numeric_limits<double>::infinity();
  double fmin = inf, fmax = -inf, smin = inf, smax = -inf, mabs = 0;
  uint64_t special = 0;
  std::vector<double> xd(n);
  const int nt = thread_count(n, n * sizeof(T));
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1) \
    reduction(min : fmin, smin) reduction(max : fmax, smax, mabs) reduction(+ : special)
  for (uint64_t i = 0; i < n; ++i) {
    const T v = x[i];
    const double d = static_cast<double>(v);
    if (std::isfinite(v)) fmin = std::min(fmin, d), fmax = std::max(fmax, d);
    if (is_special(v)) {
      ++special;
      xd[i] = std::numeric_limits<double>::quiet_NaN();
    } else {
      smin = std::min(smin, d), smax = std::max(smax, d), mabs = std::max(mabs, std::fabs(d));
      xd[i] = d;
    }
  }
  const bool any_finite = fmin <= fmax;
  h.value_min = any_finite ? fmin : std::numeric_limits<double>::quiet_NaN();
  h.value_max = any_finite ? fmax : std::numeric_limits<double>::quiet_NaN();
  h.max_abs = mabs;
  h.special = special;

  std::vector<uint8_t> exact;
  if (special) {
    std::vector<uint64_t> idx;
    std::vector<T> val;
    idx.reserve(special);
    val.reserve(special);
    for (uint64_t i = 0; i < n; ++i)
      if (is_special(x[i])) idx.push_back(i), val.push_back(x[i]);
    exact = write_runs(idx, val);
    multilevel::fill_cpu(lay, xd.data(), smin <= smax ? 0.5 * smin + 0.5 * smax : 0.0);
  }

  std::vector<double> coeff(n);
  multilevel::decompose_cpu(lay, xd.data(), coeff.data());
  std::vector<double>().swap(xd);

  std::vector<Coded> levels;
  for (int j = 0; j < lay.levels(); ++j)
    levels.push_back(code_level<typename D::Word>(coeff.data() + lay.level_offset[j], lay.level_count(j), D::scale,
                                                  D::count, opt));

  std::vector<std::vector<uint64_t>> sizes;
  for (const Coded& c : levels) {
    h.levels.push_back(c.info);
    sizes.emplace_back();
    for (const auto& g : c.groups) sizes.back().push_back(g.size());
  }
  // Each segment in the file: its checksum (version 2: at its start, not in the index), then
  // its bytes.
  const uint64_t inline_sum = inline_checksum_bytes(h.version);
  std::vector<const std::vector<uint8_t>*> payload;
  auto add = [&](uint8_t level, uint8_t group, const std::vector<uint8_t>& seg) {
    h.segments.push_back({level, group, inline_sum + seg.size(), chunked_xxh64(seg.data(), seg.size(), kDigestBlockV4)});
    payload.push_back(&seg);
  };
  if (special) add(kExactLevel, 0, exact);
  for (const auto& [l, g] : greedy_order(h.levels, sizes))
    add(static_cast<uint8_t>(l), static_cast<uint8_t>(g), levels[l].groups[g]);
  std::vector<uint8_t> file = write_header(h);
  for (size_t k = 0; k < payload.size(); ++k) {
    if (inline_sum) {
      const uint64_t sum = h.segments[k].checksum;
      const auto* b = reinterpret_cast<const uint8_t*>(&sum);
      file.insert(file.end(), b, b + 8);
    }
    file.insert(file.end(), payload[k]->begin(), payload[k]->end());
  }
  return file;
}

}  // namespace

std::vector<uint8_t> refactor(const FieldView& field, const RefactorOptions& opt) {
  field.shape.validate();
  SCIZ_REQUIRE(field.data != nullptr || field.shape.count() == 0, Status::invalid_argument, "mdr: no field data");
  SCIZ_REQUIRE(!field.on_device, Status::invalid_argument, "mdr: fields in device memory are not supported yet");
  SCIZ_REQUIRE(opt.device != Device::cuda, Status::no_device, "mdr: the CUDA twin is not built yet (use --device cpu)");
  if (field.dtype == DType::f32) return refactor_t(static_cast<const float*>(field.data), field.shape.dims, opt);
  return refactor_t(static_cast<const double*>(field.data), field.shape.dims, opt);
}

}  // namespace sciz::mdr
