// The interp pipelines (`interp`, `interp-cr`, `interp-tp`, any stage list) across devices: the
// GPU writes the CPU's stream byte for byte (tuning, codes, the stage list chosen per chunk,
// outliers, exact values), either device decodes any interp stream to the same bits within
// the bound, from and into device memory too; and the CUDA twin below the pipeline gives the
// CPU twin's codes and lists for every configuration. Skipped without a device.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cstring>
#include <filesystem>
#include <limits>
#include <span>
#include <string>

#include "gpu/gpu_util.hpp"
#include "core/container.hpp"
#include "lossless/stages/registry.hpp"
#include "predict/interp/interp.hpp"
#include "support/shared_fields.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

template <class T>
constexpr DType dtype_of() {
  return sizeof(T) == 4 ? DType::f32 : DType::f64;
}

template <class T>
std::vector<T> decode(const std::vector<uint8_t>& st, uint64_t n, Device d) {
  std::vector<T> out(n);
  decompress(st, out.data(), n * sizeof(T), d);
  return out;
}

const char* const kNames[] = {"interp", "interp-cr", "interp-tp"};

template <class T>
void expect_interp_cross_device(const Shape& s, const std::vector<T>& x, ErrorBound eb, const std::string& what,
                                bool lorenzo = true, const std::string& pipeline = "interp",
                                const std::string& list = "") {
  SCOPED_TRACE(what + " " + pipeline + (list.empty() ? "" : " stages " + list) + " shape " + s.str() + " eb " +
               std::to_string(eb.value) + (eb.mode == EbMode::rel ? " rel" : " abs"));
  const uint64_t n = s.count(), bytes = n * sizeof(T);
  CompressOptions o;
  o.eb = eb;
  o.pipeline = pipeline;
  o.stages = list;
  o.interp_lorenzo = lorenzo;
  o.device = Device::cpu;
  const auto st_cpu = compress({x.data(), dtype_of<T>(), s}, o);
  o.device = Device::cuda;
  const auto st_gpu = compress({x.data(), dtype_of<T>(), s}, o);
  ASSERT_EQ(st_cpu.size(), st_gpu.size());
  ASSERT_TRUE(st_cpu == st_gpu) << "GPU stream differs from the CPU stream";

  const double eb_abs = inspect(st_cpu).eb_abs;
  const auto ref = decode<T>(st_cpu, n, Device::cpu);
  EXPECT_EQ(test::check_bound(x, ref, eb_abs), "");
  EXPECT_TRUE(test::same_bits(ref, decode<T>(st_cpu, n, Device::cuda))) << "GPU decode differs";

  auto d_x = test::upload(x);
  EXPECT_TRUE(compress({d_x.get(), dtype_of<T>(), s, true}, o) == st_cpu) << "stream from a device pointer differs";
  dev::Buffer<T> d_out(n, nullptr);
  decompress(st_cpu, d_out.get(), bytes, Device::cuda, true);
  EXPECT_TRUE(test::same_bits(ref, test::download(d_out.get(), n))) << "device output differs";

  // Device in, device stream out (the device-resident sections), and back device to device.
  const uint64_t cap = max_compressed_size(dtype_of<T>(), s, pipeline, o.chunk_mb);
  dev::Buffer<uint8_t> d_stream(cap, nullptr);
  const uint64_t size = compress_into({d_x.get(), dtype_of<T>(), s, true}, d_stream.get(), cap, true, o);
  EXPECT_TRUE(test::download(d_stream.get(), size) == st_cpu) << "device-resident stream differs";
  DecompressOptions d;
  d.device = Device::cuda;
  d.out_on_device = true;
  dev::Buffer<T> d_out2(n, nullptr);
  decompress(StreamView(d_stream.get(), size, true), d_out2.get(), bytes, d);
  EXPECT_TRUE(test::same_bits(ref, test::download(d_out2.get(), n))) << "device-resident decode differs";
}

}  // namespace

