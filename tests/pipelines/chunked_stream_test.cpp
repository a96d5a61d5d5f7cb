// Chunked streams (format 4) on the CPU: every pipeline round-trips fields cut into many
// chunks with the bound held on every point; the chunk-at-a-time API writes compress()'s
// bytes whatever the order of the chunks; slices decode only what they ask for and equal the
// slice of a full decode; damage to a chunk is refused before the output is touched.
#include <gtest/gtest.h>
#include <sciz/chunked.hpp>
#include <sciz/sciz.hpp>

#include <algorithm>
#include <cstring>
#include <thread>

#include "core/container.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

template <class T>
std::vector<T> field_of(const Shape& s, uint32_t seed) {
  std::vector<T> x = test::smooth_field<T>(s, seed);
  // A few NaNs and Infs, and one value far out, so exact runs and outliers cross chunks.
  if (x.size() > 100) {
    x[7] = std::numeric_limits<T>::quiet_NaN();
    x[x.size() / 2] = -std::numeric_limits<T>::infinity();
    x[x.size() - 3] = T(1e6);
  }
  return x;
}

CompressOptions options(const std::string& pipeline, double chunk_mb, EbMode mode = EbMode::rel, double eb = 1e-3) {
  CompressOptions o;
  o.eb = {mode, eb};
  o.pipeline = pipeline;
  o.device = Device::cpu;
  o.chunk_mb = chunk_mb;
  return o;
}

template <class T>
std::vector<T> decode_all(const std::vector<uint8_t>& s, uint64_t n) {
  std::vector<T> out(n);
  decompress(s, out.data(), n * sizeof(T), Device::cpu);
  return out;
}

const char* kPipelines[] = {"lorenzo", "delta", "szx"};

}  // namespace

template <class T>
void round_trips_at_chunk_boundaries() {
  // Rows per chunk come from chunk_mb; the shapes put boundaries at 1 row, a prime number of
  // rows, and a last chunk of one row or one row short of full.
  struct Case {
    const char* dims;
    double chunk_mb;
  };
  const double row40 = 40.0 * 30 * sizeof(T) / 1048576.0;  // MiB of one row of 40x30
  const Case cases[] = {
      {"13x40x30", row40 * 1},          // one row per chunk: 13 chunks
      {"33x40x30", row40 * 8},          // 8 rows per chunk, last chunk of 1 row
      {"31x40x30", row40 * 8},          // last chunk one row short of full
      {"29x40x30", row40 * 7.5},        // 7 rows per chunk (prime)
      {"7x11x40x30", row40 * 11 * 2},   // 4-D, 2 rows per chunk
      {"61x1009", 1009.0 * sizeof(T) * 8 / 1048576.0},  // 2-D, 8 rows per chunk, prime row length
      {"100003", 4096.0 * sizeof(T) / 1048576.0},       // 1-D, 4096 values per chunk
  };
  for (const auto& c : cases) {
    const Shape s = Shape::parse(c.dims);
    const auto x = field_of<T>(s, 11);
    for (const char* p : kPipelines) {
      SCOPED_TRACE(std::string(p) + " " + c.dims);
      const auto stream = compress({x.data(), std::is_same_v<T, float> ? DType::f32 : DType::f64, s}, options(p, c.chunk_mb));
      const StreamInfo info = inspect(stream);
      EXPECT_GT(info.chunks.size(), 1u);
      uint64_t rows = 0;
      for (const auto& ch : info.chunks) {
        EXPECT_EQ(ch.row0, rows);
        rows += ch.rows;
      }
      EXPECT_EQ(rows, s.dims[0]);
      const auto y = decode_all<T>(stream, x.size());
      EXPECT_EQ(test::check_bound(x, y, info.eb_abs), "");
      EXPECT_LE(stream.size(), max_compressed_size(info.dtype, s, p, c.chunk_mb));
    }
  }
}

