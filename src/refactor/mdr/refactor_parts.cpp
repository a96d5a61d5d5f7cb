#include "refactor/mdr/refactor_parts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/checksum.hpp"
#include "core/omp_threads.hpp"
#include "refactor/mdr/hybrid.hpp"
#include "refactor/mdr/order.hpp"
#include "refactor/mdr/split.hpp"

namespace sciz::mdr {

template <class T>
void check_refactor_options(const RefactorOptions& opt) {
  using D = bitplanes::Digits<T>;
  SCIZ_REQUIRE(opt.planes_per_group >= 1 && opt.planes_per_group <= static_cast<uint32_t>(D::count),
               Status::invalid_argument,
               "mdr: planes per group " + std::to_string(opt.planes_per_group) + " (1.." + std::to_string(D::count) +
                   " for " + dtype_name(sizeof(T) == 4 ? DType::f32 : DType::f64) + ")");
  SCIZ_REQUIRE(std::isfinite(opt.min_ratio) && opt.min_ratio >= 0, Status::invalid_argument,
               "mdr: minimum ratio " + std::to_string(opt.min_ratio));
}

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
Header header_for(const std::vector<uint64_t>& dims, const Stats& st) {
  Header h;
  h.dtype = sizeof(T) == 4 ? DType::f32 : DType::f64;
  h.dims = dims;
  h.scale = bitplanes::Digits<T>::scale;
  const bool any_finite = st.fmin <= st.fmax;
  h.value_min = any_finite ? st.fmin : std::numeric_limits<double>::quiet_NaN();
  h.value_max = any_finite ? st.fmax : std::numeric_limits<double>::quiet_NaN();
  h.max_abs = st.mabs;
  h.special = st.special;
  return h;
}

double fill_value(const Stats& st) { return st.smin <= st.smax ? 0.5 * st.smin + 0.5 * st.smax : 0.0; }

template <class W>
LevelInfo level_entry(uint64_t count, const bitplanes::Level<W>& q, int group_planes, std::vector<double> err) {
  LevelInfo lv;
  lv.count = count;
  lv.exponent = q.exponent;
  lv.top = q.top;
  lv.group_planes = group_planes;
  lv.err = std::move(err);
  for (double& e : lv.err) e = stored_error(e, lv.exponent);  // what the file will say
  return lv;
}

template <class W>
CodedLevels code_groups(const std::vector<LevelDigits<W>>& levels, const RefactorOptions& opt) {
  CodedLevels out(levels.size());
  struct Task {
    int level, group;
  };
  std::vector<Task> tasks;
  uint64_t bytes = 0;
  for (size_t l = levels.size(); l-- > 0;) {  // the large fine levels first: no long task starts last
    const LevelInfo& lv = *levels[l].info;
    out[l].resize(lv.groups());
    for (int g = 0; g < lv.groups(); ++g) tasks.push_back({static_cast<int>(l), g});
    bytes += lv.count * sizeof(W);
  }
  const HybridOptions ho{opt.copy_below, opt.min_ratio};
  const int64_t count = static_cast<int64_t>(tasks.size());
  const int nt = thread_count(tasks.size(), bytes);
  // Each group's split learns its significance from the level's digit widths.
  std::vector<std::vector<uint8_t>> widths(levels.size());
  for (size_t l = 0; l < levels.size(); ++l)
    if (levels[l].info->groups()) widths[l] = digit_widths(levels[l].nb, levels[l].info->count);
#pragma omp parallel for schedule(dynamic) num_threads(nt) if (nt > 1)
  for (int64_t k = 0; k < count; ++k) {
    const LevelDigits<W>& ld = levels[tasks[k].level];
    const LevelInfo& lv = *ld.info;
    const int g = tasks[k].group;
    const uint64_t pw = bitplanes::plane_words(lv.count);
    const uint64_t first = static_cast<uint64_t>(g) * lv.group_planes * pw;
    const auto* raw = reinterpret_cast<const uint8_t*>(ld.planes + first);
    const std::span<const uint8_t> plain{raw, group_raw_bytes(lv, g)};
    std::vector<uint32_t> co(pw * static_cast<uint64_t>(lv.group_size(g)));
    bitplanes::coefficient_order_cpu(ld.planes + first, lv.count, lv.group_size(g), co.data());
    const SplitBits s =
        split_streams(widths[tasks[k].level].data(), co.data(), lv.count, lv.group_high(g), lv.group_size(g));
    // Both codings sized, only the smaller written (a tie keeps the plain planes).
    const GroupPlan p = plan_group(plain, ho), a = plan_group(s.ins, ho), b = plan_group(s.sig, ho);
    out[tasks[k].level][g] = split_segment_bytes(s, a, b) < p.bytes ? encode_split(s, a, b) : encode_planned(plain, p);
  }
  return out;
}

std::vector<uint8_t> write_file(Header& h, const std::vector<uint8_t>& exact, const CodedLevels& groups) {
  std::vector<std::vector<uint64_t>> sizes;
  for (const auto& level : groups) {
    sizes.emplace_back();
    for (const auto& g : level) sizes.back().push_back(g.size());
  }
  // Each segment in the file: its checksum (version 2: at its start, not in the index), then
  // its bytes.
  const uint64_t inline_sum = inline_checksum_bytes(h.version);
  std::vector<const std::vector<uint8_t>*> payload;
  h.segments.clear();
  auto add = [&](uint8_t level, uint8_t group, const std::vector<uint8_t>& seg) {
    h.segments.push_back({level, group, inline_sum + seg.size(), chunked_xxh64(seg.data(), seg.size(), kDigestBlockV4)});
    payload.push_back(&seg);
  };
  if (h.special) add(kExactLevel, 0, exact);
  for (const auto& [l, g] : greedy_order(h.levels, sizes))
    add(static_cast<uint8_t>(l), static_cast<uint8_t>(g), groups[l][g]);
  std::vector<uint8_t> file = write_header(h);
  uint64_t total = file.size();
  for (const Segment& s : h.segments) total += s.length;
  file.reserve(total);
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

template void check_refactor_options<float>(const RefactorOptions&);
template void check_refactor_options<double>(const RefactorOptions&);
template Header header_for<float>(const std::vector<uint64_t>&, const Stats&);
template Header header_for<double>(const std::vector<uint64_t>&, const Stats&);
template LevelInfo level_entry<uint32_t>(uint64_t, const bitplanes::Level<uint32_t>&, int, std::vector<double>);
template LevelInfo level_entry<uint64_t>(uint64_t, const bitplanes::Level<uint64_t>&, int, std::vector<double>);
template CodedLevels code_groups<uint32_t>(const std::vector<LevelDigits<uint32_t>>&, const RefactorOptions&);
template CodedLevels code_groups<uint64_t>(const std::vector<LevelDigits<uint64_t>>&, const RefactorOptions&);

}  // namespace sciz::mdr