TEST(InterpCuda, StreamsEqualTheCpuStreams) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* str : {"1", "17", "18", "10007", "17x17", "101x103", "2x131", "17x13x67", "18x18x18", "3x5x7x33",
                          "64x64x64"}) {
    const Shape s = Shape::parse(str);
    for (ErrorBound eb : {ErrorBound{EbMode::rel, 1e-2}, ErrorBound{EbMode::rel, 1e-4}, ErrorBound{EbMode::abs, 1e-3},
                          ErrorBound{EbMode::abs, 1e-12}}) {
      expect_interp_cross_device<float>(s, test::smooth_field<float>(s, 1), eb, "smooth f32");
      expect_interp_cross_device<double>(s, test::smooth_field<double>(s, 2), eb, "smooth f64");
      expect_interp_cross_device<float>(s, test::random_field<float>(s.count(), 3, 5.0), eb, "random f32", false);
    }
  }
}

TEST(InterpCuda, SpecialValuesAndNanLand) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Shape s = Shape::parse("20x33x47");
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto x = test::smooth_field<float>(s, 9);
  for (uint64_t i = 0; i < x.size(); ++i) {
    if ((i / 47) % 6 == 2) x[i] = nan;
    if (i % 101 == 0) x[i] = inf;
    if (i % 103 == 1) x[i] = -inf;
    if (i % 107 == 2) x[i] = std::numeric_limits<float>::denorm_min();
    if (i % 211 == 5) x[i] = 1e30f;
  }
  expect_interp_cross_device<float>(s, x, {EbMode::rel, 1e-3}, "NaN/Inf/denormal/huge");
  expect_interp_cross_device<float>(s, std::vector<float>(s.count(), nan), {EbMode::rel, 1e-3}, "all NaN");
  expect_interp_cross_device<float>(s, std::vector<float>(s.count(), -4.25f), {EbMode::rel, 1e-3}, "constant");
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / "ocean_nanland_cut_1x4x45x90.f32");
  std::vector<float> ocean(4 * 45 * 90);
  ASSERT_EQ(raw.size(), ocean.size() * 4);
  std::memcpy(ocean.data(), raw.data(), raw.size());
  for (double rel : {1e-2, 1e-3, 1e-4})
    expect_interp_cross_device<float>(Shape::parse("1x4x45x90"), ocean, {EbMode::rel, rel}, "ocean NaN land");
}

TEST(InterpCuda, TwinEqualsCpuTwinForEveryConfiguration) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* str : {"1031", "33x35", "18x17x40"}) {
    const Shape sh = Shape::parse(str);
    const Extent e = effective_extent(sh);
    const interp::Layout L = interp::layout_of(e);
    auto x = test::smooth_field<float>(sh, 4);
    x[7] = std::numeric_limits<float>::quiet_NaN();
    const double eb = 0.01;
    auto d_x = test::upload(x);
    for (int scheme = 0; scheme < interp::kSchemes; ++scheme)
      for (int spline = 0; spline < interp::kSplines; ++spline) {
        SCOPED_TRACE(std::string(str) + " scheme " + std::to_string(scheme) + " spline " + std::to_string(spline));
        interp::TuneRequest r;
        r.spline = spline, r.scheme = scheme, r.alpha = 1.5, r.beta = 3;
        const interp::Choice ch = interp::tune_cpu<float>(x.data(), L, eb, r);
        EXPECT_EQ(interp::tune<float>(interp::gather_cuda<float>(d_x.get(), L, nullptr), L, eb, r).eb, ch.eb);
        std::vector<uint8_t> codes(L.total);
        interp::Sparse<float> sp, sg;
        interp::compress_cpu<float>(x.data(), L, ch, eb, codes.data(), sp);
        dev::Buffer<uint8_t> d_codes(L.total, nullptr);
        interp::compress_cuda<float>(d_x.get(), L, ch, eb, d_codes.get(), sg, nullptr);
        EXPECT_TRUE(test::download(d_codes.get(), L.total) == codes) << "codes differ";
        EXPECT_EQ(sp.outliers, sg.outliers);
        EXPECT_EQ(sp.exact_idx, sg.exact_idx);
        EXPECT_TRUE(test::same_bits(sp.exact_val, sg.exact_val));
        const interp::OutlierRanks rk = interp::check_sparse<float>(codes.data(), L, sp);
        std::vector<float> ref(L.total);
        interp::decompress_cpu<float>(codes.data(), sp, rk, L, ch, ref.data());
        dev::Buffer<float> d_out(L.total, nullptr);
        interp::decompress_cuda<float>(d_codes.get(), sp, L, ch, d_out.get(), nullptr);
        EXPECT_TRUE(test::same_bits(ref, test::download(d_out.get(), L.total))) << "decoded values differ";
      }
  }
}