TEST(ChunkedStream, RoundTripsAtChunkBoundariesF32) { round_trips_at_chunk_boundaries<float>(); }
TEST(ChunkedStream, RoundTripsAtChunkBoundariesF64) { round_trips_at_chunk_boundaries<double>(); }

TEST(ChunkedStream, RelativeBoundIsResolvedOnceOverTheWholeField) {
  // Chunk 0 is nearly constant, chunk 1 spans [0, 1000]: both chunks keep 1e-3 x 1000.
  const Shape s = Shape::parse("16x64x64");
  std::vector<float> x(s.count());
  for (size_t i = 0; i < x.size(); ++i) x[i] = i < x.size() / 2 ? 1.0f + 1e-6f * (i % 7) : 1000.0f * ((i * 37) % 101) / 100.0f;
  const auto stream = compress({x.data(), DType::f32, s}, options("lorenzo", 0.125));
  const StreamInfo info = inspect(stream);
  ASSERT_EQ(info.chunks.size(), 2u);
  EXPECT_DOUBLE_EQ(info.eb_abs, 1e-3 * (1000.0 - 0.0));
  EXPECT_EQ(info.value_min, 0.0);
  EXPECT_EQ(info.value_max, 1000.0);
}

TEST(ChunkedStream, ChunkApiWritesCompressBytesInAnyOrder) {
  const Shape s = Shape::parse("45x32x40");
  const auto x = field_of<float>(s, 5);
  for (const char* p : kPipelines) {
    for (EbMode mode : {EbMode::rel, EbMode::abs}) {
      SCOPED_TRACE(std::string(p) + (mode == EbMode::rel ? " rel" : " abs"));
      const CompressOptions o = options(p, 0.05, mode, mode == EbMode::rel ? 1e-3 : 0.01);
      const auto whole = compress({x.data(), DType::f32, s}, o);
      std::optional<FieldRange> range;
      if (mode == EbMode::rel) range = field_range(x.data(), DType::f32, x.size());
      ChunkedCompressor cc(DType::f32, s, o, range);
      ASSERT_GT(cc.chunk_count(), 3u);
      std::vector<std::vector<uint8_t>> parts(cc.chunk_count());
      // Two threads, the chunks backwards: the bytes must not depend on either.
      std::vector<std::thread> th;
      for (int t = 0; t < 2; ++t)
        th.emplace_back([&, t] {
          for (uint64_t k = t; k < cc.chunk_count(); k += 2) {
            const uint64_t i = cc.chunk_count() - 1 - k;
            parts[i] = cc.compress_chunk(i, x.data() + cc.chunk_row0(i) * 32 * 40);
          }
        });
      for (auto& t : th) t.join();
      std::vector<uint8_t> joined = cc.header();
      EXPECT_EQ(joined.size(), cc.header_bytes());
      for (const auto& part : parts) joined.insert(joined.end(), part.begin(), part.end());
      EXPECT_TRUE(joined == whole) << "chunk API and compress() differ";

      // And back, a chunk at a time, from the head alone plus each chunk's bytes.
      const uint64_t hb = ChunkedDecompressor::head_bytes(std::span(whole).first(12), whole.size());
      const std::span<const uint8_t> head = std::span<const uint8_t>(whole).first(hb);
      ChunkedDecompressor cd(head, whole.size());
      const auto full = decode_all<float>(whole, x.size());
      for (uint64_t i = 0; i < cd.chunk_count(); ++i) {
        const ChunkInfo ci = cd.chunk(i);
        std::vector<float> rows(ci.rows * 32 * 40);
        cd.decompress_chunk(i, std::span(whole).subspan(ci.offset, ci.length), rows.data(), rows.size() * 4, Device::cpu);
        ASSERT_EQ(std::memcmp(rows.data(), full.data() + ci.row0 * 32 * 40, rows.size() * 4), 0) << "chunk " << i;
      }
    }
  }
}

