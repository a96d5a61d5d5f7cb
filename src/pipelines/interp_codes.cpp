#include "pipelines/interp_codes.hpp"

#include <sciz/error.hpp>

#include <utility>

#include "lossless/codes/codes.hpp"
#include "lossless/huffman/huffman.hpp"
#include "lossless/stages/stages.hpp"
#include "lossless/stages/stages_cuda.hpp"
#include "predict/lorenzo/lorenzo_math.hpp"

namespace sciz::interp_codes {

using stages::Chain;
using stages::Family;
using stages::StageId;

namespace {

bool is_codes(StageId id) { return stages::family_of(id) == Family::codes; }

}  // namespace

Plan plan_of(const CompressOptions& opt, const std::optional<Chain>& preset) {
  if (preset) {
    const std::string mine = stages::chain_name(*preset);
    SCIZ_REQUIRE(opt.lossless == Lossless::auto_select, Status::invalid_argument,
                 std::string("pipeline ") + opt.pipeline + " codes with its own stage list (" + mine +
                     "), not with lossless " + lossless_name(opt.lossless) +
                     ": use pipeline interp for another choice");
    SCIZ_REQUIRE(opt.stages.empty() || stages::parse_chain(opt.stages) == *preset, Status::invalid_argument,
                 std::string("pipeline ") + opt.pipeline + " codes with its own stage list (" + mine +
                     "), not with '" + opt.stages + "': use pipeline interp with that list");
    return preset;
  }
  if (!opt.stages.empty()) {
    SCIZ_REQUIRE(opt.lossless == Lossless::auto_select, Status::invalid_argument,
                 std::string("give lossless (") + lossless_name(opt.lossless) + ") or stages ('" + opt.stages +
                     "'), not both: a stage list names its codes stage itself");
    return stages::parse_chain(opt.stages);
  }
  if (opt.lossless != Lossless::auto_select) return stages::chain_for_lossless(opt.lossless);
  return std::nullopt;
}

std::string lorenzo_stages(const Plan& plan) { return plan ? stages::chain_name(*plan) : std::string(); }

std::vector<Chain> auto_candidates(StageId best) {
  return {Chain{best}, Chain{best, StageId::rze1}, *stages::preset_chain("interp-cr"),
          *stages::preset_chain("interp-tp")};
}

namespace {

// The candidates run one after the other, each from the codes or from the codes stage's blob
// it shares with an earlier one; the smallest is kept, a tie going to the earlier. The same
// order and rule on both devices, over the same bytes, make the same choice.
template <class Blob, class Size, class FromCodes, class Apply>
Blob smallest_candidate(StageId best, Blob best_blob, Size size, FromCodes from_codes, Apply apply, Chain& chain) {
  const std::vector<Chain> cand = auto_candidates(best);
  Blob kept;
  size_t kept_at = 0;
  bool first_kept = true;  // candidate 0 is best_blob itself, which later candidates read
  for (size_t i = 1; i < cand.size(); ++i) {
    const Chain& c = cand[i];
    Blob b;
    if (!is_codes(c[0])) {
      b = from_codes(c);
    } else if (c[0] == best) {
      b = apply(Chain(c.begin() + 1, c.end()), best_blob);
    } else {
      const Blob head = from_codes(Chain{c[0]});
      b = apply(Chain(c.begin() + 1, c.end()), head);
    }
    const uint64_t now = first_kept ? size(best_blob) : size(kept);
    if (size(b) < now) kept = std::move(b), kept_at = i, first_kept = false;
  }
  chain = cand[kept_at];
  return first_kept ? std::move(best_blob) : std::move(kept);
}

}  // namespace

std::vector<uint8_t> encode_cpu(std::span<const uint8_t> codes, const Plan& plan, Chain& chain) {
  if (plan) {
    chain = *plan;
    return stages::encode_cpu(*plan, codes, kContext);
  }
  StageId best;
  std::vector<uint8_t> first = stages::encode_codes_cpu(Lossless::auto_select, codes, kContext, best);
  using Bytes = std::vector<uint8_t>;
  return smallest_candidate<Bytes>(
      best, std::move(first), [](const Bytes& b) { return uint64_t(b.size()); },
      [&](const Chain& c) { return stages::encode_cpu(c, codes, kContext); },
      [](const Chain& rest, const Bytes& in) { return stages::encode_cpu(rest, in, kContext); }, chain);
}

std::vector<uint8_t> decode_cpu(const Chain& chain, std::span<const uint8_t> section, uint64_t n) {
  return stages::decode_cpu(chain, section, n, kContext);
}

DeviceSection encode_cuda(const uint8_t* d_codes, uint64_t n, const Plan& plan, Chain& chain, cudaStream_t s) {
  using Blob = stages::DeviceBlob;
  if (plan) {
    chain = *plan;
    Blob b = stages::encode_cuda(*plan, d_codes, n, kContext, s);
    return {std::move(b.bytes), b.size};
  }
  StageId best;
  Blob first = stages::encode_codes_cuda(Lossless::auto_select, d_codes, n, kContext, best, s);
  Blob b = smallest_candidate<Blob>(
      best, std::move(first), [](const Blob& x) { return x.size; },
      [&](const Chain& c) { return stages::encode_cuda(c, d_codes, n, kContext, s); },
      [&](const Chain& rest, const Blob& in) { return stages::encode_cuda(rest, in.bytes.get(), in.size, kContext, s); },
      chain);
  return {std::move(b.bytes), b.size};  // the candidates not kept are released in stream order
}

void decode_cuda(const Chain& chain, DeviceSpan section, uint8_t* d_codes, uint64_t n, DeviceStatus* st,
                 cudaStream_t s) {
  stages::decode_cuda(chain, section.data, section.size, d_codes, n, kContext, s, st);
}

namespace {

uint64_t huffman_blob_bytes(const std::vector<uint64_t>& hist, uint64_t n) {
  if (n == 0) return huffman::blob_bytes(0, 0, 0);
  const huffman::Lengths l = huffman::code_lengths(hist);
  return huffman::blob_bytes(n, huffman::coded_bits(l, hist), huffman::codebook_bytes(l));
}

}  // namespace

template <class Sym>
uint64_t estimate_codes_bytes(std::span<const Sym> codes, uint32_t alphabet, uint16_t centre) {
  const uint64_t n = codes.size();
  std::vector<uint64_t> h(alphabet, 0), tv(alphabet, 0), zr;
  uint64_t tokens = 0, run = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const Sym c = codes[i];
    ++h[c];
    // zrle+huffman's tokens: every non-centre code, and every 65536th index (docs/FORMAT.md).
    if (c != centre || (i & 65535) == 65535) {
      ++tv[c];
      if (run >= zr.size()) zr.resize(run + 1, 0);
      ++zr[run];
      ++tokens;
      run = 0;
    } else {
      ++run;
    }
  }
  const uint64_t huff = huffman_blob_bytes(h, n);
  const uint64_t zrle = codes::kZrleHuffmanHeader + huffman_blob_bytes(tv, tokens) + huffman_blob_bytes(zr, tokens);
  return huff < zrle ? huff : zrle;
}
template uint64_t estimate_codes_bytes<uint8_t>(std::span<const uint8_t>, uint32_t, uint16_t);
template uint64_t estimate_codes_bytes<uint16_t>(std::span<const uint16_t>, uint32_t, uint16_t);

std::function<uint64_t(std::span<const uint8_t>)> sample_sizer(const Plan& plan) {
  if (plan) return [c = *plan](std::span<const uint8_t> x) -> uint64_t { return stages::encode_cpu(c, x, kContext).size(); };
  return [](std::span<const uint8_t> x) { return estimate_codes_bytes<uint8_t>(x, kContext.alphabet, kContext.centre); };
}

std::function<uint64_t(std::span<const uint16_t>)> lorenzo_sample_sizer(const Plan& plan) {
  constexpr uint32_t r = lorenzo::kDefaultRadius;
  if (plan)
    return [c = *plan](std::span<const uint16_t> x) -> uint64_t {
      const stages::Context ctx{2, 2 * r, static_cast<uint16_t>(r)};
      return stages::encode_cpu(c, {reinterpret_cast<const uint8_t*>(x.data()), x.size() * 2}, ctx).size();
    };
  return [](std::span<const uint16_t> x) { return estimate_codes_bytes<uint16_t>(x, 2 * r, r); };
}

}  // namespace sciz::interp_codes