// The tuner's block-level search on the GPU (gather_cuda's block_search) chooses what the
// host's does: every level's configuration, the bounds, the estimates bit for bit, on fields
// with NaN, at loose bounds (where the tightening candidates are tuned again) and tight ones,
// with every candidate and with one spline or scheme forced.
TEST(InterpCuda, GpuTunerChoosesWhatTheHostChooses) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* str : {"1031", "33x35", "18x17x40", "40x64x80", "3x70x90"}) {
    const Shape sh = Shape::parse(str);
    const interp::Layout L = interp::layout_of(effective_extent(sh));
    auto x = test::smooth_field<float>(sh, 5);
    for (size_t i = 3; i < x.size(); i += 577) x[i] = std::numeric_limits<float>::quiet_NaN();
    x[x.size() / 2] = std::numeric_limits<float>::infinity();
    auto d_x = test::upload(x);
    for (double eb : {0.1, 1e-2, 1e-4})
      for (int forced = 0; forced < 3; ++forced) {
        SCOPED_TRACE(std::string(str) + " eb " + std::to_string(eb) + " forced " + std::to_string(forced));
        interp::TuneRequest r;
        if (forced == 1) r.spline = interp::kLinear;
        if (forced == 2) r.scheme = interp::kCross;
        r.codes_bytes = [](std::span<const uint8_t> c) {
          uint64_t nz = 0;
          for (uint8_t v : c) nz += v != interp::kCentre;
          return nz + c.size() / 8;
        };
        const interp::TuneInput<float> host = interp::gather_cpu<float>(x.data(), L);
        const interp::TuneInput<float> dev = interp::gather_cuda<float>(d_x.get(), L, nullptr);
        ASSERT_TRUE(static_cast<bool>(dev.block_search));
        const interp::Choice a = interp::tune<float>(host, L, eb, r), b = interp::tune<float>(dev, L, eb, r);
        EXPECT_EQ(a.eb, b.eb);
        EXPECT_EQ(a.alpha, b.alpha);
        EXPECT_EQ(a.beta, b.beta);
        EXPECT_EQ(std::memcmp(&a.interp_bits, &b.interp_bits, sizeof(double)), 0);
        ASSERT_EQ(a.config.size(), b.config.size());
        for (size_t l = 0; l < a.config.size(); ++l)
          EXPECT_EQ(interp::pack_config(a.config[l]), interp::pack_config(b.config[l])) << "level " << l + 1;
      }
  }
}

namespace {

void expect_device_refusal(const char* pipeline, const std::string& what) {
  const Shape s = Shape::parse("9x10x11");
  auto x = test::smooth_field<float>(s, 14);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  CompressOptions o;
  o.eb = {EbMode::rel, 1e-3};
  o.pipeline = pipeline;
  o.interp_lorenzo = false;
  o.device = Device::cpu;
  auto st = compress({x.data(), DType::f32, s}, o);
  ParsedStream ps = read_stream(st);
  std::vector<ChunkOut> chunks(1);
  chunks[0].pipeline = ps.chunks[0].header.pipeline;
  chunks[0].params = ps.chunks[0].header.params;
  for (const auto& sv : ps.chunks[0].sections) chunks[0].sections.push_back({sv.id, {sv.bytes.begin(), sv.bytes.end()}});
  auto& p = chunks[0].params;
  for (auto& sec : chunks[0].sections) {
    if (what == "exact values on coded points" && sec.id == 3)
      sec.bytes[24] = static_cast<uint8_t>(sec.bytes[24] + 1);  // first run moves by one
    if (what == "codes blob" && sec.id == 1) sec.bytes[0] ^= 0x5a;  // the blob's declared size
  }
  if (what == "codes list swapped") {  // the list ends the params: interp-tp's, or interp-cr's for it
    const size_t at = 11 + 9 * size_t{p[2]};
    p.resize(at);
    const std::vector<uint8_t> tp{3, 1, 0x10, 0x20, 0x30}, cr{4, 1, 0x02, 0x32, 0x13, 0x40};
    const auto& l = std::string(pipeline) == "interp-tp" ? cr : tp;
    p.insert(p.end(), l.begin(), l.end());
  }
  const auto bad = write_stream(ps.header, ps.plan, chunks);
  auto d_stream = test::upload(bad);
  std::vector<float> sentinel(x.size(), 7.0f);
  auto d_out = test::upload(sentinel);
  DecompressOptions d;
  d.device = Device::cuda;
  d.out_on_device = true;
  try {
    decompress(StreamView(d_stream.get(), bad.size(), true), d_out.get(), x.size() * 4, d);
    ADD_FAILURE() << "hostile stream accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
  }
  EXPECT_TRUE(test::download(d_out.get(), x.size()) == sentinel) << "output written despite the failure";
}

}  // namespace

