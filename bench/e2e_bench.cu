// sciz_bench_e2e: whole-pipeline throughput through the public API, per pipeline and bound:
// device-resident (field and stream in device memory: value range, prediction, lossless
// stages, sparse sections, container and checksums all included), host memory (pinned and
// pageable), under a device-memory cap, and over several GPUs; beside the PCIe copy rates
// measured in the same run. Every decoded point is checked against the bound, and the GPU's
// stream is compared with the CPU twin's, byte for byte.
// Timing: CUDA events around each call on its stream (the calls synchronize inside, so the
// events bracket the whole call), median of --runs after warm-ups.
#include <cuda_runtime.h>
#include <sciz/sciz.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "bench_host.hpp"
#include "core/cuda_check.cuh"
#include "core/value_range.hpp"
#include "gpu_trace.hpp"

using namespace sciz;

namespace {

struct Args {
  std::string field, json;
  Shape dims, tile{{1, 1, 1}};
  std::vector<double> rels{1e-2, 1e-3, 1e-4};
  std::vector<std::string> pipelines{"lorenzo", "delta", "szx"};
  int runs = 20, warmups = 3, host_runs = 0;
  uint64_t gpu_memory = 0;  // also time a capped host path
  std::vector<int> devices; // also time the host path over these devices
  bool host = true, cpu_check = true;
  double chunk_mb = kDefaultChunkMiB;
  bool pageable = true;
  bool trace = false;  // one extra call of each row under the CUPTI timeline (not timed)
  bool abs = false;    // the bounds as absolute ones: rel x the field's finite range
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "sciz_bench_e2e: %s\nusage: sciz_bench_e2e --field PATH --dims ZxYxX [--tile AxBxC] [--rel 1e-2,1e-3]\n"
               "  [--pipelines lorenzo,delta,szx (or interp, interp-tp, interp-cr, ...)] [--runs 20] [--host-runs N] [--no-host] [--no-cpu-check]\n"
               "  [--gpu-memory BYTES] [--devices 0,1] [--chunk-mb MiB] [--no-pageable] [--trace] [--abs] [--json OUT]\n"
               "  --abs: each bound given to sciz as absolute, rel x the field's range (the same bound, but\n"
               "  no range pass before coding: the header's range is folded by the encoders)\n",
               why.c_str());
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');) v.push_back(x);
  return v;
}

Args parse_args(int argc, char** argv) {
  Args a;
  bool have_dims = false;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value after " + k);
      return argv[++i];
    };
    if (k == "--field") a.field = val();
    else if (k == "--dims") a.dims = Shape::parse(val()), have_dims = true;
    else if (k == "--tile") a.tile = Shape::parse(val());
    else if (k == "--rel") {
      a.rels.clear();
      for (const auto& r : split(val())) a.rels.push_back(std::stod(r));
    } else if (k == "--pipelines") a.pipelines = split(val());
    else if (k == "--runs") a.runs = std::max(20, std::stoi(val()));
    else if (k == "--host-runs") a.host_runs = std::stoi(val());
    else if (k == "--no-host") a.host = false;
    else if (k == "--no-cpu-check") a.cpu_check = false;
    else if (k == "--no-pageable") a.pageable = false;
    else if (k == "--trace") a.trace = true;
    else if (k == "--abs") a.abs = true;
    else if (k == "--gpu-memory") a.gpu_memory = std::stoull(val());
    else if (k == "--devices") {
      for (const auto& d : split(val())) a.devices.push_back(std::stoi(d));
    } else if (k == "--chunk-mb") a.chunk_mb = std::stod(val());
    else if (k == "--json") a.json = val();
    else usage("unknown option " + k);
  }
  if (a.field.empty() || !have_dims) usage("--field and --dims are required");
  if (a.tile.dims.size() != a.dims.dims.size()) usage("--tile needs as many factors as --dims has axes");
  if (a.host_runs <= 0) a.host_runs = a.runs;
  return a;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Median ms of body() between events on s.
