// The byte stages (tcms, bit, rre, rze in widths 1, 2, 4, 8), CPU twin: each against the slow
// reference of its layout (support/stage_reference.hpp), byte for byte, over edge lengths and
// patterns; round trips; the same bytes whatever the thread count; and damaged blobs refused.
#include <gtest/gtest.h>
#include <omp.h>
#include <sciz/error.hpp>

#include <random>

#include "lossless/stages/framing.hpp"
#include "lossless/stages/stages.hpp"
#include "support/stage_inputs.hpp"
#include "support/stage_reference.hpp"

using namespace sciz;
using namespace sciz::stages;

namespace {

std::vector<StageId> byte_stages() {
  std::vector<StageId> v;
  for (StageId id : all_stages())
    if (family_of(id) != Family::codes) v.push_back(id);
  return v;
}

std::vector<uint8_t> reference(StageId id, const std::vector<uint8_t>& in) {
  const int w = width_of(id);
  const uint8_t b = static_cast<uint8_t>(id);
  switch (family_of(id)) {
    case Family::tcms: return test::ref_tcms(in, w, b);
    case Family::bit: return test::ref_bit(in, w, b);
    case Family::rre: return test::ref_eliminate(in, w, false, b);
    case Family::rze: return test::ref_eliminate(in, w, true, b);
    default: return {};
  }
}

// Runs f and reports whether it threw; any throw must be corrupt_stream.
template <class F>
bool refused(F&& f, std::string* msg = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
    if (msg) *msg = e.what();
    return true;
  }
  return false;
}

}  // namespace

TEST(Stages, EachByteStageMatchesItsReferenceAndRoundTrips) {
  for (StageId id : byte_stages()) {
    const int w = width_of(id);
    for (uint64_t n : test::edge_lengths())
      for (const auto& p : test::patterns(n, w, static_cast<uint32_t>(n + w))) {
        SCOPED_TRACE(std::string(stage_name(id)) + " n=" + std::to_string(n) + " " + p.name);
        const auto blob = encode_stage_cpu(id, p.bytes);
        ASSERT_EQ(blob, reference(id, p.bytes));
        EXPECT_LE(blob.size(), max_encoded_bytes(id, n));
        EXPECT_EQ(declared_bytes(id, blob), n);
        ASSERT_EQ(decode_stage_cpu(id, blob, n), p.bytes);
      }
  }
}

TEST(Stages, ReducersRemoveWhatTheyAreFor) {
  // One symbol over a whole block: level 4's byte, one stored byte per level below it, one symbol.
  const std::vector<uint8_t> same(16384, 7);
  EXPECT_EQ(encode_stage_cpu(StageId::rre1, same).size(), kHeaderBytes + 2 + 1 + 4 + 1);
  // All zero: only level 4's zero byte.
  EXPECT_EQ(encode_stage_cpu(StageId::rze1, std::vector<uint8_t>(16384, 0)).size(), kHeaderBytes + 2 + 1);
  // RZE keeps every non-zero symbol: a distinct-symbol block stays raw.
  const auto distinct = test::symbols(16384, 4, [](uint64_t i) { return i + 1; });
  const auto blob = encode_stage_cpu(StageId::rze4, distinct);
  EXPECT_EQ(blob.size(), kHeaderBytes + 2 + 16384);
  EXPECT_EQ(blob[9] & 0x80, 0x80) << "raw flag";
}

TEST(Stages, TcmsMapsSmallValuesOfEitherSignToSmallCodes) {
  // 0, -1, 1, -2, 2 -> 0, 1, 2, 3, 4 in every width; the extremes map to the top codes.
  for (StageId id : {StageId::tcms1, StageId::tcms2, StageId::tcms4, StageId::tcms8}) {
    const int w = width_of(id);
    const int64_t vals[] = {0, -1, 1, -2, 2};
    const auto in = test::symbols(5 * w, w, [&](uint64_t i) { return static_cast<uint64_t>(vals[i]); });
    const auto blob = encode_stage_cpu(id, in);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(test::ref_load(&blob[kHeaderBytes + i * w], w), uint64_t(i)) << stage_name(id);
  }
}

TEST(Stages, SameBytesWhateverTheThreadCount) {
  const auto codes = test::fixture_codes(2);
  std::vector<uint8_t> in;
  for (const auto& c : codes) in.insert(in.end(), c.bytes.begin(), c.bytes.end());
  const int before = omp_get_max_threads();
  for (StageId id : byte_stages()) {
    omp_set_num_threads(1);
    const auto one = encode_stage_cpu(id, in);
    omp_set_num_threads(2);
    const auto two = encode_stage_cpu(id, in);
    omp_set_num_threads(3);
    const auto three = encode_stage_cpu(id, in);
    EXPECT_EQ(one, two) << stage_name(id);
    EXPECT_EQ(one, three) << stage_name(id);
    EXPECT_EQ(decode_stage_cpu(id, one, in.size()), in) << stage_name(id);
  }
  omp_set_num_threads(before);
}

