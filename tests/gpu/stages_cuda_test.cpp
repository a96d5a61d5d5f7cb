// Lossless stages, CUDA twin against the CPU twin: the same bytes for every stage, width,
// edge length and pattern and for the named chains on real quant codes; each twin decodes the
// other's blobs; inputs and outputs at unaligned addresses; nothing written past the output;
// and damaged blobs refused where the CPU refuses them, with the same output where it accepts.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <cstring>
#include <string>

#include "gpu/gpu_util.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stages.hpp"
#include "lossless/stages/stages_cuda.hpp"
#include "support/stage_inputs.hpp"

using namespace sciz;
using namespace sciz::stages;

namespace {

Status status_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.status();
  }
  return Status::ok;
}

std::vector<StageId> byte_stages() {
  std::vector<StageId> v;
  for (StageId id : all_stages())
    if (family_of(id) != Family::codes) v.push_back(id);
  return v;
}

// One stage on the device from host bytes, at a byte offset `lead` into its device buffers.
std::vector<uint8_t> gpu_encode_stage(StageId id, const std::vector<uint8_t>& in, const Context& ctx, uint64_t lead) {
  const uint64_t cap = max_encoded_bytes(id, in.size(), ctx);
  dev::Buffer<uint8_t> d_in(lead + in.size(), nullptr), d_out(lead + cap, nullptr);
  dev::copy_to_device(d_in.get() + lead, in.data(), in.size(), nullptr);
  const uint64_t size = encode_stage_cuda(id, d_in.get() + lead, in.size(), d_out.get() + lead, cap, ctx, nullptr);
  return test::download(d_out.get() + lead, size);
}

// Decodes on the device into a buffer with guard bytes around the output, which must survive.
std::vector<uint8_t> gpu_decode_stage(StageId id, const std::vector<uint8_t>& blob, uint64_t max_out, const Context& ctx,
                                      uint64_t lead) {
  dev::Buffer<uint8_t> d_blob(lead + blob.size(), nullptr);
  dev::copy_to_device(d_blob.get() + lead, blob.data(), blob.size(), nullptr);
  const uint64_t n = declared_bytes_cuda(id, d_blob.get() + lead, blob.size(), max_out, ctx, nullptr);
  constexpr uint8_t kGuard = 0xC5;
  auto guard = test::upload(std::vector<uint8_t>(lead + n + 64, kGuard));
  dev::Buffer<DeviceStatus> st(1, nullptr);
  dev::zero(st.get(), sizeof(DeviceStatus), nullptr);
  decode_stage_cuda(id, d_blob.get() + lead, blob.size(), guard.get() + lead, n, ctx, st.get(), nullptr);
  const auto hs = test::download(st.get(), 1);
  throw_if_failed(hs[0], std::string("stage ") + stage_name(id));
  const auto all = test::download(guard.get(), lead + n + 64);
  for (uint64_t i = 0; i < lead; ++i) EXPECT_EQ(all[i], kGuard) << "byte before the output, " << stage_name(id);
  for (uint64_t i = lead + n; i < all.size(); ++i) EXPECT_EQ(all[i], kGuard) << "byte past the output, " << stage_name(id);
  return {all.begin() + static_cast<int64_t>(lead), all.begin() + static_cast<int64_t>(lead + n)};
}

}  // namespace

TEST(StagesCuda, EveryByteStageWritesTheCpuBytes) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (StageId id : byte_stages()) {
    const int w = width_of(id);
    for (uint64_t n : test::edge_lengths())
      for (const auto& p : test::patterns(n, w, static_cast<uint32_t>(n + w))) {
        SCOPED_TRACE(std::string(stage_name(id)) + " n=" + std::to_string(n) + " " + p.name);
        const auto cpu = encode_stage_cpu(id, p.bytes);
        const uint64_t lead = n % 7;  // unaligned device addresses too
        ASSERT_EQ(gpu_encode_stage(id, p.bytes, {}, lead), cpu);
        ASSERT_EQ(gpu_decode_stage(id, cpu, n, {}, lead), p.bytes);
      }
  }
}

