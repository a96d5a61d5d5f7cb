// Fixed cost per call on a small field, CPU only: the first compress and decompress of the
// process (what `sciz eval` and scripts/demo.sh show a new user) and the median and minimum of
// the next runs, in GB/s of field bytes of wall time; "cpu" columns divide by the process's CPU
// time instead (all threads), which a busy shared host does not inflate.
//   sciz_small_bench [PIPELINE [RUNS [FIELD DTYPE DIMS]]]   (default: every pipeline, 50 runs,
//   tests/fixtures/isabel_cut_20x50x50.f32 f32 20x50x50, rel 1e-3)
#include <sciz/sciz.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <sys/resource.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace sciz;

namespace {

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

struct Time {
  double wall, cpu;
  long faults;  // minor page faults (first touches of fresh memory) during the call
};

template <class F>
Time timed(F&& f) {
  const long f0 = minor_faults();
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return {seconds(t0), cpu_seconds() - c0, minor_faults() - f0};
}

}  // namespace

int main(int argc, char** argv) {
  const std::string pipeline = argc > 1 ? argv[1] : "";
  const int runs = argc > 2 ? std::atoi(argv[2]) : 50;
  const std::string path = argc > 3 ? argv[3] : SCIZ_SOURCE_DIR "/tests/fixtures/isabel_cut_20x50x50.f32";
  const DType dtype = argc > 4 && std::string(argv[4]) == "f64" ? DType::f64 : DType::f32;
  const Shape shape = Shape::parse(argc > 5 ? argv[5] : "20x50x50");
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const uint64_t bytes = shape.count() * dtype_size(dtype);
  if (raw.size() != bytes) {
    std::fprintf(stderr, "sciz_small_bench: %s holds %zu bytes, expected %llu\n", path.c_str(), raw.size(),
                 static_cast<unsigned long long>(bytes));
    return 2;
  }
  std::vector<std::string> names = {"lorenzo", "szx", "delta"};
  if (!pipeline.empty()) names = {pipeline};
  std::vector<uint8_t> out(bytes);
  std::printf("%-8s %6s | %9s %9s %9s %9s %6s | %9s %9s %9s %9s %6s  (%s, %llu bytes, GB/s; flt = page faults of the 1st call)\n",
              "pipeline", "ratio", "1st comp", "cpu", "med", "cpu med", "flt", "1st dec", "cpu", "med", "cpu med", "flt",
              path.c_str(),
              static_cast<unsigned long long>(bytes));
  for (const std::string& p : names) {
    CompressOptions o;
    o.eb = {EbMode::rel, 1e-3};
    o.device = Device::cpu;
    o.pipeline = p;
    const FieldView f{raw.data(), dtype, shape};
    std::vector<uint8_t> st;
    const Time c1 = timed([&] { st = compress(f, o); });
    const Time d1 = timed([&] { decompress(st, out.data(), bytes, Device::cpu); });
    std::vector<double> tc, td, cc, cd;
    for (int r = 0; r < runs; ++r) {
      const Time c = timed([&] { st = compress(f, o); });
      const Time d = timed([&] { decompress(st, out.data(), bytes, Device::cpu); });
      tc.push_back(c.wall), cc.push_back(c.cpu), td.push_back(d.wall), cd.push_back(d.cpu);
    }
    for (auto* v : {&tc, &td, &cc, &cd}) std::sort(v->begin(), v->end());
    const double gb = static_cast<double>(bytes) / 1e9;
    auto med = [&](const std::vector<double>& v) { return v.empty() ? 0.0 : gb / v[v.size() / 2]; };
    std::printf("%-8s %6.2f | %9.3f %9.3f %9.3f %9.3f %6ld | %9.3f %9.3f %9.3f %9.3f %6ld\n", p.c_str(),
                static_cast<double>(bytes) / static_cast<double>(st.size()), gb / c1.wall, gb / c1.cpu, med(tc), med(cc),
                c1.faults, gb / d1.wall, gb / d1.cpu, med(td), med(cd), d1.faults);
  }
  return 0;
}
