// Writes the fuzz targets' seed inputs from the test fixtures and the golden streams, for every
// pipeline the registry holds, so a pipeline that joins the registry gets seeds (and fuzz runs)
// with no change here.
//
//   sciz_fuzz_seeds --pipelines               the pipelines' names, one per line
//   sciz_fuzz_seeds FIXTURES GOLDEN OUT       seeds into OUT/<run>/ for every run of fuzz.sh
//
// Fields are tiny cuts of real data (a few thousand values): small inputs run fast and
// mutate into everything the decoders branch on.
#include <sciz/mdr.hpp>
#include <sciz/sciz.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "chunk_input.hpp"
#include "core/container.hpp"
#include "lossless/stages/registry.hpp"
#include "lossless/stages/stages.hpp"

namespace fs = std::filesystem;
using namespace sciz;

namespace {

// Goldens above this stay out of the seeds: the corpus is committed, and big inputs fuzz slowly.
constexpr uint64_t kMaxGoldenSeed = 12 << 10;

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

void write_file(const fs::path& p, const std::vector<uint8_t>& b) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

struct Cut {
  std::string name;
  DType dtype;
  std::vector<uint8_t> bytes;
  Shape shape;
};

// The first values of a fixture, reshaped.
Cut cut(const fs::path& fixtures, const char* file, DType t, const std::string& shape, const char* name) {
  Cut c{name, t, read_file(fixtures / file), Shape::parse(shape)};
  c.bytes.resize(c.shape.count() * dtype_size(t));
  return c;
}

std::vector<Cut> cuts(const fs::path& fx) {
  return {cut(fx, "isabel_cut_20x50x50.f32", DType::f32, "1024", "isabel1d"),
          cut(fx, "isabel_cut_20x50x50.f32", DType::f32, "24x40", "isabel2d"),
          cut(fx, "isabel_cut_20x50x50.f32", DType::f32, "4x8x32", "isabel3d"),
          cut(fx, "tem_4d_cut_2x2x64x64.f32", DType::f32, "2x2x8x32", "tem4d"),
          cut(fx, "ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x2x10x45", "ocean_nan4d"),
          cut(fx, "mpas_pressure_cut_20011.f64", DType::f64, "800", "mpas1d"),
          cut(fx, "s3d_chi_cut_25x25x25.f32", DType::f32, "4x10x25", "s3d3d")};
}

// Option variants per pipeline: the base options for any pipeline, and the choices a known
// pipeline records in its params.
std::vector<std::pair<std::string, CompressOptions>> variants(const std::string& p) {
  CompressOptions base;
  base.pipeline = p;
  base.device = Device::cpu;
  base.eb = {EbMode::rel, 1e-3};
  std::vector<std::pair<std::string, CompressOptions>> v{{"rel1e-3", base}};
  auto add = [&](const std::string& tag, const std::function<void(CompressOptions&)>& f) {
    CompressOptions o = base;
    f(o);
    v.emplace_back(tag, o);
  };
  add("abs1e-1_chunks", [](CompressOptions& o) {
    o.eb = {EbMode::abs, 1e-1};
    o.chunk_mb = 0.001;  // about 1 KiB per chunk: several chunks in a small stream
  });
  add("rel1e-6", [](CompressOptions& o) { o.eb = {EbMode::rel, 1e-6}; });
  if (p == "lorenzo") {
    for (const char* l : {"bitpack", "huffman", "rle", "rle+huffman", "zrle+huffman"})
      add(std::string("lossless_") + l, [&](CompressOptions& o) { o.lossless = parse_lossless(l); });
    for (const char* s : {"interp-cr", "interp-tp", "zrle+huffman,rze2", "rle,bit2,rre1"})
      add(std::string("stages_") + s, [&](CompressOptions& o) { o.stages = s; });
    add("radius4", [](CompressOptions& o) { o.radius = 4; });
  } else if (p == "szx") {
    add("block32", [](CompressOptions& o) { o.szx_block = 32; });
    add("block1024", [](CompressOptions& o) { o.szx_block = 1024; });
  } else if (p == "delta") {
    add("linear", [](CompressOptions& o) { o.delta_chain = DeltaChain::linear; });
    add("serpentine", [](CompressOptions& o) { o.delta_chain = DeltaChain::serpentine; });
  }
  return v;
}

// A stream's chunks in fuzz_chunk's layout.
void write_chunk_seeds(const std::vector<uint8_t>& stream, const fs::path& dir, const std::string& stem) {
  try {
    const ParsedStream ps = read_stream(stream);
    for (size_t i = 0; i < ps.chunks.size() && i < 2; ++i)
      if (const auto b = fuzz::write_chunk_input(ps.chunks[i]))
        write_file(dir / ("chunk-" + ps.chunks[i].header.pipeline) / (stem + "_c" + std::to_string(i)), *b);
  } catch (const Error& e) {
    std::cerr << "make_seeds: " << stem << ": " << e.what() << "\n";
  }
}

void stream_seeds(const fs::path& fixtures, const fs::path& golden, const fs::path& out) {
  for (const std::string& p : pipelines()) {
    for (const Cut& c : cuts(fixtures)) {
      for (const auto& [tag, opt] : variants(p)) {
        std::vector<uint8_t> s;
        try {
          s = compress({c.bytes.data(), c.dtype, c.shape}, opt);
        } catch (const Error& e) {  // an option this cut cannot take (e.g. a 1-byte alphabet)
          continue;
        }
        const std::string stem = p + "_" + c.name + "_" + tag;
        for (const char* run : {"container", "inspect"})
          if (tag == "rel1e-3" || tag == "abs1e-1_chunks") write_file(out / run / stem, s);
        write_file(out / ("decompress-" + p) / stem, s);
        write_chunk_seeds(s, out, stem);
      }
    }
  }
  if (!fs::exists(golden)) return;
  for (const auto& e : fs::directory_iterator(golden)) {
    if (e.path().extension() != ".sciz" || e.file_size() > kMaxGoldenSeed) continue;
    const auto s = read_file(e.path());
    const std::string stem = "golden_" + e.path().stem().string();
    const std::string p = e.path().stem().string().substr(0, e.path().stem().string().find('_'));
    for (const char* run : {"container", "inspect"}) write_file(out / run / stem, s);
    write_file(out / ("decompress-" + p) / stem, s);
    write_chunk_seeds(s, out, stem);
  }
}

// Quant codes of a smooth field at a few radii: what codes stages see in practice.
std::vector<uint8_t> code_bytes(const Cut& c, int width, uint32_t alphabet) {
  std::vector<uint8_t> out;
  const auto* v = reinterpret_cast<const float*>(c.bytes.data());
  const uint64_t n = std::min<uint64_t>(c.shape.count(), 3000);
  for (uint64_t i = 1; i < n; ++i) {
    const double d = std::nearbyint((v[i] - v[i - 1]) * 50.0);
    const int64_t q = std::clamp<int64_t>(static_cast<int64_t>(d) + alphabet / 2, 0, alphabet - 1);
    out.push_back(static_cast<uint8_t>(q));
    if (width == 2) out.push_back(static_cast<uint8_t>(q >> 8));
  }
  return out;
}

void stage_seeds(const fs::path& fixtures, const fs::path& out) {
  const Cut field = cut(fixtures, "isabel_cut_20x50x50.f32", DType::f32, "4x10x50", "isabel");
  const auto all = stages::all_stages();
  int k = 0;
  for (size_t si = 0; si < all.size(); ++si) {
    const stages::StageId id = all[si];
    for (int width : {1, 2}) {
      stages::Context ctx;
      ctx.code_width = static_cast<uint8_t>(width);
      ctx.alphabet = width == 1 ? 256 : 1024;
      ctx.centre = static_cast<uint16_t>(ctx.alphabet / 2);
      const bool codes = stages::family_of(id) == stages::Family::codes;
      if (!codes && width == 2) continue;  // byte stages ignore the context
      std::vector<std::vector<uint8_t>> inputs{code_bytes(field, width, ctx.alphabet)};
      if (!codes) {
        inputs.push_back(std::vector<uint8_t>(field.bytes.begin(), field.bytes.begin() + 3000));
        inputs.push_back(std::vector<uint8_t>(16500, 0));  // crosses a 16 KiB block
        inputs.push_back({1, 2, 3});
      }
      for (const auto& in : inputs) {
        std::vector<uint8_t> blob;
        try {
          blob = stages::encode_stage_cpu(id, in, ctx);
        } catch (const Error&) {
          continue;
        }
        std::vector<uint8_t> seed{static_cast<uint8_t>(si), static_cast<uint8_t>(width - 1)};
        const uint16_t a = static_cast<uint16_t>(ctx.alphabet - 1), c = ctx.centre;
        seed.insert(seed.end(), {uint8_t(a), uint8_t(a >> 8), uint8_t(c), uint8_t(c >> 8)});
        seed.insert(seed.end(), blob.begin(), blob.end());
        write_file(out / "stages" / ("stage_" + std::string(stages::stage_name(id)) + "_" + std::to_string(k++)), seed);
      }
    }
  }
  // Chains: the named interp lists and a few others, over 1-byte codes.
  for (const char* list : {"interp-cr", "interp-tp", "huffman,rze2", "rle+huffman,bit1", "tcms4,rre4"}) {
    const stages::Chain ch = stages::parse_chain(list);
    stages::Context ctx;
    ctx.code_width = 1;
    ctx.alphabet = 256;
    ctx.centre = 128;
    const auto in = code_bytes(field, 1, 256);
    const auto blob = stages::encode_cpu(ch, in, ctx);
    std::vector<uint8_t> seed{0x80, static_cast<uint8_t>(ch.size() - 1)};
    for (auto id : ch)
      for (size_t si = 0; si < all.size(); ++si)
        if (all[si] == id) seed.push_back(static_cast<uint8_t>(si));
    const uint32_t n = static_cast<uint32_t>(in.size());
    seed.insert(seed.end(), {0, 255, 0, 128, 0, uint8_t(n), uint8_t(n >> 8), uint8_t(n >> 16), uint8_t(n >> 24)});
    seed.insert(seed.end(), blob.begin(), blob.end());
    write_file(out / "stages" / (std::string("chain_") + list), seed);
  }
}

void npy_seeds(const fs::path& out) {
  auto npy = [&](const std::string& name, int major, const std::string& dict) {
    std::string h = dict;
    const size_t fixed = major == 1 ? 10 : 12;
    while ((fixed + h.size() + 1) % 64) h += ' ';
    h += '\n';
    std::vector<uint8_t> b{0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
    const uint32_t len = static_cast<uint32_t>(h.size());
    b.push_back(uint8_t(len));
    b.push_back(uint8_t(len >> 8));
    if (major > 1) b.insert(b.end(), {uint8_t(len >> 16), uint8_t(len >> 24)});
    b.insert(b.end(), h.begin(), h.end());
    b.insert(b.end(), 16, 0);  // a few data bytes
    write_file(out / "npy" / name, b);
  };
  npy("v1_f4_3d", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (20, 50, 50), }");
  npy("v1_f8_1d", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (20011,), }");
  npy("v2_f4_4d", 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 64, 64), }");
  npy("v3_f8_2d", 3, "{\"descr\": \"=f8\", \"shape\": [101, 201], \"fortran_order\": False}");
  npy("v1_fortran", 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }");
  npy("v1_bigendian", 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (7,), }");
  npy("v1_structured", 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2L,), }");
}

}  // namespace