// Buffers at offsets 0, 4, 8 and 1 from an aligned allocation, over several full 16 KiB blocks
// and a partial one: the word-aligned fast kernels (16-, 8- and 4-byte accesses) and the
// general ones, which must all write the CPU's bytes.
TEST(StagesCuda, EveryByteStageAtEveryAlignmentWritesTheCpuBytes) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (StageId id : byte_stages()) {
    const int w = width_of(id);
    for (uint64_t n : {uint64_t{16384}, uint64_t{3 * 16384}, uint64_t{5 * 16384 + 777}, uint64_t{40 * 16384 + 13}})
      for (const auto& p : test::patterns(n, w, static_cast<uint32_t>(n % 1000 + w)))
        for (uint64_t lead : {0, 4, 8, 1}) {
          SCOPED_TRACE(std::string(stage_name(id)) + " n=" + std::to_string(n) + " " + p.name + " lead " +
                       std::to_string(lead));
          const auto cpu = encode_stage_cpu(id, p.bytes);
          ASSERT_EQ(gpu_encode_stage(id, p.bytes, {}, lead), cpu);
          ASSERT_EQ(gpu_decode_stage(id, cpu, n, {}, lead), p.bytes);
        }
  }
  // Interp-like 1-byte codes, mostly 128: the reducers keep few symbols and the bitmaps recurse.
  for (StageId id : {StageId::rre1, StageId::rze1, StageId::bit1, StageId::tcms1})
    for (double noisy : {0.0, 0.02, 0.3, 1.0}) {
      const auto in = test::synthetic_u8_codes(9 * 16384 + 5, noisy, 11);
      SCOPED_TRACE(std::string(stage_name(id)) + " noisy " + std::to_string(noisy));
      const auto cpu = encode_stage_cpu(id, in);
      ASSERT_EQ(gpu_encode_stage(id, in, {}, 0), cpu);
      ASSERT_EQ(gpu_decode_stage(id, cpu, in.size(), {}, 0), in);
    }
}

TEST(StagesCuda, NamedChainsOnQuantCodesMatchTheCpu) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::vector<std::pair<test::NamedBytes, Context>> inputs;
  for (auto& c : test::fixture_codes(1)) inputs.push_back({std::move(c), Context{1, 256, 128}});
  for (auto& c : test::fixture_codes(2)) inputs.push_back({std::move(c), Context{2, 1024, 512}});
  inputs.push_back({{"synthetic u8, 8 MiB", test::synthetic_u8_codes(8 << 20, 0.1, 3)}, Context{1, 256, 128}});
  for (uint64_t n : {0ull, 1ull, 16383ull, 16385ull})
    inputs.push_back({{"edge " + std::to_string(n), test::synthetic_u8_codes(n, 0.3, 4)}, Context{1, 256, 128}});
  for (const char* list : {"interp-cr", "interp-tp", "zrle+huffman,rze1", "bitpack,bit4,rre4", "rle+huffman,tcms2",
                           "rre8,rre4,rre2,rre1"}) {
    const Chain chain = parse_chain(list);
    for (const auto& [in, ctx] : inputs) {
      SCOPED_TRACE(std::string(list) + " on " + in.name);
      const auto cpu = encode_cpu(chain, in.bytes, ctx);
      const auto gpu = encode_cuda_host(chain, in.bytes, ctx, nullptr);
      ASSERT_EQ(gpu, cpu);
      ASSERT_EQ(decode_cuda_host(chain, cpu, in.bytes.size(), ctx, nullptr), in.bytes);
      ASSERT_EQ(decode_cpu(chain, gpu, in.bytes.size(), ctx), in.bytes);
    }
  }
}

// A tcms stage followed by a bit stage runs fused on the device (tcms_bit_cuda.cu): every pair of
// widths, around the block edges the 8-byte shift moves (the tcms blob is 8 bytes longer) and
// where the last full block ends in a partial symbol; damaged blobs refused as on the CPU.
TEST(StagesCuda, FusedTcmsBitWritesTheCpuBytes) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (int tw : {1, 2, 4, 8})
    for (int bw : {1, 2, 4, 8}) {
      const Chain chain{byte_stage(Family::tcms, tw), byte_stage(Family::bit, bw), StageId::rre1};
      const Chain pair{chain[0], chain[1]};
      for (uint64_t n : {uint64_t{0}, uint64_t{5}, uint64_t{16376}, uint64_t{16377}, uint64_t{16383}, uint64_t{3 * 16384 - 8},
                         uint64_t{3 * 16384 - 7}, uint64_t{3 * 16384 + 3}, uint64_t{10 * 16384 + 1001}})
        for (const auto& p : test::patterns(n, tw, static_cast<uint32_t>(n + 7 * tw + bw))) {
          SCOPED_TRACE(chain_name(chain) + " n=" + std::to_string(n) + " " + p.name);
          for (const Chain& c : {chain, pair}) {
            const auto cpu = encode_cpu(c, p.bytes);
            ASSERT_EQ(encode_cuda_host(c, p.bytes, {}, nullptr), cpu);
            ASSERT_EQ(decode_cuda_host(c, cpu, n, {}, nullptr), p.bytes);
          }
        }
      // Damage where the fused decoder reads headers and planes: refused wherever the CPU refuses.
      const auto in = test::patterns(4 * 16384 + 9, tw, 3)[4].bytes;
      const auto blob = encode_cpu(pair, in);
      for (uint64_t pos : {0, 3, 7, 8, 9, 15, 16, 100, 2000, 16400, 40000}) {
        auto bad = blob;
        bad[pos] ^= 0x41;
        std::vector<uint8_t> c, g;
        const Status sc = status_of([&] { c = decode_cpu(pair, bad, in.size()); });
        const Status sg = status_of([&] { g = decode_cuda_host(pair, bad, in.size(), {}, nullptr); });
        EXPECT_EQ(sg, sc) << chain_name(pair) << " byte " << pos;
        if (sc == Status::ok && sg == Status::ok) EXPECT_EQ(g, c) << chain_name(pair) << " byte " << pos;
      }
    }
}

