// Format 4 container: chunks of sections behind a chunk index. Written and read back, every
// section where it was put; damage to the index, a chunk header or a section is refused with
// a message naming it, before any pipeline sees the bytes.
#include <gtest/gtest.h>

#include <numeric>

#include <sciz/error.hpp>

#include "core/container.hpp"

using namespace sciz;

namespace {
Header sample_header() {
  Header h;
  h.dtype = DType::f32;
  h.shape = Shape::parse("1000x1000");
  h.eb_value = h.eb_abs = 0.5;
  h.value_min = -1, h.value_max = 1;
  h.pipeline = "lorenzo";
  return h;
}

// Chunk i: sections 1..3 of sizes that differ per chunk (one of them large for chunk 1).
std::vector<ChunkOut> sample_chunks(uint64_t n) {
  std::vector<ChunkOut> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    out[i].pipeline = i % 2 ? "raw" : "lorenzo";
    out[i].params = std::vector<uint8_t>(i % 2 ? 0 : 12, static_cast<uint8_t>(7 + i));
    for (uint32_t id = 1; id <= 3; ++id) {
      std::vector<uint8_t> b(i == 1 && id == 2 ? (size_t{3} << 20) + 5 : 100 * id + i);
      std::iota(b.begin(), b.end(), static_cast<uint8_t>(id + i));
      out[i].sections.push_back({id, std::move(b)});
    }
  }
  return out;
}

std::string error_of(const std::vector<uint8_t>& s) {
  try {
    (void)read_stream(s);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Container, ChunksRoundTripWithTheirSections) {
  const Header h = sample_header();
  const ChunkPlan plan = stated_plan(h.shape, 300, 4);
  const auto chunks = sample_chunks(plan.count);
  const auto s = write_stream(h, plan, chunks);
  uint64_t expect = align16(stream_header_bytes(2, 7, 4));
  for (const auto& c : chunks) expect += chunk_bytes(c);
  ASSERT_EQ(s.size(), expect);
  const ParsedStream ps = read_stream(s);
  ASSERT_EQ(ps.chunks.size(), 4u);
  EXPECT_EQ(ps.header.version, kFormatVersion);
  EXPECT_EQ(ps.plan.rows_per_chunk, 300u);
  for (uint64_t i = 0; i < 4; ++i) {
    const ParsedChunk& c = ps.chunks[i];
    EXPECT_EQ(c.row0, 300 * i);
    EXPECT_EQ(c.rows, i == 3 ? 100u : 300u);
    EXPECT_EQ(c.header.shape.dims[0], c.rows);
    EXPECT_EQ(c.header.shape.dims[1], 1000u);
    EXPECT_EQ(c.header.pipeline, chunks[i].pipeline);
    EXPECT_EQ(c.header.params, chunks[i].params);
    ASSERT_EQ(c.sections.size(), 3u);
    for (uint32_t id = 1; id <= 3; ++id) {
      const auto& want = chunks[i].sections[id - 1].bytes;
      const auto got = c.section(id, "s").bytes;
      ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin(), want.end())) << "chunk " << i << " section " << id;
      // In place for a GPU's 16-byte loads: every section on a 16-byte boundary of the stream.
      EXPECT_EQ((got.data() - s.data()) % 16, 0) << "chunk " << i << " section " << id;
    }
    EXPECT_EQ(c.offset % 16, 0u);
  }
}

TEST(Container, OnlyTheRowsChunksAreRead) {
  const Header h = sample_header();
  const ChunkPlan plan = stated_plan(h.shape, 300, 4);
  auto s = write_stream(h, plan, sample_chunks(plan.count));
  const ParsedStream full = read_stream(s);
  // Damage chunk 0's last section: rows of chunks 1..2 still read, the whole stream does not.
  const SectionView& last = full.chunks[0].sections.back();
  s[static_cast<size_t>(last.bytes.data() - s.data()) + last.bytes.size() - 1] ^= 1;
  EXPECT_NE(error_of(s).find("chunk 0: section 3 checksum mismatch"), std::string::npos) << error_of(s);
  const ParsedStream part = read_stream_rows(s, 350, 900);
  EXPECT_FALSE(part.chunks[0].verified);
  EXPECT_TRUE(part.chunks[1].verified && part.chunks[2].verified);
  EXPECT_FALSE(part.chunks[3].verified);
  EXPECT_THROW(read_stream_rows(s, 299, 301), Error);
}

