// Device-resident lorenzo sections: compress_device writes sections 1-3 byte for byte as the
// CPU twin and the pipeline do, for every stage and auto, f32 and f64, 1-D to 4-D, sizes off
// the tile, outliers, exact values (NaN/Inf, bound misses), constant fields and the real-field
// fixtures; decompress_device of the CPU's sections gives decompress_cpu's bits; and damaged
// sections get the CPU decoders' verdict: refused (st set, a poisoned output untouched) where
// the CPU refuses, the CPU's bits where it accepts.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include "core/exact_runs.hpp"
#include "core/geometry.hpp"
#include "core/sparse_io.hpp"
#include "gpu/gpu_util.hpp"
#include "lossless/codes/codes.hpp"
#include "predict/lorenzo/lorenzo.hpp"
#include "predict/lorenzo/lorenzo_cuda.cuh"
#include "support/shared_fields.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

struct Sections {
  Lossless stage = Lossless::auto_select;
  std::vector<uint8_t> codes, outliers, exact;
};

template <class T>
struct Case {
  Extent e;
  TileShape t;
  lorenzo::QuantParams<T> p;
  uint32_t alphabet;
  uint16_t centre;
  uint64_t n() const { return e.count(); }
  uint64_t slots() const { return tile_grid(e, t).count() * t.volume(); }
};

template <class T>
Case<T> make_case(const Shape& s, double eb, int32_t radius) {
  Case<T> c;
  c.e = effective_extent(s);
  c.t = lorenzo::default_tile(c.e.ndim);
  c.p = lorenzo::make_params<T>(eb, radius);
  c.alphabet = 2 * static_cast<uint32_t>(radius);
  c.centre = static_cast<uint16_t>(radius);  // 32768 for the largest radius, as the pipeline
  return c;
}

// What the pipeline writes on the CPU.
template <class T>
Sections cpu_sections(const std::vector<T>& x, const Case<T>& c, Lossless choice) {
  std::vector<uint16_t> codes(c.n());
  lorenzo::Sparse<T> sp;
  lorenzo::compress_cpu<T>(x.data(), c.e, c.t, c.p, codes.data(), sp);
  codes::Encoded enc = codes::encode_cpu(codes, c.alphabet, c.centre, choice);
  return {enc.stage, std::move(enc.bytes), write_sparse(sp.outlier_idx, sp.outlier_val, c.slots()),
          write_runs(sp.exact_idx, sp.exact_val)};
}

template <class T>
Sections gpu_sections(const T* d_x, const Case<T>& c, Lossless choice) {
  lorenzo::DeviceSectionsOut out =
      lorenzo::compress_device<T>(d_x, c.e, c.t, c.p, c.alphabet, c.centre, choice, nullptr);
  Sections r{*out.stage, test::download(out.codes.get(), out.codes_size), test::download(out.outliers.get(), out.outliers_size),
             test::download(out.exact.get(), out.exact_size)};
  const DeviceStatus chk = test::download(out.check.get(), 1)[0];
  EXPECT_EQ(chk.code, 0u) << device_status_message(chk);
  return r;
}

// The CPU decoders' verdict on sections: the values, or nullopt where they refuse.
template <class T>
std::optional<std::vector<T>> cpu_decode(const Sections& sec, const Case<T>& c) {
  try {
    std::vector<uint16_t> codes(c.n());
    codes::decode_cpu(sec.stage, sec.codes, codes);
    lorenzo::Sparse<T> sp;
    read_sparse(sec.outliers, c.slots(), "outliers section", sp.outlier_idx, sp.outlier_val);
    read_runs(sec.exact, c.n(), "exact-values section", sp.exact_idx, sp.exact_val);
    std::vector<T> out(c.n());
    lorenzo::decompress_cpu<T>(codes.data(), sp, c.e, c.t, c.p, out.data());
    return out;
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
    return std::nullopt;
  }
}

// A section on the device `lead` bytes into its buffer (0: aligned; odd: as a section may sit
// inside a stream).
struct OnDevice {
  dev::Buffer<uint8_t> buf;
  uint64_t lead, size;
  OnDevice(const std::vector<uint8_t>& b, uint64_t lead_) : buf(b.size() + lead_, nullptr), lead(lead_), size(b.size()) {
    std::vector<uint8_t> h(lead + b.size(), 0xA5);
    std::copy(b.begin(), b.end(), h.begin() + static_cast<std::ptrdiff_t>(lead));
    dev::copy_to_device(buf.get(), h.data(), h.size(), nullptr);
  }
  DeviceSpan span() const { return {buf.get() + lead, size}; }
};