TEST(Stages, EveryTruncationIsRefused) {
  for (StageId id : byte_stages()) {
    const int w = width_of(id);
    auto in = test::patterns(16384 + 301, w, 5)[4].bytes;  // two blocks of small signed runs: reducers encode
    const auto blob = encode_stage_cpu(id, in);
    // Every length: each is refused from the sizes alone, before any block is decoded.
    for (uint64_t len = 0; len < blob.size(); ++len) {
      const std::vector<uint8_t> cut(blob.begin(), blob.begin() + static_cast<int64_t>(len));
      EXPECT_TRUE(refused([&] { decode_stage_cpu(id, cut, in.size()); })) << stage_name(id) << " len " << len;
    }
  }
}

TEST(Stages, SingleByteCorruptionsNeverCrash) {
  // A size-preserving stage has no redundancy: a changed payload byte decodes to other bytes
  // (the container's checksums catch it), and a changed length may still describe a valid
  // blob (a chain then refuses its size). What must hold everywhere: a refusal is
  // corrupt_stream, an accepted blob decodes to at most the limit and, outside the length,
  // to exactly the input's size, and nothing reads or writes out of bounds (run under ASan
  // to see the last). Damage to the header's stage byte or to a reducer's table is always
  // refused.
  for (StageId id : byte_stages()) {
    const int w = width_of(id);
    const auto in = test::patterns(2 * 16384 + 11, w, 6)[4].bytes;
    const auto blob = encode_stage_cpu(id, in);
    const bool reducer = family_of(id) == Family::rre || family_of(id) == Family::rze;
    const uint64_t frame = kHeaderBytes + (reducer ? table_bytes(in.size()) : 0);
    int refusals = 0, tried = 0;
    for (uint64_t pos = 0; pos < blob.size(); pos += pos < frame + 256 ? 1 : 61)
      for (uint8_t flip : {0x01, 0x80, 0xFF}) {
        auto bad = blob;
        bad[pos] ^= flip;
        std::vector<uint8_t> out;
        const bool r = refused([&] { out = decode_stage_cpu(id, bad, in.size()); });
        ++tried;
        refusals += r;
        if (!r && pos >= 7) EXPECT_EQ(out.size(), in.size()) << stage_name(id) << " pos " << pos;
        if (!r) EXPECT_LE(out.size(), in.size()) << stage_name(id) << " pos " << pos;
        if (pos == 7) EXPECT_TRUE(r) << stage_name(id) << ": the stage byte";
        // A table entry's raw flag or size changed: the sizes no longer add up to the blob.
        if (reducer && pos >= kHeaderBytes && pos < frame) EXPECT_TRUE(r) << stage_name(id) << ": table byte " << pos;
      }
    EXPECT_GT(refusals, 0) << stage_name(id) << " of " << tried;
  }
}

TEST(Stages, ReducerPayloadDamageIsRefused) {
  // Inside an encoded payload the bitmaps fix every size: a bit flipped in the top level or
  // in a stored level byte changes the count of what follows.
  const std::vector<uint8_t> in = test::symbols(16384, 1, [](uint64_t i) { return i % 1000 == 0 ? i / 1000 : 0; });
  for (StageId id : {StageId::rre1, StageId::rze1}) {
    const auto blob = encode_stage_cpu(id, in);
    ASSERT_LT(blob.size(), 200u) << stage_name(id);
    const uint64_t payload = kHeaderBytes + 2;
    auto bad = blob;
    bad[payload] ^= 0x02;  // the top level: one more level-3 byte claimed
    std::string msg;
    EXPECT_TRUE(refused([&] { decode_stage_cpu(id, bad, in.size()); }, &msg)) << stage_name(id);
    EXPECT_NE(msg.find(stage_name(id)), std::string::npos) << msg;
    EXPECT_NE(msg.find("block 0"), std::string::npos) << msg;
    bad = blob;
    bad[payload] ^= 0x80;  // past level 3's 4 bytes: padding
    EXPECT_TRUE(refused([&] { decode_stage_cpu(id, bad, in.size()); }, &msg)) << stage_name(id);
    EXPECT_NE(msg.find("past its end"), std::string::npos) << msg;
  }
  // RRE's first symbol has no predecessor: a blob that does not keep it is refused.
  const std::vector<uint8_t> runs = test::symbols(64, 1, [](uint64_t i) { return i / 16; });
  auto blob = encode_stage_cpu(StageId::rre1, runs);
  // 64 symbols: level 0 has 8 bytes, level 1 (one byte) is the top; level-0 byte 0 is 0x01.
  ASSERT_EQ(blob[kHeaderBytes + 2], 0x55);  // level-0 bytes 0, 2, 4, 6 are non-zero
  ASSERT_EQ(blob[kHeaderBytes + 3], 0x01);
  blob[kHeaderBytes + 3] = 0x02;
  std::string msg;
  EXPECT_TRUE(refused([&] { decode_stage_cpu(StageId::rre1, blob, runs.size()); }, &msg));
  EXPECT_NE(msg.find("first symbol"), std::string::npos) << msg;
}

