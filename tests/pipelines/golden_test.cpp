// Golden streams: streams written by a released format version must decode forever, to the
// same bits. Each golden is decoded and its output digest compared with the recorded one;
// goldens of the current version are also re-compressed from the fixture, to catch silent
// encoder changes within a version.
// Regenerate (only when adding a new golden): SCIZ_WRITE_GOLDEN=1 ./sciz_tests --gtest_filter=Golden.*
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "core/checksum.hpp"
#include "lossless/stages/registry.hpp"
#include "support/test_data.hpp"

using namespace sciz;
namespace fs = std::filesystem;

namespace {
struct Golden {
  const char* fixture;
  DType dtype;
  const char* dims;
  EbMode mode;
  double eb;
  const char* name;
  Lossless lossless = Lossless::auto_select;
  bool current = true;  // written by this format version: the encoder must reproduce it
  const char* pipeline = "lorenzo";
  uint32_t szx_block = 128;
  double chunk_mb = kDefaultChunkMiB;  // format 4: small values cut the fixture into several chunks
  const char* stages = "";             // format 5: lorenzo's stage list
};
const Golden kGoldens[] = {
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "lorenzo_v1_isabel_f32_rel1e-3",
     Lossless::bitpack, false},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2, "lorenzo_v1_ocean_nan_f32_rel1e-2",
     Lossless::bitpack, false},
    {"mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::abs, 0.5, "lorenzo_v1_mpas_f64_abs0.5",
     Lossless::bitpack, false},
    // Version 2 (section checksums plain xxh64): they must still decode.
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "lorenzo_v2_isabel_f32_rel1e-3_auto",
     Lossless::auto_select, false},
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-2, "lorenzo_v2_isabel_f32_rel1e-2_rle",
     Lossless::rle, false},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2,
     "lorenzo_v2_ocean_nan_f32_rel1e-2_rle+huffman", Lossless::rle_huffman, false},
    {"mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::abs, 0.5, "lorenzo_v2_mpas_f64_abs0.5_huffman",
     Lossless::huffman, false},
    {"etopo_cut_101x201.f32", DType::f32, "101x201", EbMode::rel, 1e-4, "lorenzo_v2_etopo_f32_rel1e-4_bitpack",
     Lossless::bitpack, false},
    {"s3d_chi_cut_25x25x25.f32", DType::f32, "25x25x25", EbMode::rel, 1e-2, "lorenzo_v2_s3d_f32_rel1e-2_zrle+huffman",
     Lossless::zrle_huffman, false},
    // Linear-chain streams of 3-D / 4-D fields (written before the serpentine chain existed).
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "delta_v2_isabel_f32_rel1e-3",
     Lossless::auto_select, false, "delta"},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2, "delta_v2_ocean_nan_f32_rel1e-2",
     Lossless::auto_select, false, "delta"},
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "delta_v2_serpentine_isabel_f32_rel1e-3",
     Lossless::auto_select, false, "delta"},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2,
     "delta_v2_serpentine_ocean_nan_f32_rel1e-2", Lossless::auto_select, false, "delta"},
    {"mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::rel, 1e-4, "delta_v2_mpas_f64_rel1e-4",
     Lossless::auto_select, false, "delta"},
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "szx_v2_isabel_f32_rel1e-3",
     Lossless::auto_select, false, "szx"},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2, "szx_v2_ocean_nan_f32_rel1e-2",
     Lossless::auto_select, false, "szx"},
    {"mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::rel, 1e-4, "szx_v2_mpas_f64_rel1e-4",
     Lossless::auto_select, false, "szx"},
    {"s3d_chi_cut_25x25x25.f32", DType::f32, "25x25x25", EbMode::rel, 1e-2, "szx_v2_s3d_f32_rel1e-2_block1024",
     Lossless::auto_select, false, "szx", 1024},
    // Version 3 (chunked section checksums of 1 MiB blocks): they must still decode.
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "lorenzo_v3_isabel_f32_rel1e-3_auto",
     Lossless::auto_select, false},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2,
     "lorenzo_v3_ocean_nan_f32_rel1e-2_rle+huffman", Lossless::rle_huffman, false},
    {"mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::abs, 0.5, "lorenzo_v3_mpas_f64_abs0.5_huffman",
     Lossless::huffman, false},
    {"s3d_chi_cut_25x25x25.f32", DType::f32, "25x25x25", EbMode::rel, 1e-2, "lorenzo_v3_s3d_f32_rel1e-2_zrle+huffman",
     Lossless::zrle_huffman, false},
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "delta_v3_serpentine_isabel_f32_rel1e-3",
     Lossless::auto_select, false, "delta"},
    {"mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::rel, 1e-4, "delta_v3_mpas_f64_rel1e-4",
     Lossless::auto_select, false, "delta"},
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "szx_v3_isabel_f32_rel1e-3",
     Lossless::auto_select, false, "szx"},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2, "szx_v3_ocean_nan_f32_rel1e-2",
     Lossless::auto_select, false, "szx"},
    // Version 4 (chunks along the slowest axis, 16 KiB digest blocks): they must still decode.
    // The "chunks" ones hold several chunks each.
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "lorenzo_v4_isabel_f32_rel1e-3_auto",
     Lossless::auto_select, false},
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "lorenzo_v4_isabel_f32_rel1e-3_chunks",
     Lossless::auto_select, false, "lorenzo", 128, 0.05},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2,
     "lorenzo_v4_ocean_nan_f32_rel1e-2_rle+huffman", Lossless::rle_huffman, false},
    {"mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::abs, 0.5, "lorenzo_v4_mpas_f64_abs0.5_huffman_chunks",
     Lossless::huffman, false, "lorenzo", 128, 0.03},
    {"s3d_chi_cut_25x25x25.f32", DType::f32, "25x25x25", EbMode::rel, 1e-2, "lorenzo_v4_s3d_f32_rel1e-2_zrle+huffman",
     Lossless::zrle_huffman, false},
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "delta_v4_serpentine_isabel_f32_rel1e-3_chunks",
     Lossless::auto_select, false, "delta", 128, 0.05},
    {"mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::rel, 1e-4, "delta_v4_mpas_f64_rel1e-4",
     Lossless::auto_select, false, "delta"},
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "szx_v4_isabel_f32_rel1e-3",
     Lossless::auto_select, false, "szx"},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "4x45x90", EbMode::rel, 1e-2, "szx_v4_ocean_nan_f32_rel1e-2_chunks",
     Lossless::auto_select, false, "szx", 128, 0.01},
    // Version 5 (lorenzo's params record a stage list; szx writes its layout 2, bit-aligned kept
    // patterns and short bases, named by its params; delta changed only its version field):
    // the encoder must reproduce these.
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "lorenzo_v5_isabel_f32_rel1e-3_auto"},
    {"s3d_chi_cut_25x25x25.f32", DType::f32, "25x25x25", EbMode::rel, 1e-2, "lorenzo_v5_s3d_f32_rel1e-2_interp-cr",
     Lossless::auto_select, true, "lorenzo", 128, kDefaultChunkMiB, "huffman,rre4,tcms8,rze1"},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2,
     "lorenzo_v5_ocean_nan_f32_rel1e-2_interp-tp", Lossless::auto_select, true, "lorenzo", 128, kDefaultChunkMiB,
     "interp-tp"},
    {"mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::abs, 0.5, "lorenzo_v5_mpas_f64_abs0.5_zrle-rze2_chunks",
     Lossless::auto_select, true, "lorenzo", 128, 0.03, "zrle+huffman,rze2"},
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "lorenzo_v5_isabel_f32_rel1e-3_rle_chunks",
     Lossless::rle, true, "lorenzo", 128, 0.05},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2,
     "lorenzo_v5_ocean_nan_f32_rel1e-2_rle+huffman", Lossless::rle_huffman},
    {"mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::rel, 1e-4, "delta_v5_mpas_f64_rel1e-4",
     Lossless::auto_select, true, "delta"},
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "delta_v5_serpentine_isabel_f32_rel1e-3_chunks",
     Lossless::auto_select, true, "delta", 128, 0.05},
    // szx layout 1 inside a version-5 container (written while layout 2 was on another branch):
    // decode-only, and a reader picks the layout from the params, not the version.
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "4x45x90", EbMode::rel, 1e-2, "szx_v5_ocean_nan_f32_rel1e-2_chunks",
     Lossless::auto_select, false, "szx", 128, 0.01},
    {"isabel_cut_20x50x50.f32", DType::f32, "20x50x50", EbMode::rel, 1e-3, "szx_v5_isabel_f32_rel1e-3",
     Lossless::auto_select, true, "szx"},
    {"mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::rel, 1e-4, "szx_v5_mpas_f64_rel1e-4",
     Lossless::auto_select, true, "szx"},
    {"s3d_chi_cut_25x25x25.f32", DType::f32, "25x25x25", EbMode::rel, 1e-2, "szx_v5_s3d_f32_rel1e-2_block1024",
     Lossless::auto_select, true, "szx", 1024},
    {"ocean_nanland_cut_1x4x45x90.f32", DType::f32, "4x45x90", EbMode::rel, 1e-3, "szx_v5_ocean_nan_f32_rel1e-3_chunks",
     Lossless::auto_select, true, "szx", 128, 0.01},
};
const fs::path kDir = fs::path(SCIZ_FIXTURES_DIR).parent_path() / "golden";
}  // namespace

