#include "pipelines/interp_params.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/byteio.hpp"
#include "pipelines/interp_codes.hpp"

namespace sciz::interp_params {
namespace {

// The codes' stage list at the end of the params, checked as format 5 checks a list, for
// 1-byte codes.
stages::Chain read_list(ByteReader& r, std::span<const uint8_t> b) {
  size_t used = 0;
  const stages::StageList l = stages::read_stage_list(b.subspan(b.size() - r.remaining()), used);
  SCIZ_REQUIRE(l.code_width == interp_codes::kContext.code_width, Status::corrupt_stream,
               "interp params: stage list of " + std::to_string(l.code_width) +
                   "-byte codes, but interp's quant codes are 1 byte");
  r.take(used, "stage list");
  return l.chain;
}

}  // namespace

// u8 layout (2), u8 predictor (0 interp, 1 lorenzo). Interp: u8 level count L, f32 alpha, f32
// beta (the tightening that gave the bounds; shown, not used), L x u8 level config (spline |
// scheme << 4, level 1 first), L x f64 level bound, then the codes section's stage list
// (1-byte codes). Lorenzo: the lorenzo pipeline's params.
std::vector<uint8_t> write(const interp::Choice& ch, const stages::Chain& chain) {
  ByteWriter w;
  w.put<uint8_t>(kLayout);
  w.put<uint8_t>(kInterp);
  w.put<uint8_t>(static_cast<uint8_t>(ch.config.size()));
  w.put<float>(static_cast<float>(ch.alpha));
  w.put<float>(static_cast<float>(ch.beta));
  for (const auto& c : ch.config) w.put<uint8_t>(interp::pack_config(c));
  for (double e : ch.eb) w.put<double>(e);
  for (uint8_t b : stages::write_stage_list({chain, interp_codes::kContext.code_width})) w.put<uint8_t>(b);
  return std::move(w.buffer());
}

std::vector<uint8_t> write_lorenzo(std::span<const uint8_t> lorenzo_params) {
  std::vector<uint8_t> p(kLorenzoPrefix + lorenzo_params.size());
  p[0] = kLayout;
  p[1] = kLorenzo;
  std::copy(lorenzo_params.begin(), lorenzo_params.end(), p.begin() + kLorenzoPrefix);
  return p;
}

Predictor predictor_of(std::span<const uint8_t> b) {
  ByteReader r(b.data(), b.size(), "interp params");
  const uint8_t layout = r.get<uint8_t>("layout");
  SCIZ_REQUIRE(layout == kLayout, Status::unsupported, "interp params: unknown layout " + std::to_string(layout));
  const uint8_t p = r.get<uint8_t>("predictor");
  SCIZ_REQUIRE(p == kInterp || p == kLorenzo, Status::corrupt_stream, "interp params: unknown predictor " + std::to_string(p));
  return static_cast<Predictor>(p);
}

interp::Choice read(std::span<const uint8_t> b, const interp::Layout& L, double eb, stages::Chain& chain) {
  ByteReader r(b.data(), b.size(), "interp params");
  r.take(2, "layout and predictor");
  const int levels = r.get<uint8_t>("level count");
  SCIZ_REQUIRE(levels == L.levels, Status::corrupt_stream,
               "interp params: " + std::to_string(levels) + " levels, a field of this extent has " + std::to_string(L.levels));
  interp::Choice ch;
  ch.alpha = r.get<float>("alpha");
  ch.beta = r.get<float>("beta");
  for (int l = 0; l < levels; ++l) {
    const uint8_t c = r.get<uint8_t>("level config");
    SCIZ_REQUIRE(interp::valid_config(c), Status::corrupt_stream,
                 "interp params: level " + std::to_string(l + 1) + " config " + std::to_string(c) + " is unknown");
    ch.config.push_back(interp::unpack_config(c));
  }
  for (int l = 0; l < levels; ++l) {
    const double e = r.get<double>("level bound");
    SCIZ_REQUIRE(std::isfinite(e) && e > 0 && e <= eb, Status::corrupt_stream,
                 "interp params: level " + std::to_string(l + 1) + " bound " + std::to_string(e) +
                     " is not in (0, " + std::to_string(eb) + "]");
    ch.eb.push_back(e);
  }
  chain = read_list(r, b);
  SCIZ_REQUIRE(r.remaining() == 0, Status::corrupt_stream, "interp params: " + std::to_string(r.remaining()) + " extra bytes");
  return ch;
}

std::vector<std::pair<std::string, std::string>> describe_interp(std::span<const uint8_t> params) {
  ByteReader r(params.data(), params.size(), "interp params");
  r.take(2, "layout and predictor");
  const int levels = r.get<uint8_t>("level count");
  const float alpha = r.get<float>("alpha"), beta = r.get<float>("beta");
  std::string cfg;
  static const char* spl[] = {"linear", "cubic"};
  static const char* sch[] = {"zyx", "xyz", "md", "cross"};
  for (int l = 0; l < levels; ++l) {
    const uint8_t c = r.get<uint8_t>("level config");
    if (l + 1 == levels) continue;  // the root: no neighbours, its config never read
    const auto lc = interp::unpack_config(c);
    if (!cfg.empty()) cfg += ' ';
    cfg += std::to_string(l + 1) + ":" +
           (interp::valid_config(c) ? std::string(spl[lc.spline]) + "/" + sch[lc.scheme] : "unknown");
  }
  r.take(8 * static_cast<size_t>(levels), "level bounds");
  const stages::Chain chain = read_list(r, params);
  char ab[64];
  std::snprintf(ab, sizeof ab, "alpha %.3g, beta %.3g", alpha, beta);
  return {{"predictor", "interpolation"},
          {"levels", std::to_string(levels)},
          {"level configs", cfg},
          {"level bounds", ab},
          {"stages", stages::chain_name(chain) + " (1-byte codes)"}};
}

}  // namespace sciz::interp_params
