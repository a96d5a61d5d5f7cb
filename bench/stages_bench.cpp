// sciz_stages_bench: the lossless stages on the CPU, on real quant codes.
//
//   sciz_stages_bench [--data DIR] [--field FILE] [--reps N] [--only STAGE]
//
// Throughput: every stage alone, encode and decode, on lorenzo's 2-byte codes (radius 512, rel
// 1e-3) of one field (default: the CESM TREFHT field, 7.2M values), best of N runs, GB/s of the
// stage's input bytes; the thread count is OpenMP's (set OMP_NUM_THREADS).
// Ratio: the chains huffman,rre4,tcms8,rze1 and tcms1,bit1,rre1 on 1-byte codes (lorenzo's at
// radius 128: interp's are not in the tree yet) of several fields at rel 1e-2, 1e-3, 1e-4,
// beside huffman and zrle+huffman alone; bytes of codes / bytes of blob. And the cost of
// coding 1-byte codes with the 16-bit Huffman blob: its fixed parts against the code bits.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/geometry.hpp"
#include "lossless/stages/stages.hpp"
#include "predict/lorenzo/lorenzo.hpp"

namespace fs = std::filesystem;
using namespace sciz;
using namespace sciz::stages;

namespace {

std::vector<float> read_f32(const fs::path& p) {
  std::vector<float> x(fs::file_size(p) / 4);
  FILE* f = std::fopen(p.c_str(), "rb");
  if (!f || std::fread(x.data(), 4, x.size(), f) != x.size()) {
    std::fprintf(stderr, "cannot read %s\n", p.c_str());
    std::exit(2);
  }
  std::fclose(f);
  return x;
}

// NAME_AxBxC.f32 -> {A, B, C}
Shape shape_of(const fs::path& p) {
  const std::string stem = p.stem().string();
  return Shape::parse(stem.substr(stem.rfind('_') + 1));
}

std::vector<uint8_t> codes_of(const std::vector<float>& x, const Shape& s, double rel, int width) {
  double lo = INFINITY, hi = -INFINITY;
  for (float v : x)
    if (std::isfinite(v)) lo = std::min<double>(lo, v), hi = std::max<double>(hi, v);
  const Extent e = effective_extent(s);
  const auto p = lorenzo::make_params<float>(hi > lo ? rel * (hi - lo) : rel, width == 1 ? 128 : 512);
  std::vector<uint16_t> c(e.count());
  lorenzo::Sparse<float> sp;
  lorenzo::compress_cpu<float>(x.data(), e, lorenzo::default_tile(e.ndim), p, c.data(), sp);
  std::vector<uint8_t> b(c.size() * width);
  for (size_t i = 0; i < c.size(); ++i)
    for (int k = 0; k < width; ++k) b[i * width + k] = static_cast<uint8_t>(c[i] >> (8 * k));
  return b;
}

template <class F>
double best_seconds(int reps, F&& f) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path data = fs::path(SCIZ_SOURCE_DIR) / ".." / "shared" / "data";
  std::string field = "geocat_cesm_TREFHT_8members_8x110x64x128.f32";
  int reps = 5;
  std::string only;  // --only NAME: that stage's throughput and nothing else
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--data") data = argv[i + 1];
    else if (a == "--only") only = argv[i + 1];
    else if (a == "--field") field = argv[i + 1];
    else if (a == "--reps") reps = std::stoi(argv[i + 1]);
  }
  std::printf("threads %d\n", omp_get_max_threads());

  // Throughput on 2-byte codes.
  {
    const auto x = read_f32(data / field);
    const auto in = codes_of(x, shape_of(data / field), 1e-3, 2);
    const Context ctx{2, 1024, 512};
    std::printf("\nthroughput on %s, rel 1e-3, %zu codes (%.1f MB of 2-byte codes), best of %d\n", field.c_str(),
                in.size() / 2, in.size() / 1e6, reps);
    std::printf("%-14s %10s %12s %12s\n", "stage", "ratio", "enc GB/s", "dec GB/s");
    for (StageId id : all_stages()) {
      if (!only.empty() && only != stage_name(id)) continue;
      std::vector<uint8_t> blob, out;
      const double te = best_seconds(reps, [&] { blob = encode_stage_cpu(id, in, ctx); });
      const double td = best_seconds(reps, [&] { out = decode_stage_cpu(id, blob, in.size(), ctx); });
      if (out != in) {
        std::fprintf(stderr, "%s: round trip failed\n", stage_name(id));
        return 1;
      }
      std::printf("%-14s %10.3f %12.3f %12.3f\n", stage_name(id), double(in.size()) / double(blob.size()),
                  in.size() / te / 1e9, in.size() / td / 1e9);
    }
  }

  if (!only.empty()) return 0;
  // Ratio of the chains on 1-byte codes.
  const char* fields[] = {"isabel_TCf25_downsampled5xy_100x100x100.f32", "geocat_cesm_TREFHT_8members_8x110x64x128.f32",
                          "ferret_navy_winds_uwnd_132x73x144.f32", "s3d_chi_scalar_dissipation_chunk_50x50x50.f32",
                          "sperr_wmag_91x91x91.f32", "ferret_etopo20_relief_540x1081.f32"};
  const Chain chains[] = {parse_chain("huffman"), parse_chain("zrle+huffman"), parse_chain("interp-cr"),
                          parse_chain("interp-tp"), parse_chain("tcms1,bit1,rre1,rze1")};
  std::printf("\nratio (bytes of 1-byte codes / blob bytes), lorenzo codes at radius 128\n%-46s %6s", "field", "rel");
  for (const Chain& c : chains) std::printf(" %22s", chain_name(c).c_str());
  std::printf("  huffman fixed bytes (codebook)\n");
  for (const char* f : fields) {
    if (!fs::exists(data / f)) continue;
    const auto x = read_f32(data / f);
    for (double rel : {1e-2, 1e-3, 1e-4}) {
      const auto in = codes_of(x, shape_of(data / f), rel, 1);
      const Context ctx{1, 256, 128};
      std::printf("%-46s %6.0e", f, rel);
      for (const Chain& c : chains) {
        const auto blob = encode_cpu(c, in, ctx);
        if (decode_cpu(c, blob, in.size(), ctx) != in) {
          std::fprintf(stderr, "%s: round trip failed\n", chain_name(c).c_str());
          return 1;
        }
        std::printf(" %22.2f", double(in.size()) / double(blob.size()));
      }
      // The huffman blob's parts: header 32, codebook, chunk bit counts, the code words.
      const auto h = encode_stage_cpu(StageId::huffman, in, ctx);
      uint64_t bits = 0;
      uint32_t cb = 0;
      std::memcpy(&bits, h.data() + 16, 8);
      std::memcpy(&cb, h.data() + 24, 4);
      std::printf("  %zu of %zu (%u)\n", h.size() - (bits + 7) / 8, h.size(), cb);
    }
  }
  return 0;
}
