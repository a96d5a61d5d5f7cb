// Format 5 on the GPU: lorenzo with stage lists of several stages writes the CPU's bytes from
// host and device inputs, into host and device memory, and either device decodes either
// stream to the same bits; a damaged list or section is refused on the device as on the CPU.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cstring>
#include <string>

#include "gpu/gpu_util.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

constexpr const char* kLists[] = {"interp-cr",         "interp-tp",     "zrle+huffman,rze1", "rle+huffman,tcms2,bit2,rre4",
                                  "bitpack,bit4,rze8", "tcms2,bit2,rre2,rze1", "huffman,rre1,rze1,rre2,rze2,rre4,rze4,rre8"};

template <class T>
constexpr DType dtype_of() {
  return sizeof(T) == 4 ? DType::f32 : DType::f64;
}

template <class T>
void expect_same_everywhere(const std::vector<T>& x, const Shape& s, ErrorBound eb, const char* list,
                            double chunk_mb = kDefaultChunkMiB) {
  SCOPED_TRACE(std::string(list) + " on " + s.str() + (chunk_mb < 1 ? " in chunks" : ""));
  const uint64_t n = x.size(), bytes = n * sizeof(T);
  CompressOptions o;
  o.eb = eb;
  o.stages = list;
  o.chunk_mb = chunk_mb;
  o.device = Device::cpu;
  const auto cpu = compress({x.data(), dtype_of<T>(), s}, o);
  o.device = Device::cuda;
  ASSERT_TRUE(compress({x.data(), dtype_of<T>(), s}, o) == cpu) << "GPU stream (host input) differs from the CPU's";
  auto d_x = test::upload(x);
  ASSERT_TRUE(compress({d_x.get(), dtype_of<T>(), s, true}, o) == cpu) << "GPU stream (device input) differs";
  const DeviceBuffer d_st = compress_to_device({d_x.get(), dtype_of<T>(), s, true}, o);
  ASSERT_EQ(d_st.size(), cpu.size());
  EXPECT_TRUE(test::download(static_cast<const uint8_t*>(d_st.data()), d_st.size()) == cpu)
      << "device-resident stream differs";

  std::vector<T> ref(n), got(n);
  decompress(cpu, ref.data(), bytes, Device::cpu);
  EXPECT_EQ(test::check_bound(x, ref, inspect(cpu).eb_abs), "");
  decompress(cpu, got.data(), bytes, Device::cuda);
  EXPECT_TRUE(test::same_bits(ref, got)) << "GPU decode of a host stream differs";
  dev::Buffer<T> d_out(n, nullptr);
  decompress(d_st.view(), d_out.get(), bytes, DecompressOptions{Device::cuda, true, nullptr});
  EXPECT_TRUE(test::same_bits(ref, test::download(d_out.get(), n))) << "device-resident decode differs";
}

template <class T>
std::vector<T> fixture(const char* file) {
  const auto raw = test::read_file(std::filesystem::path(SCIZ_FIXTURES_DIR) / file);
  std::vector<T> x(raw.size() / sizeof(T));
  std::memcpy(x.data(), raw.data(), x.size() * sizeof(T));
  return x;
}

}  // namespace

TEST(LorenzoStagesGpu, MultiStageListsWriteTheCpuBytes) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto iso = fixture<float>("isabel_cut_20x50x50.f32");
  const auto ocean = fixture<float>("ocean_nanland_cut_1x4x45x90.f32");
  const auto mpas = fixture<double>("mpas_pressure_cut_20011.f64");
  for (const char* list : kLists) {
    expect_same_everywhere(iso, Shape::parse("20x50x50"), {EbMode::rel, 1e-3}, list);
    expect_same_everywhere(iso, Shape::parse("20x50x50"), {EbMode::rel, 1e-2}, list, 0.05);
    expect_same_everywhere(ocean, Shape::parse("1x4x45x90"), {EbMode::rel, 1e-2}, list);
    expect_same_everywhere(mpas, Shape::parse("20011"), {EbMode::abs, 0.5}, list, 0.03);
  }
  // Larger than a 16 KiB stage block many times over, and the alphabet of radius 128.
  const Shape big = Shape::parse("64x96x96");
  const auto x = test::smooth_field<float>(big, 4);
  for (const char* list : {"interp-cr", "interp-tp"}) expect_same_everywhere(x, big, {EbMode::rel, 1e-4}, list);
}

TEST(LorenzoStagesGpu, DamagedStreamsAreRefusedOnTheDevice) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto x = fixture<float>("isabel_cut_20x50x50.f32");
  const Shape s = Shape::parse("20x50x50");
  CompressOptions o;
  o.device = Device::cpu;
  for (const char* list : {"interp-cr", "interp-tp"}) {
    SCOPED_TRACE(list);
    o.stages = list;
    const auto st = compress({x.data(), DType::f32, s}, o);
    std::vector<float> y(x.size());
    for (uint64_t at = 0; at < st.size(); at += 97) {
      auto bad = st;
      bad[at] ^= 0x10;
      const Status c = test::status_of([&] { decompress(bad, y.data(), y.size() * 4, Device::cpu); });
      const Status g = test::status_of([&] { decompress(bad, y.data(), y.size() * 4, Device::cuda); });
      auto d_bad = test::upload(bad);
      dev::Buffer<float> d_out(x.size(), nullptr);
      const Status d = test::status_of([&] {
        decompress(StreamView(d_bad.get(), bad.size(), true), d_out.get(), x.size() * 4,
                   DecompressOptions{Device::cuda, true, nullptr});
      });
      EXPECT_NE(c, Status::ok) << "byte " << at;
      EXPECT_EQ(g, c) << "byte " << at;
      EXPECT_EQ(d, c) << "byte " << at;
    }
  }
}