TEST(ChunkedStream, SlicesEqualTheSliceOfAFullDecode) {
  const Shape s = Shape::parse("53x24x30");
  const auto x = field_of<double>(s, 3);
  const uint64_t row = 24 * 30;
  for (const char* p : kPipelines) {
    SCOPED_TRACE(p);
    const auto stream = compress({x.data(), DType::f64, s}, options(p, 0.03));
    const auto full = decode_all<double>(stream, x.size());
    const StreamInfo info = inspect(stream);
    ASSERT_GT(info.chunks.size(), 5u);
    const uint64_t per = info.rows_per_chunk;
    const std::pair<uint64_t, uint64_t> slices[] = {{0, 53}, {0, 1}, {52, 53}, {per - 1, per + 1}, {per, 2 * per},
                                                    {3, 50},  {17, 18}, {per + 1, 3 * per - 1}};
    for (auto [a, b] : slices) {
      std::vector<double> part((b - a) * row, -7.0);
      decompress_rows(stream, a, b, part.data(), part.size() * 8, Device::cpu);
      ASSERT_EQ(std::memcmp(part.data(), full.data() + a * row, part.size() * 8), 0) << a << ":" << b;
    }
    std::vector<double> part(row);
    EXPECT_THROW(decompress_rows(stream, 5, 5, part.data(), 0, Device::cpu), Error);
    EXPECT_THROW(decompress_rows(stream, 52, 54, part.data(), 2 * row * 8, Device::cpu), Error);
  }
}

TEST(ChunkedStream, SliceReadsOnlyItsChunks) {
  // Damage the last chunk: a slice of the first rows still decodes, the full stream does not.
  const Shape s = Shape::parse("40x50x20");
  const auto x = field_of<float>(s, 9);
  auto stream = compress({x.data(), DType::f32, s}, options("delta", 0.02));
  const StreamInfo info = inspect(stream);
  ASSERT_GT(info.chunks.size(), 3u);
  const ChunkInfo last = info.chunks.back();
  stream[last.offset + last.length - 2] ^= 0x10;
  std::vector<float> out(x.size(), -1.0f);
  try {
    decompress(stream, out.data(), out.size() * 4, Device::cpu);
    FAIL() << "damaged chunk decoded";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::corrupt_stream);
    EXPECT_NE(std::string(e.what()).find("chunk " + std::to_string(info.chunks.size() - 1)), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](float v) { return v == -1.0f; })) << "output touched";
  std::vector<float> first(info.chunks[0].rows * 50 * 20);
  decompress_rows(stream, 0, info.chunks[0].rows, first.data(), first.size() * 4, Device::cpu);
  EXPECT_EQ(test::check_bound(std::vector<float>(x.begin(), x.begin() + first.size()), first, info.eb_abs), "");
}

TEST(ChunkedStream, AChunkThatWouldExpandIsStoredRawAlone) {
  // Rows 0..15 smooth, rows 16..31 white noise at a tiny bound: lorenzo keeps the first chunk
  // and stores the second verbatim.
  const Shape s = Shape::parse("32x64x64");
  auto x = test::smooth_field<float>(s, 2);
  const auto noise = test::random_field<float>(x.size() / 2, 4, 1e6);
  std::copy(noise.begin(), noise.end(), x.begin() + x.size() / 2);
  const auto stream = compress({x.data(), DType::f32, s}, options("lorenzo", 0.25, EbMode::abs, 1e-6));
  const StreamInfo info = inspect(stream);
  ASSERT_EQ(info.chunks.size(), 2u);
  EXPECT_EQ(info.chunks[0].pipeline, "lorenzo");
  EXPECT_EQ(info.chunks[1].pipeline, "raw");
  EXPECT_EQ(info.pipeline, "lorenzo");
  const auto y = decode_all<float>(stream, x.size());
  EXPECT_EQ(std::memcmp(y.data() + x.size() / 2, x.data() + x.size() / 2, x.size() * 2), 0);
  EXPECT_EQ(test::check_bound(x, y, info.eb_abs), "");
}
