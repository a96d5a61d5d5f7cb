#include "chunk_input.hpp"

#include <cmath>
#include <cstring>

namespace sciz::fuzz {
namespace {

struct Reader {
  std::span<const uint8_t> in;
  size_t at = 0;
  template <class V>
  bool get(V& v) {
    if (sizeof(V) > in.size() - at) return false;
    std::memcpy(&v, in.data() + at, sizeof(V));
    at += sizeof(V);
    return true;
  }
  bool take(size_t n, std::span<const uint8_t>& out) {
    if (n > in.size() - at) return false;
    out = in.subspan(at, n);
    at += n;
    return true;
  }
};

template <class V>
void put(std::vector<uint8_t>& out, V v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof(V));
}

}  // namespace

std::optional<OwnedChunk> read_chunk_input(std::span<const uint8_t> in) {
  Reader r{in};
  uint8_t version, dtype, nd;
  if (!r.get(version) || !r.get(dtype) || !r.get(nd)) return std::nullopt;
  // The container admits only these (read_stream_head): a decoder never sees other values.
  if (version < kOldestReadableVersion || version > kFormatVersion || dtype < 1 || dtype > 2 || nd < 1 || nd > 4)
    return std::nullopt;
  OwnedChunk o;
  Header& h = o.chunk.header;
  h.version = version;
  h.dtype = static_cast<DType>(dtype);
  for (int i = 0; i < nd; ++i) {
    uint16_t d;
    if (!r.get(d) || d == 0) return std::nullopt;
    h.shape.dims.push_back(d);
  }
  if (!r.get(h.eb_abs) || !std::isfinite(h.eb_abs) || !(h.eb_abs > 0)) return std::nullopt;
  uint8_t name_len;
  std::span<const uint8_t> name, params;
  uint16_t params_len;
  if (!r.get(name_len) || !r.take(name_len, name) || !r.get(params_len) || !r.take(params_len, params))
    return std::nullopt;
  h.pipeline.assign(name.begin(), name.end());
  h.params.assign(params.begin(), params.end());
  uint8_t count;
  if (!r.get(count) || count > kMaxSections) return std::nullopt;
  // Sections are copied into one buffer first, then viewed: views into a vector that grows
  // would dangle.
  std::vector<std::pair<uint32_t, std::span<const uint8_t>>> raw;
  for (int k = 0; k < count; ++k) {
    uint32_t id, len;
    std::span<const uint8_t> b;
    if (!r.get(id) || !r.get(len) || !r.take(len, b)) return std::nullopt;
    raw.emplace_back(id, b);
  }
  size_t total = 0;
  for (const auto& s : raw) total += s.second.size();
  o.bytes.reserve(total);
  for (const auto& s : raw) o.bytes.insert(o.bytes.end(), s.second.begin(), s.second.end());
  size_t at = 0;
  for (const auto& s : raw) {
    o.chunk.sections.push_back({s.first, std::span<const uint8_t>(o.bytes).subspan(at, s.second.size()), 0});
    at += s.second.size();
  }
  o.chunk.rows = h.shape.dims[0];
  o.chunk.verified = true;
  return o;
}

std::optional<std::vector<uint8_t>> write_chunk_input(const ParsedChunk& c) {
  const Header& h = c.header;
  std::vector<uint8_t> out;
  put<uint8_t>(out, static_cast<uint8_t>(h.version));
  put<uint8_t>(out, static_cast<uint8_t>(h.dtype));
  put<uint8_t>(out, static_cast<uint8_t>(h.shape.dims.size()));
  for (uint64_t d : h.shape.dims) {
    if (d > 0xffff) return std::nullopt;
    put<uint16_t>(out, static_cast<uint16_t>(d));
  }
  put<double>(out, h.eb_abs);
  put<uint8_t>(out, static_cast<uint8_t>(h.pipeline.size()));
  out.insert(out.end(), h.pipeline.begin(), h.pipeline.end());
  if (h.params.size() > 0xffff) return std::nullopt;
  put<uint16_t>(out, static_cast<uint16_t>(h.params.size()));
  out.insert(out.end(), h.params.begin(), h.params.end());
  put<uint8_t>(out, static_cast<uint8_t>(c.sections.size()));
  for (const auto& s : c.sections) {
    put<uint32_t>(out, s.id);
    put<uint32_t>(out, static_cast<uint32_t>(s.bytes.size()));
    out.insert(out.end(), s.bytes.begin(), s.bytes.end());
  }
  return out;
}

}  // namespace sciz::fuzz
