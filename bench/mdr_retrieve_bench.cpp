// mdr retrieval on the CPU, end to end through the public API: each run opens a fresh
// Retriever on the refactored file in memory (header and index read and checked) and retrieves
// into host memory, as sciz_mdr_gpu_bench's device retrieval does; the median and minimum of
// RUNS after one warm-up, for a loose bound, a tight one, every segment, and the progressive
// chain rel 1e-1 .. 1e-6 then every segment in one retriever. Each line ends with a digest of
// the output (FNV-1a of its 64-bit words): two builds must print the same digests.
//   sciz_mdr_retrieve_bench FIELD DTYPE DIMS [RUNS]     (refactors FIELD with the CPU twin first)
//   sciz_mdr_retrieve_bench --file FILE.szmd [RUNS]     (an existing refactored file)
#include <sciz/mdr.hpp>
#include <sciz/sciz.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace sciz;

namespace {

std::vector<uint8_t> read_all(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "sciz_mdr_retrieve_bench: cannot read %s\n", path);
    std::exit(2);
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint64_t digest(const std::vector<uint8_t>& v) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i + 8 <= v.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, v.data() + i, 8);
    h = (h ^ w) * 1099511628211ull;
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint8_t> file;
  int runs = 5;
  try {
    if (argc >= 3 && !std::strcmp(argv[1], "--file")) {
      file = read_all(argv[2]);
      if (argc >= 4) runs = std::max(1, std::atoi(argv[3]));
    } else if (argc == 4 || argc == 5) {
      const std::vector<uint8_t> data = read_all(argv[1]);
      const DType t = parse_dtype(argv[2]);
      const Shape s = Shape::parse(argv[3]);
      if (data.size() != s.count() * dtype_size(t)) {
        std::fprintf(stderr, "sciz_mdr_retrieve_bench: %s does not hold %s %s\n", argv[1], argv[2], argv[3]);
        return 2;
      }
      mdr::RefactorOptions opt;
      opt.device = Device::cpu;
      file = mdr::refactor({data.data(), t, s}, opt);
      if (argc == 5) runs = std::max(1, std::atoi(argv[4]));
    } else {
      std::fprintf(stderr, "usage: sciz_mdr_retrieve_bench FIELD DTYPE DIMS [RUNS] | --file FILE.szmd [RUNS]\n");
      return 2;
    }
    const mdr::FileInfo info = mdr::Retriever(mdr::memory_source(file)).info();
    const uint64_t bytes = info.shape.count() * dtype_size(info.dtype);
    std::vector<uint8_t> out(bytes);
    std::printf("file %zu bytes, %s %s (%.1f MiB), %u segments; median / min of %d after a warm-up\n", file.size(),
                dtype_name(info.dtype), info.shape.str().c_str(), static_cast<double>(bytes) / (1 << 20), info.segments,
                runs);
    // Below the finest bound: every segment (docs/MDR.md section 5).
    const ErrorBound all{EbMode::abs, 0.5 * info.finest_bound};
    struct Case {
      const char* name;
      std::vector<ErrorBound> bounds;
    };
    std::vector<ErrorBound> chain;
    for (double r : {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6}) chain.push_back({EbMode::rel, r});
    chain.push_back(all);
    const std::vector<Case> cases = {{"rel 1e-2", {{EbMode::rel, 1e-2}}},
                                     {"rel 1e-5", {{EbMode::rel, 1e-5}}},
                                     {"every segment", {all}},
                                     {"progressive 1e-1..1e-6, all", chain}};
    for (const Case& c : cases) {
      std::vector<double> t;
      uint64_t h = 0, read = 0;
      for (int r = 0; r <= runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        mdr::Retriever ret(mdr::memory_source(file));
        h = 0;
        for (const ErrorBound& eb : c.bounds) {
          read = ret.retrieve(eb, out.data(), bytes).total_bytes_read;
          h = h * 31 + digest(out);
        }
        if (r > 0) t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(t.begin(), t.end());
      std::printf("  %-30s read %11llu B  %8.4f s  min %8.4f s  %7.3f GB/s  digest %016llx\n", c.name,
                  static_cast<unsigned long long>(read), t[t.size() / 2], t[0],
                  static_cast<double>(bytes) / t[t.size() / 2] * 1e-9, static_cast<unsigned long long>(h));
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "sciz_mdr_retrieve_bench: %s\n", e.what());
    return 1;
  }
}
