// sciz_bench: GPU throughput of the lorenzo pipeline on a real field, kernel by kernel and end
// to end, against the device-to-device copy rate of the same GPU, plus the quality figures
// (ratio, PSNR, every point checked against the bound). Timings: CUDA events (host clock for
// the blocking end-to-end calls), median of --runs runs after warm-ups.
#include <cuda_runtime.h>
#include <sciz/sciz.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "bench_host.hpp"
#include "gpu_timing.cuh"
#include "stage_rows.hpp"
#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/geometry.hpp"
#include "core/value_range.hpp"
#include "lossless/bitpack/bitpack.hpp"
#include "lossless/bitpack/bitpack_cuda.cuh"
#include "lossless/codes/codes.hpp"
#include "lossless/codes/stats_cuda.hpp"
#include "lossless/huffman/huffman.hpp"
#include "lossless/huffman/huffman_cuda.cuh"
#include "lossless/rle/rle.hpp"
#include "lossless/zrle/zrle.hpp"
#include "predict/lorenzo/lorenzo.hpp"
#include "predict/lorenzo/lorenzo_cuda.cuh"
#include "predict/delta/delta.hpp"
#include "predict/szx/szx.hpp"

using namespace sciz;
using bench::Quality;

namespace {

struct Args {
  std::string field, json;
  Shape dims, tile{{1, 1, 1}};
  double rel = 1e-3;
  int runs = 30, warmups = 3;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "sciz_bench: %s\nusage: sciz_bench --field PATH --dims ZxYxX [--tile AxBxC] [--rel 1e-3] [--runs 30] "
               "[--json OUT]\n",
               why.c_str());
  std::exit(2);
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
    else if (k == "--rel") a.rel = std::stod(val());
    else if (k == "--runs") a.runs = std::stoi(val());
    else if (k == "--json") a.json = val();
    else usage("unknown option " + k);
  }
  if (a.field.empty() || !have_dims) usage("--field and --dims are required");
  if (a.tile.dims.size() != a.dims.dims.size()) usage("--tile needs as many factors as --dims has axes");
  a.runs = std::max(a.runs, 20);
  return a;
}

using bench::median;
using bench::Row;

double time_gpu(const Args& a, const std::function<void()>& body, const std::function<void()>& prep = [] {}) {
  return bench::time_gpu(a.warmups, a.runs, body, prep);
}

// Median milliseconds of a blocking host call.
double time_host(const Args& a, const std::function<void()>& body) {
  std::vector<double> ms;
  for (int i = 0; i < a.warmups + a.runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= a.warmups) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return median(ms);
}

bool same_on_device(const uint16_t* a, const uint16_t* b, uint64_t n) {
  std::vector<uint16_t> h1(n), h2(n);
  dev::copy_to_host(h1.data(), a, n * 2, nullptr);
  dev::copy_to_host(h2.data(), b, n * 2, nullptr);
  dev::sync(nullptr);
  return h1 == h2;
}

}  // namespace