TEST(Golden, DecodesToRecordedBitsAndEncoderIsStable) {
  const bool write = std::getenv("SCIZ_WRITE_GOLDEN") != nullptr;
  for (const auto& g : kGoldens) {
    SCOPED_TRACE(g.name);
    const auto raw = test::read_file(fs::path(SCIZ_FIXTURES_DIR) / g.fixture);
    const Shape s = Shape::parse(g.dims);
    ASSERT_EQ(raw.size(), s.count() * dtype_size(g.dtype));
    CompressOptions o;
    o.eb = {g.mode, g.eb};
    o.device = Device::cpu;
    o.lossless = g.lossless;
    o.pipeline = g.pipeline;
    o.szx_block = g.szx_block;
    o.chunk_mb = g.chunk_mb;
    o.stages = g.stages;
    const auto fresh = compress({raw.data(), g.dtype, s}, o);
    const fs::path sp = kDir / (std::string(g.name) + ".sciz"), dp = kDir / (std::string(g.name) + ".xxh64");
    if (write && g.current && !fs::exists(sp)) {
      std::vector<uint8_t> dec(raw.size());
      decompress(fresh, dec.data(), dec.size(), Device::cpu);
      std::ofstream(sp, std::ios::binary).write(reinterpret_cast<const char*>(fresh.data()), fresh.size());
      std::ofstream(dp) << std::hex << xxh64(dec.data(), dec.size()) << "\n";
    }
    const auto golden = test::read_file(sp);
    ASSERT_FALSE(golden.empty()) << "missing " << sp;
    std::ifstream df(dp);
    std::string digest;
    df >> digest;
    std::vector<uint8_t> dec(raw.size());
    decompress(golden, dec.data(), dec.size(), Device::cpu);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(xxh64(dec.data(), dec.size())));
    EXPECT_EQ(digest, buf) << "golden stream no longer decodes to the recorded bits";
    const StreamInfo info = inspect(golden);
    const double eb = info.eb_abs;
    if (g.chunk_mb < 1) EXPECT_GT(info.chunks.size(), 1u) << "a chunked golden must hold several chunks";
    // Every version's params read as a stage list: format 1 to 4's lossless byte as one stage.
    if (info.chunks[0].pipeline == "lorenzo" && (*g.stages || g.lossless != Lossless::auto_select)) {
      std::string list;
      for (const auto& [k, v] : info.params)
        if (k == "stages") list = v;
      const std::string want = *g.stages ? stages::chain_name(stages::parse_chain(g.stages)) : lossless_name(g.lossless);
      EXPECT_EQ(list, want + " (2-byte codes)");
    }
    if (g.dtype == DType::f32) {
      std::vector<float> a(s.count()), b(s.count());
      std::memcpy(a.data(), raw.data(), raw.size());
      std::memcpy(b.data(), dec.data(), dec.size());
      EXPECT_EQ(test::check_bound(a, b, eb), "");
    } else {
      std::vector<double> a(s.count()), b(s.count());
      std::memcpy(a.data(), raw.data(), raw.size());
      std::memcpy(b.data(), dec.data(), dec.size());
      EXPECT_EQ(test::check_bound(a, b, eb), "");
    }
    if (g.current)
      EXPECT_TRUE(fresh == golden) << "encoder output changed within the format version: bump it and add a golden";
  }
}
