// Chains of stages and the codes stages inside them: the registry, the chains the issue names
// (interp-cr = huffman,rre4,tcms8,rze1; interp-tp = tcms1,bit1,rre1) on 1- and 2-byte quant
// codes, lorenzo's choices as chains (byte for byte its format-4 sections), and damaged or
// hostile blobs refused.
#include <gtest/gtest.h>
#include <sciz/error.hpp>

#include "lossless/codes/codes.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stages.hpp"
#include "support/stage_inputs.hpp"
#include "support/test_data.hpp"

using namespace sciz;
using namespace sciz::stages;

namespace {

Context u8_codes() { return Context{1, 256, 128}; }
Context u16_codes() { return Context{2, 1024, 512}; }

std::vector<Chain> named_chains() {
  return {parse_chain("interp-cr"), parse_chain("interp-tp"), parse_chain("huffman,rre4,tcms8,rze1"),
          parse_chain("tcms1,bit1,rre1"), parse_chain("zrle+huffman,rze1"), parse_chain("bitpack,bit4,rre4"),
          parse_chain("rle,tcms2,rze2"), parse_chain("rle+huffman"), parse_chain("rre8,rre4,rre2,rre1"),
          parse_chain("bit8,rze8,tcms4,rre1")};
}

}  // namespace

TEST(StageRegistry, IdsAreFixedAndNamesRoundTrip) {
  // The ids are the stream format: these values may never change.
  EXPECT_EQ(static_cast<int>(StageId::huffman), static_cast<int>(Lossless::huffman));
  EXPECT_EQ(static_cast<int>(StageId::zrle_huffman), static_cast<int>(Lossless::zrle_huffman));
  EXPECT_EQ(static_cast<int>(StageId::tcms8), 0x13);
  EXPECT_EQ(static_cast<int>(StageId::bit1), 0x20);
  EXPECT_EQ(static_cast<int>(StageId::rre4), 0x32);
  EXPECT_EQ(static_cast<int>(StageId::rze1), 0x40);
  EXPECT_EQ(all_stages().size(), 21u);
  for (StageId id : all_stages()) {
    EXPECT_EQ(stage_by_name(stage_name(id)), id);
    EXPECT_EQ(stage_by_id(static_cast<uint8_t>(id)), id);
    if (family_of(id) != Family::codes) EXPECT_EQ(byte_stage(family_of(id), width_of(id)), id);
  }
  int ids = 0;
  for (int b = 0; b < 256; ++b) ids += stage_by_id(static_cast<uint8_t>(b)).has_value();
  EXPECT_EQ(ids, 21);
}

TEST(StageRegistry, ChainsParseAndRefuseWhatBreaksTheRules) {
  EXPECT_EQ(parse_chain("interp-cr"), (Chain{StageId::huffman, StageId::rre4, StageId::tcms8, StageId::rze1}));
  EXPECT_EQ(parse_chain("interp-tp"), (Chain{StageId::tcms1, StageId::bit1, StageId::rre1}));
  EXPECT_EQ(chain_name(parse_chain("interp-cr")), "huffman,rre4,tcms8,rze1");
  EXPECT_EQ(parse_chain("zrle+huffman"), Chain{StageId::zrle_huffman});
  for (const char* bad : {"", "rre3", "huffman,,rze1", "rre4,huffman", "tcms1,bit1,rre1,", "rre1,rre1,rre1,rre1,rre1,rre1,rre1,rre1,rre1"}) {
    EXPECT_EQ(test::status_of([&] { parse_chain(bad); }), Status::invalid_argument) << bad;
  }
  try {
    parse_chain("huffman,rre5");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'rre5'"), std::string::npos) << e.what();
  }
  // A stage list read from a stream is refused as corrupt.
  EXPECT_EQ(test::status_of([] { check_chain(Chain{StageId::rre1, StageId::rle}, Status::corrupt_stream); }),
            Status::corrupt_stream);
  EXPECT_EQ(test::status_of([] { check_chain(Chain{static_cast<StageId>(0x14)}, Status::corrupt_stream); }),
            Status::corrupt_stream);
}