template <class T>
T poison() {
  T v;
  std::memset(&v, 0x7B, sizeof v);
  return v;
}

// decompress_device on uploaded sections into a poisoned output: the status and the output.
template <class T>
std::pair<DeviceStatus, std::vector<T>> gpu_decode(const Sections& sec, const Case<T>& c, uint64_t lead) {
  const OnDevice a(sec.codes, lead), b(sec.outliers, lead), x(sec.exact, lead);
  auto d_out = test::upload(std::vector<T>(c.n(), poison<T>()));
  auto st = test::upload(std::vector<DeviceStatus>(1));
  lorenzo::decompress_device<T>(a.span(), b.span(), x.span(), sec.stage, c.e, c.t, c.p, d_out.get(), st.get(), nullptr);
  return {test::download(st.get(), 1)[0], test::download(d_out.get(), c.n())};
}

template <class T>
bool all_poison(const std::vector<T>& v) {
  const T p = poison<T>();
  for (const T& x : v)
    if (std::memcmp(&x, &p, sizeof(T)) != 0) return false;
  return true;
}

// GPU sections == CPU sections, and the GPU decodes them to the CPU's bits.
template <class T>
void expect_twins(const Shape& s, const std::vector<T>& x, double eb, int32_t radius, Lossless choice,
                  const std::string& what, const T* d_x = nullptr) {
  SCOPED_TRACE(what + " shape " + s.str() + " eb " + std::to_string(eb) + " radius " + std::to_string(radius) + " " +
               lossless_name(choice) + (sizeof(T) == 4 ? " f32" : " f64"));
  const Case<T> c = make_case<T>(s, eb, radius);
  const Sections cpu = cpu_sections(x, c, choice);
  dev::Buffer<T> uploaded;
  if (!d_x) {
    uploaded = test::upload(x);
    d_x = uploaded.get();
  }
  const Sections gpu = gpu_sections<T>(d_x, c, choice);
  ASSERT_EQ(lossless_name(gpu.stage), std::string(lossless_name(cpu.stage)));
  ASSERT_EQ(gpu.codes.size(), cpu.codes.size()) << "codes section size";
  ASSERT_TRUE(gpu.codes == cpu.codes) << "codes section differs";
  ASSERT_TRUE(gpu.outliers == cpu.outliers) << "outliers section differs";
  ASSERT_TRUE(gpu.exact == cpu.exact) << "exact section differs";
  const auto want = cpu_decode(cpu, c);
  ASSERT_TRUE(want.has_value());
  for (uint64_t lead : {0, 3}) {
    const auto [st, got] = gpu_decode(cpu, c, lead);
    ASSERT_EQ(st.code, 0u) << device_status_message(st) << " (lead " << lead << ")";
    ASSERT_TRUE(test::same_bits(*want, got)) << "decoded values differ (lead " << lead << ")";
  }
}

const std::vector<Lossless>& choices() {
  static const std::vector<Lossless> v = {Lossless::auto_select, Lossless::huffman,      Lossless::zrle_huffman,
                                          Lossless::rle_huffman, Lossless::rle,          Lossless::bitpack};
  return v;
}

const std::vector<std::string>& shapes() {
  static const std::vector<std::string> s = {
      "1", "7", "2047", "2049", "10007", "70001",               // 1-D, tile 2048; zrle/rle tiles of 65536
      "1x2", "31x33", "33x31", "101x103", "1x1x67x5", "300x301",  // 2-D, tile 32x32
      "2x3x5", "9x9x33", "17x13x67", "3x1x11x97", "20x40x90",    // 3-D, tile 8x8x32
      "3x5x7x33", "2x9x9x40"};                                   // 4-D: a stack of volumes
  return s;
}

