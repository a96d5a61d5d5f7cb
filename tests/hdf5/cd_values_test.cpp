// The HDF5 filter's cd_values layout: frozen words (a file written today must read forever),
// round trips, and a clear refusal of every malformed parameter list, never a read past it.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cd_values.hpp"

using namespace sciz;
using namespace sciz::h5;

namespace {

// 1e-3 as the two words of its IEEE-754 pattern (0x3F50624DD2F1A9FC), low word first.
constexpr unsigned kLo = 0xD2F1A9FCu, kHi = 0x3F50624Du;

}  // namespace

TEST(Hdf5CdValues, FrozenLayoutOfVersion1) {
  FilterParams p;
  p.eb = {EbMode::rel, 1e-3};
  p.pipeline = "delta";
  p.options = {{static_cast<uint32_t>(OptionId::delta_chain), 1}};
  p.chunk = ChunkLayout{DType::f64, {10, 20, 30}};
  const std::vector<unsigned> want{1, 1, kLo, kHi, 5, 0x746c6564u /* "delt" */, 0x61u /* "a" */, 1, 3, 1, 2, 3, 10, 20, 30};
  EXPECT_EQ(encode_cd_values(p), want);
  const FilterParams q = parse_cd_values(want);
  EXPECT_EQ(q.eb.mode, EbMode::rel);
  EXPECT_EQ(q.eb.value, 1e-3);
  EXPECT_EQ(q.pipeline, "delta");
  ASSERT_TRUE(q.chunk.has_value());
  EXPECT_EQ(q.chunk->dtype, DType::f64);
  EXPECT_EQ(q.chunk->dims, (std::vector<uint64_t>{10, 20, 30}));
  EXPECT_EQ(compress_options(q).delta_chain, DeltaChain::linear);
}

TEST(Hdf5CdValues, UserPartAloneHasNoChunk) {
  const std::vector<unsigned> cd{1, 0, kLo, kHi, 7, 0x65726f6cu, 0x6f7a6eu, 0};  // abs 1e-3, "lorenzo"
  const FilterParams p = parse_cd_values(cd);
  EXPECT_EQ(p.eb.mode, EbMode::abs);
  EXPECT_EQ(p.pipeline, "lorenzo");
  EXPECT_FALSE(p.chunk.has_value());
  EXPECT_EQ(encode_cd_values(p), cd);
}

TEST(Hdf5CdValues, EveryTruncationIsRefusedByName) {
  FilterParams p;
  p.options = {{1, 256}, {2, 2}};
  p.chunk = ChunkLayout{DType::f32, {4, 5}};
  const std::vector<unsigned> cd = encode_cd_values(p);
  for (size_t n = 0; n < cd.size(); ++n) {
    // A prefix that ends exactly after the options is the valid user part.
    const bool user_part = n == cd.size() - 4;
    if (user_part) continue;
    try {
      parse_cd_values({cd.data(), n});
      ADD_FAILURE() << "a prefix of " << n << " words was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::invalid_argument) << e.what();
    }
  }
  std::vector<unsigned> longer = cd;
  longer.push_back(7);
  EXPECT_THROW(parse_cd_values(longer), Error);
}

TEST(Hdf5CdValues, BadWordsAreRefused) {
  const std::vector<unsigned> good{1, 1, kLo, kHi, 7, 0x65726f6cu, 0x6f7a6eu, 0};
  auto refused = [&](size_t word, unsigned value, Status want) {
    std::vector<unsigned> cd = good;
    cd[word] = value;
    try {
      parse_cd_values(cd);
      return false;
    } catch (const Error& e) {
      return e.status() == want;
    }
  };
  EXPECT_TRUE(refused(0, 2, Status::unsupported));       // a newer layout
  EXPECT_TRUE(refused(0, 0, Status::invalid_argument));
  EXPECT_TRUE(refused(1, 2, Status::invalid_argument));  // mode
  EXPECT_TRUE(refused(3, 0xFFF00000u, Status::invalid_argument));  // -inf
  EXPECT_TRUE(refused(3, 0xBF50624Du, Status::invalid_argument));  // -1e-3
  EXPECT_TRUE(refused(4, 0, Status::invalid_argument));
  EXPECT_TRUE(refused(4, 1000, Status::invalid_argument));
  EXPECT_TRUE(refused(5, 0x65726f00u, Status::invalid_argument));  // a NUL in the name
  EXPECT_TRUE(refused(7, 17, Status::invalid_argument));

  std::vector<unsigned> opt = good;
  opt.back() = 1;
  opt.insert(opt.end(), {9, 1});  // unknown option id
  EXPECT_THROW(parse_cd_values(opt), Error);
  opt.end()[-2] = 2;
  opt.back() = 6;  // lossless code out of range
  EXPECT_THROW(parse_cd_values(opt), Error);

  std::vector<unsigned> chunk = good;
  chunk.insert(chunk.end(), {3, 1, 10});  // dtype 3
  EXPECT_THROW(parse_cd_values(chunk), Error);
  chunk = good;
  chunk.insert(chunk.end(), {1, 2, 10, 0});  // a zero dimension
  EXPECT_THROW(parse_cd_values(chunk), Error);
  chunk = good;
  chunk.insert(chunk.end(), {1, 40});  // rank above HDF5's 32
  EXPECT_THROW(parse_cd_values(chunk), Error);
}

TEST(Hdf5CdValues, HighRankChunksMergeTheirSlowestAxes) {
  EXPECT_EQ(sciz_shape({7}).dims, (std::vector<uint64_t>{7}));
  EXPECT_EQ(sciz_shape({2, 3, 4, 5}).dims, (std::vector<uint64_t>{2, 3, 4, 5}));
  EXPECT_EQ(sciz_shape({2, 3, 4, 5, 6, 7}).dims, (std::vector<uint64_t>{24, 5, 6, 7}));
  std::vector<uint64_t> huge(32, 0xffffffffull);
  EXPECT_THROW(sciz_shape(huge), Error);
}