// Refactored files of the cuts and the small mdr goldens (none yet: the ones of 2026 are
// 47 KB), for fuzz_mdr.
void mdr_seeds(const fs::path& fixtures, const fs::path& golden, const fs::path& out) {
  for (const Cut& c : cuts(fixtures)) {
    try {
      write_file(out / "mdr" / ("refactor_" + c.name), mdr::refactor({c.bytes.data(), c.dtype, c.shape}));
    } catch (const Error& e) {
      std::cerr << "make_seeds: mdr " << c.name << ": " << e.what() << "\n";
    }
  }
  if (!fs::exists(golden)) return;
  for (const auto& e : fs::directory_iterator(golden))
    if (e.path().extension() == ".szmd" && e.file_size() <= kMaxGoldenSeed)
      write_file(out / "mdr" / ("golden_" + e.path().stem().string()), read_file(e.path()));
}

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--pipelines") {
    for (const auto& p : pipelines()) std::printf("%s\n", p.c_str());
    return 0;
  }
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s --pipelines | FIXTURES GOLDEN OUT\n", argv[0]);
    return 2;
  }
  const fs::path fixtures = argv[1], golden = argv[2], out = argv[3];
  stream_seeds(fixtures, golden, out);
  stage_seeds(fixtures, out);
  npy_seeds(out);
  mdr_seeds(fixtures, golden, out);
  return 0;
}