TEST(StageRegistry, StageListsAsFormat5WouldRecordThem) {
  const StageList cr{parse_chain("interp-cr"), 1};
  const auto b = write_stage_list(cr);
  EXPECT_EQ(b, (std::vector<uint8_t>{4, 1, 0x02, 0x32, 0x13, 0x40}));
  std::vector<uint8_t> more = b;
  more.push_back(0xEE);  // what follows the list in params is left alone
  size_t used = 0;
  const StageList back = read_stage_list(more, used);
  EXPECT_EQ(used, b.size());
  EXPECT_EQ(back.chain, cr.chain);
  EXPECT_EQ(back.code_width, 1);
  // Lorenzo's format-4 byte L is the list {1, 2, L}.
  EXPECT_EQ(write_stage_list({chain_for_lossless(Lossless::zrle_huffman), 2}), (std::vector<uint8_t>{1, 2, 5}));
  const std::vector<std::vector<uint8_t>> bad = {
      {}, {1}, {0, 2}, {9, 2, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30}, {1, 3, 0x30}, {1, 0, 0x30},
      {2, 2, 0x30}, {1, 2, 0x14}, {1, 2, 0x00}, {2, 1, 0x30, 0x02}};
  for (const auto& v : bad)
    EXPECT_EQ(test::status_of([&] { read_stage_list(v, used); }), Status::corrupt_stream) << ::testing::PrintToString(v);
  EXPECT_EQ(test::status_of([] { write_stage_list({Chain{StageId::rre1}, 4}); }), Status::invalid_argument);
}

TEST(StageChains, NamedChainsRoundTripOnQuantCodes) {
  std::vector<std::pair<test::NamedBytes, Context>> inputs;
  for (auto& c : test::fixture_codes(1)) inputs.push_back({std::move(c), Context{1, 256, 128}});
  for (auto& c : test::fixture_codes(2)) inputs.push_back({std::move(c), Context{2, 1024, 512}});
  for (double noisy : {0.0, 0.05, 1.0})
    inputs.push_back({{"synthetic u8 " + std::to_string(noisy), test::synthetic_u8_codes(70001, noisy, 3)}, u8_codes()});
  for (uint64_t n : {0ull, 1ull, 2ull, 16383ull, 16384ull, 16385ull})
    inputs.push_back({{"edge " + std::to_string(n), test::synthetic_u8_codes(n, 0.3, 4)}, u8_codes()});
  for (const Chain& chain : named_chains())
    for (const auto& [in, ctx] : inputs) {
      SCOPED_TRACE(chain_name(chain) + " on " + in.name + " (code width " + std::to_string(ctx.code_width) + ")");
      const auto blob = encode_cpu(chain, in.bytes, ctx);
      EXPECT_LE(blob.size(), max_encoded_bytes(chain, in.bytes.size(), ctx));
      ASSERT_EQ(decode_cpu(chain, blob, in.bytes.size(), ctx), in.bytes);
    }
}

TEST(StageChains, CodesStagesPerWidth) {
  // 1-byte codes go through the 16-bit stages widened: the blob is the one of the same codes
  // as 2-byte symbols, so the byte alphabet costs nothing there.
  const auto u8 = test::synthetic_u8_codes(50000, 0.2, 9);
  std::vector<uint8_t> u16;
  for (uint8_t c : u8) test::put_symbol(u16, c, 2);
  for (StageId id : {StageId::huffman, StageId::rle, StageId::rle_huffman, StageId::zrle_huffman, StageId::bitpack}) {
    const auto a = encode_stage_cpu(id, u8, Context{1, 256, 128});
    const auto b = encode_stage_cpu(id, u16, Context{2, 256, 128});
    EXPECT_EQ(a, b) << stage_name(id);
    EXPECT_EQ(decode_stage_cpu(id, a, u8.size(), Context{1, 256, 128}), u8) << stage_name(id);
    EXPECT_EQ(declared_bytes(id, a, Context{1, 256, 128}), u8.size());
    EXPECT_EQ(declared_bytes(id, b, Context{2, 256, 128}), u16.size());
  }
  // Inputs a codes stage cannot take.
  EXPECT_EQ(test::status_of([&] { encode_stage_cpu(StageId::huffman, std::vector<uint8_t>(3, 0), u16_codes()); }),
            Status::invalid_argument);  // not whole 2-byte codes
  EXPECT_EQ(test::status_of([&] { encode_stage_cpu(StageId::huffman, std::vector<uint8_t>{1, 200}, Context{1, 100, 50}); }),
            Status::invalid_argument);  // outside the alphabet
  EXPECT_EQ(test::status_of([&] { encode_stage_cpu(StageId::huffman, u8, Context{1, 1024, 512}); }),
            Status::invalid_argument);  // no 1-byte alphabet of 1024
  // A blob of codes above 255 is refused by a 1-byte decoder.
  const std::vector<uint8_t> wide = test::symbols(200, 2, [](uint64_t i) { return 250 + i % 10; });
  for (StageId id : {StageId::huffman, StageId::rle, StageId::bitpack}) {
    const auto blob = encode_stage_cpu(id, wide, Context{2, 1024, 255});
    EXPECT_EQ(test::status_of([&] { decode_stage_cpu(id, blob, 1000, Context{1, 256, 128}); }), Status::corrupt_stream)
        << stage_name(id);
  }
}

