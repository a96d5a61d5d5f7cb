// Auto-tuning of the interp predictor (cuSZ-Hi 5.1.3, QoZ's level bounds), on the host.
//
// Sampled blocks are compressed exactly as the twin compresses them, except that their
// corners are the original values (the anchor levels have not run). Per level, coarsest first,
// every spline x scheme is tried on the sampled blocks' points of that level, from the state
// the chosen configurations of the coarser levels left; the least total error wins (error in
// fixed point, an integer sum, so the order of summation cannot change a choice). The anchor
// levels are tuned the same way on the anchor grid itself. Then the level bounds: each
// candidate (alpha, beta) compresses the samples, and the smallest estimated size wins: per
// level, the entropy of its codes (the section orders codes level by level), plus the exactly
// stored values at their width. Integer counts in, one host computation out: any device that
// counts the same histograms makes the same choice.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <future>
#include <memory>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/omp_threads.hpp"
#include "core/trace.hpp"
#include "predict/interp/interp.hpp"
#include "predict/interp/interp_rows_avx2.hpp"
#include "predict/interp/interp_walk.hpp"
#include "predict/lorenzo/lorenzo.hpp"

namespace sciz::interp {
namespace {

constexpr double kSampleFraction = 0.002;        // of the blocks (section 5.1.3)
constexpr uint64_t kMinSamples = 24;
constexpr uint64_t kMaxShare = 4;
constexpr uint64_t kSmallField = uint64_t{1} << 16;  // points: below, tuning is budgeted by the field
constexpr uint64_t kSmallShare = 8;
constexpr uint64_t kSmallMinSamples = 2;
constexpr int64_t kAnchorWindow = int64_t{1} << 16;  // anchors the anchor levels are tuned on

// Threads for a pass over `samples` sample boxes at block level l: sized by the bytes the pass
// reads (level l holds about 7/8^l of a box's points), like every other region, so that the
// many short passes of tuning a small field (or a coarse level) start no team: a team of two
// on a busy 2-core host spent 45 % of a 200 KB field's interp compression in OpenMP barriers.
// A caller with cores to spare (the GPU path, whose host thread otherwise waits on the tuner)
// may ask for up to `hint` threads instead (TuneRequest::threads): the choice is the same.
template <class T>
int sample_threads(size_t samples, int l, int hint) {
  if (hint > 0) return std::min(hint, thread_count(samples));
  const uint64_t points = static_cast<uint64_t>(samples) * kBoxVolume * 7 >> (3 * l);
  return thread_count(samples, points * sizeof(T));
}

// The spline x scheme pairs that differ on a field of this extent (in 1-D every scheme is
// the same walk along x).
std::vector<LevelConfig> candidates(const Layout& L, const TuneRequest& req) {
  const bool one_d = L.n[0] == 1 && L.n[1] == 1;
  std::vector<LevelConfig> out;
  for (int sp = 0; sp < kSplines; ++sp)
    for (int sc = 0; sc < kSchemes; ++sc) {
      if (req.spline >= 0 && sp != req.spline) continue;
      if (req.scheme >= 0 && sc != req.scheme) continue;
      if (req.scheme < 0 && !(req.scheme_mask >> sc & 1u)) continue;
      if (req.scheme < 0 && one_d && sc != kMultiDim && (req.scheme_mask >> kMultiDim & 1u)) continue;
      out.push_back({static_cast<uint8_t>(sp), static_cast<uint8_t>(sc)});
    }
  return out;
}

// f on a thread of its own, its result or exception through the future; where no thread can
// be had, f runs here (the caller sees the same result either way).
template <class R, class F>
std::future<R> start(F&& f) {
  try {
    return std::async(std::launch::async, std::forward<F>(f));
  } catch (const std::system_error&) {
    std::promise<R> p;
    try {
      if constexpr (std::is_void_v<R>) f(), p.set_value();
      else p.set_value(f());
    } catch (...) {
      p.set_exception(std::current_exception());
    }
    return p.get_future();
  }
}

template <class T>
using Sample = TuneSample<T>;

// A sample's box as the twin will see it: its corners (anchors) carry the error of the anchor
// levels, emulated by rounding them to the grid of 2 eb_anchor (their reconstruction error has
// that size; the tightening changes it, which the estimates must see).
template <class T>
void set_with_anchor_error(const Sample<T>& s, double eb_anchor, std::vector<T>& v) {
  v.assign(s.x.begin(), s.x.end());  // into v's own storage: no fresh pages on a first call
  for (int64_t z = 0; z < s.g.w[0]; z += kAnchorStride)
    for (int64_t y = 0; y < s.g.w[1]; y += kAnchorStride)
      for (int64_t x = 0; x < s.g.w[2]; x += kAnchorStride) {
        T& c = v[z * kBoxPitch[0] + y * kBoxPitch[1] + x];
        const double q = std::nearbyint(static_cast<double>(c) / (2 * eb_anchor));
        if (std::isfinite(q) && std::fabs(q) < 1e15) c = static_cast<T>(q * 2 * eb_anchor);
      }
}
template <class T>
std::vector<T> with_anchor_error(const Sample<T>& s, double eb_anchor) {
  std::vector<T> v;
  set_with_anchor_error(s, eb_anchor, v);
  return v;
}

// One sample's run of one block level: the state it left, its summed error cost, and what the
// size estimate (sample_bits) reads of it: the codes of its finite points in the order the
// level visits them, and its outliers' LEB128 bytes. A tuning pass and the pass that sizes the
// chosen configuration are then one run, not two. The box carries kPad spare values on either
// side and the codes kCodeSlack bytes past their end, for the AVX2 rows' reads and stores.
template <class T>
struct LevelRun {
#if defined(SCIZ_INTERP_AVX2)
  static constexpr int64_t kPad = kRowPad, kCodeSlack = 8;
#else
  static constexpr int64_t kPad = 0, kCodeSlack = 0;
#endif
  // Left uninitialized but for the padding: a run writes the planes it reads first, and on a
  // small field's first call every page touched is a page fault (~2 us here), so a thin box's
  // run touches only its planes.
  std::unique_ptr<T[]> box{new T[kBoxVolume + 2 * kPad]};
  std::unique_ptr<uint8_t[]> codes{new uint8_t[kBoxVolume + kCodeSlack]};
  size_t ncodes = 0;
  uint64_t outlier_bytes = 0;
  uint64_t cost = 0;
  LevelRun() {
    std::fill(box.get(), box.get() + kPad, T(0));
    std::fill(box.get() + kPad + kBoxVolume, box.get() + kBoxVolume + 2 * kPad, T(0));
  }
  T* v() { return box.get() + kPad; }
};

// Copies what a run of the block level with stride s reads and writes of a box: the points whose
// coordinates are all multiples of s (predictions read only those; the level writes its own),
// the whole extent at level 1. A coarse level's copy is then a fraction of the box (level 2
// reads 729 of 4,913 points), and the other points, stale in a run's buffer, are never picked.
template <class T>
void copy_level_grid(T* dst, const T* src, const int64_t w[3], int64_t s) {
  if (s == 1) {
    std::memcpy(dst, src, static_cast<size_t>(w[0] * kBoxPlane) * sizeof(T));
    return;
  }
  for (int64_t z = 0; z < w[0]; z += s)
    for (int64_t y = 0; y < w[1]; y += s) {
      const int64_t row = z * kBoxPitch[0] + y * kBoxPitch[1];
      for (int64_t x = 0; x < w[2]; x += s) dst[row + x] = src[row + x];
    }
}

// A run whose cost reaches `limit` may stop there (at a row's start), its cost then a partial
// sum >= limit and its codes and state incomplete: only a run that ends below its limit is whole.
template <class T>
void run_sample_level(const std::vector<T>& from, const BoxGeom& g, int l, LevelConfig cfg, const LevelQuant<T>& q,
                      double ebc, LevelRun<T>& r, uint64_t limit = ~uint64_t{0}) {
  // Only the box's extent: a level reads and writes no point past it, and a box at the field's
  // end may be a few planes thin.
  T* v = r.v();
  const int64_t s = int64_t{1} << (l - 1);
  copy_level_grid(v, from.data(), g.w, s);
  TuneSink<T> sink{v, q, ebc, r.codes.get(), limit};
#if defined(SCIZ_INTERP_AVX2)
  if (lanes_enabled()) avx2::run_level_tune_lanes<T>(v, kBoxPitch, g.w, s, cfg, sink);
  else
#endif
    run_level(v, kBoxPitch, g.w, s, cfg, NoSkip{}, sink);
  r.ncodes = static_cast<size_t>(sink.cp - r.codes.get());
  r.outlier_bytes = sink.ob;
  r.cost = sink.cost;
}

// The samples' codes per block level (index l - 1), sample by sample: what sample_bits sizes.
using LevelCodes = TuneLevelCodes;
using SampleCodes = TuneSampleCodes;

// Greedy per block level, coarsest first, on the samples (left in the chosen state). The
// candidates are searched in two steps: the schemes with the first candidate's spline (cubic
// when both are allowed), then the other splines with the best scheme (5 evaluations of 8).
// The least summed cost wins, a tie going to the candidate earlier in that order (its rank).
// Level 1 holds 7/8 of the points: its candidates are compared on every other sample
// (compared_stride).
// The runs of the best candidate so far are kept, so a compared sample takes the chosen
// state without running the level again; `codes` receives every sample's codes of the chosen
// configurations (what sample_bits would compute for them under these bounds).
//
// Branch and bound (`bound`): costs are sums of non-negative integers, so a candidate whose
// partial sum reaches best (best + 1 when it ranks before the best so far) can no longer win,
// and its runs stop there (at a row's start; a thread's partial sum is a lower bound of the
// whole). Only the winner's runs are read afterwards, and only whole costs are compared, so the
// choice, the codes and the states are those of the exhaustive search (bound = false;
// InterpTune.BoundedSearchChoosesWhatTheExhaustiveSearchChooses). To make the bound bite
// early, the first step tries first the scheme the level above chose (a level's best scheme
// is most often its neighbour's; cross at level 4); the ranks, not the order of trial, break
// ties.
template <class T>
void tune_block_levels(std::vector<Sample<T>>& smp, const std::vector<LevelConfig>& cand, const std::vector<double>& ebs,
                       double ebc, std::vector<LevelConfig>& config, SampleCodes& codes, int hint, bool bound = true) {
  const size_t n = smp.size();
  std::vector<LevelRun<T>> now(n), kept(n);
  codes.assign(kBlockLevels, std::vector<LevelCodes>(n));
  for (int l = kBlockLevels; l >= 1; --l) {
    const LevelQuant<T> q = level_quant<T>(ebs[l - 1]);
    const size_t stride = compared_stride(l, n);
    // Samples in parallel: each on its own copy, the costs integers (their sum is the same in
    // any order). The sum, or a partial sum >= limit when the runs stopped there.
    // A team of one runs the loop itself: an OpenMP region, even one that starts no thread,
    // allocates and frees a team each time (a microsecond; 25 regions a small field's tuning).
    auto cost_of = [&](LevelConfig c, uint64_t limit) {
      uint64_t cost = 0;
      const int64_t count = static_cast<int64_t>((n + stride - 1) / stride);
      const int nt = sample_threads<T>(static_cast<size_t>(count), l, hint);
      auto run = [&](int64_t j, uint64_t& acc) {  // acc: this thread's partial sum
        if (acc >= limit) return;
        const size_t k = static_cast<size_t>(j) * stride;
        run_sample_level<T>(smp[k].v, smp[k].g, l, c, q, ebc, now[k], limit - acc);
        acc += now[k].cost;
      };
      if (nt == 1) {
        for (int64_t j = 0; j < count; ++j) run(j, cost);
        return cost;
      }
#pragma omp parallel num_threads(nt) reduction(+ : cost)
      {
        uint64_t acc = 0;
#pragma omp for schedule(static)
        for (int64_t j = 0; j < count; ++j) run(j, acc);
        cost += acc;
      }
      return cost;
    };
    LevelConfig pick = cand[0];
    bool compared = false;  // kept holds pick's runs of the compared samples
    if (cand.size() > 1) {
      uint8_t first_spline = cand[0].spline;  // cubic when it is a candidate
      for (const LevelConfig& c : cand)
        if (c.spline == kCubic) first_spline = kCubic;
      uint64_t best = ~uint64_t{0};
      size_t best_rank = 0;
      auto consider = [&](const LevelConfig& c, size_t rank) {
        // c wins when its cost is below best, or equal to it and c ranks first.
        const uint64_t limit = !compared ? ~uint64_t{0} : rank < best_rank ? best + 1 : best;
        const uint64_t cost = cost_of(c, bound ? limit : ~uint64_t{0});
        if (cost < limit) best = cost, best_rank = rank, pick = c, now.swap(kept), compared = true;
      };
      std::vector<std::pair<LevelConfig, size_t>> first;  // the first step's candidates, ranked
      for (const LevelConfig& c : cand)
        if (c.spline == first_spline) first.push_back({c, first.size()});
      // The scheme tried first: the level above's, cross at the top block level (the scheme
      // that wins most levels of most fields).
      const uint8_t guess = l < kBlockLevels ? config[l].scheme : static_cast<uint8_t>(kCross);
      if (bound)
        for (size_t i = 1; i < first.size(); ++i)
          if (first[i].first.scheme == guess) std::rotate(first.begin(), first.begin() + i, first.begin() + i + 1);
      for (const auto& [c, rank] : first) consider(c, rank);
      const uint8_t scheme = pick.scheme;
      size_t rank = first.size();
      for (const LevelConfig& c : cand)
        if (c.scheme == scheme && c.spline != first_spline) consider(c, rank++);
    }
    config[l - 1] = pick;
    const int64_t ns = static_cast<int64_t>(n);
    const int nt = sample_threads<T>(n, l, hint);
    auto take = [&](int64_t k) {
      LevelRun<T>& r = compared && k % static_cast<int64_t>(stride) == 0 ? kept[k] : now[k];
      if (&r == &now[k]) run_sample_level<T>(smp[k].v, smp[k].g, l, pick, q, ebc, r);
      copy_level_grid(smp[k].v.data(), r.v(), smp[k].g.w, int64_t{1} << (l - 1));
      LevelCodes& lc = codes[l - 1][k];
      lc.codes.assign(r.codes.get(), r.codes.get() + r.ncodes);
      lc.outlier_bytes = r.outlier_bytes;
    };
    if (nt == 1) {
      for (int64_t k = 0; k < ns; ++k) take(k);
      continue;
    }
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t k = 0; k < ns; ++k) take(k);
  }
}

double entropy_bits(const std::vector<uint64_t>& h) {
  uint64_t n = 0;
  for (auto c : h) n += c;
  double bits = 0;
  for (auto c : h)
    if (c) bits -= static_cast<double>(c) * std::log2(static_cast<double>(c) / static_cast<double>(n));
  return bits;
}

// Estimated bits of the samples' codes (per level, sample by sample): their codes in section
// order (level by level) sized by the request's coder, or their per-level entropy; outliers at
// their LEB128 size, exact values at their width and a byte of run header.
template <class T>
double bits_of(const SampleCodes& codes, const TuneRequest& req, uint64_t* points = nullptr) {
  double bits = 0;
  if (points) *points = 0;
  std::vector<uint8_t> all;
  for (int l = kBlockLevels; l >= 1; --l) {
    std::vector<uint64_t> h(256, 0);
    uint64_t outlier_bytes = 0;
    for (const LevelCodes& lc : codes[l - 1]) {
      for (const uint8_t c : lc.codes) ++h[c];
      outlier_bytes += lc.outlier_bytes;
      if (req.codes_bytes) all.insert(all.end(), lc.codes.begin(), lc.codes.end());
      if (points) *points += lc.codes.size();
    }
    bits += static_cast<double>(h[kExactCode]) * (8.0 * sizeof(T) + 8.0) + 8.0 * outlier_bytes;
    if (!req.codes_bytes) bits += entropy_bits(h);
  }
  if (req.codes_bytes) bits += 8.0 * static_cast<double>(req.codes_bytes(all));
  return bits;
}

// The same for the samples compressed with the configurations config under each set of level
// bounds in ebs (one estimate per set, in order).
template <class T>
std::vector<double> sample_bits(const std::vector<Sample<T>>& smp, const std::vector<LevelConfig>& config,
                                const std::vector<std::vector<double>>& ebs, double ebc, const TuneRequest& req,
                                const SampleLevelRuns<T>& device_runs) {
  const int64_t ns = static_cast<int64_t>(smp.size());
  std::vector<std::vector<std::vector<T>>> states(ebs.size(), std::vector<std::vector<T>>(smp.size()));
  for (size_t j = 0; j < ebs.size(); ++j)
    for (size_t k = 0; k < smp.size(); ++k) states[j][k] = with_anchor_error(smp[k], ebs[j][kBlockLevels]);
  std::vector<SampleCodes> codes(ebs.size(), SampleCodes(kBlockLevels, std::vector<LevelCodes>(smp.size())));
  {
    TracePhase t("interp tune: sizing runs");
    if (device_runs) {
      device_runs(smp, states, config, ebs, ebc, codes);
    } else {
      std::vector<LevelRun<T>> runs(smp.size());
      for (size_t j = 0; j < ebs.size(); ++j)
        for (int l = kBlockLevels; l >= 1; --l) {
          const LevelQuant<T> q = level_quant<T>(ebs[j][l - 1]);
          const int nt = sample_threads<T>(smp.size(), l, req.threads);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
          for (int64_t k = 0; k < ns; ++k) {
            LevelRun<T>& r = runs[k];
            run_sample_level<T>(states[j][k], smp[k].g, l, config[l - 1], q, ebc, r);
            copy_level_grid(states[j][k].data(), r.v(), smp[k].g.w, int64_t{1} << (l - 1));
            codes[j][l - 1][k].codes.assign(r.codes.get(), r.codes.get() + r.ncodes);
            codes[j][l - 1][k].outlier_bytes = r.outlier_bytes;
          }
        }
    }
  }
  // Each set sized on a thread of its own where the caller gave threads: the sizer runs the
  // stage list's encoder over every sampled code.
  TracePhase t("interp tune: sizing codes");
  std::vector<double> bits(ebs.size());
  std::vector<std::future<double>> beside;
  for (size_t j = 1; j < ebs.size() && req.threads > 1; ++j)
    beside.push_back(start<double>([&codes, &req, j] { return bits_of<T>(codes[j], req); }));
  if (!ebs.empty()) bits[0] = bits_of<T>(codes[0], req);
  for (size_t j = 1; j < ebs.size(); ++j) bits[j] = req.threads > 1 ? beside[j - 1].get() : bits_of<T>(codes[j], req);
  return bits;
}

// Bits per value of first-order Lorenzo with dual quantization (the lorenzo pipeline's
// predictor, radius 512) on the samples: every box point whose neighbours at -1 lie in the box,
// its codes sized by the request's coder, outliers at 8 bytes (index and residual) and exact
// values at their width and a byte of run header.
template <class T>
double lorenzo_sample_bits(const std::vector<Sample<T>>& smp, const Layout& L, double eb, const TuneRequest& req) {
  const auto p = lorenzo::make_params<T>(eb, lorenzo::kDefaultRadius);
  const int ndim = L.n[0] > 1 ? 3 : L.n[1] > 1 ? 2 : 1;
  // A box's points past its extent (a block at the field's end) hold 0 and are counted as 0
  // prequantizes, without visiting them: a thin box is mostly such points.
  int32_t d0;
  const bool zero_exact = lorenzo::prequantize(T(0), p, d0) != lorenzo::Prequant::kQuantized;
  // Sample by sample (in a team when the caller gave threads), then in sample order: the codes
  // the coder sizes are the same whatever the team.
  struct Part {
    std::vector<uint16_t> codes;
    uint64_t outliers = 0, exact = 0;
  };
  std::vector<Part> parts(smp.size());
  const int64_t ns = static_cast<int64_t>(smp.size());
  const int nt = req.threads > 0 ? std::min(req.threads, thread_count(smp.size())) : 1;
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    std::vector<int32_t> d(kBoxVolume);
    std::vector<uint8_t> odd_row(kBox * kBox);  // rows holding NaN or Inf (whose points code nothing)
    T st[kBox];
    int32_t zeros[kBox + 1] = {};  // the rows before an absent axis' first, index -1 readable
    uint16_t row_codes[kBox];
#pragma omp for schedule(static)
    for (int64_t k = 0; k < ns; ++k) {
      const Sample<T>& s = smp[static_cast<size_t>(k)];
      Part& part = parts[static_cast<size_t>(k)];
      part.codes.reserve(static_cast<size_t>(s.g.w[0] * s.g.w[1] * s.g.w[2]));
      const uint32_t nx = static_cast<uint32_t>(s.g.w[2]);
      // Prequantized a row at a time, as the lorenzo pipeline does: exact are the finite points
      // that do not quantize (prequantize's kExactKeep, and kExactFill of huge values).
      for (int64_t z = 0; z < s.g.w[0]; ++z)
        for (int64_t y = 0; y < s.g.w[1]; ++y) {
          const int64_t i = z * kBoxPitch[0] + y * kBoxPitch[1];
          bool odd = false;
          if (lorenzo::prequantize_row(s.x.data() + i, nx, p, d.data() + i, st))
            for (uint32_t x = 0; x < nx; ++x) {
              const bool fin = finite(s.x[i + x]);
              odd = odd || !fin;
              part.exact += st[x] != T(0) && fin;
            }
          odd_row[z * kBox + y] = odd;
        }
      if (zero_exact) part.exact += static_cast<uint64_t>(kBoxVolume - s.g.w[0] * s.g.w[1] * s.g.w[2]);
      // On the field's axes the predictor reads the point before, so the points start at 1
      // (none when the box is one point thick there); absent axes sit at 0 and read zeros
      // there (lorenzo::delta of fewer dimensions, the same integers).
      const int64_t lo[3] = {ndim >= 3 ? 1 : 0, ndim >= 2 ? 1 : 0, 1};
      if (nx < 2) continue;
      for (int64_t z = lo[0]; z < s.g.w[0]; ++z)
        for (int64_t y = lo[1]; y < s.g.w[1]; ++y) {
          const int64_t i = z * kBoxPitch[0] + y * kBoxPitch[1];
          const int32_t* c = d.data() + i;
          const int32_t* yb = ndim >= 2 ? c - kBoxPitch[1] : zeros + 1;
          const int32_t* zb = ndim >= 3 ? c - kBoxPitch[0] : zeros + 1;
          const int32_t* zyb = ndim >= 3 ? zb - kBoxPitch[1] : zeros + 1;
          // Codes of x = 1 .. nx - 1 (integers: any order of the terms gives lorenzo::delta's).
          uint32_t bad = 0;
          for (uint32_t x = 1; x < nx; ++x) {
            const int32_t dl = c[x] - c[x - 1] - yb[x] - zb[x] + yb[x - 1] + zb[x - 1] + zyb[x] - zyb[x - 1];
            const bool in = dl >= -p.radius && dl < p.radius;
            row_codes[x - 1] = static_cast<uint16_t>(in ? dl + p.radius : p.radius);
            bad += in ? 0u : 1u;
          }
          if (!odd_row[z * kBox + y]) {
            part.codes.insert(part.codes.end(), row_codes, row_codes + (nx - 1));
            part.outliers += bad;
            continue;
          }
          for (uint32_t x = 1; x < nx; ++x) {  // NaN and Inf: the same runs for any predictor
            if (!finite(s.x[i + x])) continue;
            const uint16_t code = row_codes[x - 1];
            const int32_t dl = c[x] - c[x - 1] - yb[x] - zb[x] + yb[x - 1] + zb[x - 1] + zyb[x] - zyb[x - 1];
            part.outliers += !(dl >= -p.radius && dl < p.radius);
            part.codes.push_back(code);
          }
        }
    }
  }
  std::vector<uint16_t> codes;
  uint64_t outliers = 0, exact = 0, total = 0;
  for (const Part& part : parts) total += part.codes.size();
  codes.reserve(total);
  for (const Part& part : parts) {
    codes.insert(codes.end(), part.codes.begin(), part.codes.end());
    outliers += part.outliers, exact += part.exact;
  }
  if (codes.empty()) return 0;
  const double bits = 8.0 * static_cast<double>(req.lorenzo_codes_bytes(codes)) + 64.0 * static_cast<double>(outliers) +
                      static_cast<double>(exact) * (8.0 * sizeof(T) + 8.0);
  return bits / static_cast<double>(codes.size());
}

