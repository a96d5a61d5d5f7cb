// Each lossless stage's CPU decoder alone, and chains of them, over every stage the registry
// lists (src/lossless/stages). The input's first bytes pick the stage (or chain) and the codes
// context; the rest is the blob.
//
//   single: u8 pick (bit 7 clear; low bits: stage index), u8 code width - 1 (bit 0),
//           u16 alphabet - 1, u16 centre, blob
//   chain:  u8 pick (bit 7 set), u8 count - 1 (low 2 bits), count x u8 stage index,
//           u8 code width - 1, u16 alphabet - 1, u16 centre, u32 decoded bytes, blob
//
// Oracles besides the sanitizers: only sciz::Error escapes; a decode that succeeds returns at
// most what was allowed (exactly that for a chain); re-encoding what was decoded and decoding
// that gives the same bytes back.
#include <sciz/error.hpp>

#include <cstring>
#include <span>
#include <vector>

#include "limits.hpp"
#include "lossless/bitpack/bitpack_math.hpp"
#include "lossless/stages/registry.hpp"
#include "lossless/stages/stages.hpp"

namespace {

using namespace sciz;
using namespace sciz::stages;

struct Input {
  const uint8_t* p;
  size_t n;
  template <class V>
  bool get(V& v) {
    if (n < sizeof(V)) return false;
    std::memcpy(&v, p, sizeof(V));
    p += sizeof(V);
    n -= sizeof(V);
    return true;
  }
};

StageId pick(uint8_t b) {
  const auto all = all_stages();
  return all[b % all.size()];
}

bool read_context(Input& in, Context& ctx) {
  uint8_t w;
  uint16_t alpha, centre;
  if (!in.get(w) || !in.get(alpha) || !in.get(centre)) return false;
  ctx.code_width = static_cast<uint8_t>(1 + (w & 1));
  const uint32_t max_alpha = ctx.code_width == 1 ? 256 : 65536;
  ctx.alphabet = 1 + alpha % max_alpha;
  ctx.centre = static_cast<uint16_t>(centre % ctx.alphabet);
  return true;
}

// Codes a codes stage may re-encode: whole codes, each inside the alphabet.
bool codes_in_alphabet(const std::vector<uint8_t>& out, const Context& ctx) {
  if (out.size() % ctx.code_width) return false;
  for (size_t i = 0; i < out.size(); i += ctx.code_width) {
    uint32_t v = out[i];
    if (ctx.code_width == 2) v |= uint32_t(out[i + 1]) << 8;
    if (v >= ctx.alphabet) return false;
  }
  return true;
}

// The one refusal an encoder may give codes that are in the alphabet: bitpack with a context
// whose symbols do not zigzag into its widths (bitpack::context_fits). Any other throw on
// re-encode is a finding.
bool encodable(std::span<const StageId> ids, const Context& ctx) {
  for (StageId id : ids)
    if (id == StageId::bitpack && !bitpack::context_fits(ctx.alphabet, ctx.centre)) return false;
  return true;
}

void single(Input in, uint8_t sel) {
  const StageId id = pick(sel);
  Context ctx;
  if (!read_context(in, ctx)) return;
  const std::span<const uint8_t> blob(in.p, in.n);
  std::vector<uint8_t> out;
  try {
    out = decode_stage_cpu(id, blob, fuzz::kMaxDecodedBytes, ctx);
  } catch (const Error&) {
    return;
  }
  if (out.size() > fuzz::kMaxDecodedBytes) __builtin_trap();
  if (family_of(id) == Family::codes && !codes_in_alphabet(out, ctx)) return;
  if (!encodable({&id, 1}, ctx)) return;
  const std::vector<uint8_t> again = encode_stage_cpu(id, out, ctx);
  if (decode_stage_cpu(id, again, out.size(), ctx) != out) __builtin_trap();
}

void chain(Input in) {
  uint8_t count;
  if (!in.get(count)) return;
  Chain ch(1 + (count & 3));
  for (auto& id : ch) {
    uint8_t b;
    if (!in.get(b)) return;
    id = pick(b);
  }
  Context ctx;
  uint32_t want;
  if (!read_context(in, ctx) || !in.get(want)) return;
  const uint64_t out_bytes = want % (fuzz::kMaxDecodedBytes + 1);
  std::vector<uint8_t> out;
  try {
    out = decode_cpu(ch, {in.p, in.n}, out_bytes, ctx);
  } catch (const Error&) {
    return;
  }
  if (out.size() != out_bytes) __builtin_trap();
  if (family_of(ch[0]) == Family::codes && !codes_in_alphabet(out, ctx)) return;
  if (!encodable(ch, ctx)) return;
  const std::vector<uint8_t> again = encode_cpu(ch, out, ctx);
  if (decode_cpu(ch, again, out.size(), ctx) != out) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in{data, size};
  uint8_t sel;
  if (!in.get(sel)) return 0;
  if (sel & 0x80)
    chain(in);
  else
    single(in, sel);
  return 0;
}
