// refactor, retrieve, and info of a refactored (mdr) file (docs/MDR.md): the field is read
// whole (refactoring is one pass over it in memory); a retrieval reads the file's header and
// then only the byte range its bound needs, resuming from --state when given.
#include <sciz/mdr.hpp>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "command_util.hpp"
#include "commands.hpp"
#include "io.hpp"

namespace sciz::cli {

bool is_mdr_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[4] = {};
  const bool is = std::fread(magic, 1, 4, f) == 4 && std::memcmp(magic, "SZMD", 4) == 0;
  std::fclose(f);
  return is;
}

namespace {

mdr::Source open_source(const std::string& path) {
  InputFile probe(path, "input");  // the CLI's own messages for a missing or unreadable file
  return in_context(quote(path), [&] { return mdr::file_source(path); });
}

}  // namespace

int run_refactor(const Options& o) {
  // The CPU unless --device says otherwise: both twins write the same file.
  const Device d = resolve(o.device_given ? o.device : Device::cpu);
  Progress progress(o.quiet);
  OutputFile out(o.output);
  const Field f = read_field(o, progress);
  mdr::RefactorOptions ro;
  ro.planes_per_group = o.planes_per_group;
  ro.device = d;
  const auto t0 = std::chrono::steady_clock::now();
  progress.phase(std::string("refactoring on ") + device_name(d));
  const std::vector<uint8_t> file =
      in_context("refactor " + quote(o.input), [&] { return mdr::refactor({f.data.data(), f.dtype, f.shape}, ro); });
  const double secs = seconds_since(t0);
  out.write(file.data(), file.size());
  out.commit();
  const mdr::Retriever r(mdr::memory_source(file));
  const mdr::FileInfo& info = r.info();
  if (o.json) {
    Json j;
    j.add("input", o.input)
        .add("output", o.output)
        .add_raw("dims", Json::array(dims_json(f.shape)))
        .add("dtype", dtype_name(f.dtype))
        .add("device", device_name(d))
        .add("original_bytes", f.bytes())
        .add("file_bytes", static_cast<uint64_t>(file.size()))
        .add("header_bytes", info.header_bytes)
        .add("version", static_cast<uint64_t>(info.version))
        .add("levels", static_cast<uint64_t>(info.levels))
        .add("segments", static_cast<uint64_t>(info.segments))
        .add("special_values", info.special)
        .add("coarsest_bound", info.coarsest_bound)
        .add("finest_bound", info.finest_bound)
        .add("seconds", secs);
    std::printf("%s\n", j.str().c_str());
  } else if (!o.quiet) {
    std::fprintf(stderr,
                 "sciz: %s -> %s: %" PRIu64 " -> %zu bytes, %u levels, %u segments; retrievable at bounds %s (all) to %s "
                 "(header only)\n",
                 quote(o.input).c_str(), quote(o.output).c_str(), f.bytes(), file.size(), info.levels, info.segments,
                 fmt_g(info.finest_bound).c_str(), fmt_g(info.coarsest_bound).c_str());
  }
  return kExitOk;
}

namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  for (;;) {
    const size_t comma = s.find(',', at);
    out.push_back(s.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) return out;
    at = comma + 1;
  }
}