// NaN masks (whole rows, row starts and ends), infinities, values beyond the prequant range and
// denormals: the row fill rule and the exact runs.
template <class T>
std::vector<T> special_field(const Shape& s, uint32_t seed) {
  auto x = test::smooth_field<T>(s, seed);
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const uint64_t nx = s.dims.back();
  for (uint64_t i = 0; i < x.size(); ++i) {
    const uint64_t row = i / nx, col = i % nx;
    if (row % 7 == 3) x[i] = nan;
    else if (row % 5 == 1 && col < nx / 3) x[i] = nan;
    else if (row % 5 == 2 && col > nx / 2) x[i] = -nan;
    else if (i % 97 == 5) x[i] = inf;
    else if (i % 89 == 7) x[i] = -inf;
    else if (i % 83 == 11) x[i] = static_cast<T>(1e30);
    else if (i % 79 == 13) x[i] = std::numeric_limits<T>::denorm_min();
  }
  return x;
}

template <class T>
void sweep() {
  for (const auto& str : shapes()) {
    const Shape s = Shape::parse(str);
    const auto smooth = test::smooth_field<T>(s, 11);
    const auto noise = test::random_field<T>(s.count(), 12, 10.0);
    for (Lossless l : choices()) {
      expect_twins<T>(s, smooth, 1e-3, 512, l, "smooth");
      expect_twins<T>(s, noise, 1e-2, 2, l, "random, radius 2 (outliers)");
      if (::testing::Test::HasFatalFailure()) return;
    }
    expect_twins<T>(s, smooth, 1e-1, 512, Lossless::auto_select, "smooth, loose");
    expect_twins<T>(s, noise, 1e-4, 512, Lossless::auto_select, "random, tight");
    expect_twins<T>(s, smooth, 1e-2, lorenzo::kMaxRadius, Lossless::auto_select, "smooth, max radius");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

template <class T>
double finite_range(const std::vector<T>& x) {
  double lo = INFINITY, hi = -INFINITY;
  for (T v : x)
    if (std::isfinite(v)) lo = std::min<double>(lo, v), hi = std::max<double>(hi, v);
  return hi > lo ? hi - lo : 1.0;
}

}  // namespace

TEST(LorenzoDevice, SectionsMatchCpuF32) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  sweep<float>();
}

TEST(LorenzoDevice, SectionsMatchCpuF64) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  sweep<double>();
}

TEST(LorenzoDevice, SpecialValuesAndConstantFields) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* str : {"5000", "70003", "64x70", "9x17x70", "2x3x9x40"}) {
    const Shape s = Shape::parse(str);
    for (Lossless l : choices()) {
      expect_twins<float>(s, special_field<float>(s, 5), 1e-2, 512, l, "special");
      expect_twins<double>(s, special_field<double>(s, 6), 1e-2, 512, l, "special");
      expect_twins<float>(s, std::vector<float>(s.count(), std::numeric_limits<float>::quiet_NaN()), 1e-2, 512, l,
                          "all NaN");
      expect_twins<float>(s, std::vector<float>(s.count(), 2.5f), 1e-3, 512, l, "constant");
      expect_twins<double>(s, std::vector<double>(s.count(), -7.0), 1e-3, 512, l, "constant");
      // eb about an ulp of the values: float reconstructions miss the bound by rounding (kept d)
      expect_twins<float>(s, test::random_field<float>(s.count(), 7, 10.0), 1e-6, 512, l, "bound misses");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(LorenzoDevice, SparseOverflowRerun) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  // 2M points; the first capacity is 2^20 entries per list.
  const Shape s = Shape::parse("64x128x256");
  const auto noise = test::random_field<float>(s.count(), 21, 100.0);
  expect_twins<float>(s, noise, 1e-3, 1, Lossless::auto_select, "outliers overflow");
  auto masked = noise;
  for (uint64_t i = 0; i < masked.size(); ++i)
    if (i % 4) masked[i] = std::numeric_limits<float>::infinity();
  expect_twins<float>(s, masked, 1e-3, 512, Lossless::zrle_huffman, "exact values overflow");
}

TEST(LorenzoDevice, RealFixtures) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  test::for_each_real_field(SCIZ_FIXTURES_DIR, [](const test::RealField& f, const auto& x) {
    using T = typename std::decay_t<decltype(x)>::value_type;
    const double range = finite_range(x);
    for (double rel : {1e-2, 1e-3, 1e-4})
      for (Lossless l : choices()) expect_twins<T>(f.shape, x, rel * range, 512, l, f.name);
  });
}

