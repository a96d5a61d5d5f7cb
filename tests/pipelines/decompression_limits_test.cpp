// Decompression bombs: a stream of a few hundred bytes may declare a field of up to 2 PiB, or
// sections whose declared decoded sizes do not match the field. Such streams are refused from
// their headers, before anything the size of the declared field is allocated: a refusal that
// came after such an allocation would surface here as std::bad_alloc (or, in the sanitizer
// build, as ASan's allocation-size-too-big abort) instead of sciz::Error.
#include <gtest/gtest.h>
#include <sciz/sciz.h>

#include <cstring>
#include <functional>

#include "support/crafted_streams.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

// 2^44 rows of 8 doubles: 1 PiB declared, 64 bytes a row.
const Shape kHuge{{uint64_t(1) << 44, 8}};

DecompressOptions cpu_options(uint64_t max_output = kDefaultMaxOutput) {
  DecompressOptions o;
  o.device = Device::cpu;
  o.max_output = max_output;
  return o;
}

Error error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  return Error(Status::ok, "no error");
}

std::vector<uint8_t> small_stream(const char* stages, double chunk_mb = 0) {
  const Shape s{{64, 40}};
  const auto x = test::smooth_field<float>(s, 3);
  CompressOptions o;
  o.eb = {EbMode::abs, 1e-3};
  o.device = Device::cpu;
  o.stages = stages;
  o.chunk_mb = chunk_mb;
  return compress({x.data(), DType::f32, s}, o);
}

}  // namespace

// The header is described without allocating the field; a row of it cannot be decoded without
// decoding its chunk whole, and that is what the limit refuses.
TEST(DecompressionLimits, HugeDeclaredFieldIsRefusedFromItsHeader) {
  const auto s = test::declared_huge_stream(kHuge);
  ASSERT_LT(s.size(), 1024u);
  const StreamInfo info = inspect(s);
  EXPECT_EQ(info.original_bytes(), uint64_t(1) << 50);
  std::vector<double> row(8);
  const Error e = error_of([&] { decompress_rows(StreamView(s), 0, 1, row.data(), 64, cpu_options()); });
  EXPECT_EQ(e.status(), Status::invalid_argument) << e.what();
  EXPECT_NE(std::string(e.what()).find("max_output"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find(std::to_string(uint64_t(1) << 50)), std::string::npos) << e.what();
  // The whole field, into a buffer that cannot be its size: refused by the same check.
  EXPECT_EQ(error_of([&] { decompress(StreamView(s), row.data(), 64, cpu_options()); }).status(),
            Status::invalid_argument);
  // The overloads without options and the C API apply the default limit too.
  EXPECT_EQ(error_of([&] { decompress_rows(s, 0, 1, row.data(), 64, Device::cpu); }).status(), Status::invalid_argument);
  EXPECT_EQ(sciz_decompress_rows(s.data(), s.size(), 0, 1, row.data(), 64, SCIZ_DEVICE_CPU), SCIZ_INVALID_ARGUMENT);
}

// Lifting the limit leaves the lie to the decoder, which still refuses it before allocating the
// declared chunk: a raw chunk's section must hold the field's bytes exactly.
TEST(DecompressionLimits, MismatchedRawSectionRefusedWithTheLimitLifted) {
  const Shape s{{1000, 8}};
  const auto st = test::declared_huge_stream(s);
  std::vector<double> out(s.count());
  const Error e = error_of([&] { decompress(StreamView(st), out.data(), out.size() * 8, cpu_options(0)); });
  EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
  EXPECT_NE(std::string(e.what()).find("64000"), std::string::npos) << e.what();
}

// A codes stage's blob that declares 2^50 symbols for a chunk of 2,560 values: the chain
// decoder compares the count with the chunk before it sizes anything from it.
TEST(DecompressionLimits, CodesBlobDeclaringHugeCountRefusedBeforeAllocation) {
  for (const char* list : {"huffman", "rle", "zrle+huffman", "bitpack", "huffman,rre4,tcms8,rze1"}) {
    SCOPED_TRACE(list);
    const auto st = small_stream(list);
    const ParsedStream ps = read_stream(st);
    ASSERT_EQ(ps.chunks[0].header.pipeline, "lorenzo");
    std::vector<uint8_t> codes(ps.chunks[0].section(1, "codes").bytes.begin(), ps.chunks[0].section(1, "codes").bytes.end());
    const uint64_t huge = uint64_t(1) << 50;
    std::memcpy(codes.data(), &huge, 8);  // every blob opens with its count (byte stages: n | id << 56)
    if (std::strchr(list, ',')) codes[7] = 0x40;  // the last stage's byte (rze1) above the new n
    const auto bad = test::with_section(st, 0, 1, codes);
    std::vector<float> out(64 * 40);
    const Error e = error_of([&] { decompress(StreamView(bad), out.data(), out.size() * 4, cpu_options(0)); });
    EXPECT_EQ(e.status(), Status::corrupt_stream) << e.what();
  }
}

// The limit counts the output and each chunk decoded whole for it, from the header alone.
TEST(DecompressionLimits, LimitCountsOutputAndWholeChunks) {
  const auto whole = small_stream("huffman");
  std::vector<float> out(64 * 40);
  const uint64_t bytes = out.size() * 4;
  EXPECT_EQ(error_of([&] { decompress(StreamView(whole), out.data(), bytes, cpu_options(bytes - 1)); }).status(),
            Status::invalid_argument);
  EXPECT_NO_THROW(decompress(StreamView(whole), out.data(), bytes, cpu_options(bytes)));
  EXPECT_NO_THROW(decompress(StreamView(whole), out.data(), bytes, cpu_options(0)));

  const auto chunked = small_stream("huffman", 0.004);  // 24 rows of 160 bytes a chunk
  const StreamInfo info = inspect(chunked);
  ASSERT_GE(info.chunks.size(), 2u);
  const uint64_t chunk = info.chunks[0].rows * 160;
  std::vector<float> row(40);
  EXPECT_EQ(error_of([&] { decompress_rows(StreamView(chunked), 3, 4, row.data(), 160, cpu_options(chunk - 1)); }).status(),
            Status::invalid_argument);
  EXPECT_NO_THROW(decompress_rows(StreamView(chunked), 3, 4, row.data(), 160, cpu_options(chunk)));
  std::vector<float> ref(64 * 40);
  decompress(chunked, ref.data(), ref.size() * 4, Device::cpu);
  EXPECT_EQ(0, std::memcmp(row.data(), ref.data() + 3 * 40, 160));
}