// --qoi: the components in -i and their outputs in -o, both comma lists, refined together until
// the quantity's error bound meets --tol x its range.
int run_retrieve_qoi(const Options& o) {
  const std::vector<std::string> in = split_commas(o.input), outp = split_commas(o.output);
  if (in.size() != outp.size())
    usage_error("--qoi: " + std::to_string(in.size()) + " inputs (-i) but " + std::to_string(outp.size()) +
                " outputs (-o): give one output per component");
  if (in.size() > 8) usage_error("--qoi: " + std::to_string(in.size()) + " components (at most 8)");
  if (o.qoi == "linear" && o.weights.size() != in.size())
    usage_error("--weights: " + std::to_string(o.weights.size()) + " weights for " + std::to_string(in.size()) + " components");
  std::vector<mdr::Retriever> rs;
  for (const auto& path : in) {
    mdr::Source src = open_source(path);
    rs.push_back(in_context(quote(path), [&] { return mdr::Retriever(std::move(src)); }));
  }
  std::vector<std::unique_ptr<OutputFile>> outs;  // not movable: each owns its temporary
  for (const auto& path : outp) outs.push_back(std::make_unique<OutputFile>(path));
  const uint64_t bytes = rs[0].info().shape.count() * dtype_size(rs[0].info().dtype);
  std::vector<HostBuffer> fields;
  std::vector<mdr::Retriever*> rp;
  std::vector<void*> op;
  for (auto& r : rs) {
    fields.push_back(HostBuffer::allocate(bytes, "a retrieved component"));
    rp.push_back(&r);
    op.push_back(fields.back().data());
  }
  mdr::QoiOptions qo;
  qo.qoi = mdr::parse_qoi(o.qoi);
  qo.method = mdr::parse_qoi_method(o.qoi_method);
  qo.weights = o.weights;
  const auto t0 = std::chrono::steady_clock::now();
  const mdr::QoiResult got = in_context("--qoi " + o.qoi, [&] { return mdr::retrieve_qoi(rp, *o.tol, qo, op); });
  const double secs = seconds_since(t0);
  if (!got.met)
    data_error("--qoi " + o.qoi + ": tolerance " + fmt_g(got.tolerance, 9) + " not reached with everything read (estimate " +
               fmt_g(got.estimate, 9) + ")");
  for (size_t i = 0; i < outs.size(); ++i) {
    outs[i]->write(fields[i].data(), bytes);
    outs[i]->commit();
  }
  uint64_t file_bytes = 0;
  for (const auto& r : rs) file_bytes += r.info().file_bytes;
  if (o.json) {
    Json j;
    std::vector<std::string> bounds;
    for (double b : got.bounds) bounds.push_back(Json::number(b));
    j.add("qoi", o.qoi)
        .add("method", o.qoi_method)
        .add("tolerance_rel", *o.tol)
        .add("tolerance_abs", got.tolerance)
        .add("estimate", got.estimate)
        .add("iterations", got.iterations)
        .add("bytes_read", got.bytes_read)
        .add("file_bytes", file_bytes)
        .add_raw("component_bounds", Json::array(bounds))
        .add("seconds", secs);
    std::printf("%s\n", j.str().c_str());
  } else if (!o.quiet) {
    Table t;
    t.row("quantity", o.qoi + " of " + std::to_string(in.size()) + " components (" + o.qoi_method + ")");
    t.row("tolerance", fmt_g(got.tolerance) + " abs (rel " + fmt_g(*o.tol) + " of the quantity's range)");
    t.row("estimated max error", fmt_g(got.estimate) + " (a proven bound at every point)");
    std::string b;
    for (double x : got.bounds) b += (b.empty() ? "" : ", ") + fmt_g(x);
    t.row("component bounds", b);
    t.row("bytes read", std::to_string(got.bytes_read) + " of " + std::to_string(file_bytes));
    t.row("iterations", std::to_string(got.iterations));
    t.row("time", fmt_g(secs, 3) + " s");
    std::fputs(t.str().c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace

int run_retrieve(const Options& o) {
  if (!o.qoi.empty()) return run_retrieve_qoi(o);
  const std::string ctx = quote(o.input);
  mdr::Source src = open_source(o.input);
  std::vector<uint8_t> state;
  const bool resume = !o.state.empty() && std::filesystem::exists(o.state);
  if (resume) {
    const InputFile s(o.state, "state");
    state.resize(s.size);
    s.read(0, state.data(), s.size);
  }
  mdr::Retriever r = in_context(ctx + (resume ? " with state " + quote(o.state) : ""), [&] {
    return resume ? mdr::Retriever(std::move(src), state) : mdr::Retriever(std::move(src));
  });
  const mdr::FileInfo& info = r.info();
  const double want = in_context(ctx, [&] { return r.resolve(o.bound()); });
  if (want < info.finest_bound)
    data_error(ctx + ": bound " + fmt_g(want, 9) + " is below the finest this file holds (" + fmt_g(info.finest_bound, 9) +
               ")");
  OutputFile out(o.output);
  std::optional<OutputFile> state_out;
  if (!o.state.empty()) state_out.emplace(o.state);
  HostBuffer field = HostBuffer::allocate(info.shape.count() * dtype_size(info.dtype), "the retrieved field");
  const auto t0 = std::chrono::steady_clock::now();
  const mdr::Retrieval got = in_context(ctx, [&] { return r.retrieve(o.bound(), field.data(), field.size); });
  const double secs = seconds_since(t0);
  if (!got.met) data_error(ctx + ": internal: bound " + fmt_g(got.bound, 9) + " above " + fmt_g(want, 9));
  out.write(field.data(), field.size);
  out.commit();
  if (state_out) {
    const std::vector<uint8_t> s = r.state();
    state_out->write(s.data(), s.size());
    state_out->commit();
  }
  if (o.json) {
    Json j;
    j.add("input", o.input).add("output", o.output).add("requested_abs", got.requested);
    if (o.rel) j.add("requested_rel", *o.rel);
    else j.add_null("requested_rel");
    j.add("bound", got.bound)
        .add("bytes_read", got.bytes_read)
        .add("total_bytes_read", got.total_bytes_read)
        .add("file_bytes", info.file_bytes)
        .add("segments", got.segments)
        .add("resumed", resume)
        .add("seconds", secs);
    std::printf("%s\n", j.str().c_str());
  } else if (!o.quiet) {
    Table t;
    t.row("requested", bound_text(o, got.requested));
    t.row("guaranteed bound", fmt_g(got.bound) + " (|x - x'| on every finite point; NaN/Inf exact)");
    t.row("bytes read", std::to_string(got.bytes_read) +
                            (resume ? " (header and the segments the state lacked)" : " (header and segments)"));
    t.row("total bytes", std::to_string(got.total_bytes_read) + " of " + std::to_string(info.file_bytes) + " (" +
                             fmt_g(100.0 * static_cast<double>(got.total_bytes_read) / static_cast<double>(info.file_bytes), 3) +
                             " %)");
    t.row("segments", std::to_string(got.segments) + " of " + std::to_string(info.segments));
    t.row("output", quote(o.output) + ": " + info.shape.str() + " " + dtype_name(info.dtype));
    t.row("time", fmt_g(secs, 3) + " s");
    std::fputs(t.str().c_str(), stdout);
  }
  return kExitOk;
}

int run_info_mdr(const Options& o) {
  const std::string ctx = quote(o.input);
  const std::vector<uint8_t> all = [&] {
    const InputFile in(o.input, "input");
    std::vector<uint8_t> b(in.size);
    in.read(0, b.data(), b.size());
    return b;
  }();
  mdr::Retriever r = in_context(ctx, [&] { return mdr::Retriever(mdr::memory_source(all)); });
  const mdr::FileInfo& info = r.info();
  // What a retrieval at each relative bound would cost (bytes read, the bound it guarantees),
  // from the index; rungs below the finest bound are left out.
  std::vector<std::pair<double, mdr::Retrieval>> ladder;  // (rel, its plan)
  for (const double rel : {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6}) {
    const mdr::Retrieval g = r.plan({EbMode::rel, rel});
    if (!g.met) break;
    ladder.emplace_back(rel, g);
  }
  // Every segment's checksum and coding, by retrieving everything once.
  std::vector<uint8_t> field(info.shape.count() * dtype_size(info.dtype));
  in_context(ctx, [&] { r.retrieve({EbMode::abs, info.finest_bound}, field.data(), field.size()); });
  if (o.json) {
    Json j;
    j.add("format", "mdr")
        .add("version", static_cast<uint64_t>(info.version))
        .add("dtype", dtype_name(info.dtype))
        .add_raw("dims", Json::array(dims_json(info.shape)))
        .add("value_min", info.value_min)
        .add("value_max", info.value_max)
        .add("special_values", info.special)
        .add("levels", static_cast<uint64_t>(info.levels))
        .add("segments", static_cast<uint64_t>(info.segments))
        .add("header_bytes", info.header_bytes)
        .add("file_bytes", info.file_bytes)
        .add("coarsest_bound", info.coarsest_bound)
        .add("finest_bound", info.finest_bound);
    std::vector<std::string> rungs;
    for (const auto& [rel, g] : ladder) {
      Json rj;
      rj.add("rel", rel).add("bound", g.bound).add("bytes_read", g.total_bytes_read);
      rungs.push_back(rj.str());
    }
    j.add_raw("retrieval_cost", Json::array(rungs));
    std::printf("%s\n", j.str().c_str());
  } else {
    Table t;
    t.row("format", "mdr refactored file, version " + std::to_string(info.version) + " (docs/MDR.md)");
    t.row("dtype", dtype_name(info.dtype));
    t.row("dims", info.shape.str());
    t.row("value range", "[" + fmt_g(info.value_min) + ", " + fmt_g(info.value_max) + "]");
    t.row("special values", std::to_string(info.special) + " (NaN/Inf, stored exactly)");
    t.row("levels", std::to_string(info.levels));
    t.row("segments", std::to_string(info.segments) + " (all checksums verified)");
    t.row("header bytes", std::to_string(info.header_bytes));
    t.row("file bytes", std::to_string(info.file_bytes));
    t.row("bounds", fmt_g(info.finest_bound) + " (everything read) to " + fmt_g(info.coarsest_bound) + " (header only)");
    for (const auto& [rel, g] : ladder)
      t.row("retrieve -r " + fmt_g(rel),
            std::to_string(g.total_bytes_read) + " bytes read (" +
                fmt_g(100.0 * static_cast<double>(g.total_bytes_read) / static_cast<double>(info.file_bytes), 3) +
                "% of the file), bound " + fmt_g(g.bound));
    std::fputs(t.str().c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace sciz::cli