TEST(LorenzoDevice, UnalignedInputAndTileRefusal) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Shape s = Shape::parse("17x13x67");
  const auto x = test::smooth_field<float>(s, 3);
  std::vector<float> padded(x.size() + 1);
  std::copy(x.begin(), x.end(), padded.begin() + 1);
  auto d = test::upload(padded);
  expect_twins<float>(s, x, 1e-3, 512, Lossless::auto_select, "input at a 4-byte offset", d.get() + 1);
  const Case<float> c = make_case<float>(s, 1e-3, 512);
  try {
    lorenzo::compress_device<float>(d.get(), c.e, TileShape{4, 4, 4}, c.p, c.alphabet, c.centre, Lossless::huffman, nullptr);
    ADD_FAILURE() << "tile 4x4x4 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::unsupported);
  }
}

// ---- damaged sections --------------------------------------------------------------------

namespace {

// The GPU must give the CPU's verdict: refuse (status set, output untouched) or decode to the
// same bits.
template <class T>
void expect_verdict(const Sections& sec, const Case<T>& c, const std::string& what) {
  SCOPED_TRACE(what);
  const auto want = cpu_decode(sec, c);
  const auto [st, got] = gpu_decode(sec, c, 0);
  if (!want) {
    EXPECT_NE(st.code, 0u) << "the CPU refuses, the GPU accepted";
    EXPECT_TRUE(all_poison(got)) << "a refused stream wrote the output";
  } else {
    EXPECT_EQ(st.code, 0u) << "the CPU accepts, the GPU refused: " << device_status_message(st);
    if (st.code == 0) EXPECT_TRUE(test::same_bits(*want, got)) << "decoded values differ";
  }
}

template <class T>
void damage_all(const Sections& good, const Case<T>& c, const std::string& name, uint32_t seed) {
  std::mt19937 rng(seed);
  auto mutate = [&](std::vector<uint8_t> Sections::*part, const char* pname) {
    const std::vector<uint8_t>& orig = good.*part;
    std::vector<size_t> at;
    for (size_t i = 0; i < std::min<size_t>(orig.size(), 48); ++i) at.push_back(i);  // headers, codebooks
    for (int k = 0; k < 24 && !orig.empty(); ++k) at.push_back(rng() % orig.size());
    for (size_t i : at)
      for (uint8_t x : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
        Sections bad = good;
        (bad.*part)[i] ^= x;
        expect_verdict(bad, c, name + " " + pname + " byte " + std::to_string(i) + " ^ " + std::to_string(x));
        if (::testing::Test::HasFailure()) return;
      }
    for (size_t cut : {size_t{1}, size_t{4}, orig.size() / 2, orig.size()}) {
      if (cut > orig.size()) continue;
      Sections bad = good;
      (bad.*part).resize(orig.size() - cut);
      expect_verdict(bad, c, name + " " + pname + " cut by " + std::to_string(cut));
    }
    Sections longer = good;
    (longer.*part).push_back(0);
    expect_verdict(longer, c, name + " " + pname + " one byte longer");
  };
  mutate(&Sections::codes, "codes");
  mutate(&Sections::outliers, "outliers");
  mutate(&Sections::exact, "exact");
}

}  // namespace

