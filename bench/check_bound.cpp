// Standalone point-by-point check for bench/szx_ratio_table.sh, sharing no code with sciz:
// the largest |x - x'| over finite x relative to rel x (max - min of the finite values), and
// "FAIL" when any point misses the bound or a NaN/Inf does not come back bit for bit.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

template <class T>
static std::vector<T> load(const char* path) {
  std::vector<T> v;
  FILE* f = std::fopen(path, "rb");
  if (!f) return v;
  T x;
  while (std::fread(&x, sizeof x, 1, f) == 1) v.push_back(x);
  std::fclose(f);
  return v;
}

template <class T>
static int run(const char* a, const char* b, double rel) {
  const std::vector<T> x = load<T>(a), y = load<T>(b);
  if (x.empty() || x.size() != y.size()) {
    std::printf("FAIL (sizes %zu, %zu)", x.size(), y.size());
    return 1;
  }
  double lo = INFINITY, hi = -INFINITY;
  for (T v : x)
    if (std::isfinite(v)) lo = std::fmin(lo, double(v)), hi = std::fmax(hi, double(v));
  const double eb = rel * (hi - lo);
  double worst = 0;
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      bad += std::memcmp(&x[i], &y[i], sizeof(T)) != 0;
      continue;
    }
    const double d = std::fabs(double(x[i]) - double(y[i]));
    if (!(d <= eb)) ++bad;
    if (!(d <= worst)) worst = d;
  }
  std::printf(bad ? "FAIL %.4f (%zu points)" : "%.4f", worst / eb, bad);
  return bad != 0;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: check_bound ORIGINAL DECODED f32|f64 REL\n");
    return 2;
  }
  const double rel = std::atof(argv[4]);
  return std::string(argv[3]) == "f64" ? run<double>(argv[1], argv[2], rel) : run<float>(argv[1], argv[2], rel);
}
