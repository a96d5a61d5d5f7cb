// compress, decompress and info a chunk at a time (include/sciz/chunked.hpp): memory stays at a
// few chunks whatever the file's size, reading the next chunk overlaps work on this one, and
// the stream's header, whose size is known before the first chunk, is written last into the
// room left for it.
#include <sciz/chunked.hpp>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "command_util.hpp"
#include "commands.hpp"
#include "io.hpp"
#include "metrics/metrics.hpp"
#include "progress_line.hpp"

namespace sciz::cli {

namespace {

// Chunks [0, n) produced by `workers` threads (produce(i) may run out of order, at most
// `workers` at a time) and consumed strictly in order on the calling thread, so the output is
// written front to back while the next chunks are being read and coded.
void ordered_chunks(uint64_t n, int workers, const std::function<std::vector<uint8_t>(uint64_t)>& produce,
                    const std::function<void(uint64_t, std::vector<uint8_t>&)>& consume) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::vector<uint8_t>> ready(static_cast<size_t>(workers));
  std::vector<uint64_t> slot_of(static_cast<size_t>(workers), UINT64_MAX);
  uint64_t next = 0, consumed = 0;
  std::exception_ptr err;
  auto work = [&] {
    for (;;) {
      uint64_t i;
      {
        std::unique_lock<std::mutex> l(mu);
        // A chunk may start only when a slot for it is free: at most `workers` ahead.
        cv.wait(l, [&] { return err || next >= n || next < consumed + static_cast<uint64_t>(workers); });
        if (err || next >= n) return;
        i = next++;
      }
      std::vector<uint8_t> bytes;
      try {
        bytes = produce(i);
      } catch (...) {
        std::lock_guard<std::mutex> l(mu);
        if (!err) err = std::current_exception();
        cv.notify_all();
        return;
      }
      std::lock_guard<std::mutex> l(mu);
      ready[i % workers] = std::move(bytes);
      slot_of[i % workers] = i;
      cv.notify_all();
    }
  };
  std::vector<std::thread> th;
  for (int w = 0; w < workers; ++w) th.emplace_back(work);
  try {
    for (uint64_t i = 0; i < n; ++i) {
      std::vector<uint8_t> bytes;
      {
        std::unique_lock<std::mutex> l(mu);
        cv.wait(l, [&] { return err || slot_of[i % workers] == i; });
        if (err) break;
        bytes = std::move(ready[i % workers]);
        slot_of[i % workers] = UINT64_MAX;
      }
      consume(i, bytes);
      std::lock_guard<std::mutex> l(mu);
      consumed = i + 1;
      cv.notify_all();
    }
  } catch (...) {
    std::lock_guard<std::mutex> l(mu);
    if (!err) err = std::current_exception();
    cv.notify_all();
  }
  for (auto& t : th) t.join();
  if (err) std::rethrow_exception(err);
}

// Threads that read and code chunks: one per GPU of --devices (each chunk's work is on one
// device), else two (reading the next chunk while this one is coded; the CPU twins spread each
// chunk over the cores themselves).
int workers_for(const CompressOptions& co, Device d) {
  return d == Device::cuda && co.devices.size() > 1 ? static_cast<int>(co.devices.size()) : 2;
}

// Range pass over the file for a relative bound: pieces of 64 MiB, each reduced over the
// cores, the next read while this one is reduced.
FieldRange range_pass(const FieldFile& in, ProgressLine& bar) {
  constexpr uint64_t kPiece = uint64_t(64) << 20;
  const size_t w = dtype_size(in.dtype);
  const uint64_t piece = kPiece / w * w, total = in.bytes();
  FieldRange r;
  std::vector<uint8_t> a(std::min(piece, total)), b(a.size());
  uint64_t at = 0;
  if (total) read_at(in.fd, in.offset, a.data(), std::min(piece, total), in.path);
  while (at < total) {
    const uint64_t n = std::min(piece, total - at), next = at + n;
    std::thread reader;
    if (next < total)
      reader = std::thread([&] { read_at(in.fd, in.offset + next, b.data(), std::min(piece, total - next), in.path); });
    std::exception_ptr e;
    try {
      r.merge(field_range(a.data(), in.dtype, n / w));
    } catch (...) {
      e = std::current_exception();
    }
    if (reader.joinable()) reader.join();
    if (e) std::rethrow_exception(e);
    std::swap(a, b);
    at = next;
    bar.update(0, at);
  }
  bar.done();
  return r;
}

}  // namespace