TEST(Container, DamageIsNamed) {
  const Header h = sample_header();
  const ChunkPlan plan = stated_plan(h.shape, 300, 4);
  const auto good = write_stream(h, plan, sample_chunks(plan.count));
  const ParsedStream ps = read_stream(good);
  {  // a chunk header byte (its pipeline name)
    auto s = good;
    s[ps.chunks[2].offset + 1] ^= 0x20;
    EXPECT_NE(error_of(s).find("chunk 2: header checksum mismatch"), std::string::npos) << error_of(s);
  }
  {  // the index (inside the header checksum)
    auto s = good;
    s[ps.header_bytes - 20] ^= 1;
    EXPECT_NE(error_of(s).find("header checksum mismatch"), std::string::npos) << error_of(s);
  }
  {  // truncated, and one byte too many
    auto s = good;
    s.pop_back();
    EXPECT_NE(error_of(s).find("chunk index"), std::string::npos) << error_of(s);
    s = good;
    s.push_back(0);
    EXPECT_NE(error_of(s).find("chunk index covers"), std::string::npos) << error_of(s);
  }
  {  // padding between sections and at a chunk's end: outside the checksums, so checked zero
    auto s = good;
    s[ps.chunks[1].offset + ps.chunks[1].length - 1] = 7;
    EXPECT_NE(error_of(s).find("chunk 1: padding byte"), std::string::npos) << error_of(s);
    s = good;
    const SectionView& first = ps.chunks[3].sections[0];
    const size_t after = static_cast<size_t>(first.bytes.data() - good.data()) + first.bytes.size();
    ASSERT_NE(after % 16, 0u) << "the sample needs a gap after this section";
    s[after] = 1;
    EXPECT_NE(error_of(s).find("chunk 3: padding byte"), std::string::npos) << error_of(s);
  }
  {  // a version from the future
    auto s = good;
    s[4] = 99;
    EXPECT_NE(error_of(s).find("format version 99 is not supported"), std::string::npos) << error_of(s);
  }
}

TEST(Container, ChunkPlanKeepsTilesWholeAndSmallFieldsInOneChunk) {
  // 1000 rows of 1 MB: 64 MiB chunks hold 64 rows (a multiple of 32).
  const ChunkPlan p = plan_chunks(Shape::parse("1000x500x500"), DType::f32, 64);
  EXPECT_EQ(p.rows_per_chunk, 64u);
  EXPECT_EQ(p.count, 16u);
  EXPECT_EQ(p.rows(15), 1000u - 15 * 64);
  // Up to 1.5 chunks: one chunk.
  EXPECT_EQ(plan_chunks(Shape::parse("96x500x500"), DType::f32, 64).count, 1u);
  EXPECT_EQ(plan_chunks(Shape::parse("1000x500x500"), DType::f32, 0).count, 1u);
  // Rows of 20 MB: 3 per chunk, no alignment possible.
  EXPECT_EQ(plan_chunks(Shape::parse("50x5000x1000"), DType::f32, 64).rows_per_chunk, 3u);
  // 1-D: multiples of 2048 values (lorenzo's 1-D tile).
  const ChunkPlan q = plan_chunks(Shape::parse("100000"), DType::f64, 0.1);
  EXPECT_EQ(q.rows_per_chunk % 2048, 0u);
  EXPECT_EQ(q.rows_per_chunk, 12288u);
  EXPECT_THROW(stated_plan(Shape::parse("100x3"), 30, 3), Error);
  EXPECT_THROW(stated_plan(Shape::parse("100x3"), 0, 1), Error);
}