TEST(Stages, DecompressionBombsAreRefusedBeforeAllocating) {
  // Headers declaring 2^60 bytes (as a raw u64: the top byte is the stage byte, so no stage
  // reads it as its own) and the most a header can declare, 2^56 - 1, with a few bytes behind
  // them, under no caller limit: the blob itself bounds what a stage may allocate (a table
  // entry per block, or exactly n bytes).
  for (StageId id : byte_stages()) {
    std::vector<uint8_t> bomb(64, 0);
    const uint64_t huge = uint64_t(1) << 60;
    std::memcpy(bomb.data(), &huge, 8);
    std::string msg;
    EXPECT_TRUE(refused([&] { decode_stage_cpu(id, bomb, UINT64_MAX); }, &msg)) << stage_name(id);
    EXPECT_NE(msg.find(stage_name(id)), std::string::npos) << msg;
    write_header(bomb.data(), id, kMaxStageInput);
    EXPECT_TRUE(refused([&] { decode_stage_cpu(id, bomb, UINT64_MAX); }, &msg)) << stage_name(id);
    EXPECT_NE(msg.find(stage_name(id)), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(kMaxStageInput)), std::string::npos) << msg;
  }
  // Under a caller limit, the limit refuses it first.
  std::vector<uint8_t> bomb(64, 0);
  write_header(bomb.data(), StageId::rre1, 1000);
  EXPECT_TRUE(refused([&] { decode_stage_cpu(StageId::rre1, bomb, 999); }));
  EXPECT_THROW(write_header(bomb.data(), StageId::rre1, kMaxStageInput + 1), Error);
}

// An empty input: every stage's blob is its header alone and decodes to nothing. The CPU
// twins used to memcpy to and from the null data() of empty vectors here, undefined behaviour
// that only the sanitizer build (.ci/run) reports; found by fuzz_stages on a tcms blob of n = 0.
TEST(Stages, EmptyInputRoundTrips) {
  for (StageId id : byte_stages()) {
    SCOPED_TRACE(stage_name(id));
    const auto blob = encode_stage_cpu(id, {});
    EXPECT_EQ(blob.size(), 8u);
    EXPECT_TRUE(decode_stage_cpu(id, blob, 0).empty());
  }
  // The fuzzer's reproducer: the tcms1 blob of n = 0 (its stage byte 0x10 in the top byte).
  const std::vector<uint8_t> reproducer{0, 0, 0, 0, 0, 0, 0, 0x10};
  EXPECT_EQ(encode_stage_cpu(StageId::tcms1, {}), reproducer);
  EXPECT_TRUE(decode_stage_cpu(StageId::tcms1, reproducer, 1 << 20).empty());
}

// encoded_bytes_cpu, the size without the blob, is the blob's size exactly: every stage, the
// edge lengths and patterns above, sparse and dense bit streams (the mdr planes it sizes),
// and real quant codes of both widths; codes stages under both contexts.
TEST(Stages, EncodedBytesIsTheBlobsSize) {
  std::vector<test::NamedBytes> inputs;
  for (uint64_t n : test::edge_lengths())
    for (int w : {1, 2, 4, 8})
      for (auto& p : test::patterns(n, w, static_cast<uint32_t>(3 * n + w)))
        inputs.push_back({p.name + " w" + std::to_string(w) + " n" + std::to_string(n), std::move(p.bytes)});
  for (double density : {0.0, 1e-4, 0.01, 0.1, 0.5, 0.9, 1.0})
    for (uint64_t n : {uint64_t(64), uint64_t(4096), uint64_t(70000), uint64_t(200000)}) {
      std::mt19937 rng(static_cast<uint32_t>(n * 7 + density * 1000));
      std::bernoulli_distribution bit(density);
      std::vector<uint8_t> v(n, 0);
      for (auto& b : v)
        for (int k = 0; k < 8; ++k) b |= static_cast<uint8_t>(bit(rng)) << k;
      inputs.push_back({"bits " + std::to_string(density) + " n" + std::to_string(n), std::move(v)});
    }
  for (int cw : {1, 2})
    for (auto& c : test::fixture_codes(cw)) inputs.push_back({c.name + " codes" + std::to_string(cw), std::move(c.bytes)});
  for (StageId id : all_stages()) {
    for (const auto& in : inputs) {
      for (uint8_t cw : {uint8_t(1), uint8_t(2)}) {
        if (family_of(id) != Family::codes && cw == 2) continue;
        Context ctx;
        ctx.code_width = cw;
        ctx.alphabet = cw == 1 ? 256 : 65536;
        ctx.centre = 0;
        if (family_of(id) == Family::codes && in.bytes.size() % cw) continue;
        SCOPED_TRACE(std::string(stage_name(id)) + " " + in.name + " code width " + std::to_string(cw));
        std::vector<uint8_t> blob;
        try {
          blob = encode_stage_cpu(id, in.bytes, ctx);
        } catch (const Error& e) {  // bitpack's context rules: sizing must refuse alike
          EXPECT_THROW(encoded_bytes_cpu(id, in.bytes, ctx), Error);
          continue;
        }
        EXPECT_EQ(encoded_bytes_cpu(id, in.bytes, ctx), blob.size());
      }
    }
  }
}