int run_compress(const Options& o) {
  const Device d = resolve(o.device);
  const FieldFile in = open_field(o);
  OutputFile out(o.output);
  const CompressOptions co = compress_options(o, d);
  const std::string ctx = "compress " + quote(o.input);
  std::optional<FieldRange> range;
  if (o.rel) {
    ProgressLine bar("finding the value range,", 0, in.bytes(), o.quiet);
    range = range_pass(in, bar);
  }
  ChunkedCompressor cc = in_context(ctx, [&] { return ChunkedCompressor(in.dtype, in.shape, co, range); });
  const std::vector<uint8_t> room(cc.header_bytes(), 0);
  out.write(room.data(), room.size());
  uint64_t stream_bytes = room.size(), done = 0;
  ProgressLine bar("compressing on " + std::string(device_name(d)) + ",", cc.chunk_count(), in.bytes(), o.quiet);
  ordered_chunks(
      cc.chunk_count(), workers_for(co, d),
      [&](uint64_t i) {
        std::vector<uint8_t> rows(cc.chunk_input_bytes(i));
        read_at(in.fd, in.offset + cc.chunk_row0(i) * (in.bytes() / in.shape.dims[0]), rows.data(), rows.size(), in.path);
        return in_context(ctx, [&] { return cc.compress_chunk(i, rows.data()); });
      },
      [&](uint64_t i, std::vector<uint8_t>& bytes) {
        out.write(bytes.data(), bytes.size());
        stream_bytes += bytes.size();
        done += cc.chunk_input_bytes(i);
        bar.update(i + 1, done);
      });
  bar.done();
  const std::vector<uint8_t> head = in_context(ctx, [&] { return cc.header(); });
  out.write_at(0, head.data(), head.size());
  out.commit();
  if (!o.quiet)
    std::fprintf(stderr, "sciz: %s -> %s: %" PRIu64 " -> %" PRIu64 " bytes in %" PRIu64 " chunk%s, ratio %s, eb %s\n",
                 quote(o.input).c_str(), quote(o.output).c_str(), in.bytes(), stream_bytes, cc.chunk_count(),
                 cc.chunk_count() == 1 ? "" : "s", fmt_g(metrics::ratio(in.bytes(), stream_bytes), 4).c_str(),
                 bound_text(o, cc.eb_abs()).c_str());
  return kExitOk;
}

namespace {

// The head of a stream file, checked: what a chunk-at-a-time reader starts from.
ChunkedDecompressor open_stream(const InputFile& in) {
  uint8_t first[12] = {};
  const uint64_t k = std::min<uint64_t>(12, in.size);
  in.read(0, first, k);
  return in_context(quote(in.path), [&] {
    const uint64_t hb = ChunkedDecompressor::head_bytes({first, k}, in.size);
    std::vector<uint8_t> head(hb);
    in.read(0, head.data(), hb);
    return ChunkedDecompressor(head, in.size);
  });
}

// The bytes of chunk i (none for streams of versions 1 to 3, whose head holds everything).
std::vector<uint8_t> chunk_bytes_of(const InputFile& in, const ChunkedDecompressor& cd, uint64_t i) {
  if (cd.version() < 4) return {};
  const ChunkInfo c = cd.chunk(i);
  std::vector<uint8_t> b(c.length);
  in.read(c.offset, b.data(), c.length);
  return b;
}

}  // namespace

int run_decompress(const Options& o) {
  if (is_mdr_file(o.input))
    data_error(quote(o.input) + " is a refactored (mdr) file: read it with 'sciz retrieve -i " + o.input + " -o OUT -r REL'");
  const Device d = resolve(o.device);
  const InputFile in(o.input, "input");
  ChunkedDecompressor cd = open_stream(in);
  const uint64_t rows = cd.shape().dims[0], row_bytes = cd.row_bytes();
  uint64_t a = 0, b = rows;
  if (o.slice) {
    a = o.slice->first.value_or(0);
    b = o.slice->second.value_or(rows);
    if (!(a < b && b <= rows))
      usage_error("--slice " + quote(o.slice_arg) + " is not a non-empty range of the " + std::to_string(rows) +
                  " rows of the slowest axis (dims " + cd.shape().str() + ")");
  }
  const uint64_t first = cd.chunk_of_row(a), last = cd.chunk_of_row(b - 1) + 1;
  // What the header declares is checked against --max-output before the output file exists:
  // the rows asked for, and the chunks that hold them, each decoded whole in memory.
  const uint64_t chunk_most = std::max(cd.chunk(first).rows, cd.chunk(last - 1).rows) * row_bytes;
  const uint64_t need = std::max((b - a) * row_bytes, chunk_most);
  if (o.max_output && need > o.max_output)
    data_error(quote(o.input) + " declares a " + cd.shape().str() + " " + dtype_name(cd.dtype()) +
               " field: decoding " + (o.slice ? "rows " + std::to_string(a) + ":" + std::to_string(b) : std::string("it")) +
               " takes " + std::to_string(need) + " bytes, above --max-output " + std::to_string(o.max_output) +
               " (0 lifts the limit)");
  OutputFile out(o.output);
  DecompressOptions dopt;
  dopt.device = d;
  const std::string ctx = quote(o.input);
  uint64_t done = 0;
  ProgressLine bar("decompressing on " + std::string(device_name(d)) + ",", last - first, (b - a) * row_bytes, o.quiet);
  ordered_chunks(
      last - first, 2,
      [&](uint64_t k) {
        const uint64_t i = first + k;
        const ChunkInfo c = cd.chunk(i);
        const std::vector<uint8_t> bytes = chunk_bytes_of(in, cd, i);
        std::vector<uint8_t> rows_out(c.rows * row_bytes);
        in_context(ctx, [&] { cd.decompress_chunk(i, bytes, rows_out.data(), rows_out.size(), d); });
        // Only the slice's rows of a chunk it cuts.
        const uint64_t lo = std::max(a, c.row0), hi = std::min(b, c.row0 + c.rows);
        if (lo != c.row0 || hi != c.row0 + c.rows) {
          std::memmove(rows_out.data(), rows_out.data() + (lo - c.row0) * row_bytes, (hi - lo) * row_bytes);
          rows_out.resize((hi - lo) * row_bytes);
        }
        return rows_out;
      },
      [&](uint64_t k, std::vector<uint8_t>& bytes) {
        out.write(bytes.data(), bytes.size());
        done += bytes.size();
        bar.update(k + 1, done);
      });
  bar.done();
  out.commit();
  return kExitOk;
}

