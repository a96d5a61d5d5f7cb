#include "commands.hpp"

#include <sciz/sciz.hpp>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <optional>

#include "cli_error.hpp"
#include "io.hpp"
#include "metrics/metrics.hpp"
#include "output.hpp"

namespace sciz::cli {

namespace {

// Library errors get the object they concern (file, device) in front, and an exit status by
// kind: a refused argument is a usage error, anything else (stream, device, I/O) a data error.
template <class F>
auto in_context(const std::string& ctx, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    throw CliError(e.status() == Status::invalid_argument ? kExitUsage : kExitData, ctx + ": " + e.what());
  }
}

Device resolve(Device requested) {
  return in_context("device " + quote(device_name(requested)), [&] { return resolve_device(requested); });
}

CompressOptions compress_options(const Options& o, Device d) {
  CompressOptions co;
  co.eb = o.bound();
  co.pipeline = o.pipeline;
  co.device = d;
  co.radius = o.radius;
  co.lossless = o.lossless;
  co.delta_chain = o.delta_chain;
  co.szx_block = o.szx_block;
  return co;
}

std::string bound_text(const Options& o, double eb_abs) {
  std::string s = fmt_g(eb_abs) + " abs";
  if (o.rel) s += " (rel " + o.rel_arg + ")";
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

std::vector<std::string> dims_json(const Shape& s) {
  std::vector<std::string> v;
  for (auto d : s.dims) v.push_back(std::to_string(d));
  return v;
}

}  // namespace

int run_compress(const Options& o) {
  Progress progress(o.quiet);
  const Device d = resolve(o.device);
  OutputFile out(o.output);
  const Field f = read_field(o, progress);
  progress.phase(std::string("compressing on ") + device_name(d));
  const auto stream = in_context("compress " + quote(o.input), [&] {
    return compress({f.data.data(), f.dtype, f.shape}, compress_options(o, d));
  });
  progress.phase("writing " + quote(o.output) + " (" + human_bytes(stream.size()) + ")");
  out.write(stream.data(), stream.size());
  out.commit();
  if (!o.quiet) {
    const StreamInfo info = inspect(stream);
    std::fprintf(stderr, "sciz: %s -> %s: %" PRIu64 " -> %zu bytes, ratio %s, eb %s\n", quote(o.input).c_str(),
                 quote(o.output).c_str(), f.bytes(), stream.size(),
                 fmt_g(metrics::ratio(f.bytes(), stream.size()), 4).c_str(), bound_text(o, info.eb_abs).c_str());
  }
  return kExitOk;
}

int run_decompress(const Options& o) {
  Progress progress(o.quiet);
  const Device d = resolve(o.device);
  OutputFile out(o.output);
  const HostBuffer s = read_whole(o.input, "input", progress);
  const std::span<const uint8_t> stream(s.data(), s.size);
  const StreamInfo info = in_context(quote(o.input), [&] { return inspect(stream); });
  const uint64_t bytes = info.original_bytes();
  progress.consider(std::max<uint64_t>(bytes, s.size));  // a small stream may decode to a big field
  HostBuffer field = HostBuffer::allocate(bytes, "the decoded field");
  progress.phase(std::string("decompressing on ") + device_name(d));
  in_context(quote(o.input), [&] { decompress(stream, field.data(), bytes, d); });
  progress.phase("writing " + quote(o.output) + " (" + human_bytes(bytes) + ")");
  out.write(field.data(), bytes);
  out.commit();
  return kExitOk;
}

int run_info(const Options& o) {
  Progress progress(true);
  const HostBuffer s = read_whole(o.input, "input", progress);
  const StreamInfo info = in_context(quote(o.input), [&] { return inspect({s.data(), s.size}); });
  const double ratio = metrics::ratio(info.original_bytes(), info.stream_bytes);
  const char* mode = info.eb_mode == EbMode::rel ? "rel" : "abs";
  if (o.json) {
    Json params, j;
    for (const auto& [k, v] : info.params) params.add(k, v);
    std::vector<std::string> secs;
    for (const auto& sec : info.sections) {
      Json js;
      js.add("id", static_cast<uint64_t>(sec.id)).add("offset", sec.offset).add("length", sec.length);
      js.add("checksum", hex64(sec.checksum));  // a string: JSON numbers lose bits above 2^53
      secs.push_back(js.str(0, 0));
    }
    j.add("file", o.input)
        .add("format_version", static_cast<uint64_t>(info.version))
        .add("stream_bytes", info.stream_bytes)
        .add("dtype", dtype_name(info.dtype))
        .add_raw("dims", Json::array(dims_json(info.shape)))
        .add("original_bytes", info.original_bytes())
        .add("ratio", ratio)
        .add("eb_mode", mode)
        .add("eb_value", info.eb_value)
        .add("eb_abs", info.eb_abs)
        .add("value_min", info.value_min)
        .add("value_max", info.value_max)
        .add("nonfinite", info.nonfinite)
        .add("pipeline", info.pipeline)
        .add_raw("params", params.str(2, 1))
        .add_raw("sections", Json::array(secs));
    std::printf("%s\n", j.str().c_str());
    return kExitOk;
  }
  Table t;
  t.row("file", o.input);
  t.row("format version", std::to_string(info.version));
  t.row("stream bytes", std::to_string(info.stream_bytes));
  t.row("dtype", dtype_name(info.dtype));
  t.row("dims", info.shape.str());
  t.row("original bytes", std::to_string(info.original_bytes()));
  t.row("ratio", fmt_g(ratio, 4));
  t.row("error bound", info.eb_mode == EbMode::rel ? "rel " + fmt_g(info.eb_value) + " -> abs " + fmt_g(info.eb_abs)
                                                    : "abs " + fmt_g(info.eb_abs));
  t.row("value range", "[" + fmt_g(info.value_min, 9) + ", " + fmt_g(info.value_max, 9) + "]");
  t.row("non-finite values", std::to_string(info.nonfinite));
  t.row("pipeline", info.pipeline);
  for (const auto& [k, v] : info.params) t.row("  " + k, v);
  t.row("sections", std::to_string(info.sections.size()));
  for (const auto& sec : info.sections)
    t.row("  id " + std::to_string(sec.id), "offset " + std::to_string(sec.offset) + ", length " +
                                                std::to_string(sec.length) + ", checksum " + hex64(sec.checksum));
  std::fputs(t.str().c_str(), stdout);
  return kExitOk;
}

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
  progress.phase(std::string("compressing on ") + device_name(d));
  for (int r = 0; r < o.runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    stream = in_context("compress " + ctx, [&] { return compress(view, co); });
    tc.push_back(seconds_since(t0));
  }
  const StreamInfo info = in_context("compress " + ctx, [&] { return inspect(stream); });
  HostBuffer dec = HostBuffer::allocate(f.bytes(), "the decoded field");
  progress.phase(std::string("decompressing on ") + device_name(d));
  for (int r = 0; r < o.runs; ++r) {
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
        .add("runs", o.runs);
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
    const std::string runs = o.runs > 1 ? " (median of " + std::to_string(o.runs) + ")" : "";
    t.row("compress", fmt_g(cgbps, 4) + " GB/s" + runs);
    t.row("decompress", fmt_g(dgbps, 4) + " GB/s" + runs);
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
