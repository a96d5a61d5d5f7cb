// What the subcommands share: library errors put in context, the options as the library
// takes them, and small renderers.
#pragma once
#include <sciz/sciz.hpp>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "cli_error.hpp"
#include "output.hpp"

namespace sciz::cli {

// Library errors get the object they concern (file, device) in front, and an exit status by
// kind: a refused argument is a usage error, anything else (stream, device, I/O) a data error.
template <class F>
inline auto in_context(const std::string& ctx, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    throw CliError(e.status() == Status::invalid_argument ? kExitUsage : kExitData, ctx + ": " + e.what());
  }
}

inline Device resolve(Device requested) {
  return in_context("device " + quote(device_name(requested)), [&] { return resolve_device(requested); });
}

// The devices of --devices (all: every visible one), as the library takes them.
inline std::vector<int> devices_of(const Options& o) {
  if (!o.all_devices) return o.devices;
  std::vector<int> v;
  for (int d = 0; d < cuda_device_count(); ++d) v.push_back(d);
  return v;
}

inline CompressOptions compress_options(const Options& o, Device d) {
  CompressOptions co;
  co.eb = o.bound();
  co.pipeline = o.pipeline;
  co.device = d;
  co.radius = o.radius;
  co.lossless = o.lossless;
  co.stages = o.stages;
  co.delta_chain = o.delta_chain;
  co.szx_block = o.szx_block;
  co.interp_spline = o.interp_spline;
  co.interp_scheme = o.interp_scheme;
  co.interp_alpha = o.interp_alpha;
  co.interp_beta = o.interp_beta;
  co.interp_lorenzo = o.interp_lorenzo;
  co.chunk_mb = o.chunk_mb;
  co.gpu_memory = o.gpu_memory;
  co.devices = devices_of(o);
  return co;
}

inline std::string bound_text(const Options& o, double eb_abs) {
  std::string s = fmt_g(eb_abs) + " abs";
  if (o.rel) s += " (rel " + o.rel_arg + ")";
  return s;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Timed runs of `sciz eval`: the --runs asked for, else 5 for fields up to 64 MiB and 1 above.
// A process's first call also pays its one-time costs (code and pages touched for the first
// time, a GPU context): on a 200 KB field that is most of the call, so one run would report
// the process's start-up rather than what each call costs. The first call is reported beside
// the median; a large field's single run is dominated by the work itself.
inline constexpr uint64_t kEvalRepeatBytes = uint64_t{64} << 20;
inline int eval_runs(int asked, uint64_t field_bytes) {
  if (asked > 0) return asked;
  return field_bytes <= kEvalRepeatBytes ? 5 : 1;
}

inline std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

inline std::vector<std::string> dims_json(const Shape& s) {
  std::vector<std::string> v;
  for (auto d : s.dims) v.push_back(std::to_string(d));
  return v;
}


}  // namespace sciz::cli
