// The golden streams (tests/golden): each names its fixture and the options that wrote it.
// Shared by the CPU suite (decode, re-encode) and the GPU suite (decode, re-encode on the device).
#pragma once
#include <sciz/sciz.hpp>

#include <filesystem>

namespace sciz::test {

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
// interp and its presets (format 5, stage lists of 1-byte codes), each with its defaults.
inline Golden interp_golden(const char* fixture, DType dtype, const char* dims, EbMode mode, double eb,
                           const char* name, const char* pipeline, double chunk_mb = kDefaultChunkMiB) {
  return {fixture, dtype, dims, mode, eb, name, Lossless::auto_select, true, pipeline, 128, chunk_mb};
}
// A golden of the current format that an earlier encoder wrote: it must decode, and the
// encoder need not reproduce it.
inline Golden decode_only(Golden g) {
  g.current = false;
  return g;
}
inline const Golden kGoldens[] = {
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
    // interp joins format 5 with its stage lists: `interp` chose zrle+huffman,rze1 on s3d,
    // huffman on mpas and interp-cr on the tem chunks; the md chunks are of both predictors
    // (GoldenInterp.CoverEveryKindOfChunk holds them to it).
    interp_golden("s3d_chi_cut_25x25x25.f32", DType::f32, "25x25x25", EbMode::rel, 1e-3, "interp_v5_s3d_f32_rel1e-3",
                  "interp"),
    interp_golden("mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::rel, 1e-4, "interp_v5_mpas_f64_rel1e-4",
                  "interp"),
    interp_golden("md_traj_cut_20x3341.f32", DType::f32, "20x3341", EbMode::rel, 1e-2,
                  "interp_v5_md_traj_f32_rel1e-2_chunks", "interp", 0.02),
    decode_only(interp_golden("tem_4d_cut_2x2x64x64.f32", DType::f32, "4x64x64", EbMode::rel, 1e-3,
                              "interp_v5_tem_f32_rel1e-3_chunks", "interp", 0.02)),
    interp_golden("s3d_chi_cut_25x25x25.f32", DType::f32, "25x25x25", EbMode::rel, 1e-2, "interp-cr_v5_s3d_f32_rel1e-2",
                  "interp-cr"),
    interp_golden("mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::abs, 0.5, "interp-cr_v5_mpas_f64_abs0.5",
                  "interp-cr"),
    decode_only(interp_golden("ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2,
                              "interp-tp_v5_ocean_nan_f32_rel1e-2", "interp-tp")),
    interp_golden("mpas_pressure_cut_20011.f64", DType::f64, "20011", EbMode::rel, 1e-3, "interp-tp_v5_mpas_f64_rel1e-3",
                  "interp-tp"),
    // The same two after the tuner's small-field budget (fields below 2^16 points sample at most
    // an eighth of their points) changed their choices; the two above, written before, still
    // decode.
    interp_golden("tem_4d_cut_2x2x64x64.f32", DType::f32, "4x64x64", EbMode::rel, 1e-3,
                  "interp_v5_tem_f32_rel1e-3_chunks_small_tune", "interp", 0.02),
    interp_golden("ocean_nanland_cut_1x4x45x90.f32", DType::f32, "1x4x45x90", EbMode::rel, 1e-2,
                  "interp-tp_v5_ocean_nan_f32_rel1e-2_small_tune", "interp-tp"),
};

// The options that wrote a golden, on the given device.
inline CompressOptions golden_options(const Golden& g, Device device) {
  CompressOptions o;
  o.eb = {g.mode, g.eb};
  o.device = device;
  o.lossless = g.lossless;
  o.pipeline = g.pipeline;
  o.szx_block = g.szx_block;
  o.chunk_mb = g.chunk_mb;
  o.stages = g.stages;
  return o;
}

inline const std::filesystem::path kGoldenDir = std::filesystem::path(SCIZ_FIXTURES_DIR).parent_path() / "golden";

}  // namespace sciz::test
