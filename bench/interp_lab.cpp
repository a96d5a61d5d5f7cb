// sciz_interp_lab: where the bits of an interp stream go, level by level, on one field; and the
// ablation of docs/INTERP.md. CPU only; reads a raw field.
//
//   sciz_interp_lab FILE f32|f64 DIMS REL [--spline S] [--scheme S] [--alpha A] [--beta B]
//
// Prints the tuner's choice, then per level: points, Shannon bits of its codes, outliers,
// exact values, and the sizes of the codes section (interp's auto stage list on the whole
// section and on the codes in plain linear order, i.e. without the level-wise reordering);
// with --chains "L1;L2", the section under each of those stage lists too.
#include <sciz/sciz.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/exact_runs.hpp"
#include "core/geometry.hpp"
#include "lossless/stages/stages.hpp"
#include "pipelines/interp_codes.hpp"
#include "predict/interp/interp.hpp"

using namespace sciz;

namespace {

std::vector<std::string> g_chains;  // --chains: stage lists to size the codes section with

constexpr int kBlockLevelsLab = interp::kBlockLevels;  // codes of levels <= 4 start at base[4]

// The codes section as the `interp` pipeline writes it (auto), and the list it chose.
struct Section {
  std::vector<uint8_t> blob;
  std::string chain;
};
Section section_of(const std::vector<uint8_t>& codes) {
  stages::Chain c;
  std::vector<uint8_t> b = interp_codes::encode_cpu(codes, std::nullopt, c);
  return {std::move(b), stages::chain_name(c)};
}

double entropy_bits(const std::vector<uint64_t>& h) {
  uint64_t n = 0;
  for (auto c : h) n += c;
  double b = 0;
  for (auto c : h)
    if (c) b -= static_cast<double>(c) * std::log2(static_cast<double>(c) / static_cast<double>(n));
  return b;
}

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Minimum over `reps` runs of the tuner, the predictor, the codes' lossless stage and the
// decoder (the machine is shared: the minimum is the least disturbed run).
template <class T>
void time_phases(const std::vector<T>& x, const interp::Layout& L, double eb, const interp::TuneRequest& req, int reps) {
  double tt = 1e9, tc = 1e9, tl = 1e9, td = 1e9;
  std::vector<uint8_t> codes(L.total);
  std::vector<T> out(L.total);
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    const interp::Choice ch = interp::tune_cpu<T>(x.data(), L, eb, req);
    tt = std::min(tt, seconds(t0));
    interp::Sparse<T> sp;
    t0 = std::chrono::steady_clock::now();
    interp::compress_cpu<T>(x.data(), L, ch, eb, codes.data(), sp);
    tc = std::min(tc, seconds(t0));
    t0 = std::chrono::steady_clock::now();
    const auto sec = section_of(codes);
    tl = std::min(tl, seconds(t0));
    t0 = std::chrono::steady_clock::now();
    const interp::OutlierRanks rk = interp::check_sparse<T>(codes.data(), L, sp);
    interp::decompress_cpu<T>(codes.data(), sp, rk, L, ch, out.data());
    td = std::min(td, seconds(t0));
  }
  const double mb = double(L.total) * sizeof(T) / 1e6;
  std::printf("time (min of %d): tune %.1f ms, predict %.1f ms (%.0f MB/s), codes lossless %.1f ms, decode (no lossless) %.1f ms (%.0f MB/s); tune+predict+lossless %.0f MB/s\n",
              reps, tt * 1e3, tc * 1e3, mb / tc, tl * 1e3, td * 1e3, mb / td, mb / (tt + tc + tl));
}