// Sections with valid checksums but hostile contents, decoded from device memory into device
// memory: refused as corrupt, the output untouched.
TEST(InterpCuda, DeviceResidentDecodeRefusesHostileSections) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* name : kNames)
    for (const char* what : {"exact values on coded points", "codes blob", "codes list swapped"}) {
      SCOPED_TRACE(std::string(name) + ": " + what);
      expect_device_refusal(name, what);
    }
}


TEST(InterpCuda, SharedDataEveryFieldEveryName) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto dir = test::shared_data_dir();
  if (!dir) GTEST_SKIP() << "../shared/data absent (fresh clone): extended test skipped";
  test::for_each_real_field(*dir, [](const test::RealField& f, const auto& x) {
    using T = typename std::decay_t<decltype(x)>::value_type;
    for (const char* name : kNames)  // the presets differ from interp in their list only: one bound
      for (double rel : name == std::string("interp") ? std::vector<double>{1e-2, 1e-3, 1e-4} : std::vector<double>{1e-3})
        expect_interp_cross_device<T>(f.shape, x, {EbMode::rel, rel}, f.name, true, name);
  });
}

// The real-field cuts in tests/fixtures, in chunks of a few rows too (each chunk picks its own
// list, and some fall back to Lorenzo), under each name.
TEST(InterpCuda, FixturesEveryName) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const auto& ent : std::filesystem::directory_iterator(SCIZ_FIXTURES_DIR)) {
    const std::string fn = ent.path().filename().string();
    const auto dot = fn.rfind('.'), us = fn.rfind('_');
    const Shape s = Shape::parse(fn.substr(us + 1, dot - us - 1));
    const auto raw = test::read_file(ent.path());
    for (const char* name : kNames)
      for (double rel : {1e-2, 1e-3, 1e-4}) {
        if (fn.substr(dot) == ".f64") {
          std::vector<double> x(s.count());
          ASSERT_EQ(raw.size(), x.size() * 8) << fn;
          std::memcpy(x.data(), raw.data(), raw.size());
          expect_interp_cross_device<double>(s, x, {EbMode::rel, rel}, fn, true, name);
        } else {
          std::vector<float> x(s.count());
          ASSERT_EQ(raw.size(), x.size() * 4) << fn;
          std::memcpy(x.data(), raw.data(), raw.size());
          expect_interp_cross_device<float>(s, x, {EbMode::rel, rel}, fn, true, name);
        }
      }
  }
}

TEST(InterpCuda, EveryStageAloneAndSomeListsWriteTheCpuBytes) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Shape s = Shape::parse("23x37x19");
  auto x = test::smooth_field<float>(s, 21);
  x[1] = std::numeric_limits<float>::quiet_NaN();
  x[x.size() / 3] = 1e5f;
  for (stages::StageId id : stages::all_stages())
    expect_interp_cross_device<float>(s, x, {EbMode::rel, 1e-3}, "one stage", false, "interp", stages::stage_name(id));
  for (const char* list : {"zrle+huffman,rze1", "huffman,rre4,tcms8,rze1", "tcms1,bit1,rre1", "rle,bit2,rze8",
                           "tcms4,bit4,rre2,rze1", "bitpack,tcms8,bit8"}) {
    expect_interp_cross_device<float>(s, x, {EbMode::rel, 1e-3}, "list", false, "interp", list);
    expect_interp_cross_device<float>(s, x, {EbMode::rel, 1e-3}, "list, fallback allowed", true, "interp", list);
  }
}