int run_info(const Options& o) {
  if (is_mdr_file(o.input)) return run_info_mdr(o);
  const InputFile in(o.input, "input");
  ChunkedDecompressor cd = open_stream(in);
  StreamInfo info = cd.summary();
  info.stream_bytes = in.size;
  // Every chunk checked (header and section checksums), one in memory at a time; the first
  // one's params and sections are shown.
  for (uint64_t i = 0; i < cd.chunk_count(); ++i) {
    const std::vector<uint8_t> bytes = chunk_bytes_of(in, cd, i);
    if (i == 0) {
      const auto detail = in_context(quote(o.input), [&] { return cd.describe_chunk(0, bytes); });
      info.chunks[0] = detail.info;
      info.params = detail.params;
      info.sections = detail.sections;
    } else {
      info.chunks[i] = in_context(quote(o.input), [&] { return cd.verify_chunk(i, bytes); });
    }
  }
  const double ratio = metrics::ratio(info.original_bytes(), info.stream_bytes);
  const char* mode = info.eb_mode == EbMode::rel ? "rel" : "abs";
  if (o.json) {
    Json params, j;
    for (const auto& [k, v] : info.params) params.add(k, v);
    std::vector<std::string> secs, chunks;
    for (const auto& sec : info.sections) {
      Json js;
      js.add("id", static_cast<uint64_t>(sec.id)).add("offset", sec.offset).add("length", sec.length);
      js.add("checksum", hex64(sec.checksum));  // a string: JSON numbers lose bits above 2^53
      secs.push_back(js.str(0, 0));
    }
    for (const auto& c : info.chunks) {
      Json jc;
      jc.add("row0", c.row0).add("rows", c.rows).add("offset", c.offset).add("length", c.length).add("pipeline", c.pipeline);
      chunks.push_back(jc.str(0, 0));
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
        .add_raw("sections", Json::array(secs))
        .add("rows_per_chunk", info.rows_per_chunk)
        .add_raw("chunks", Json::array(chunks));
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
  t.row("chunks", std::to_string(info.chunks.size()) + " of " + std::to_string(info.rows_per_chunk) +
                      " rows of the slowest axis");
  // Long streams: the first and last chunks, the middle counted.
  const size_t nc = info.chunks.size();
  for (size_t i = 0; i < nc; ++i) {
    if (nc > 12 && i == 8) {
      t.row("  ...", std::to_string(nc - 12) + " more chunks");
      i = nc - 5;
    }
    const ChunkInfo& c = info.chunks[i];
    t.row("  chunk " + std::to_string(i), "rows " + std::to_string(c.row0) + ":" + std::to_string(c.row0 + c.rows) +
                                              ", offset " + std::to_string(c.offset) + ", length " +
                                              std::to_string(c.length) + ", " + c.pipeline);
  }
  t.row("chunk 0 params", info.chunks.empty() ? "" : info.chunks[0].pipeline);
  for (const auto& [k, v] : info.params) t.row("  " + k, v);
  t.row("chunk 0 sections", std::to_string(info.sections.size()));
  for (const auto& sec : info.sections)
    t.row("  id " + std::to_string(sec.id), "offset " + std::to_string(sec.offset) + ", length " +
                                                std::to_string(sec.length) + ", checksum " + hex64(sec.checksum));
  std::fputs(t.str().c_str(), stdout);
  return kExitOk;
}

}  // namespace sciz::cli