double time_on(cudaStream_t s, int warmups, int runs, const std::function<void()>& body) {
  cudaEvent_t t0, t1;
  SCIZ_CUDA_CHECK(cudaEventCreate(&t0));
  SCIZ_CUDA_CHECK(cudaEventCreate(&t1));
  std::vector<double> ms;
  for (int i = 0; i < warmups + runs; ++i) {
    SCIZ_CUDA_CHECK(cudaEventRecord(t0, s));
    body();
    SCIZ_CUDA_CHECK(cudaEventRecord(t1, s));
    SCIZ_CUDA_CHECK(cudaEventSynchronize(t1));
    float m = 0;
    SCIZ_CUDA_CHECK(cudaEventElapsedTime(&m, t0, t1));
    if (i >= warmups) ms.push_back(m);
  }
  SCIZ_CUDA_CHECK(cudaEventDestroy(t0));
  SCIZ_CUDA_CHECK(cudaEventDestroy(t1));
  return median(ms);
}

// One untimed call of body() under the CUPTI timeline, printed under `title`.
void traced(bool on, cudaStream_t s, const std::string& title, const std::function<void()>& body) {
  if (!on) return;
  SCIZ_CUDA_CHECK(cudaStreamSynchronize(s));
  gputrace::begin();
  body();
  SCIZ_CUDA_CHECK(cudaStreamSynchronize(s));
  gputrace::end_and_print(title.c_str(), stdout);
}

struct Row {
  std::string pipeline, what;
  double rel, ratio, ms, gbs;
  std::string check;  // PASS / FAIL (+ stream equality)
  bool abs = false;
};

}  // namespace