template <class T>
int run(const std::vector<uint8_t>& raw, const Shape& shape, double rel, const interp::TuneRequest& req, int reps) {
  std::vector<T> x(shape.count());
  std::memcpy(x.data(), raw.data(), raw.size());
  double lo = INFINITY, hi = -INFINITY;
  for (T v : x)
    if (std::isfinite(v)) lo = std::min(lo, double(v)), hi = std::max(hi, double(v));
  const double eb = rel * (hi - lo);
  const Extent e = effective_extent(shape);
  const interp::Layout L = interp::layout_of(e);
  const interp::Choice ch = interp::tune_cpu<T>(x.data(), L, eb, req);
  std::vector<uint8_t> codes(L.total);
  interp::Sparse<T> sp;
  interp::compress_cpu<T>(x.data(), L, ch, eb, codes.data(), sp);
  std::printf("eb %.6g  alpha %.3g beta %.3g  levels %d  estimates: interp %.3f bits/value, lorenzo %.3f\n", eb,
              ch.alpha, ch.beta, L.levels, ch.interp_bits, ch.lorenzo_bits);
  std::printf("level stride config      eb_l/eb   points     bits/pt  outliers  exact\n");
  static const char* spl[] = {"linear", "cubic"};
  static const char* sch[] = {"zyx", "xyz", "md", "cross"};
  double total_bits = 0;
  for (int l = L.levels; l >= 1; --l) {
    std::vector<uint64_t> h(256, 0);
    for (uint64_t i = L.base[l]; i < L.base[l] + L.count[l]; ++i) ++h[codes[i]];
    const double b = entropy_bits(h);
    total_bits += b;
    std::printf("%5d %6llu %6s/%-4s %8.4f %9llu %9.3f %9llu %6llu\n", l, 1ull << (l - 1), spl[ch.config[l - 1].spline],
                sch[ch.config[l - 1].scheme], ch.eb[l - 1] / eb, (unsigned long long)L.count[l],
                L.count[l] ? b / double(L.count[l]) : 0.0, (unsigned long long)h[interp::kOutlierCode],
                (unsigned long long)h[interp::kExactCode]);
  }
  const auto sec = section_of(codes);
  // The same codes in the field's linear order (no level-wise reordering).
  std::vector<uint8_t> lin(L.total);
  for (uint64_t z = 0; z < L.n[0]; ++z)
    for (uint64_t y = 0; y < L.n[1]; ++y)
      for (uint64_t xx = 0; xx < L.n[2]; ++xx) {
        const uint64_t c[3] = {z, y, xx};
        lin[(z * L.n[1] + y) * L.n[2] + xx] = codes[interp::code_index(L, c)];
      }
  const auto sec_lin = section_of(lin);
  // Anchors stored raw instead of coded by the anchor levels: the block levels' codes alone,
  // in section order and in linear order (anchor points left out), plus every anchor at its
  // width. (The block levels then see exact corners; the difference is below the noise.)
  const std::vector<uint8_t> blk(codes.begin() + L.base[kBlockLevelsLab], codes.end());
  std::vector<uint8_t> blk_lin;
  for (uint64_t z = 0; z < L.n[0]; ++z)
    for (uint64_t y = 0; y < L.n[1]; ++y)
      for (uint64_t xx = 0; xx < L.n[2]; ++xx)
        if (((z | y | xx) & 15) != 0) blk_lin.push_back(lin[(z * L.n[1] + y) * L.n[2] + xx]);
  const uint64_t anchors = L.base[kBlockLevelsLab];  // codes of the levels above 4: the anchors
  const double raw_anchor_bytes = double(anchors) * sizeof(T);
  const auto sec_blk = section_of(blk), sec_blk_lin = section_of(blk_lin);
  const auto ol = interp::write_outliers(sp.outliers);
  const auto ex = write_runs(sp.exact_idx, sp.exact_val);
  const double in_bytes = double(L.total) * sizeof(T);
  std::printf("codes: entropy %.0f B, section %zu B (%s), linear order %zu B (%s); outliers %zu B; exact %zu B\n",
              total_bits / 8, sec.blob.size(), sec.chain.c_str(), sec_lin.blob.size(), sec_lin.chain.c_str(),
              ol.size(), ex.size());
  const double sp_bytes = double(ol.size() + ex.size());
  std::printf("ratio (sections only) %.3f; without reordering %.3f; anchors raw %.3f; anchors raw, no reordering %.3f\n",
              in_bytes / (double(sec.blob.size()) + sp_bytes), in_bytes / (double(sec_lin.blob.size()) + sp_bytes),
              in_bytes / (double(sec_blk.blob.size()) + sp_bytes + raw_anchor_bytes),
              in_bytes / (double(sec_blk_lin.blob.size()) + sp_bytes + raw_anchor_bytes));
  for (const std::string& c : g_chains) {
    const auto chain = stages::parse_chain(c);
    const auto t0 = std::chrono::steady_clock::now();
    const auto blob = stages::encode_cpu(chain, codes, interp_codes::kContext);
    const double ms = seconds(t0) * 1e3;
    const auto blob_lin = stages::encode_cpu(chain, lin, interp_codes::kContext);
    std::printf("chain %s: %zu B, ratio (sections only) %.3f, %.1f ms; linear order %zu B, ratio %.3f\n", c.c_str(),
                blob.size(), in_bytes / (double(blob.size()) + sp_bytes), ms, blob_lin.size(),
                in_bytes / (double(blob_lin.size()) + sp_bytes));
  }
  if (reps > 0) time_phases(x, L, eb, req, reps);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s FILE f32|f64 DIMS REL [--spline linear|cubic] [--scheme zyx|xyz|md] [--schemes LIST] [--alpha A] [--beta B] [--time REPS] [--chains \"L1;L2\"]\n", argv[0]);
    return 2;
  }
  std::ifstream f(argv[1], std::ios::binary);
  std::vector<uint8_t> raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const DType t = parse_dtype(argv[2]);
  const Shape s = Shape::parse(argv[3]);
  const double rel = std::atof(argv[4]);
  interp::TuneRequest req;
  req.codes_bytes = interp_codes::sample_sizer(std::nullopt);
  req.lorenzo_codes_bytes = interp_codes::lorenzo_sample_sizer(std::nullopt);
  int reps = 0;
  req.beta = 4;
  for (int i = 5; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--spline") req.spline = v == "linear" ? 0 : 1;
    if (k == "--scheme") req.scheme = v == "zyx" ? 0 : v == "xyz" ? 1 : v == "md" ? 2 : 3;
    if (k == "--schemes") {  // the tuner's choice among these, e.g. zyx,xyz,md
      req.scheme_mask = 0;
      for (const char* n : {"zyx", "xyz", "md", "cross"})
        if (v.find(n) != std::string::npos) req.scheme_mask |= 1u << (n[0] == 'z' ? 0 : n[0] == 'x' ? 1 : n[0] == 'm' ? 2 : 3);
    }
    if (k == "--alpha") req.alpha = std::atof(v.c_str());
    if (k == "--beta") req.beta = std::atof(v.c_str());
    if (k == "--time") reps = std::atoi(v.c_str());
    if (k == "--chains")  // stage lists separated by ';'
      for (size_t a = 0; a <= v.size();) {
        const size_t b = std::min(v.find(';', a), v.size());
        g_chains.push_back(v.substr(a, b - a));
        a = b + 1;
      }
  }
  if (raw.size() != s.count() * dtype_size(t)) {
    std::fprintf(stderr, "size mismatch\n");
    return 2;
  }
  return t == DType::f32 ? run<float>(raw, s, rel, req, reps) : run<double>(raw, s, rel, req, reps);
}