TEST(StagesCuda, CodesStagesCheckTheirCodes) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  // Outside the alphabet: refused before encoding, as on the CPU.
  const std::vector<uint8_t> in{1, 2, 200, 3};
  EXPECT_EQ(status_of([&] { encode_cuda_host(Chain{StageId::huffman}, in, Context{1, 100, 50}, nullptr); }),
            Status::invalid_argument);
  // Codes above 255 decoded by a 1-byte decoder: refused.
  const std::vector<uint8_t> wide = test::symbols(200, 2, [](uint64_t i) { return 250 + i % 10; });
  for (StageId id : {StageId::huffman, StageId::rle, StageId::bitpack}) {
    const auto blob = encode_stage_cpu(id, wide, Context{2, 1024, 255});
    EXPECT_EQ(status_of([&] { gpu_decode_stage(id, blob, 1000, Context{1, 256, 128}, 0); }), Status::corrupt_stream)
        << stage_name(id);
  }
}

TEST(StagesCuda, DamagedBlobsAreRefusedWhereTheCpuRefusesThem) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (StageId id : byte_stages()) {
    const int w = width_of(id);
    const auto in = test::patterns(2 * 16384 + 11, w, 6)[4].bytes;  // small signed runs: reducers encode
    const auto blob = encode_stage_cpu(id, in);
    auto agree = [&](const std::vector<uint8_t>& bad, const std::string& what) {
      std::vector<uint8_t> c, g;
      const Status sc = status_of([&] { c = decode_stage_cpu(id, bad, in.size()); });
      const Status sg = status_of([&] { g = gpu_decode_stage(id, bad, in.size(), {}, 3); });
      EXPECT_EQ(sg, sc) << stage_name(id) << " " << what;
      if (sc == Status::ok && sg == Status::ok) EXPECT_EQ(g, c) << stage_name(id) << " " << what;
    };
    for (uint64_t len : {uint64_t{0}, uint64_t{7}, uint64_t{8}, uint64_t{9}, uint64_t{14}, blob.size() / 2, blob.size() - 1})
      agree(std::vector<uint8_t>(blob.begin(), blob.begin() + static_cast<int64_t>(len)), "cut to " + std::to_string(len));
    for (uint64_t pos = 0; pos < blob.size(); pos += pos < 64 ? 1 : 997) {
      auto bad = blob;
      bad[pos] ^= 0x21;
      agree(bad, "byte " + std::to_string(pos));
    }
  }
  // Inside an encoded payload: the padding and size checks of the block decoder.
  const std::vector<uint8_t> sparse = test::symbols(16384, 1, [](uint64_t i) { return i % 1000 == 0 ? i / 1000 : 0; });
  for (StageId id : {StageId::rre1, StageId::rze1})
    for (uint8_t flip : {0x02, 0x80}) {
      auto bad = encode_stage_cpu(id, sparse);
      bad[kHeaderBytes + 2] ^= flip;
      EXPECT_EQ(status_of([&] { decode_stage_cpu(id, bad, sparse.size()); }), Status::corrupt_stream);
      EXPECT_EQ(status_of([&] { gpu_decode_stage(id, bad, sparse.size(), {}, 0); }), Status::corrupt_stream)
          << stage_name(id) << " flip " << int(flip);
    }
  // A bomb is refused from its header alone.
  std::vector<uint8_t> bomb(64, 0);
  write_header(bomb.data(), StageId::rre1, kMaxStageInput);
  EXPECT_EQ(status_of([&] { gpu_decode_stage(StageId::rre1, bomb, UINT64_MAX, {}, 0); }), Status::corrupt_stream);
}