int main(int argc, char** argv) try {
  const Args a = parse_args(argc, argv);
  cudaDeviceProp prop{};
  SCIZ_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  Shape shape;
  std::vector<float> x = bench::load_tiled(a.field, a.dims, a.tile, shape);
  const uint64_t n = x.size(), bytes = n * 4;
  const double gb = bytes / 1e9;
  std::printf("sciz_bench_e2e on %s: %s tiled %s = %s (%.1f MB f32), chunks of %g MiB, median of %d runs\n", prop.name,
              a.field.c_str(), a.tile.str().c_str(), shape.str().c_str(), bytes / 1e6, a.chunk_mb, a.runs);
  cudaStream_t s;
  SCIZ_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // PCIe yardsticks: pinned copies of the whole field each way, then both at once.
  float* pinned = nullptr;
  float* pinned_out = nullptr;
  SCIZ_CUDA_CHECK(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
  SCIZ_CUDA_CHECK(cudaHostAlloc(&pinned_out, bytes, cudaHostAllocDefault));
  std::memcpy(pinned, x.data(), bytes);
  float *d_x = nullptr, *d_y = nullptr;
  SCIZ_CUDA_CHECK(cudaMalloc(&d_x, bytes));
  SCIZ_CUDA_CHECK(cudaMalloc(&d_y, bytes));
  const double h2d = time_on(s, 2, 10, [&] { SCIZ_CUDA_CHECK(cudaMemcpyAsync(d_x, pinned, bytes, cudaMemcpyHostToDevice, s)); });
  const double d2h = time_on(s, 2, 10, [&] { SCIZ_CUDA_CHECK(cudaMemcpyAsync(pinned_out, d_y, bytes, cudaMemcpyDeviceToHost, s)); });
  const double d2d = time_on(s, 2, 10, [&] { SCIZ_CUDA_CHECK(cudaMemcpyAsync(d_y, d_x, bytes, cudaMemcpyDeviceToDevice, s)); });
  const double h2d_gbs = gb / (h2d / 1e3), d2h_gbs = gb / (d2h / 1e3), d2d_gbs = gb / (d2d / 1e3);
  std::printf("copies of the field: pinned H2D %.1f GB/s, pinned D2H %.1f GB/s, D2D %.1f GB/s (size/time)\n", h2d_gbs,
              d2h_gbs, d2d_gbs);
  SCIZ_CUDA_CHECK(cudaMemcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice));

  std::vector<Row> rows;
  bool all_ok = true;
  const double field_span = value_range_cpu(x.data(), n).span();
  const double span = field_span > 0 ? field_span : 1.0;
  const char* mode = a.abs ? "abs" : "rel";
  for (double rel : a.rels) {
    for (const auto& p : a.pipelines) {
      CompressOptions o;
      o.eb = a.abs ? ErrorBound{EbMode::abs, rel * span} : ErrorBound{EbMode::rel, rel};
      o.pipeline = p;
      o.device = Device::cuda;
      o.stream = s;
      o.chunk_mb = a.chunk_mb;
      const uint64_t cap = max_compressed_size(DType::f32, shape, p, a.chunk_mb);
      uint8_t* d_s = nullptr;
      SCIZ_CUDA_CHECK(cudaMalloc(&d_s, cap));
      uint64_t size = 0;
      const FieldView dev_field{d_x, DType::f32, shape, true};
      const double c_ms = time_on(s, a.warmups, a.runs, [&] { size = compress_into(dev_field, d_s, cap, true, o); });
      DecompressOptions dopt;
      dopt.device = Device::cuda;
      dopt.out_on_device = true;
      dopt.stream = s;
      SCIZ_CUDA_CHECK(cudaMemsetAsync(d_y, 0xff, bytes, s));
      const double d_ms = time_on(s, a.warmups, a.runs, [&] { decompress(StreamView(d_s, size, true), d_y, bytes, dopt); });
      char tag[96];
      std::snprintf(tag, sizeof tag, "%s %s %.0e", p.c_str(), mode, rel);
      traced(a.trace, s, std::string(tag) + " device compress", [&] { size = compress_into(dev_field, d_s, cap, true, o); });
      traced(a.trace, s, std::string(tag) + " device decompress",
             [&] { decompress(StreamView(d_s, size, true), d_y, bytes, dopt); });
      // Every point, and the stream against the CPU twin's.
      std::vector<float> y(n);
      std::vector<uint8_t> gpu_stream(size);
      SCIZ_CUDA_CHECK(cudaMemcpy(y.data(), d_y, bytes, cudaMemcpyDeviceToHost));
      SCIZ_CUDA_CHECK(cudaMemcpy(gpu_stream.data(), d_s, size, cudaMemcpyDeviceToHost));
      const StreamInfo info = inspect(gpu_stream);
      bench::Quality q;
      bench::check_quality(x, y, info.eb_abs, q);
      std::string check = q.bad_points == 0 ? "PASS" : "FAIL(" + std::to_string(q.bad_points) + ")";
      if (a.cpu_check) {
        CompressOptions co = o;
        co.device = Device::cpu;
        co.stream = nullptr;
        const bool same = compress({x.data(), DType::f32, shape}, co) == gpu_stream;
        check += same ? " ==cpu" : " !=CPU";
        all_ok = all_ok && same;
      }
      all_ok = all_ok && q.bad_points == 0;
      const double ratio = static_cast<double>(bytes) / static_cast<double>(size);
      rows.push_back({p, "device compress", rel, ratio, c_ms, gb / (c_ms / 1e3), check, a.abs});
      rows.push_back({p, "device decompress", rel, ratio, d_ms, gb / (d_ms / 1e3), check, a.abs});
      std::printf("%-8s %s %.0e ratio %7.2f chunks %3zu  device: compress %8.1f GB/s  decompress %8.1f GB/s  %s\n",
                  p.c_str(), mode, rel, ratio, info.chunks.size(), gb / (c_ms / 1e3), gb / (d_ms / 1e3), check.c_str());
      std::fflush(stdout);

      if (a.host) {
        // Host memory in and out through the caller-buffer API (compress_into), as a code that
        // compresses field after field would call it: output buffers allocated once, stream in
        // the same kind of memory as the field.
        auto host_rows = [&](const char* what, const float* in, float* out, uint8_t* sbuf, CompressOptions ho,
                             DecompressOptions hd) {
          uint64_t n_st = 0;
          const double hc = time_on(s, 1, a.host_runs, [&] { n_st = compress_into({in, DType::f32, shape}, sbuf, cap, false, ho); });
          const double hdm = time_on(s, 1, a.host_runs, [&] { decompress(StreamView(sbuf, n_st), out, bytes, hd); });
          traced(a.trace, s, std::string(tag) + " " + what + " compress",
                 [&] { n_st = compress_into({in, DType::f32, shape}, sbuf, cap, false, ho); });
          traced(a.trace, s, std::string(tag) + " " + what + " decompress",
                 [&] { decompress(StreamView(sbuf, n_st), out, bytes, hd); });
          std::vector<float> yy(out, out + n);
          bench::Quality hq;
          bench::check_quality(x, yy, info.eb_abs, hq);
          const bool same = n_st == gpu_stream.size() && std::memcmp(sbuf, gpu_stream.data(), n_st) == 0;
          const std::string ck = std::string(hq.bad_points == 0 ? "PASS" : "FAIL") + (same ? " ==device" : " !=DEVICE");
          all_ok = all_ok && hq.bad_points == 0 && same;
          rows.push_back({p, std::string(what) + " compress", rel, ratio, hc, gb / (hc / 1e3), ck, a.abs});
          rows.push_back({p, std::string(what) + " decompress", rel, ratio, hdm, gb / (hdm / 1e3), ck, a.abs});
          std::printf("%-8s %s %.0e %-20s compress %6.1f GB/s (%.2f of H2D)  decompress %6.1f GB/s (%.2f of D2H)  %s\n",
                      p.c_str(), mode, rel, what, gb / (hc / 1e3), gb / (hc / 1e3) / h2d_gbs, gb / (hdm / 1e3),
                      gb / (hdm / 1e3) / d2h_gbs, ck.c_str());
          std::fflush(stdout);
        };
        DecompressOptions hd;
        hd.device = Device::cuda;
        hd.stream = s;
        uint8_t* pinned_stream = nullptr;
        SCIZ_CUDA_CHECK(cudaHostAlloc(&pinned_stream, cap, cudaHostAllocDefault));
        host_rows("host pinned", pinned, pinned_out, pinned_stream, o, hd);
        if (a.pageable) {
          std::vector<uint8_t> pageable_stream(cap, 1);  // touched once, as a reused buffer is
          std::vector<float> out(n, 1.0f);
          host_rows("host pageable", x.data(), out.data(), pageable_stream.data(), o, hd);
        }
        if (a.gpu_memory) {
          CompressOptions co = o;
          co.gpu_memory = a.gpu_memory;
          DecompressOptions cd = hd;
          cd.gpu_memory = a.gpu_memory;
          try {
            host_rows(("pinned, cap " + std::to_string(a.gpu_memory >> 20) + " MiB").c_str(), pinned, pinned_out,
                      pinned_stream, co, cd);
          } catch (const Error& e) {  // a cap too small for one chunk's work: said, not fatal
            std::printf("%-8s %s %.0e capped rows skipped: %s\n", p.c_str(), mode, rel, e.what());
          }
        }
        if (a.devices.size() > 1) {
          CompressOptions mo = o;
          mo.devices = a.devices;
          DecompressOptions md = hd;
          md.devices = a.devices;
          host_rows(("pinned, " + std::to_string(a.devices.size()) + " GPUs").c_str(), pinned, pinned_out, pinned_stream,
                    mo, md);
        }
        SCIZ_CUDA_CHECK(cudaFreeHost(pinned_stream));
      }
      SCIZ_CUDA_CHECK(cudaFree(d_s));
    }
  }

  if (!a.json.empty()) {
    std::ofstream j(a.json);
    j << "{\n  \"device\": \"" << prop.name << "\",\n  \"field\": \"" << a.field << "\",\n  \"shape\": \""
      << shape.str() << "\",\n  \"bytes\": " << bytes << ",\n  \"chunk_mb\": " << a.chunk_mb
      << ",\n  \"h2d_gbs\": " << h2d_gbs << ",\n  \"d2h_gbs\": " << d2h_gbs << ",\n  \"d2d_gbs\": " << d2d_gbs
      << ",\n  \"rows\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      j << "    {\"pipeline\": \"" << r.pipeline << "\", \"what\": \"" << r.what << "\", \"bound\": \"" << (r.abs ? "abs" : "rel") << "\", \"rel\": " << r.rel
        << ", \"ratio\": " << r.ratio << ", \"ms\": " << r.ms << ", \"gbs\": " << r.gbs << ", \"check\": \"" << r.check
        << "\"}" << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    j << "  ]\n}\n";
  }
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFreeHost(pinned);
  cudaFreeHost(pinned_out);
  return all_ok ? 0 : 1;
} catch (const std::exception& ex) {
  std::fprintf(stderr, "sciz_bench_e2e: %s\n", ex.what());
  return 1;
}
