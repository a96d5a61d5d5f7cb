// Inputs for the lossless stage tests, CPU and GPU alike: edge sizes around the 16 KiB
// blocks, symbol patterns of every width, and real quant codes (lorenzo on the fixtures).
#pragma once
#include <sciz/sciz.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/geometry.hpp"
#include "predict/lorenzo/lorenzo.hpp"
#include "support/test_data.hpp"

namespace sciz::test {

struct NamedBytes {
  std::string name;
  std::vector<uint8_t> bytes;
};

// w-byte symbol k of a pattern, little-endian, into out.
inline void put_symbol(std::vector<uint8_t>& out, uint64_t v, int w) {
  for (int b = 0; b < w; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
}

// n bytes of w-byte symbols from gen(i), the last symbol cut to fit.
template <class Gen>
std::vector<uint8_t> symbols(uint64_t n, int w, Gen&& gen) {
  std::vector<uint8_t> out;
  out.reserve(n + 8);
  for (uint64_t i = 0; out.size() < n; ++i) put_symbol(out, gen(i), w);
  out.resize(n);
  return out;
}

// Edge lengths: nothing, one byte, partial symbols, the 16 KiB block edges, several blocks.
inline std::vector<uint64_t> edge_lengths() {
  return {0, 1, 2, 3, 5, 7, 9, 15, 17, 63, 16383, 16384, 16385, 16384 + 7, 3 * 16384 + 5};
}

// Patterns over symbols of width w, at length n.
inline std::vector<NamedBytes> patterns(uint64_t n, int w, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<NamedBytes> v;
  v.push_back({"zeros", std::vector<uint8_t>(n, 0)});
  v.push_back({"one symbol repeated", symbols(n, w, [](uint64_t) { return 0xA5C3F00D12345678ull; })});
  v.push_back({"all distinct", symbols(n, w, [](uint64_t i) { return i * 0x9E3779B97F4A7C15ull + 1; })});
  std::vector<uint8_t> r(n);
  for (auto& b : r) b = static_cast<uint8_t>(rng());
  v.push_back({"random", std::move(r)});
  // Small two's-complement values in runs: what TCMS, RZE and RRE are for.
  std::geometric_distribution<int> g(0.4);
  int64_t cur = 0;
  v.push_back({"small signed runs", symbols(n, w, [&](uint64_t) {
                 if (rng() % 6 == 0) cur = (rng() & 1) ? g(rng) : -g(rng);
                 return static_cast<uint64_t>(cur);
               })});
  return v;
}

// Quant-code-like 1-byte codes: mostly 128, geometric spread around it, in patches.
inline std::vector<uint8_t> synthetic_u8_codes(uint64_t n, double noisy, uint32_t seed) {
  std::mt19937 rng(seed);
  std::geometric_distribution<int> g(0.45);
  std::vector<uint8_t> v(n, 128);
  for (uint64_t i = 0; i < n;) {
    const uint64_t len = 1 + rng() % 300;
    const bool noise = std::uniform_real_distribution<double>(0, 1)(rng) < noisy;
    for (uint64_t k = 0; k < len && i < n; ++k, ++i)
      if (noise) v[i] = static_cast<uint8_t>(std::clamp(128 + ((rng() & 1) ? g(rng) : -g(rng)), 0, 255));
  }
  return v;
}

// Lorenzo's quant codes of a fixture at a relative bound, radius `radius` (codes < 2 radius).
template <class T>
std::vector<uint16_t> lorenzo_codes(const std::vector<T>& x, const Shape& s, double rel, int32_t radius) {
  double lo = INFINITY, hi = -INFINITY;
  for (T v : x)
    if (std::isfinite(v)) lo = std::min<double>(lo, v), hi = std::max<double>(hi, v);
  const double eb = hi > lo ? rel * (hi - lo) : rel;
  const Extent e = effective_extent(s);
  const TileShape c = lorenzo::default_tile(e.ndim);
  const auto p = lorenzo::make_params<T>(eb, radius);
  std::vector<uint16_t> codes(e.count());
  lorenzo::Sparse<T> sp;
  lorenzo::compress_cpu<T>(x.data(), e, c, p, codes.data(), sp);
  return codes;
}

// The f32 fixtures of tests/fixtures with their shapes (from the file names).
inline std::vector<std::pair<std::string, Shape>> f32_fixtures() {
  return {{"isabel_cut_20x50x50.f32", Shape{{20, 50, 50}}},
          {"etopo_cut_101x201.f32", Shape{{101, 201}}},
          {"md_traj_cut_20x3341.f32", Shape{{20, 3341}}},
          {"s3d_chi_cut_25x25x25.f32", Shape{{25, 25, 25}}}};
}

inline std::vector<float> read_f32(const std::string& file) {
  const auto raw = read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / file);
  std::vector<float> x(raw.size() / 4);
  if (!x.empty()) std::memcpy(x.data(), raw.data(), x.size() * 4);
  return x;
}

// Real 2-byte quant codes (radius 512) and 1-byte codes (radius 128) of the fixtures, as bytes.
inline std::vector<NamedBytes> fixture_codes(int code_width, double rel = 1e-3) {
  std::vector<NamedBytes> out;
  for (const auto& [file, shape] : f32_fixtures()) {
    const auto x = read_f32(file);
    const auto c = lorenzo_codes<float>(x, shape, rel, code_width == 1 ? 128 : 512);
    std::vector<uint8_t> b;
    b.reserve(c.size() * code_width);
    for (uint16_t v : c) put_symbol(b, v, code_width);
    out.push_back({file, std::move(b)});
  }
  return out;
}

}  // namespace sciz::test
