#include "cd_values.hpp"

#include <sciz/error.hpp>

#include <cmath>
#include <cstring>

namespace sciz::h5 {

namespace {

// The layout's codes for the enumerated options, index = code (docs/HDF5.md).
constexpr Lossless kLosslessCodes[] = {Lossless::auto_select, Lossless::bitpack,     Lossless::huffman,
                                       Lossless::rle,         Lossless::rle_huffman, Lossless::zrle_huffman};
constexpr DeltaChain kChainCodes[] = {DeltaChain::auto_select, DeltaChain::linear, DeltaChain::serpentine};

// Reads words in order and names the one that is missing.
class Reader {
 public:
  explicit Reader(std::span<const unsigned> cd) : cd_(cd) {}
  uint32_t next(const char* what) {
    SCIZ_REQUIRE(pos_ < cd_.size(), Status::invalid_argument,
                 "sciz filter parameters end at word " + std::to_string(pos_) + " where " + what + " was expected");
    return cd_[pos_++];
  }
  size_t pos() const { return pos_; }
  bool done() const { return pos_ == cd_.size(); }

 private:
  std::span<const unsigned> cd_;
  size_t pos_ = 0;
};

void check_option(uint32_t id, uint32_t value) {
  const std::string v = std::to_string(value);
  switch (static_cast<OptionId>(id)) {
    case OptionId::radius:
      SCIZ_REQUIRE(value >= 1 && value <= 32768, Status::invalid_argument, "radius " + v + " is outside 1..32768");
      return;
    case OptionId::lossless:
      SCIZ_REQUIRE(value <= 5, Status::invalid_argument, "lossless stage code " + v + " is not one of 0..5");
      return;
    case OptionId::delta_chain:
      SCIZ_REQUIRE(value <= 2, Status::invalid_argument, "delta chain code " + v + " is not one of 0..2");
      return;
    case OptionId::szx_block:
      return;  // checked by the pipeline, which names the rule
  }
  fail(Status::invalid_argument, "unknown sciz filter option id " + std::to_string(id));
}

}  // namespace

FilterParams parse_cd_values(std::span<const unsigned> cd) {
  Reader r(cd);
  const uint32_t version = r.next("the layout version");
  SCIZ_REQUIRE(version != 0, Status::invalid_argument, "sciz filter parameters have layout version 0");
  SCIZ_REQUIRE(version <= kLayoutVersion, Status::unsupported,
               "sciz filter parameters have layout version " + std::to_string(version) +
                   ", newer than this plugin knows (" + std::to_string(kLayoutVersion) + "): update sciz");
  FilterParams p;
  const uint32_t mode = r.next("the bound mode");
  SCIZ_REQUIRE(mode <= 1, Status::invalid_argument, "bound mode " + std::to_string(mode) + " is neither 0 (abs) nor 1 (rel)");
  p.eb.mode = mode == 0 ? EbMode::abs : EbMode::rel;
  const uint64_t lo = r.next("the bound's low word");
  const uint64_t hi = r.next("the bound's high word");
  const uint64_t bits = lo | (hi << 32);
  std::memcpy(&p.eb.value, &bits, sizeof bits);
  SCIZ_REQUIRE(std::isfinite(p.eb.value) && p.eb.value > 0, Status::invalid_argument,
               "error bound " + std::to_string(p.eb.value) + " is not a positive finite number");

  const uint32_t n = r.next("the pipeline name's length");
  SCIZ_REQUIRE(n >= 1 && n <= kMaxPipelineName, Status::invalid_argument,
               "pipeline name length " + std::to_string(n) + " is outside 1.." + std::to_string(kMaxPipelineName));
  p.pipeline.clear();
  for (uint32_t w = 0; w < (n + 3) / 4; ++w) {
    const uint32_t word = r.next("the pipeline name");
    for (uint32_t k = 0; k < 4 && 4 * w + k < n; ++k) p.pipeline.push_back(static_cast<char>((word >> (8 * k)) & 0xff));
  }
  for (char c : p.pipeline)
    SCIZ_REQUIRE(c > ' ' && c < 0x7f, Status::invalid_argument, "pipeline name holds a byte that is not printable ASCII");

  const uint32_t m = r.next("the option count");
  SCIZ_REQUIRE(m <= kMaxOptions, Status::invalid_argument,
               "option count " + std::to_string(m) + " is above " + std::to_string(kMaxOptions));
  for (uint32_t k = 0; k < m; ++k) {
    const uint32_t id = r.next("an option id");
    const uint32_t value = r.next("an option value");
    check_option(id, value);
    p.options.emplace_back(id, value);
  }
  if (r.done()) return p;  // the parameters as the user gave them; set_local adds the rest

  ChunkLayout c;
  const uint32_t dtype = r.next("the data type");
  SCIZ_REQUIRE(dtype == 1 || dtype == 2, Status::invalid_argument,
               "data type code " + std::to_string(dtype) + " is neither 1 (float32) nor 2 (float64)");
  c.dtype = dtype == 1 ? DType::f32 : DType::f64;
  const uint32_t rank = r.next("the chunk rank");
  SCIZ_REQUIRE(rank >= 1 && rank <= kMaxChunkRank, Status::invalid_argument,
               "chunk rank " + std::to_string(rank) + " is outside 1.." + std::to_string(kMaxChunkRank));
  for (uint32_t k = 0; k < rank; ++k) {
    const uint32_t d = r.next("a chunk dimension");
    SCIZ_REQUIRE(d >= 1, Status::invalid_argument, "chunk dimension " + std::to_string(k) + " is 0");
    c.dims.push_back(d);
  }
  SCIZ_REQUIRE(r.done(), Status::invalid_argument,
               "sciz filter parameters hold " + std::to_string(cd.size()) + " words, the layout " + std::to_string(r.pos()));
  p.chunk = std::move(c);
  return p;
}

std::vector<unsigned> encode_cd_values(const FilterParams& p) {
  SCIZ_REQUIRE(!p.pipeline.empty() && p.pipeline.size() <= kMaxPipelineName, Status::invalid_argument,
               "pipeline name '" + p.pipeline + "' must hold 1.." + std::to_string(kMaxPipelineName) + " bytes");
  SCIZ_REQUIRE(p.options.size() <= kMaxOptions, Status::invalid_argument, "too many filter options");
  std::vector<unsigned> cd{kLayoutVersion, p.eb.mode == EbMode::abs ? 0u : 1u};
  uint64_t bits = 0;
  std::memcpy(&bits, &p.eb.value, sizeof bits);
  cd.push_back(static_cast<unsigned>(bits & 0xffffffffu));
  cd.push_back(static_cast<unsigned>(bits >> 32));
  cd.push_back(static_cast<unsigned>(p.pipeline.size()));
  for (size_t w = 0; w < (p.pipeline.size() + 3) / 4; ++w) {
    unsigned word = 0;
    for (size_t k = 0; k < 4 && 4 * w + k < p.pipeline.size(); ++k)
      word |= static_cast<unsigned>(static_cast<unsigned char>(p.pipeline[4 * w + k])) << (8 * k);
    cd.push_back(word);
  }
  cd.push_back(static_cast<unsigned>(p.options.size()));
  for (const auto& [id, value] : p.options) cd.insert(cd.end(), {id, value});
  if (p.chunk) {
    SCIZ_REQUIRE(!p.chunk->dims.empty() && p.chunk->dims.size() <= kMaxChunkRank, Status::invalid_argument,
                 "chunk rank " + std::to_string(p.chunk->dims.size()) + " is outside 1.." + std::to_string(kMaxChunkRank));
    cd.push_back(p.chunk->dtype == DType::f32 ? 1u : 2u);
    cd.push_back(static_cast<unsigned>(p.chunk->dims.size()));
    for (uint64_t d : p.chunk->dims) {
      SCIZ_REQUIRE(d >= 1 && d <= 0xffffffffull, Status::invalid_argument,
                   "chunk dimension " + std::to_string(d) + " does not fit the layout");
      cd.push_back(static_cast<unsigned>(d));
    }
  }
  return cd;
}

CompressOptions compress_options(const FilterParams& p) {
  CompressOptions o;
  o.eb = p.eb;
  o.pipeline = p.pipeline;
  for (const auto& [id, value] : p.options) {
    check_option(id, value);
    switch (static_cast<OptionId>(id)) {
      case OptionId::radius: o.radius = static_cast<int32_t>(value); break;
      case OptionId::lossless: o.lossless = kLosslessCodes[value]; break;   // range checked by the parser
      case OptionId::delta_chain: o.delta_chain = kChainCodes[value]; break;
      case OptionId::szx_block: o.szx_block = value; break;
    }
  }
  return o;
}

Shape sciz_shape(const std::vector<uint64_t>& chunk_dims) {
  SCIZ_REQUIRE(!chunk_dims.empty(), Status::invalid_argument, "a chunk of rank 0");
  Shape s;
  const size_t merged = chunk_dims.size() > 4 ? chunk_dims.size() - 3 : 1;
  uint64_t lead = 1;
  for (size_t k = 0; k < merged; ++k) {
    SCIZ_REQUIRE(chunk_dims[k] >= 1 && lead <= (1ull << 48) / chunk_dims[k], Status::invalid_argument,
                 "chunk dimensions hold no values or more than 2^48");
    lead *= chunk_dims[k];
  }
  s.dims.push_back(lead);
  s.dims.insert(s.dims.end(), chunk_dims.begin() + static_cast<std::ptrdiff_t>(merged), chunk_dims.end());
  s.validate();
  return s;
}

}  // namespace sciz::h5