TEST(LorenzoDevice, DamagedSectionsGetTheCpuVerdict) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Shape s = Shape::parse("9x17x70");
  const auto x = special_field<float>(s, 8);
  const auto noise = test::random_field<float>(s.count(), 9, 10.0);
  for (Lossless l : {Lossless::huffman, Lossless::zrle_huffman, Lossless::rle_huffman, Lossless::rle, Lossless::bitpack}) {
    const Case<float> c = make_case<float>(s, 1e-2, 512);
    damage_all(cpu_sections(x, c, l), c, std::string(lossless_name(l)) + " special", 100 + static_cast<uint32_t>(l));
    const Case<float> c2 = make_case<float>(s, 1e-2, 4);  // many outliers
    damage_all(cpu_sections(noise, c2, l), c2, std::string(lossless_name(l)) + " outliers", 200 + static_cast<uint32_t>(l));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(LorenzoDevice, TargetedRefusals) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Shape s = Shape::parse("20x40x90");
  const auto x = test::random_field<float>(s.count(), 4, 10.0);
  const Case<float> c = make_case<float>(s, 1e-2, 8);
  auto refused = [&](const Sections& bad, uint32_t code, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_FALSE(cpu_decode(bad, c).has_value()) << "the CPU accepts";
    const auto [st, got] = gpu_decode(bad, c, 0);
    EXPECT_EQ(st.code, code) << device_status_message(st);
    EXPECT_TRUE(all_poison(got));
  };
  // Outliers: count, width, order.
  const Sections h = cpu_sections(x, c, Lossless::huffman);
  ASSERT_GT(h.outliers.size(), 40u);
  {
    Sections b = h;
    b.outliers[8] = 5;
    refused(b, kStatusOutliersHeader, "outlier width 5");
    b = h;
    b.outliers[0] ^= 1;
    refused(b, kStatusOutliersHeader, "outlier count off by one");
    b = h;
    std::swap_ranges(b.outliers.begin() + 16, b.outliers.begin() + 20, b.outliers.begin() + 20);
    refused(b, kStatusOutliersOrder, "outlier indices swapped");
    b = h;
    const uint32_t big = static_cast<uint32_t>(c.slots());
    std::memcpy(&b.outliers[16 + 4 * ((b.outliers.size() - 16) / 8 - 1)], &big, 4);
    refused(b, kStatusOutliersOrder, "last outlier index at the slot count");
  }
  // Huffman: chunk bit counts shifted between two chunks (sum kept): a chunk no longer ends on
  // its bit count.
  {
    Sections b = h;
    uint32_t cb_bytes;
    std::memcpy(&cb_bytes, &b.codes[24], 4);
    const size_t at = (32 + cb_bytes + 3) & ~size_t{3};
    uint16_t a0, a1;
    std::memcpy(&a0, &b.codes[at], 2);
    std::memcpy(&a1, &b.codes[at + 2], 2);
    ++a0, --a1;
    std::memcpy(&b.codes[at], &a0, 2);
    std::memcpy(&b.codes[at + 2], &a1, 2);
    refused(b, kStatusHuffmanDecode, "chunk starts shifted");
    b = h;
    std::memcpy(&a0, &b.codes[at], 2);
    a0 = 1;  // fewer bits than symbols
    std::memcpy(&b.codes[at], &a0, 2);
    refused(b, kStatusHuffmanChunkBits, "chunk of 1 bit");
    b = h;
    b.codes.pop_back();
    refused(b, kStatusHuffmanLayout, "huffman blob one byte short");
  }
  // Run sums.
  {
    Sections b = cpu_sections(x, c, Lossless::rle);
    uint16_t l0;
    std::memcpy(&l0, &b.codes[16 + 2 * ((b.codes.size() - 16) / 4)], 2);
    ++l0;
    std::memcpy(&b.codes[16 + 2 * ((b.codes.size() - 16) / 4)], &l0, 2);
    refused(b, kStatusCodesCover, "rle lengths cover one code more");
    Sections z = cpu_sections(x, c, Lossless::zrle_huffman);
    uint32_t tail;
    std::memcpy(&tail, &z.codes[16], 4);
    ++tail;
    std::memcpy(&z.codes[16], &tail, 4);
    refused(z, kStatusCodesCover, "zrle tail one longer");
    Sections bp = cpu_sections(x, c, Lossless::bitpack);
    bp.codes[16] = 17;
    refused(bp, kStatusBitpackWidth, "bitpack width 17");
  }
  // An earlier failure (another section's checksum, say) leaves the output untouched.
  {
    const OnDevice a(h.codes, 0), b(h.outliers, 0), e(h.exact, 0);
    auto d_out = test::upload(std::vector<float>(c.n(), poison<float>()));
    DeviceStatus pre{};
    pre.code = kStatusChecksum;
    auto st = test::upload(std::vector<DeviceStatus>{pre});
    lorenzo::decompress_device<float>(a.span(), b.span(), e.span(), h.stage, c.e, c.t, c.p, d_out.get(), st.get(), nullptr);
    EXPECT_EQ(test::download(st.get(), 1)[0].code, static_cast<uint32_t>(kStatusChecksum));
    EXPECT_TRUE(all_poison(test::download(d_out.get(), c.n())));
  }
}

