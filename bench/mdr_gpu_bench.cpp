// The GPU twin of mdr, end to end through the public API, timed with CUDA events on one
// stream (each call ends synchronized, so an event pair spans the whole call, host work
// included): refactor from device memory, refactor from pinned host memory, and a full
// retrieval (every segment: read, checked and decoded on the host, reconstructed on the GPU)
// into device memory, each the median of RUNS after 3 warm-ups; the CPU twin's refactor (median
// of 3) for scale. GB/s are of the field's bytes. The GPU file is checked against the CPU's.
//   sciz_mdr_gpu_bench [FIELD DTYPE DIMS [RUNS]]
// Without a field: tests/fixtures' Isabel cut, tiled along its slowest axis to 256 MiB.
#include <cuda_runtime.h>
#include <sciz/mdr.hpp>
#include <sciz/sciz.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

using namespace sciz;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "sciz_mdr_gpu_bench: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Seconds per call of f, median of `runs` after 3 warm-ups, between events on s.
double time_on(cudaStream_t s, int runs, const std::function<void()>& f) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < 3; ++i) f();
  check(cudaStreamSynchronize(s), "warm-up");
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    check(cudaEventRecord(a, s), "cudaEventRecord");
    f();
    check(cudaEventRecord(b, s), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    t.push_back(ms * 1e-3);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(t);
}

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "sciz_mdr_gpu_bench: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  // `--runs N` alone: the default field with N runs (the GPU check's short form).
  const bool runs_only = argc == 3 && std::string(argv[1]) == "--runs";
  if (argc != 1 && argc != 4 && argc != 5 && !runs_only) {
    std::fprintf(stderr, "usage: sciz_mdr_gpu_bench [FIELD DTYPE DIMS [RUNS]] | --runs RUNS\n");
    return 2;
  }
  if (!cuda_available()) {
    std::fprintf(stderr, "sciz_mdr_gpu_bench: no usable CUDA device\n");
    return 1;
  }
  std::string name;
  DType dtype = DType::f32;
  Shape shape;
  std::vector<uint8_t> data;
  int runs = runs_only ? std::max(1, std::atoi(argv[2])) : 20;
  try {
    if (argc == 1 || runs_only) {
      name = std::string(SCIZ_SOURCE_DIR) + "/tests/fixtures/isabel_cut_20x50x50.f32";
      const std::vector<uint8_t> cut = read_all(name);
      const uint64_t copies = ((uint64_t(256) << 20) + cut.size() - 1) / cut.size();
      for (uint64_t k = 0; k < copies; ++k) data.insert(data.end(), cut.begin(), cut.end());
      shape = Shape{{20 * copies, 50, 50}};
      name += " x" + std::to_string(copies);
    } else {
      name = argv[1];
      dtype = parse_dtype(argv[2]);
      shape = Shape::parse(argv[3]);
      data = read_all(name);
      if (argc == 5) runs = std::max(1, std::atoi(argv[4]));
    }
    const uint64_t bytes = shape.count() * dtype_size(dtype);
    if (data.size() != bytes) {
      std::fprintf(stderr, "sciz_mdr_gpu_bench: %s holds %zu bytes, %s %s needs %llu\n", name.c_str(), data.size(),
                   dtype_name(dtype), shape.str().c_str(), static_cast<unsigned long long>(bytes));
      return 2;
    }
    cudaStream_t s;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    void *d_field = nullptr, *d_out = nullptr, *pinned = nullptr;
    check(cudaMalloc(&d_field, bytes), "cudaMalloc");
    check(cudaMalloc(&d_out, bytes), "cudaMalloc");
    check(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
    std::memcpy(pinned, data.data(), bytes);
    check(cudaMemcpy(d_field, data.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");

    mdr::RefactorOptions cpu_opt;
    cpu_opt.device = Device::cpu;
    mdr::RefactorOptions gpu_opt;
    gpu_opt.device = Device::cuda;
    gpu_opt.stream = s;
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<uint8_t> cpu_file = mdr::refactor({data.data(), dtype, shape}, cpu_opt);
    std::vector<double> cpu_t{std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
    for (int i = 0; i < 2; ++i) {
      const auto t1 = std::chrono::steady_clock::now();
      (void)mdr::refactor({data.data(), dtype, shape}, cpu_opt);
      cpu_t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
    }
    std::vector<uint8_t> file = mdr::refactor({d_field, dtype, shape, true}, gpu_opt);
    if (file != cpu_file) {
      std::fprintf(stderr, "sciz_mdr_gpu_bench: the GPU file differs from the CPU's (%zu vs %zu bytes)\n", file.size(),
                   cpu_file.size());
      return 1;
    }
    const double t_dev = time_on(s, runs, [&] { file = mdr::refactor({d_field, dtype, shape, true}, gpu_opt); });
    const double t_pin = time_on(s, runs, [&] { file = mdr::refactor({pinned, dtype, shape}, gpu_opt); });
    // Below the finest bound: every segment is read (docs/MDR.md section 5).
    const ErrorBound all{EbMode::abs, 0.5 * mdr::Retriever(mdr::memory_source(file)).info().finest_bound};
    mdr::Retrieval last;
    const double t_ret = time_on(s, runs, [&] {
      mdr::Retriever r(mdr::memory_source(file));
      last = r.retrieve_to_device(all, d_out, bytes, s);
    });
    // The full retrieval into device memory equals the host's.
    std::vector<uint8_t> host(bytes), dev(bytes);
    mdr::Retriever(mdr::memory_source(file)).retrieve(all, host.data(), bytes);
    check(cudaMemcpy(dev.data(), d_out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    const bool same = host == dev;

    auto gbs = [&](double sec) { return static_cast<double>(bytes) / sec * 1e-9; };
    std::printf("field %s (%s %s, %.1f MiB)\n", name.c_str(), dtype_name(dtype), shape.str().c_str(),
                static_cast<double>(bytes) / (1 << 20));
    std::printf("file %zu bytes (ratio %.2f), %llu segments, all read by the full retrieval\n", file.size(),
                static_cast<double>(bytes) / static_cast<double>(file.size()),
                static_cast<unsigned long long>(last.segments));
    std::printf("median of %d after 3 warm-ups, end to end (host coding included):\n", runs);
    std::printf("  refactor, field in device memory   %9.4f s  %7.3f GB/s\n", t_dev, gbs(t_dev));
    std::printf("  refactor, field in pinned memory   %9.4f s  %7.3f GB/s\n", t_pin, gbs(t_pin));
    std::printf("  full retrieval into device memory  %9.4f s  %7.3f GB/s  (equal to the host's: %s)\n", t_ret,
                gbs(t_ret), same ? "yes" : "NO");
    const double t_cpu = median(cpu_t);
    std::printf("  CPU twin refactor (median of 3)    %9.4f s  %7.3f GB/s\n", t_cpu, gbs(t_cpu));
    cudaFree(d_field);
    cudaFree(d_out);
    cudaFreeHost(pinned);
    cudaStreamDestroy(s);
    return same ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "sciz_mdr_gpu_bench: %s\n", e.what());
    return 1;
  }
}
