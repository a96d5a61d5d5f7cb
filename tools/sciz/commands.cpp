#include "commands.hpp"

#include <sciz/sciz.hpp>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <optional>

#include "cli_error.hpp"
#include "command_util.hpp"
#include "io.hpp"
#include "metrics/metrics.hpp"
#include "output.hpp"

namespace sciz::cli {

int run_eval(const Options& o) {
  Progress progress(o.quiet);
  const Device d = resolve(o.device);
  std::optional<OutputFile> out;
  if (!o.output.empty()) out.emplace(o.output);
  const Field f = read_field(o, progress);
  const CompressOptions co = compress_options(o, d);
  const FieldView view{f.data.data(), f.dtype, f.shape};
  const std::string ctx = quote(o.input);

  std::vector<uint8_t> stream;
  std::vector<double> tc, td;
  const int runs = eval_runs(o.runs, f.bytes());
  progress.phase(std::string("compressing on ") + device_name(d));
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    stream = in_context("compress " + ctx, [&] { return compress(view, co); });
    tc.push_back(seconds_since(t0));
  }
  const StreamInfo info = in_context("compress " + ctx, [&] { return inspect(stream); });
  HostBuffer dec = HostBuffer::allocate(f.bytes(), "the decoded field");
  progress.phase(std::string("decompressing on ") + device_name(d));
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    in_context("decompress " + ctx, [&] { decompress(stream, dec.data(), f.bytes(), d); });
    td.push_back(seconds_since(t0));
  }
  progress.phase("comparing");
  const metrics::Quality q =
      f.dtype == DType::f32
          ? metrics::compare_cpu(reinterpret_cast<const float*>(f.data.data()), reinterpret_cast<const float*>(dec.data()), f.shape)
          : metrics::compare_cpu(reinterpret_cast<const double*>(f.data.data()), reinterpret_cast<const double*>(dec.data()), f.shape);
  if (out) {
    progress.phase("writing " + quote(o.output));
    out->write(stream.data(), stream.size());
    out->commit();
  }

  const bool held = q.max_abs_err <= info.eb_abs && q.nonfinite_mismatch == 0;
  const double ratio = metrics::ratio(f.bytes(), stream.size());
  const double bits = metrics::bit_rate(stream.size(), f.shape.count());
  const double over = q.max_abs_err / info.eb_abs;
  const double cgbps = static_cast<double>(f.bytes()) / median(tc) / 1e9;
  const double dgbps = static_cast<double>(f.bytes()) / median(td) / 1e9;
  const double c1gbps = static_cast<double>(f.bytes()) / tc.front() / 1e9;
  const double d1gbps = static_cast<double>(f.bytes()) / td.front() / 1e9;

  if (o.json) {
    Json j;
    j.add("input", o.input)
        .add("pipeline", o.pipeline)
        .add("device", device_name(d))
        .add_raw("dims", Json::array(dims_json(f.shape)))
        .add("dtype", dtype_name(f.dtype))
        .add("eb_abs", info.eb_abs);
    if (o.rel) j.add("eb_rel", *o.rel);
    else j.add_null("eb_rel");
    j.add("original_bytes", f.bytes())
        .add("compressed_bytes", static_cast<uint64_t>(stream.size()))
        .add("ratio", ratio)
        .add("bit_rate", bits)
        .add("max_abs_err", q.max_abs_err)
        .add("max_err_over_eb", over)
        .add("bound_held", held)
        .add("psnr_db", q.psnr_db)
        .add("nrmse", q.nrmse)
        .add("ssim", q.ssim)
        .add("rmse", q.rmse)
        .add("value_range", q.value_range)
        .add("n", q.n)
        .add("n_compared", q.n_compared)
        .add("nonfinite_mismatch", q.nonfinite_mismatch)
        .add("compress_gbps", cgbps)
        .add("decompress_gbps", dgbps)
        .add("compress_first_gbps", c1gbps)
        .add("decompress_first_gbps", d1gbps)
        .add("runs", runs);
    std::printf("%s\n", j.str().c_str());
  } else {
    Table t;
    t.row("pipeline", o.pipeline);
    t.row("device", device_name(d));
    t.row("dims", f.shape.str());
    t.row("dtype", dtype_name(f.dtype));
    t.row("eb (abs)", fmt_g(info.eb_abs));
    if (o.rel) t.row("eb (rel)", fmt_g(*o.rel));
    t.row("original bytes", std::to_string(f.bytes()));
    t.row("compressed bytes", std::to_string(stream.size()));
    t.row("ratio", fmt_g(ratio, 4));
    t.row("bit rate", fmt_g(bits, 4) + " bits/value");
    t.row("max abs error", fmt_g(q.max_abs_err));
    t.row("max error / eb", fmt_g(over, 6));
    t.row("bound held", held ? "yes" : "no");
    if (q.nonfinite_mismatch) t.row("non-finite mismatch", std::to_string(q.nonfinite_mismatch));
    t.row("PSNR", fmt_g(q.psnr_db, 5) + " dB");
    t.row("NRMSE", fmt_g(q.nrmse, 4));
    t.row("SSIM", fmt_g(q.ssim, 6));
    auto speed = [&](double med, double first) {
      if (runs == 1) return fmt_g(med, 4) + " GB/s";
      return fmt_g(med, 4) + " GB/s (median of " + std::to_string(runs) + " calls; the first " + fmt_g(first, 3) + ")";
    };
    t.row("compress", speed(cgbps, c1gbps));
    t.row("decompress", speed(dgbps, d1gbps));
    std::fputs(t.str().c_str(), stdout);
  }
  std::fflush(stdout);
  if (!held) {
    std::fprintf(stderr, "sciz: error: bound violated on %s: max abs error %s vs eb %s, %" PRIu64 " non-finite mismatches\n",
                 ctx.c_str(), fmt_g(q.max_abs_err, 9).c_str(), fmt_g(info.eb_abs, 9).c_str(), q.nonfinite_mismatch);
    return kExitBound;
  }
  return kExitOk;
}

}  // namespace sciz::cli