// Timing on a 500 MB f32 field (Isabel-like: a smooth 100^3 field tiled 5 x 5 x 5); opt-in:
// SCIZ_DEVICE_TIMING=1. Prints whole calls (compress_device with its synchronizations, then
// decompress_device and one sync) and the quantize / reconstruct kernels alone.
TEST(LorenzoDevice, Timing500MB) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  if (!std::getenv("SCIZ_DEVICE_TIMING")) GTEST_SKIP() << "set SCIZ_DEVICE_TIMING=1 to time";
  const Shape small = Shape::parse("100x100x100");
  const auto base = test::smooth_field<float>(small, 17);
  const uint64_t N = 500;
  std::vector<float> x(N * N * N);
  for (uint64_t z = 0; z < N; ++z)
    for (uint64_t y = 0; y < N; ++y)
      for (uint64_t xx = 0; xx < N; ++xx) {
        const uint64_t bz = z % 100, by = y % 100, bx = xx % 100;
        // mirrored tiles keep the field continuous
        const uint64_t mz = (z / 100) % 2 ? 99 - bz : bz, my = (y / 100) % 2 ? 99 - by : by, mx = (xx / 100) % 2 ? 99 - bx : bx;
        x[(z * N + y) * N + xx] = base[(mz * 100 + my) * 100 + mx];
      }
  const Shape s = Shape::parse("500x500x500");
  const double range = finite_range(x), bytes = static_cast<double>(x.size()) * 4;
  auto d_x = test::upload(x);
  x.clear();
  x.shrink_to_fit();
  dev::Buffer<float> d_out(s.count(), nullptr);
  dev::Buffer<DeviceStatus> st(1, nullptr);
  auto ms = [](auto&& f) {
    dev::sync(nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    f();
    dev::sync(nullptr);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  for (double rel : {1e-2, 1e-3, 1e-4}) {
    const Case<float> c = make_case<float>(s, rel * range, 512);
    lorenzo::DeviceSectionsOut out;
    std::vector<double> tc, td, tq, tr;
    for (int r = 0; r < 7; ++r)
      tc.push_back(ms([&] { out = lorenzo::compress_device<float>(d_x.get(), c.e, c.t, c.p, c.alphabet, c.centre, Lossless::auto_select, nullptr); }));
    const DeviceSpan a{out.codes.get(), out.codes_size}, b{out.outliers.get(), out.outliers_size}, e{out.exact.get(), out.exact_size};
    for (int r = 0; r < 7; ++r)
      td.push_back(ms([&] {
        const DeviceStatus ok{};
        dev::copy_to_device(st.get(), &ok, sizeof ok, nullptr);
        lorenzo::decompress_device<float>(a, b, e, out.stage, c.e, c.t, c.p, d_out.get(), st.get(), nullptr);
      }));
    const DeviceStatus hs = test::download(st.get(), 1)[0];
    EXPECT_EQ(hs.code, 0u) << device_status_message(hs);
    // The quantizer and the reconstruction alone, for reference.
    dev::Buffer<uint16_t> codes(c.n(), nullptr);
    const uint64_t cap = 1u << 22;
    dev::Buffer<unsigned long long> cnt(2, nullptr);
    dev::Buffer<uint64_t> oi(cap, nullptr), ei(cap, nullptr);
    dev::Buffer<int32_t> ov(cap, nullptr);
    dev::Buffer<float> ev(cap, nullptr);
    for (int r = 0; r < 7; ++r)
      tq.push_back(ms([&] {
        lorenzo::cuda::launch_quantize<float>(d_x.get(), c.e, c.t, c.p, codes.get(), {cnt.get(), oi.get(), ov.get(), cap, ei.get(), ev.get(), cap}, nullptr);
      }));
    for (int r = 0; r < 7; ++r)
      tr.push_back(ms([&] { lorenzo::cuda::launch_reconstruct<float>(codes.get(), oi.get(), ov.get(), 0, c.e, c.t, c.p, d_out.get(), nullptr); }));
    const double sz = static_cast<double>(out.codes_size + out.outliers_size + out.exact_size);
    std::printf("[timing] rel %.0e: %s, ratio %.2f | compress_device %.3f ms (%.0f GB/s) | decompress_device %.3f ms "
                "(%.0f GB/s) | quantize kernel %.3f ms, reconstruct kernel %.3f ms\n",
                rel, lossless_name(*out.stage), bytes / sz, median(tc), bytes / median(tc) / 1e6, median(td),
                bytes / median(td) / 1e6, median(tq), median(tr));
  }
}