// The anchor levels, tuned greedily on the window of the anchor grid (original values,
// quantized as the twin quantizes them). Levels coarser than the window's take the coarsest
// configuration it tuned.
template <class T>
void tune_anchor_levels(const TuneInput<T>& in, const Layout& L, const std::vector<LevelConfig>& cand,
                        const std::vector<double>& ebs, double ebc, std::vector<LevelConfig>& config) {
  const int64_t* n = in.window;
  const Layout W = make_layout(static_cast<uint64_t>(n[0] - 1) * kAnchorStride + 1,
                               static_cast<uint64_t>(n[1] - 1) * kAnchorStride + 1,
                               static_cast<uint64_t>(n[2] - 1) * kAnchorStride + 1);
  if (W.levels - 1 <= kBlockLevels) return;
  const int64_t pitch[3] = {n[1] * n[2], n[2], 1};
  std::vector<T> A = in.anchors;
  std::vector<uint8_t> scratch(A.size());
  for (int l = W.levels - 1; l > kBlockLevels; --l) {
    const int64_t s = int64_t{1} << (l - 1 - kBlockLevels);
    const LevelQuant<T> q = level_quant<T>(ebs[l - 1]);
    // The block levels' per-point work (TuneSink, never stopped; its codes unread here): the
    // same quantization and costs, through the row loops the block levels ran just before,
    // whose code a first call then has at hand.
    auto run = [&](std::vector<T>& v, LevelConfig c, uint64_t* cost) {
      TuneSink<T> sink{v.data(), q, ebc, scratch.data(), ~uint64_t{0}};
      run_level(v.data(), pitch, n, s, c, NoSkip{}, sink);
      if (cost) *cost += sink.cost;
    };
    uint64_t best = ~uint64_t{0};
    LevelConfig pick = cand[0];
    if (cand.size() > 1) {
      for (const LevelConfig& c : cand) {
        std::vector<T> v = A;
        uint64_t cost = 0;
        run(v, c, &cost);
        if (cost < best) best = cost, pick = c;
      }
    }
    config[l - 1] = pick;
    run(A, pick, nullptr);
  }
  for (int l = W.levels; l < L.levels; ++l) config[l - 1] = config[W.levels - 2];
}

}  // namespace

