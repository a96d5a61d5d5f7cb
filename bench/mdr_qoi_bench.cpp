// Retrieval under a QoI tolerance (docs/MDR.md section 6), CP against MA against MAPE: bytes
// read, iterations, the tolerance, the estimate and the actual max error of the quantity over
// every point, at rel 1e-1 .. 1e-5 of the quantity's range. CPU.
//   sciz_mdr_qoi_bench [--qoi vtotal|magnitude] DTYPE DIMS FIELD FIELD [FIELD ...]
// Exits 3 if any actual error exceeds its estimate or any estimate its tolerance.
#include <sciz/mdr.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace sciz;

int main(int argc, char** argv) {
  mdr::QoiOptions opt;
  int a = 1;
  if (a + 1 < argc && !std::strcmp(argv[a], "--qoi")) opt.qoi = mdr::parse_qoi(argv[a + 1]), a += 2;
  if (argc - a < 3) {
    std::fprintf(stderr, "usage: sciz_mdr_qoi_bench [--qoi vtotal|magnitude] DTYPE DIMS FIELD FIELD [FIELD ...]\n");
    return 2;
  }
  const DType t = parse_dtype(argv[a]);
  const Shape s = Shape::parse(argv[a + 1]);
  const uint64_t n = s.count();
  std::vector<std::vector<double>> orig;
  std::vector<std::vector<uint8_t>> files;
  uint64_t raw_bytes = 0;
  for (int k = a + 2; k < argc; ++k) {
    std::ifstream in(argv[k], std::ios::binary);
    std::vector<uint8_t> d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (d.size() != n * dtype_size(t)) {
      std::fprintf(stderr, "%s: size does not match %s\n", argv[k], argv[a + 1]);
      return 2;
    }
    std::vector<double> v(n);
    for (uint64_t i = 0; i < n; ++i) {
      if (t == DType::f32) {
        float f;
        std::memcpy(&f, d.data() + 4 * i, 4);
        v[i] = f;
      } else {
        std::memcpy(&v[i], d.data() + 8 * i, 8);
      }
    }
    orig.push_back(std::move(v));
    files.push_back(mdr::refactor({d.data(), t, s}));
    raw_bytes += d.size();
  }
  auto quantity = [&](const std::vector<const double*>& v, uint64_t p) {
    double q = 0;
    for (const double* c : v) q += c[p] * c[p];
    return opt.qoi == mdr::Qoi::magnitude ? std::sqrt(q) : q;
  };
  std::printf("| rel | method | bytes read | bits/value | iterations | tolerance | estimate | actual |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  bool ok = true;
  for (double rel : {1e-1, 1e-2, 1e-3, 1e-4, 1e-5}) {
    for (mdr::QoiMethod m : {mdr::QoiMethod::cp, mdr::QoiMethod::ma, mdr::QoiMethod::mape}) {
      std::vector<mdr::Retriever> rs;
      for (const auto& f : files) rs.emplace_back(mdr::memory_source(f));
      std::vector<mdr::Retriever*> rp;
      std::vector<std::vector<uint8_t>> out(files.size(), std::vector<uint8_t>(n * dtype_size(t)));
      std::vector<void*> op;
      for (size_t i = 0; i < rs.size(); ++i) rp.push_back(&rs[i]), op.push_back(out[i].data());
      opt.method = m;
      const mdr::QoiResult got = mdr::retrieve_qoi(rp, rel, opt, op);
      std::vector<std::vector<double>> back(files.size(), std::vector<double>(n));
      for (size_t i = 0; i < files.size(); ++i)
        for (uint64_t p = 0; p < n; ++p) {
          if (t == DType::f32) {
            float f;
            std::memcpy(&f, out[i].data() + 4 * p, 4);
            back[i][p] = f;
          } else {
            std::memcpy(&back[i][p], out[i].data() + 8 * p, 8);
          }
        }
      std::vector<const double*> vo, vb;
      for (size_t i = 0; i < files.size(); ++i) vo.push_back(orig[i].data()), vb.push_back(back[i].data());
      double actual = 0;
      for (uint64_t p = 0; p < n; ++p) {
        const double x = quantity(vo, p);
        if (std::isfinite(x)) actual = std::max(actual, std::fabs(x - quantity(vb, p)));
      }
      const bool held = got.met && actual <= got.estimate && got.estimate <= got.tolerance;
      ok = ok && held;
      std::printf("| %g | %s | %llu | %.3f | %d | %.4g | %.4g | %.4g |%s\n", rel, mdr::qoi_method_name(m),
                  static_cast<unsigned long long>(got.bytes_read), 8.0 * got.bytes_read / static_cast<double>(n * files.size()),
                  got.iterations, got.tolerance, got.estimate, actual, held ? "" : " MISSED");
    }
  }
  std::printf("(%zu components, %llu raw bytes in all)\n", files.size(), static_cast<unsigned long long>(raw_bytes));
  return ok ? 0 : 3;
}
