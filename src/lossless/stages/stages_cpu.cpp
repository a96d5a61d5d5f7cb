// Dispatch from a stage id to its family's CPU twin, and chains of stages.
#include "lossless/stages/stages.hpp"

#include <sciz/error.hpp>

#include <cstring>
#include <string>

#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cpu.hpp"

namespace sciz::stages {
namespace {

StageId known(StageId id) {
  SCIZ_REQUIRE(stage_by_id(static_cast<uint8_t>(id)), Status::invalid_argument,
               "stage id " + std::to_string(static_cast<unsigned>(id)) + " is not a stage");
  return id;
}

uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

}  // namespace

std::vector<uint8_t> encode_stage_cpu(StageId id, std::span<const uint8_t> in, const Context& ctx) {
  switch (family_of(known(id))) {
    case Family::codes: return cpu::codes_encode(id, in, ctx);
    case Family::tcms: return cpu::tcms_encode(id, in);
    case Family::bit: return cpu::bit_encode(id, in);
    case Family::rre:
    case Family::rze: return cpu::eliminate_encode(id, in);
  }
  fail(Status::internal, "stage family");
}

uint64_t encoded_bytes_cpu(StageId id, std::span<const uint8_t> in, const Context& ctx) {
  switch (family_of(known(id))) {
    case Family::codes: return cpu::codes_bytes(id, in, ctx);
    case Family::tcms:
    case Family::bit:
      check_input(id, in.size());
      return kHeaderBytes + in.size();
    case Family::rre:
    case Family::rze: return cpu::eliminate_bytes(id, in);
  }
  fail(Status::internal, "stage family");
}

std::vector<uint8_t> decode_stage_cpu(StageId id, std::span<const uint8_t> blob, uint64_t max_out,
                                      const Context& ctx) {
  switch (family_of(known(id))) {
    case Family::codes: return cpu::codes_decode(id, blob, ctx, max_out);
    case Family::tcms: return cpu::tcms_decode(id, blob, max_out);
    case Family::bit: return cpu::bit_decode(id, blob, max_out);
    case Family::rre:
    case Family::rze: return cpu::eliminate_decode(id, blob, max_out);
  }
  fail(Status::internal, "stage family");
}

std::vector<uint8_t> encode_codes_cpu(Lossless choice, std::span<const uint8_t> in, const Context& ctx,
                                      StageId& chosen) {
  SCIZ_REQUIRE(choice == Lossless::auto_select || stage_by_id(static_cast<uint8_t>(choice)), Status::invalid_argument,
               "lossless choice " + std::to_string(static_cast<unsigned>(choice)) + " is not a codes stage");
  codes::Encoded e = cpu::codes_encode_choice(choice, in, ctx);
  chosen = static_cast<StageId>(e.stage);
  return std::move(e.bytes);
}

uint64_t max_encoded_bytes(StageId id, uint64_t n, const Context& ctx) {
  switch (family_of(known(id))) {
    case Family::codes: return cpu::codes_max_bytes(n, ctx);
    case Family::tcms:
    case Family::bit: return sat_add(kHeaderBytes, n);
    case Family::rre:
    case Family::rze: return sat_add(sat_add(kHeaderBytes, table_bytes(n)), n);
  }
  fail(Status::internal, "stage family");
}

uint64_t declared_bytes(StageId id, std::span<const uint8_t> blob, const Context& ctx) {
  if (family_of(known(id)) != Family::codes) return peek_header(blob, id);
  SCIZ_REQUIRE(blob.size() >= 8, Status::corrupt_stream,
               std::string("stage ") + stage_name(id) + ": blob of " + std::to_string(blob.size()) +
                   " bytes is shorter than its symbol count");
  uint64_t n;
  std::memcpy(&n, blob.data(), 8);
  const uint64_t w = ctx.code_width ? ctx.code_width : 1;
  return n > UINT64_MAX / w ? UINT64_MAX : n * w;
}

std::vector<uint8_t> encode_cpu(std::span<const StageId> chain, std::span<const uint8_t> in, const Context& ctx) {
  check_chain(chain, Status::invalid_argument);
  std::vector<uint8_t> cur = encode_stage_cpu(chain[0], in, ctx);
  for (size_t i = 1; i < chain.size(); ++i) cur = encode_stage_cpu(chain[i], cur, ctx);
  return cur;
}

uint64_t max_encoded_bytes(std::span<const StageId> chain, uint64_t n, const Context& ctx) {
  for (StageId id : chain) n = max_encoded_bytes(id, n, ctx);
  return n;
}

namespace {

// cap[i]: the largest input stage i can have seen for a chain decoding to out_bytes, so the
// largest blob stage i - 1 wrote.
std::vector<uint64_t> input_caps(std::span<const StageId> chain, uint64_t out_bytes, const Context& ctx) {
  std::vector<uint64_t> cap(chain.size());
  cap[0] = out_bytes;
  for (size_t i = 1; i < chain.size(); ++i) cap[i] = max_encoded_bytes(chain[i - 1], cap[i - 1], ctx);
  return cap;
}

// Decodes chain[last], chain[last - 1], ..., chain[stop]: the input of stage `stop`.
std::vector<uint8_t> decode_down_to(std::span<const StageId> chain, size_t stop, std::span<const uint8_t> blob,
                                    uint64_t out_bytes, const Context& ctx) {
  check_chain(chain, Status::corrupt_stream);
  const std::vector<uint64_t> cap = input_caps(chain, out_bytes, ctx);
  std::vector<uint8_t> cur;
  std::span<const uint8_t> in = blob;
  for (size_t i = chain.size(); i-- > stop;) {
    std::vector<uint8_t> next = decode_stage_cpu(chain[i], in, cap[i], ctx);
    cur = std::move(next);
    in = cur;
  }
  return cur;
}

}  // namespace

std::vector<uint8_t> decode_cpu(std::span<const StageId> chain, std::span<const uint8_t> blob, uint64_t out_bytes,
                                const Context& ctx) {
  std::vector<uint8_t> cur = decode_down_to(chain, 0, blob, out_bytes, ctx);
  SCIZ_REQUIRE(cur.size() == out_bytes, Status::corrupt_stream,
               "stage list " + chain_name(chain) + ": decodes to " + std::to_string(cur.size()) + " bytes, expected " +
                   std::to_string(out_bytes));
  return cur;
}

std::vector<uint8_t> decode_tail_cpu(std::span<const StageId> chain, std::span<const uint8_t> blob,
                                     uint64_t out_bytes, const Context& ctx) {
  SCIZ_REQUIRE(chain.size() >= 2, Status::internal, "decode_tail_cpu: a chain of one stage has no tail");
  return decode_down_to(chain, 1, blob, out_bytes, ctx);
}

}  // namespace sciz::stages
