#include "pipelines/lorenzo_codes.hpp"

#include <sciz/error.hpp>

#include <cstring>

#include "core/byteio.hpp"
#include "core/trace.hpp"
#include "lossless/codes/codes.hpp"
#include "lossless/codes/codes_device.hpp"
#include "lossless/stages/stages.hpp"
#include "lossless/stages/stages_cuda.hpp"
#include "predict/lorenzo/lorenzo_math.hpp"

namespace sciz::lorenzo_codes {

using stages::Chain;
using stages::Family;
using stages::StageId;

namespace {

bool is_codes(StageId id) { return stages::family_of(id) == Family::codes; }

// Params before the stage list: u16 radius (0 means 32768), u16 tile z, y, x.
constexpr size_t kFixedParams = 8;

}  // namespace

Plan plan_of(const CompressOptions& opt) {
  Plan p;
  if (opt.stages.empty()) {
    p.first = opt.lossless;
    return p;
  }
  SCIZ_REQUIRE(opt.lossless == Lossless::auto_select, Status::invalid_argument,
               std::string("give lossless (") + lossless_name(opt.lossless) + ") or stages ('" + opt.stages +
                   "'), not both: a stage list names its codes stage itself");
  Chain c = stages::parse_chain(opt.stages);  // invalid_argument naming what is wrong
  if (is_codes(c[0])) {
    p.first = static_cast<Lossless>(c[0]);
    c.erase(c.begin());
  }
  p.rest = std::move(c);
  return p;
}

Chain recorded(const Plan& plan, std::optional<Lossless> chosen) {
  Chain c;
  if (chosen) c.push_back(static_cast<StageId>(*chosen));
  for (StageId id : plan.rest) c.push_back(id);
  return c;
}

std::vector<uint8_t> write_params(const Params& p) {
  ByteWriter w;
  w.put<uint16_t>(static_cast<uint16_t>(p.radius == lorenzo::kMaxRadius ? 0 : p.radius));
  w.put<uint16_t>(static_cast<uint16_t>(p.tile.cz));
  w.put<uint16_t>(static_cast<uint16_t>(p.tile.cy));
  w.put<uint16_t>(static_cast<uint16_t>(p.tile.cx));
  for (uint8_t b : stages::write_stage_list({p.chain, 2})) w.put<uint8_t>(b);
  while (w.size() % 4) w.put<uint8_t>(0);
  return std::move(w.buffer());
}

namespace {

// Format 1 to 4: a lossless byte, 3 reserved bytes. Format 1 knew bitpack only; format 2
// added huffman (2), rle (3), rle+huffman (4) and zrle+huffman (5).
Chain read_lossless_byte(ByteReader& r, uint16_t version) {
  const uint8_t ll = r.get<uint8_t>("lossless stage");
  r.take(3, "reserved");
  const uint8_t last = version == 1 ? 1 : 5;
  SCIZ_REQUIRE(ll >= 1 && ll <= last, Status::unsupported,
               "lorenzo params: unknown lossless stage " + std::to_string(ll) + " in a format " +
                   std::to_string(version) + " stream");
  return {static_cast<StageId>(ll)};
}

// Format 5: the stage list of 2-byte codes, then zero padding to a multiple of 4 bytes.
Chain read_list(ByteReader& r, std::span<const uint8_t> b) {
  size_t used = 0;
  stages::StageList l = stages::read_stage_list(b.subspan(kFixedParams), used);  // corrupt_stream naming the fault
  SCIZ_REQUIRE(l.code_width == 2, Status::corrupt_stream,
               "lorenzo params: stage list of " + std::to_string(l.code_width) +
                   "-byte codes, but lorenzo's quant codes are 2 bytes");
  r.take(used, "stage list");
  const size_t pad = (4 - (kFixedParams + used) % 4) % 4;
  const uint8_t* z = r.take(pad, "padding");
  for (size_t i = 0; i < pad; ++i)
    SCIZ_REQUIRE(z[i] == 0, Status::corrupt_stream, "lorenzo params: padding byte " + std::to_string(i) + " is not 0");
  return l.chain;
}

}  // namespace

Params read_params(std::span<const uint8_t> b, const Extent& e, uint16_t version) {
  ByteReader r(b.data(), b.size(), "lorenzo params");
  Params p;
  const uint16_t rad = r.get<uint16_t>("radius");
  p.radius = rad == 0 ? lorenzo::kMaxRadius : rad;
  p.tile.cz = r.get<uint16_t>("tile z");
  p.tile.cy = r.get<uint16_t>("tile y");
  p.tile.cx = r.get<uint16_t>("tile x");
  p.chain = version <= 4 ? read_lossless_byte(r, version) : read_list(r, b);
  SCIZ_REQUIRE(r.remaining() == 0, Status::corrupt_stream,
               "lorenzo params: " + std::to_string(r.remaining()) + " extra bytes");
  const TileShape& c = p.tile;
  // The product in 64 bits: three u16 sides can make 2^32 values, which TileShape::volume()
  // (32 bits, enough for any valid tile) would wrap to 0.
  const uint64_t volume = uint64_t{c.cz} * c.cy * c.cx;
  SCIZ_REQUIRE(c.cz >= 1 && c.cy >= 1 && c.cx >= 1 && volume <= (1u << 16), Status::corrupt_stream,
               "lorenzo params: tile " + std::to_string(c.cz) + "x" + std::to_string(c.cy) + "x" + std::to_string(c.cx) +
                   " is empty or larger than 65536 values");
  SCIZ_REQUIRE((e.ndim >= 3 || c.cz == 1) && (e.ndim >= 2 || c.cy == 1), Status::corrupt_stream,
               "lorenzo params: tile shape does not match a " + std::to_string(e.ndim) + "-D field");
  return p;
}

std::vector<std::pair<std::string, std::string>> describe(std::span<const uint8_t> b, uint16_t version) {
  // The field's extent is not known here: read with a 3-D one, which every tile fits.
  Extent e;
  e.ndim = 3;
  const Params p = read_params(b, e, version);
  return {{"radius", std::to_string(p.radius)},
          {"tile", std::to_string(p.tile.cz) + "x" + std::to_string(p.tile.cy) + "x" + std::to_string(p.tile.cx)},
          {"stages", stages::chain_name(p.chain) + " (2-byte codes)"}};
}

stages::Context context(int32_t radius) {
  return {2, 2 * static_cast<uint32_t>(radius), static_cast<uint16_t>(radius)};
}

std::vector<uint8_t> encode_cpu(std::span<const uint16_t> codes, const stages::Context& ctx, const Plan& plan,
                                Chain& chain) {
  std::vector<uint8_t> cur;
  size_t i = 0;
  if (plan.first) {
    codes::Encoded e = codes::encode_cpu(codes, ctx.alphabet, ctx.centre, *plan.first);
    chain = recorded(plan, e.stage);
    cur = std::move(e.bytes);
  } else {
    chain = recorded(plan, std::nullopt);
    // The first byte stage reads the codes in place.
    const std::span<const uint8_t> raw(reinterpret_cast<const uint8_t*>(codes.data()), codes.size() * 2);
    cur = stages::encode_stage_cpu(plan.rest[0], raw, ctx);
    i = 1;
  }
  for (; i < plan.rest.size(); ++i) cur = stages::encode_stage_cpu(plan.rest[i], cur, ctx);
  return cur;
}

void decode_cpu(const Chain& chain, std::span<const uint8_t> section, std::span<uint16_t> codes,
                const stages::Context& ctx) {
  const uint64_t bytes = codes.size() * 2;
  if (is_codes(chain[0])) {
    const auto stage = static_cast<Lossless>(chain[0]);
    if (chain.size() == 1) return codes::decode_cpu(stage, section, codes);  // format 4's section 1
    const std::vector<uint8_t> blob = stages::decode_tail_cpu(chain, section, bytes, ctx);
    return codes::decode_cpu(stage, blob, codes);
  }
  const std::vector<uint8_t> raw = stages::decode_cpu(chain, section, bytes, ctx);
  if (bytes) std::memcpy(codes.data(), raw.data(), bytes);
}

DeviceSection encode_rest_cuda(DeviceSection first, const Chain& rest, const stages::Context& ctx, cudaStream_t s) {
  if (rest.empty()) return first;
  TracePhase t("stage list encode (cuda)", true, s);
  stages::DeviceBlob b = stages::encode_cuda(rest, first.bytes.get(), first.size, ctx, s);
  return {std::move(b.bytes), b.size};  // `first` is released in stream order, after its readers
}

DeviceSection encode_cuda(const uint16_t* d_codes, uint64_t n, const stages::Context& ctx, const Plan& plan,
                          Chain& chain, cudaStream_t s) {
  if (!plan.first) {  // the first byte stage reads the codes in place
    chain = recorded(plan, std::nullopt);
    TracePhase t("stage list encode (cuda)", true, s);
    stages::DeviceBlob b = stages::encode_cuda(plan.rest, reinterpret_cast<const uint8_t*>(d_codes), 2 * n, ctx, s);
    return {std::move(b.bytes), b.size};
  }
  dev::Buffer<DeviceStatus> st(1, s);
  dev::zero(st.get(), sizeof(DeviceStatus), s);
  codes::DeviceEncoded e = codes::encode_device(d_codes, n, ctx.alphabet, ctx.centre, *plan.first, st.get(), s);
  DeviceStatus hs;
  dev::copy_to_host(&hs, st.get(), sizeof hs, s);
  dev::sync(s);
  throw_if_failed(hs, "lorenzo codes encoder self-check");
  chain = recorded(plan, e.stage);
  return encode_rest_cuda({std::move(e.bytes), e.size}, plan.rest, ctx, s);
}

DeviceCodes decode_rest_cuda(const Chain& chain, DeviceSpan section, uint64_t n, const stages::Context& ctx,
                             DeviceStatus* st, cudaStream_t s) {
  DeviceCodes d;
  if (is_codes(chain[0])) {
    d.stage = static_cast<Lossless>(chain[0]);
    if (chain.size() == 1) {
      d.span = section;
      return d;
    }
    TracePhase t("stage list decode (cuda)", true, s);
    stages::DeviceBlob b = stages::decode_tail_cuda(chain, section.data, section.size, 2 * n, ctx, s, st);
    d.span = {b.bytes.get(), b.size};
    d.owned = std::move(b.bytes);
    return d;
  }
  TracePhase t("stage list decode (cuda)", true, s);
  d.owned = dev::Buffer<uint8_t>(2 * n, s);
  stages::decode_cuda(chain, section.data, section.size, d.owned.get(), 2 * n, ctx, s, st);
  d.span = {d.owned.get(), 2 * n};
  return d;
}

}  // namespace sciz::lorenzo_codes
