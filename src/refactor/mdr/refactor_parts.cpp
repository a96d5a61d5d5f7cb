#include "refactor/mdr/refactor_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/checksum.hpp"
#include "core/host_memory.hpp"
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

namespace {

// One stream of a group (the plain planes, or either stream of the split) and its plan.
struct StreamPlan {
  std::span<const uint8_t> raw;
  std::vector<Coder> coders;
  std::vector<uint64_t> sizes;
  GapPlan gaps;
  GroupPlan plan;
};

// Sizes every candidate coder of the stream as a task of its own: the finest level's few groups
// are most of the work (on Isabel tiled 4x4x4 its 32 groups were 89 % of it, the longest 5 %),
// and a task a group left threads idle behind them. Each size is a function of the stream
// alone and plan_from folds them in plan_group's order, so the plan does not depend on which
// thread sized what.
void plan_stream(StreamPlan& sp, const HybridOptions& ho) {
  sp.coders = plan_coders(sp.raw, ho);
  sp.sizes.assign(sp.coders.size(), 0);
  for (size_t i = 0; i < sp.coders.size(); ++i) {
#pragma omp task default(none) firstprivate(i) shared(sp)
    sp.sizes[i] = coder_bytes(sp.raw, sp.coders[i], &sp.gaps);  // one gaps candidate at most
  }
#pragma omp taskwait
  sp.plan = plan_from(sp.raw, ho, sp.coders, sp.sizes, std::move(sp.gaps));
}

// The segment of group g of a level: the smaller of the plain planes and the split (a tie
// keeps the plain planes), only that one written.
template <class W>
std::vector<uint8_t> code_group(const LevelDigits<W>& ld, const uint8_t* widths, int g, const HybridOptions& ho) {
  const LevelInfo& lv = *ld.info;
  const uint64_t first = static_cast<uint64_t>(g) * lv.group_planes * bitplanes::plane_words(lv.count);
  const auto* raw = reinterpret_cast<const uint8_t*>(ld.planes + first);
  // Pieces only where other threads can take them: one thread would pay their join for nothing.
  const SplitBits s = split_planes(widths, ld.planes + first, lv.count, lv.group_high(g), lv.group_size(g),
                                   team_size() > 1 ? kSplitPieceWords : UINT64_MAX / 2);
  StreamPlan p, a, b;
  p.raw = {raw, group_raw_bytes(lv, g)}, a.raw = s.ins, b.raw = s.sig;
  for (StreamPlan* sp : {&p, &a, &b}) {
#pragma omp task default(none) firstprivate(sp) shared(ho)
    plan_stream(*sp, ho);
  }
#pragma omp taskwait
  if (split_segment_bytes(s, a.plan, b.plan) >= p.plan.bytes) return encode_planned(p.raw, p.plan);
  std::vector<uint8_t> ins;  // the two streams written side by side
#pragma omp task default(none) shared(ins, a)
  ins = encode_planned(a.raw, a.plan);
  const std::vector<uint8_t> sig = encode_planned(b.raw, b.plan);
#pragma omp taskwait
  return split_segment(s.ins_bits, ins, sig);
}

}  // namespace

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
  // The candidates' tasks spread a group over the team, so threads are not capped by groups.
  const int nt = thread_count(UINT64_MAX, bytes);
  // Each group's split learns its significance from the level's digit widths.
  std::vector<std::vector<uint8_t>> widths(levels.size());
  for (size_t l = 0; l < levels.size(); ++l)
    if (levels[l].info->groups()) widths[l] = digit_widths(levels[l].nb, levels[l].info->count);
  // A task a group, each spawning its streams' and their candidates' tasks: a thread waiting
  // on a group's sizes takes up other tasks meanwhile. Nested regions inside (the stage coders'
  // loops) run on one thread, as they did inside the former loop over groups.
#pragma omp parallel num_threads(nt) if (nt > 1)
#pragma omp single
  for (const Task& t : tasks) {
#pragma omp task default(none) firstprivate(t) shared(out, levels, widths, ho)
    out[t.level][t.group] = code_group(levels[t.level], widths[t.level].data(), t.group, ho);
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
    h.segments.push_back({level, group, inline_sum + seg.size(), 0});
    payload.push_back(&seg);
  };
  if (h.special) add(kExactLevel, 0, exact);
  for (const auto& [l, g] : greedy_order(h.levels, sizes))
    add(static_cast<uint8_t>(l), static_cast<uint8_t>(g), groups[l][g]);
  const int64_t count = static_cast<int64_t>(payload.size());
  // Version 1 keeps the checksums in the index, written before any segment.
  if (!inline_sum)
    for (int64_t k = 0; k < count; ++k)
      h.segments[k].checksum = chunked_xxh64(payload[k]->data(), payload[k]->size(), kDigestBlockV4);
  const std::vector<uint8_t> head = write_header(h);
  std::vector<uint64_t> at(count + 1, head.size());
  for (int64_t k = 0; k < count; ++k) at[k + 1] = at[k] + h.segments[k].length;
  // One allocation, its pages faulted in by the team before the (serial) zero-fill of resize:
  // assembling the file by inserts took its first touch, a page fault a 4 KiB page, on one
  // thread. Huge pages instead cost 45-52 ms in 3 runs of 10 on the 2-core host (compaction).
  std::vector<uint8_t> file;
  file.reserve(at[count]);
  prefault(file.data(), at[count]);
  file.resize(at[count]);
  std::memcpy(file.data(), head.data(), head.size());
  // The segments hashed and copied by the team, a segment each: serially, the file took 131-135
  // ms of the GPU refactor's 1.1 s on the H100 host (docs/MDR.md section 8).
  const int nt = thread_count(static_cast<uint64_t>(count), at[count]);
#pragma omp parallel for schedule(dynamic) num_threads(nt) if (nt > 1)
  for (int64_t k = 0; k < count; ++k) {
    const std::vector<uint8_t>& seg = *payload[k];
    uint8_t* o = file.data() + at[k];
    if (inline_sum) {
      const uint64_t sum = chunked_xxh64(seg.data(), seg.size(), kDigestBlockV4);
      h.segments[k].checksum = sum;
      std::memcpy(o, &sum, 8);
      o += 8;
    }
    if (!seg.empty()) std::memcpy(o, seg.data(), seg.size());
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
