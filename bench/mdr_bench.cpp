// Bytes an mdr retrieval reads against the size of an interp stream (the yardstick now
// that interp has landed) and of a lorenzo stream at the same bound, per field and bound, with
// every point checked against the bound each retrieval reports. CPU.
//   sciz_mdr_bench [--json] [--planes G] FIELD DTYPE DIMS [FIELD DTYPE DIMS ...]
// One line per (field, bound): rel, abs bound, interp and lorenzo bytes, mdr bytes read (header
// included), its ratio to each, mdr's reported bound, its max error, the refactored file size and the time of
// refactor and of the retrieval.
#include <sciz/mdr.hpp>
#include <sciz/sciz.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace sciz;

namespace {

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class T>
double max_err(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  const T* x = reinterpret_cast<const T*>(a.data());
  const T* y = reinterpret_cast<const T*>(b.data());
  double m = 0;
  for (size_t i = 0; i < a.size() / sizeof(T); ++i)
    if (std::isfinite(x[i])) m = std::max(m, std::fabs(static_cast<double>(x[i]) - static_cast<double>(y[i])));
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  bool json = false;
  mdr::RefactorOptions opt;
  int a = 1;
  for (; a < argc && argv[a][0] == '-'; ++a) {
    if (!std::strcmp(argv[a], "--json")) json = true;
    else if (!std::strcmp(argv[a], "--planes") && a + 1 < argc) opt.planes_per_group = std::atoi(argv[++a]);
  }
  if ((argc - a) % 3 != 0 || a == argc) {
    std::fprintf(stderr, "usage: sciz_mdr_bench [--json] [--planes G] FIELD DTYPE DIMS ...\n");
    return 2;
  }
  const double rels[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
  bool all_held = true;
  if (!json)
    std::printf("%-44s %6s %10s %10s %10s %10s %6s %6s %10s %10s %10s %7s %7s\n", "field", "rel", "eb", "interp",
                "lorenzo", "mdr_read", "x_int", "x_lor", "bound", "max_err", "file", "ref_s", "ret_s");
  for (; a < argc; a += 3) {
    std::ifstream in(argv[a], std::ios::binary);
    std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const DType t = parse_dtype(argv[a + 1]);
    const Shape s = Shape::parse(argv[a + 2]);
    if (data.size() != s.count() * dtype_size(t)) {
      std::fprintf(stderr, "%s: size does not match %s\n", argv[a], argv[a + 2]);
      return 2;
    }
    const FieldView view{data.data(), t, s};
    auto t0 = std::chrono::steady_clock::now();
    const std::vector<uint8_t> file = mdr::refactor(view, opt);
    const double ref_s = seconds(t0);
    std::string name = argv[a];
    name = name.substr(name.find_last_of('/') + 1);
    for (double rel : rels) {
      CompressOptions co;
      co.eb = {EbMode::rel, rel};
      co.device = Device::cpu;
      const uint64_t lz = compress(view, co).size();
      co.pipeline = "interp";
      const uint64_t ip = compress(view, co).size();
      std::vector<uint8_t> out(data.size());
      mdr::Retriever r(mdr::memory_source(file));
      t0 = std::chrono::steady_clock::now();
      const mdr::Retrieval got = r.retrieve({EbMode::rel, rel}, out.data(), out.size());
      const double ret_s = seconds(t0);
      const double err = t == DType::f32 ? max_err<float>(data, out) : max_err<double>(data, out);
      const bool held = err <= got.bound && got.met;
      all_held = all_held && held;
      const double read = static_cast<double>(got.total_bytes_read);
      const double x = read / static_cast<double>(lz), xi = read / static_cast<double>(ip);
      if (json)
        std::printf("{\"field\": \"%s\", \"rel\": %g, \"eb\": %.9g, \"interp_bytes\": %llu, \"lorenzo_bytes\": %llu, "
                    "\"mdr_bytes\": %llu, \"mdr_over_interp\": %.4f, \"mdr_over_lorenzo\": %.4f, \"bound\": %.9g, "
                    "\"max_err\": %.9g, \"held\": %s, \"file_bytes\": %zu, \"original_bytes\": %zu, \"refactor_s\": %.4f, "
                    "\"retrieve_s\": %.4f}\n",
                    name.c_str(), rel, got.requested, (unsigned long long)ip, (unsigned long long)lz,
                    (unsigned long long)got.total_bytes_read, xi, x, got.bound, err, held ? "true" : "false", file.size(),
                    data.size(), ref_s, ret_s);
      else
        std::printf("%-44s %6.0e %10.4g %10llu %10llu %10llu %6.2f %6.2f %10.4g %10.4g %10zu %7.3f %7.3f%s\n",
                    name.c_str(), rel, got.requested, (unsigned long long)ip, (unsigned long long)lz,
                    (unsigned long long)got.total_bytes_read, xi, x, got.bound, err, file.size(), ref_s, ret_s,
                    held ? "" : "  BOUND MISSED");
    }
  }
  return all_held ? 0 : 3;
}