TEST(StageChains, LorenzoChoicesAreChainsWithTheSameBytes) {
  const auto codes = test::fixture_codes(2);
  for (Lossless l : {Lossless::bitpack, Lossless::huffman, Lossless::rle, Lossless::rle_huffman, Lossless::zrle_huffman}) {
    const Chain c = chain_for_lossless(l);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(chain_name(c), lossless_name(l));
    for (const auto& f : codes) {
      std::vector<uint16_t> sym(f.bytes.size() / 2);
      std::memcpy(sym.data(), f.bytes.data(), f.bytes.size());
      EXPECT_EQ(encode_cpu(c, f.bytes, u16_codes()), codes::encode_cpu(sym, 1024, 512, l).bytes)
          << lossless_name(l) << " on " << f.name;
    }
  }
  EXPECT_EQ(test::status_of([] { chain_for_lossless(Lossless::auto_select); }), Status::invalid_argument);
}

TEST(StageChains, DamagedChainBlobsAreRefusedCleanly) {
  const auto in = test::synthetic_u8_codes(40000, 0.1, 11);
  for (const Chain& chain : {parse_chain("interp-cr"), parse_chain("interp-tp")}) {
    const auto blob = encode_cpu(chain, in, u8_codes());
    for (uint64_t len = 0; len < blob.size(); ++len)
      EXPECT_EQ(test::status_of([&] {
                  decode_cpu(chain, std::vector<uint8_t>(blob.begin(), blob.begin() + int64_t(len)), in.size(), u8_codes());
                }),
                Status::corrupt_stream)
          << chain_name(chain) << " cut to " << len;
    for (uint64_t pos = 0; pos < blob.size(); pos += pos < 64 ? 1 : 5) {
      auto bad = blob;
      bad[pos] ^= 0x5A;
      const Status s = test::status_of([&] {
        const auto out = decode_cpu(chain, bad, in.size(), u8_codes());
        EXPECT_EQ(out.size(), in.size());
      });
      EXPECT_TRUE(s == Status::ok || s == Status::corrupt_stream) << chain_name(chain) << " pos " << pos;
    }
    // The wrong output size, or the wrong chain, is refused too.
    EXPECT_EQ(test::status_of([&] { decode_cpu(chain, blob, in.size() + 1, u8_codes()); }), Status::corrupt_stream);
  }
  // A blob decoded by another stage list is refused by the stage byte of its header.
  const auto blob = encode_cpu(parse_chain("interp-tp"), in, u8_codes());
  for (const char* other : {"tcms1,bit1,rze1", "tcms1,bit1,rre2", "tcms2,bit1,rre1", "tcms1,bit2,rre1"})
    EXPECT_EQ(test::status_of([&] { decode_cpu(parse_chain(other), blob, in.size(), u8_codes()); }), Status::corrupt_stream)
        << other;
}

TEST(StageChains, BombsAreRefusedBeforeAllocating) {
  // A codes-stage blob declaring 2^60 symbols, alone and at the end of a chain.
  std::vector<uint8_t> bomb(64, 0);
  const uint64_t n = uint64_t(1) << 60;  // a codes blob opens with its symbol count
  std::memcpy(bomb.data(), &n, 8);
  for (StageId id : {StageId::huffman, StageId::rle, StageId::rle_huffman, StageId::zrle_huffman, StageId::bitpack})
    EXPECT_EQ(test::status_of([&] { decode_stage_cpu(id, bomb, UINT64_MAX, u16_codes()); }), Status::corrupt_stream)
        << stage_name(id);
  // An intermediate blob larger than any encoder could have written for the expected output.
  const auto in = test::synthetic_u8_codes(1000, 0.1, 1);
  auto inner = encode_stage_cpu(StageId::rre1, std::vector<uint8_t>(1 << 20, 0));  // 1 MiB of zeros
  auto outer = encode_stage_cpu(StageId::rre4, inner);
  EXPECT_EQ(test::status_of([&] { decode_cpu(Chain{StageId::rre1, StageId::rre4}, outer, 1 << 20); }), Status::ok);
  EXPECT_EQ(test::status_of([&] { decode_cpu(Chain{StageId::rre1, StageId::rre4}, outer, in.size()); }),
            Status::corrupt_stream);
}