int main(int argc, char** argv) try {
  const Args a = parse_args(argc, argv);
  dev::require_available();
  cudaDeviceProp prop{};
  SCIZ_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  Shape shape;
  const std::vector<float> x = bench::load_tiled(a.field, a.dims, a.tile, shape);
  const uint64_t n = x.size(), bytes = n * sizeof(float);
  const double gb = static_cast<double>(bytes) / 1e9;
  std::printf("sciz_bench on %s: %s (%s tiled %s = %s, %.1f MB f32), rel %.0e, median of %d runs after %d warm-ups\n",
              prop.name, a.field.c_str(), a.dims.str().c_str(), a.tile.str().c_str(), shape.str().c_str(), bytes / 1e6,
              a.rel, a.runs, a.warmups);

  // The bound the API would resolve, and the pipeline's own parameters.
  CompressOptions opt;
  opt.eb = {EbMode::rel, a.rel};
  opt.device = Device::cuda;
  const auto stream = compress({x.data(), DType::f32, shape}, opt);
  const StreamInfo info = inspect(stream);
  const Extent e = effective_extent(shape);
  const TileShape c = lorenzo::default_tile(e.ndim);
  const auto qp = lorenzo::make_params<float>(info.eb_abs, lorenzo::kDefaultRadius);
  const uint16_t centre = static_cast<uint16_t>(qp.radius);

  dev::Buffer<float> d_x(n, nullptr), d_out(n, nullptr), d_copy(n, nullptr);
  dev::Buffer<uint16_t> d_codes(n, nullptr), d_codes2(n, nullptr);
  dev::copy_to_device(d_x.get(), x.data(), bytes, nullptr);
  dev::sync(nullptr);
  std::vector<Row> rows;

  // (a) the yardstick: device-to-device copy of the same size
  const double copy_ms = time_gpu(a, [&] { dev::copy_on_device(d_copy.get(), d_x.get(), bytes, nullptr); });
  rows.push_back({"D2D copy (size/time)", copy_ms});

  // (b) predict + quantize kernel alone
  const uint64_t cap = std::min<uint64_t>(n, std::max<uint64_t>(1u << 20, n / 8));
  dev::Buffer<unsigned long long> counts(2, nullptr);
  dev::Buffer<uint64_t> oidx(cap, nullptr), eidx(cap, nullptr);
  dev::Buffer<int32_t> oval(cap, nullptr);
  dev::Buffer<float> evals(cap, nullptr);
  const lorenzo::cuda::SparseSink<float> sink{counts.get(), oidx.get(), oval.get(), cap, eidx.get(), evals.get(), cap};
  rows.push_back({"predict+quantize kernel",
                  time_gpu(
                      a, [&] { lorenzo::cuda::launch_quantize<float>(d_x.get(), e, c, qp, d_codes.get(), sink, nullptr); },
                      [&] { SCIZ_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, 2 * sizeof(unsigned long long), nullptr)); })});

  // (b2) what an absolute bound's call pays for the header's range: the separate pass it no
  // longer runs, and the quantize kernel folding the values it loads (checked against the pass)
  dev::Buffer<RangeKeys> d_keys(1, nullptr);
  const ValueRange pass_range = value_range_cuda(d_x.get(), n, nullptr);
  rows.push_back({"value range pass (rel bounds only)", time_gpu(a, [&] { value_range_cuda(d_x.get(), n, nullptr); })});
  auto check_fold = [&](const char* what) {
    RangeKeys k;
    dev::copy_to_host(&k, d_keys.get(), sizeof k, nullptr);
    dev::sync(nullptr);
    const ValueRange r = range_from_keys(k, n);
    if (r.min != pass_range.min || r.max != pass_range.max || r.nonfinite != pass_range.nonfinite)
      std::printf("ERROR: %s folded a range other than the range pass's\n", what);
  };
  {
    lorenzo::cuda::SparseSink<float> fsink = sink;
    fsink.range = d_keys.get();
    rows.push_back({"predict+quantize kernel, range folded",
                    time_gpu(
                        a, [&] { lorenzo::cuda::launch_quantize<float>(d_x.get(), e, c, qp, d_codes.get(), fsink, nullptr); },
                        [&] {
                          SCIZ_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, 2 * sizeof(unsigned long long), nullptr));
                          reset_range_keys(d_keys.get(), nullptr);
                        })});
    check_fold("quantize kernel");
  }

  // (c) reconstruct kernel alone, codes and sorted outliers already on the device
  lorenzo::Sparse<float> sp;
  lorenzo::compress_cuda<float>(d_x.get(), e, c, qp, d_codes.get(), sp, nullptr);
  const uint64_t m = sp.outlier_idx.size();
  dev::Buffer<uint64_t> d_oidx(m, nullptr);
  dev::Buffer<int32_t> d_oval(m, nullptr);
  dev::copy_to_device(d_oidx.get(), sp.outlier_idx.data(), m * 8, nullptr);
  dev::copy_to_device(d_oval.get(), sp.outlier_val.data(), m * 4, nullptr);
  rows.push_back({"reconstruct kernel", time_gpu(a, [&] {
                    lorenzo::cuda::launch_reconstruct<float>(d_codes.get(), d_oidx.get(), d_oval.get(), m, e, c, qp,
                                                             d_out.get(), nullptr);
                  })});

  // (d) bitpack on the device (encode includes its one sync to learn the length)
  dev::Buffer<uint8_t> d_enc(bitpack::max_encoded_bytes(n), nullptr);
  uint64_t enc_bytes = 0;
  rows.push_back({"bitpack encode", time_gpu(a, [&] {
                    enc_bytes = bitpack::cuda::encode(d_codes.get(), n, centre, d_enc.get(), nullptr);
                  })});
  rows.push_back({"bitpack decode", time_gpu(a, [&] {
                    bitpack::cuda::decode(d_enc.get(), n, centre, d_codes2.get(), nullptr);
                  })});
  if (!same_on_device(d_codes.get(), d_codes2.get(), n)) std::printf("ERROR: bitpack decode did not return the codes\n");

  // (e) the variable-length stages, GB/s of quant-code input (n x 2 bytes)
  const uint64_t code_bytes = n * 2;
  const uint32_t alphabet = 2 * static_cast<uint32_t>(qp.radius);
  std::vector<uint64_t> hist;
  rows.push_back({"huffman histogram", time_gpu(a, [&] { hist = huffman::histogram_cuda(d_codes.get(), n, alphabet, nullptr); }),
                  code_bytes});
  huffman::Codebook cb;
  rows.push_back({"huffman codebook (host)", time_host(a, [&] { cb = huffman::build_codebook(hist); }), code_bytes});
  const dev::Buffer<uint32_t> d_code = huffman::cuda::upload_code_table(cb, nullptr);
  huffman::cuda::DeviceEncoded he;
  rows.push_back({"huffman encode kernels", time_gpu(a, [&] {
                    he = huffman::cuda::encode(d_codes.get(), n, d_code.get(), huffman::kDefaultChunk, nullptr);
                  }), code_bytes});
  const std::vector<uint32_t> tables = huffman::cuda::device_tables(cb);
  dev::Buffer<uint32_t> d_tables(tables.size(), nullptr), d_err(1, nullptr);
  dev::copy_to_device(d_tables.get(), tables.data(), tables.size() * 4, nullptr);
  SCIZ_CUDA_CHECK(cudaMemsetAsync(d_err.get(), 0, 4, nullptr));
  SCIZ_CUDA_CHECK(cudaMemsetAsync(d_codes2.get(), 0, n * 2, nullptr));
  rows.push_back({"huffman decode kernel", time_gpu(a, [&] {
                    huffman::cuda::decode(he.cbits.get(), he.words.get(), (he.total_bits + 31) / 32, n,
                                          huffman::kDefaultChunk, d_tables.get(), d_codes2.get(), d_err.get(), nullptr);
                  }), code_bytes});
  if (!same_on_device(d_codes.get(), d_codes2.get(), n)) std::printf("ERROR: huffman decode did not return the codes\n");
  {  // the device encoders' one counting pass (codes/stats_cuda.cu), per flag set the choice asks for
    const uint64_t tiles = codes::cuda::stats_tiles(n);
    dev::Buffer<uint64_t> sc(codes::cuda::kScalarWords, nullptr), h(alphabet, nullptr), zr(65536, nullptr),
        rv(alphabet, nullptr), rl(65536, nullptr), tt(tiles, nullptr), tr(tiles, nullptr);
    const codes::cuda::StatsOut out{sc.get(), h.get(), zr.get(), rv.get(), rl.get(), tt.get(), tr.get()};
    auto zero_all = [&] {
      for (auto* b : {&sc, &h, &zr, &rv, &rl}) SCIZ_CUDA_CHECK(cudaMemsetAsync(b->get(), 0, b->size() * 8, nullptr));
    };
    const std::pair<const char*, uint32_t> sets[] = {
        {"codes stats: histogram", codes::cuda::kStatsHist},
        {"codes stats: histogram + zero runs", codes::cuda::kStatsHist | codes::cuda::kStatsTokens},
        {"codes stats: runs", codes::cuda::kStatsRuns},
        {"codes stats: all three (auto)", codes::cuda::kStatsHist | codes::cuda::kStatsTokens | codes::cuda::kStatsRuns}};
    for (const auto& [name, flags] : sets)
      rows.push_back({name, time_gpu(a, [&] { codes::cuda::launch_stats(d_codes.get(), n, alphabet, centre, flags, out, nullptr); },
                                     zero_all), code_bytes});
  }
  uint64_t r0 = 0;
  rows.push_back({"rle run count", time_gpu(a, [&] { r0 = rle::count_runs_cuda(d_codes.get(), n, nullptr); }), code_bytes});
  rle::DeviceRuns rr;
  rows.push_back({"rle encode (runs)", time_gpu(a, [&] { rr = rle::runs_cuda(d_codes.get(), n, nullptr); }), code_bytes});
  SCIZ_CUDA_CHECK(cudaMemsetAsync(d_codes2.get(), 0, n * 2, nullptr));
  rows.push_back({"rle decode (expand)", time_gpu(a, [&] {
                    rle::expand_cuda(rr.value.get(), rr.len_m1.get(), rr.runs, d_codes2.get(), n, nullptr);
                  }), code_bytes});
  if (!same_on_device(d_codes.get(), d_codes2.get(), n)) std::printf("ERROR: rle expand did not return the codes\n");
  zrle::DeviceTokens zt;
  rows.push_back({"zrle encode (tokens)", time_gpu(a, [&] { zt = zrle::tokens_cuda(d_codes.get(), n, centre, nullptr); }),
                  code_bytes});
  SCIZ_CUDA_CHECK(cudaMemsetAsync(d_codes2.get(), 0, n * 2, nullptr));
  rows.push_back({"zrle decode (expand)", time_gpu(a, [&] {
                    zrle::expand_cuda(zt.value.get(), zt.zrun.get(), zt.count, zt.tail, centre, d_codes2.get(), n, nullptr);
                  }), code_bytes});
  if (!same_on_device(d_codes.get(), d_codes2.get(), n)) std::printf("ERROR: zrle expand did not return the codes\n");
  // Whole stage as the pipeline runs it (selection included), blob to and from the host.
  struct StageSize {
    Lossless stage;
    uint64_t bytes;
  };
  std::vector<StageSize> sizes;
  for (Lossless l : {Lossless::huffman, Lossless::rle, Lossless::rle_huffman, Lossless::zrle_huffman, Lossless::bitpack})
    sizes.push_back({l, codes::encode_cuda(d_codes.get(), n, alphabet, centre, l, nullptr).bytes.size()});
  codes::Encoded ce;
  rows.push_back({"lossless auto encode (to host)", time_gpu(a, [&] {
                    ce = codes::encode_cuda(d_codes.get(), n, alphabet, centre, Lossless::auto_select, nullptr);
                  }), code_bytes});
  rows.push_back({"lossless auto decode (from host)", time_gpu(a, [&] {
                    codes::decode_cuda(ce.stage, ce.bytes, d_codes2.get(), n, nullptr);
                  }), code_bytes});
  if (!same_on_device(d_codes.get(), d_codes2.get(), n)) std::printf("ERROR: lossless auto did not return the codes\n");

  // (e2) the stages of src/lossless/stages, alone and in the interp chains, on interp-like
  // 1-byte codes of the same field (GB/s of those code bytes, 1 per value)
  const bench::StageRows sr = bench::stage_rows(d_x.get(), shape, info.eb_abs, a.warmups, a.runs, rows);

  // (f) the szx codec on the same field: device-level calls (the kernels plus the one sync that
  // learns the section sizes), then with the sections to and from the host, then the public API.
  szx::DeviceEncoded<float> szd;
  rows.push_back({"szx kernel encode (device sections)", time_gpu(a, [&] {
                    szd = szx::encode_device<float>(d_x.get(), n, info.eb_abs, szx::kDefaultBlock, nullptr);
                  })});
  szx::Encoded sz = szx::download(szd, nullptr);
  szd = {};
  rows.push_back({"szx kernel encode, range folded", time_gpu(
                                                          a,
                                                          [&] {
                                                            szd = szx::encode_device<float>(d_x.get(), n, info.eb_abs,
                                                                                            szx::kDefaultBlock, nullptr,
                                                                                            d_keys.get());
                                                          },
                                                          [&] { reset_range_keys(d_keys.get(), nullptr); })});
  check_fold("szx encode kernel");
  szd = {};
  const szx::DeviceSections<float> szs = szx::upload<float>(szx::view(sz), n, nullptr);
  rows.push_back({"szx kernel decode (device sections)", time_gpu(a, [&] {
                    szx::decode_device<float>(szs, d_out.get(), nullptr);
                  })});
  bench::Quality szq;
  {
    std::vector<float> yz(n);
    dev::copy_to_host(yz.data(), d_out.get(), bytes, nullptr);
    dev::sync(nullptr);
    bench::check_quality(x, yz, info.eb_abs, szq);
    const szx::Encoded cpu = szx::encode_cpu<float>(x.data(), n, info.eb_abs);
    szq.same_as_cpu = cpu.kinds == sz.kinds && cpu.mus == sz.mus && cpu.mid_counts == sz.mid_counts &&
                      cpu.codes == sz.codes && cpu.mid == sz.mid && cpu.exact == sz.exact;
  }
  rows.push_back({"szx host encode (sections to host)", time_gpu(a, [&] {
                    sz = szx::encode_cuda<float>(d_x.get(), n, info.eb_abs, szx::kDefaultBlock, nullptr);
                  })});
  rows.push_back({"szx host decode (sections from host)", time_gpu(a, [&] {
                    szx::decode_cuda<float>(szx::view(sz), n, d_out.get(), nullptr);
                  })});
  const double szx_ratio = static_cast<double>(bytes) / static_cast<double>(sz.payload_bytes());
  // A pipeline through the public API with pinned host memory in and out ("<name> e2e ..."
  // rows); the points over the bound of its output are added to bad_points.
  auto e2e_pinned = [&](const char* name, uint64_t& bad_points) {
    CompressOptions zo = opt;
    zo.pipeline = name;
    std::vector<uint8_t> zst;
    std::vector<float> zy(n);
    SCIZ_CUDA_CHECK(cudaHostRegister(const_cast<float*>(x.data()), bytes, cudaHostRegisterDefault));
    SCIZ_CUDA_CHECK(cudaHostRegister(zy.data(), bytes, cudaHostRegisterDefault));
    rows.push_back({std::string(name) + " e2e compress (pinned host)",
                    time_host(a, [&] { zst = compress({x.data(), DType::f32, shape}, zo); })});
    rows.push_back({std::string(name) + " e2e decompress (pinned host)",
                    time_host(a, [&] { decompress(zst, zy.data(), bytes, Device::cuda); })});
    SCIZ_CUDA_CHECK(cudaHostUnregister(zy.data()));
    SCIZ_CUDA_CHECK(cudaHostUnregister(const_cast<float*>(x.data())));
    bench::Quality e2e;
    bench::check_quality(x, zy, info.eb_abs, e2e);
    bad_points += e2e.bad_points;
  };
  e2e_pinned("szx", szq.bad_points);

  // (g) the delta codec on the same field: device-level calls with the linear chain, then with
  // the serpentine chain over the rows (the pipeline's auto choice only for rows of <= 128),
  // then the public API (auto).
  const uint64_t delta_row = shape.dims.back();
  bench::Quality dlq;
  // One chain (row 0: linear): device-level encode and decode rows, its sections, and its
  // output checked against the bound (into dlq).
  auto delta_chain = [&](uint64_t row, const char* label) {
    delta::DeviceEncoded<float> dd;
    rows.push_back({std::string("delta kernel encode, ") + label, time_gpu(a, [&] {
                      dd = delta::encode_device<float>(d_x.get(), n, info.eb_abs, nullptr, row);
                    })});
    delta::Encoded e = delta::download(dd, nullptr);
    dd = {};
    rows.push_back({std::string("delta kernel encode, ") + label + ", range folded",
                    time_gpu(
                        a, [&] { dd = delta::encode_device<float>(d_x.get(), n, info.eb_abs, nullptr, row, d_keys.get()); },
                        [&] { reset_range_keys(d_keys.get(), nullptr); })});
    check_fold("delta encode kernel");
    dd = {};
    const delta::DeviceSections<float> ds = delta::upload<float>(delta::view(e), n, info.eb_abs, nullptr);
    rows.push_back({std::string("delta kernel decode, ") + label, time_gpu(a, [&] {
                      delta::decode_device<float>(ds, d_out.get(), nullptr);
                    })});
    std::vector<float> yz(n);
    dev::copy_to_host(yz.data(), d_out.get(), bytes, nullptr);
    dev::sync(nullptr);
    bench::Quality q;
    bench::check_quality(x, yz, info.eb_abs, q);
    dlq.bad_points += q.bad_points;
    dlq.max_err = std::max(dlq.max_err, q.max_err);
    return e;
  };
  const delta::Encoded ll = delta_chain(0, "linear chain");
  const double delta_ratio_linear = static_cast<double>(bytes) / static_cast<double>(ll.payload_bytes());
  const delta::Encoded dl = delta_chain(delta_row, "serpentine chain");
  const double delta_ratio = static_cast<double>(bytes) / static_cast<double>(dl.payload_bytes());
  {
    const delta::Encoded cpu = delta::encode_cpu<float>(x.data(), n, info.eb_abs, nullptr, delta_row);
    dlq.same_as_cpu = cpu.widths == dl.widths && cpu.initial == dl.initial && cpu.payload == dl.payload &&
                      cpu.exact == dl.exact;
  }
  e2e_pinned("delta", dlq.bad_points);

  // (e) end to end through the public API, host memory in and out
  std::vector<uint8_t> st;
  std::vector<float> y(n);
  rows.push_back({"e2e compress (pageable host)", time_host(a, [&] { st = compress({x.data(), DType::f32, shape}, opt); })});
  rows.push_back({"e2e decompress (pageable host)",
                  time_host(a, [&] { decompress(st, y.data(), bytes, Device::cuda); })});
  SCIZ_CUDA_CHECK(cudaHostRegister(const_cast<float*>(x.data()), bytes, cudaHostRegisterDefault));
  SCIZ_CUDA_CHECK(cudaHostRegister(y.data(), bytes, cudaHostRegisterDefault));
  rows.push_back({"e2e compress (pinned host)", time_host(a, [&] { st = compress({x.data(), DType::f32, shape}, opt); })});
  rows.push_back({"e2e decompress (pinned host)", time_host(a, [&] { decompress(st, y.data(), bytes, Device::cuda); })});
  SCIZ_CUDA_CHECK(cudaHostUnregister(y.data()));
  SCIZ_CUDA_CHECK(cudaHostUnregister(const_cast<float*>(x.data())));

  // Quality, every point checked; and the CPU twin must write the very same stream.
  Quality q;
  q.eb = info.eb_abs;
  q.stream_bytes = st.size();
  q.ratio = static_cast<double>(bytes) / static_cast<double>(st.size());
  q.outliers = m;
  q.exact = sp.exact_idx.size();
  bench::check_quality(x, y, info.eb_abs, q);
  CompressOptions cpu_opt = opt;
  cpu_opt.device = Device::cpu;
  q.same_as_cpu = compress({x.data(), DType::f32, shape}, cpu_opt) == st;

  std::printf("\nquality: ratio %.2f (%llu bytes), PSNR %.2f dB, max |err| %.6g vs eb %.6g (%.4f eb), %llu points "
              "over the bound: %s\n",
              q.ratio, static_cast<unsigned long long>(q.stream_bytes), q.psnr, q.max_err, q.eb, q.max_err / q.eb,
              static_cast<unsigned long long>(q.bad_points), q.bad_points == 0 ? "PASS" : "FAIL");
  std::printf("outliers %llu (%.3f%%), exact values %llu, GPU stream == CPU stream: %s\n",
              static_cast<unsigned long long>(q.outliers), 100.0 * q.outliers / n, static_cast<unsigned long long>(q.exact),
              q.same_as_cpu ? "yes" : "NO");
  std::printf("szx codec: ratio %.2f (payload %llu bytes), max |err| %.6g (%.4f eb), %llu points over the bound: %s, "
              "GPU sections == CPU sections: %s\n",
              szx_ratio, static_cast<unsigned long long>(sz.payload_bytes()), szq.max_err, szq.max_err / info.eb_abs,
              static_cast<unsigned long long>(szq.bad_points), szq.bad_points == 0 ? "PASS" : "FAIL",
              szq.same_as_cpu ? "yes" : "NO");
  std::printf("delta codec: ratio %.2f serpentine over rows of %llu (payload %llu bytes), %.2f linear; max |err| %.6g "
              "(%.4f eb), %llu points over the bound: %s, GPU sections == CPU sections: %s\n",
              delta_ratio, static_cast<unsigned long long>(delta_row), static_cast<unsigned long long>(dl.payload_bytes()),
              delta_ratio_linear, dlq.max_err, dlq.max_err / info.eb_abs,
              static_cast<unsigned long long>(dlq.bad_points), dlq.bad_points == 0 ? "PASS" : "FAIL",
              dlq.same_as_cpu ? "yes" : "NO");
  std::printf("quant codes: %llu runs (mean length %.1f), %llu zero-run tokens; auto chose %s\n",
              static_cast<unsigned long long>(r0), static_cast<double>(n) / static_cast<double>(std::max<uint64_t>(r0, 1)),
              static_cast<unsigned long long>(zt.count), lossless_name(ce.stage));
  for (const auto& z : sizes)
    std::printf("  %-12s %12llu bytes, %7.3f bits/code, field ratio with this stage alone %.2f\n", lossless_name(z.stage),
                static_cast<unsigned long long>(z.bytes), 8.0 * z.bytes / n, static_cast<double>(bytes) / z.bytes);

  std::printf("1-byte codes (radius 128): stage and chain ratios (code bytes / blob bytes):");
  for (const auto& [k, v] : sr.ratio) std::printf(" %s %.3f", k.c_str(), v);
  std::printf("\nstages round trip on the GPU: %s, chains' GPU blobs == CPU blobs: %s\n", sr.round_trip ? "yes" : "NO",
              sr.same_as_cpu ? "yes" : "NO");

  const double copy_gbs = gb / (copy_ms / 1e3);
  std::printf("D2D copy: %.1f GB/s as bytes read+written / time, %.1f GB/s as size / time\n", 2 * copy_gbs, copy_gbs);
  std::printf("\nGB/s = field bytes (%.1f MB f32) / median time, or quant-code bytes (%.1f MB) for rows marked *,\n"
              "or 1-byte code bytes (%.1f MB) for rows marked **; 'of copy' = that rate / D2D copy size/time rate\n",
              bytes / 1e6, code_bytes / 1e6, sr.codes / 1e6);
  std::printf("%-34s %10s %10s %8s\n", "stage", "ms", "GB/s", "of copy");
  auto rate = [&](const Row& r) { return (r.basis ? r.basis / 1e9 : gb) / (r.ms / 1e3); };
  for (const auto& r : rows) {
    const double gbs = rate(r);
    const char* mark = !r.basis ? "" : std::string(r.unit) == "codes8" ? " **" : " *";
    std::printf("%-34s %10.3f %10.1f %8.3f\n", (r.stage + mark).c_str(), r.ms, gbs, gbs / copy_gbs);
  }

  if (!a.json.empty()) {
    std::ofstream j(a.json);
    j << "{\n  \"device\": \"" << prop.name << "\",\n  \"field\": \"" << a.field << "\",\n  \"shape\": \"" << shape.str()
      << "\",\n  \"bytes\": " << bytes << ",\n  \"rel\": " << a.rel << ",\n  \"eb_abs\": " << q.eb
      << ",\n  \"runs\": " << a.runs << ",\n  \"lossless\": \"" << lossless_name(ce.stage) << "\",\n  \"szx_ratio\": " << szx_ratio << ",\n  \"delta_ratio\": " << delta_ratio << ",\n  \"delta_ratio_linear\": " << delta_ratio_linear << ",\n  \"delta_bound_check\": \"" << (dlq.bad_points == 0 ? "PASS" : "FAIL") << "\",\n  \"delta_same_as_cpu\": " << (dlq.same_as_cpu ? "true" : "false") << ",\n  \"szx_bound_check\": \"" << (szq.bad_points == 0 ? "PASS" : "FAIL") << "\",\n  \"szx_same_as_cpu\": " << (szq.same_as_cpu ? "true" : "false") << ",\n  \"ratio\": " << q.ratio << ",\n  \"psnr_db\": " << q.psnr
      << ",\n  \"max_abs_err\": " << q.max_err << ",\n  \"points_over_bound\": " << q.bad_points
      << ",\n  \"bound_check\": \"" << (q.bad_points == 0 ? "PASS" : "FAIL") << "\",\n  \"same_stream_as_cpu\": "
      << (q.same_as_cpu ? "true" : "false") << ",\n  \"copy_gbs_read_plus_write\": " << 2 * copy_gbs
      << ",\n  \"stages_round_trip\": " << (sr.round_trip ? "true" : "false")
      << ",\n  \"stages_same_as_cpu\": " << (sr.same_as_cpu ? "true" : "false");
    for (const auto& [k, v] : sr.ratio) j << ",\n  \"ratio_" << k << "\": " << v;
    j << ",\n  \"stages\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const double gbs = rate(rows[i]);
      j << "    {\"stage\": \"" << rows[i].stage << "\", \"basis\": \"" << (rows[i].basis ? rows[i].unit : "field")
        << "\", \"ms\": " << rows[i].ms << ", \"gbs\": " << gbs
        << ", \"of_copy\": " << gbs / copy_gbs << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    j << "  ]\n}\n";
  }
  return q.bad_points == 0 && q.same_as_cpu && sr.round_trip && sr.same_as_cpu ? 0 : 1;
} catch (const std::exception& ex) {
  std::fprintf(stderr, "sciz_bench: %s\n", ex.what());
  return 1;
}