template <class T>
std::vector<TuneSample<T>> load_samples(const TuneInput<T>& in, const Layout& L) {
  std::vector<TuneSample<T>> out;
  for (size_t k = 0; k < in.blocks.size(); ++k) {
    TuneSample<T> s;
    s.g = box_geom(L, in.blocks[k]);
    s.x.assign(in.boxes.begin() + k * kBoxVolume, in.boxes.begin() + (k + 1) * kBoxVolume);
    s.v = s.x;
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<uint64_t> sample_blocks(const Layout& L) {
  const uint64_t nb = L.g[0] * L.g[1] * L.g[2];
  // 0.2 % of the blocks, but at least kMinSamples for a steady choice, and at most one in
  // kMaxShare so that tuning stays a fraction of the work on small fields.
  uint64_t want = static_cast<uint64_t>(std::ceil(kSampleFraction * static_cast<double>(nb)));
  want = std::max(want, std::min(kMinSamples, (nb + kMaxShare - 1) / kMaxShare));
  want = std::min(nb, want);
  auto spread = [nb](uint64_t m) {
    std::vector<uint64_t> ids(m);
    for (uint64_t k = 0; k < m; ++k) ids[k] = (2 * k + 1) * nb / (2 * m);
    return ids;
  };
  // A small field's tuning is bounded by the field itself: below kSmallField points the
  // sampled boxes hold at most 1 / kSmallShare of the field's points (the kMaxShare floor alone
  // sampled 38 % of a 20x50x50 cut, whose thin edge blocks count as whole boxes, and tuning
  // cost 2-3x its compression), but never fewer than kSmallMinSamples boxes (a 25^3 cut tuned
  // on its one box lost 20 % at rel 1e-2).
  if (L.total < kSmallField) {
    auto points = [&L](const std::vector<uint64_t>& ids) {
      uint64_t p = 0;
      for (uint64_t id : ids) {
        const BoxGeom g = box_geom(L, id);
        p += static_cast<uint64_t>(g.w[0] * g.w[1] * g.w[2]);
      }
      return p;
    };
    while (want > kSmallMinSamples && points(spread(want)) * kSmallShare > L.total) --want;
  }
  return spread(want);
}

void anchor_window(const Layout& L, int64_t w[3]) {
  for (int k = 0; k < 3; ++k) w[k] = static_cast<int64_t>((L.n[k] - 1) / kAnchorStride + 1);
  while (w[0] * w[1] * w[2] > kAnchorWindow) {
    int big = 0;
    for (int k = 1; k < 3; ++k)
      if (w[k] > w[big]) big = k;
    w[big] = (w[big] + 1) / 2;
  }
}

template <class T>
TuneInput<T> gather_cpu(const T* x, const Layout& L) {
  TuneInput<T> in;
  in.blocks = sample_blocks(L);
  in.boxes.assign(in.blocks.size() * kBoxVolume, T(0));
  for (size_t k = 0; k < in.blocks.size(); ++k) {
    const BoxGeom g = box_geom(L, in.blocks[k]);
    for (int64_t z = 0; z < g.w[0]; ++z)
      for (int64_t y = 0; y < g.w[1]; ++y)
        std::memcpy(&in.boxes[k * kBoxVolume + z * kBoxPitch[0] + y * kBoxPitch[1]],
                    x + ((g.o[0] + z) * L.n[1] + g.o[1] + y) * L.n[2] + g.o[2], g.w[2] * sizeof(T));
  }
  anchor_window(L, in.window);
  const int64_t* w = in.window;
  in.anchors.resize(static_cast<size_t>(w[0] * w[1] * w[2]));
  for (int64_t z = 0; z < w[0]; ++z)
    for (int64_t y = 0; y < w[1]; ++y)
      for (int64_t xx = 0; xx < w[2]; ++xx)
        in.anchors[(z * w[1] + y) * w[2] + xx] =
            x[((static_cast<uint64_t>(z) * kAnchorStride) * L.n[1] + static_cast<uint64_t>(y) * kAnchorStride) * L.n[2] +
              static_cast<uint64_t>(xx) * kAnchorStride];
  return in;
}

template <class T>
Choice tune(const TuneInput<T>& in, const Layout& L, double eb, const TuneRequest& req) {
  const double ebc = eb_check<T>(eb);
  Choice ch;
  ch.config.assign(L.levels, LevelConfig{});
  ch.config[L.levels - 1] = {kLinear, kDimZYX};  // the root has no neighbours: never read
  const std::vector<LevelConfig> cand = candidates(L, req);
  const bool tune_bounds = req.alpha <= 0;
  ch.alpha = tune_bounds ? 1 : req.alpha;
  ch.beta = tune_bounds ? 1 : std::max(req.beta, 1.0);
  std::vector<Sample<T>> smp;
  {
    TracePhase t("interp tune: load samples");
    smp = load_samples(in, L);
  }
  auto ebs_now = [&] { return level_bounds(eb, L.levels, ch.alpha, ch.beta); };
  // A caller with cores to spare (TuneRequest::threads) gets the independent parts beside each
  // other: the anchor levels (the anchor window; they write only the levels above the blocks')
  // beside the block levels, and the Lorenzo estimate (the samples' original values) beside
  // all of it. On the GPU path the block levels mostly wait on round trips to the device.
  const bool overlap = req.threads > 1;
  std::future<double> lorenzo;
  if (overlap && req.lorenzo_codes_bytes)
    lorenzo = start<double>([&] {
      TracePhase t("interp tune: lorenzo estimate");
      return lorenzo_sample_bits<T>(smp, L, eb, req);
    });
  // The samples' codes under the configurations last tuned and their bounds.
  SampleCodes tuned_codes;
  auto tune_configs = [&] {
    for (auto& sm : smp) set_with_anchor_error(sm, ebs_now()[kBlockLevels], sm.v);
    const std::vector<double> ebs = level_bounds(eb, L.levels, ch.alpha, ch.beta);
    auto anchors = [&] {
      TracePhase t("interp tune: anchor levels");
      tune_anchor_levels<T>(in, L, cand, ebs, ebc, ch.config);
    };
    std::future<void> beside;
    if (overlap) beside = start<void>(anchors);
    {
      TracePhase t("interp tune: block levels");
      if (in.block_search) in.block_search(smp, cand, ebs, ebc, ch.config, tuned_codes);
      else tune_block_levels<T>(smp, cand, ebs, ebc, ch.config, tuned_codes, req.threads);
    }
    if (beside.valid()) beside.get();
    else anchors();
  };
  tune_configs();
  uint64_t plain_points = 0;  // the samples' size without tightening, when it was measured
  if (tune_bounds) {
    // Configurations first, without tightening (what the data wants at most bounds), then each
    // tightening under them; one is kept only when the samples shrink by more than
    // kTightenMargin, and the configurations are then tuned again under it. The margin is
    // wide because the estimate is poor: on the 15 real fields at rel 1e-2 the samples promised
    // 5 % on fields where the whole field lost 9 % (isabel) and 1 % where it gained 5 %
    // (s3d); docs/INTERP.md has the table. Only large promised gains are taken.
    constexpr double kTightenMargin = 0.10;
    // Tightening pays at low rates only (every field it helped ran below 1 bit per value at rel
    // 1e-2, and the margin let through only those below half a bit), and of the candidates
    // (alpha 1.25 to 2, beta 2 to 4) only these two ever won: above kTightenRate bits per
    // value, or for others, the samples are not sized again (each costs a pass over them).
    constexpr double kTightenRate = 0.5;
    TracePhase t("interp tune: tightening");
    uint64_t points = 0;
    const double plain = bits_of<T>(tuned_codes, req, &points);  // tuned without tightening
    if (points) plain_points = points, ch.interp_bits = plain / static_cast<double>(points);
    double best = plain * (1 - kTightenMargin);
    if (points && plain / static_cast<double>(points) < kTightenRate) {
      constexpr std::pair<double, double> kTightenings[] = {{1.25, 2.0}, {1.5, 2.0}};
      std::vector<std::vector<double>> ebs;
      for (const auto& [alpha, beta] : kTightenings) ebs.push_back(level_bounds(eb, L.levels, alpha, beta));
      const std::vector<double> bits = sample_bits<T>(smp, ch.config, ebs, ebc, req, in.sample_levels);
      for (size_t j = 0; j < bits.size(); ++j)  // in order: the first of equal estimates wins
        if (bits[j] < best) best = bits[j], ch.alpha = kTightenings[j].first, ch.beta = kTightenings[j].second;
    }
    if (ch.alpha != 1) tune_configs();
  }
  ch.eb = level_bounds(eb, L.levels, ch.alpha, ch.beta);
  if (req.codes_bytes && !(plain_points && ch.alpha == 1)) {
    TracePhase t("interp tune: size codes");
    uint64_t points = 0;
    const double bits = bits_of<T>(tuned_codes, req, &points);  // tuned last under ch.eb
    ch.interp_bits = points ? bits / static_cast<double>(points) : 0;
  }
  if (lorenzo.valid()) {
    ch.lorenzo_bits = lorenzo.get();
  } else if (req.lorenzo_codes_bytes) {
    TracePhase t("interp tune: lorenzo estimate");
    ch.lorenzo_bits = lorenzo_sample_bits<T>(smp, L, eb, req);
  }
  return ch;
}

template <class T>
void search_block_levels(std::vector<TuneSample<T>>& smp, const std::vector<LevelConfig>& cand,
                         const std::vector<double>& ebs, double ebc, std::vector<LevelConfig>& config,
                         TuneSampleCodes& codes, int threads, bool bound) {
  tune_block_levels<T>(smp, cand, ebs, ebc, config, codes, threads, bound);
}

template void search_block_levels<float>(std::vector<TuneSample<float>>&, const std::vector<LevelConfig>&,
                                         const std::vector<double>&, double, std::vector<LevelConfig>&,
                                         TuneSampleCodes&, int, bool);
template void search_block_levels<double>(std::vector<TuneSample<double>>&, const std::vector<LevelConfig>&,
                                          const std::vector<double>&, double, std::vector<LevelConfig>&,
                                          TuneSampleCodes&, int, bool);
template std::vector<TuneSample<float>> load_samples<float>(const TuneInput<float>&, const Layout&);
template std::vector<TuneSample<double>> load_samples<double>(const TuneInput<double>&, const Layout&);
template TuneInput<float> gather_cpu<float>(const float*, const Layout&);
template TuneInput<double> gather_cpu<double>(const double*, const Layout&);
template Choice tune<float>(const TuneInput<float>&, const Layout&, double, const TuneRequest&);
template Choice tune<double>(const TuneInput<double>&, const Layout&, double, const TuneRequest&);

}  // namespace sciz::interp
