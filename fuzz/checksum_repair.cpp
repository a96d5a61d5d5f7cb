#include "checksum_repair.hpp"

#include <cstring>
#include <optional>

#include "core/checksum.hpp"
#include "core/container.hpp"

namespace sciz::fuzz {
namespace {

// A cursor that gives up (nullopt) instead of reading past its end: the layout it walks is
// whatever the fuzzer wrote.
struct Cursor {
  uint8_t* p;
  uint64_t n, at = 0;
  template <class V>
  std::optional<V> get() {
    if (sizeof(V) > n - at) return std::nullopt;
    V v;
    std::memcpy(&v, p + at, sizeof(V));
    at += sizeof(V);
    return v;
  }
  bool skip(uint64_t k) {
    if (k > n - at) return false;
    at += k;
    return true;
  }
};

void put_u64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

// The section table at the cursor: `count` entries of {id, reserved, offset, length, checksum}
// with offsets from `base` (base_bytes long). Recomputes each checksum whose range lies inside.
bool repair_sections(Cursor& c, uint32_t count, const uint8_t* base, uint64_t base_bytes, uint16_t version) {
  if (count > kMaxSections) return false;
  for (uint32_t k = 0; k < count; ++k) {
    if (!c.skip(8)) return false;
    const auto off = c.get<uint64_t>(), len = c.get<uint64_t>();
    if (!off || !len || c.n - c.at < 8) return false;
    if (*off <= base_bytes && *len <= base_bytes - *off)
      put_u64(c.p + c.at, section_checksum(version, {base + *off, *len}));
    c.at += 8;
  }
  return true;
}

// Skips the field description (dtype through the non-finite count); false if truncated.
bool skip_field(Cursor& c) {
  if (!c.skip(1)) return false;
  const auto nd = c.get<uint8_t>();
  return nd && c.skip(2) && c.skip(8ull * *nd) && c.skip(5 * 8);
}

bool skip_name(Cursor& c) {
  const auto len = c.get<uint8_t>();
  return len && c.skip(*len);
}

// Versions 1 to 3: the section table is in the stream header, offsets from the stream start.
void repair_old(std::vector<uint8_t>& s, uint32_t header_size, uint16_t version) {
  Cursor c{s.data(), header_size - 8, 12};
  if (!skip_field(c) || !skip_name(c)) return;
  const auto plen = c.get<uint32_t>();
  if (!plen || !c.skip(*plen)) return;
  const auto count = c.get<uint32_t>();
  if (count) repair_sections(c, *count, s.data(), s.size(), version);
}

// A chunk of version 4 or 5 at [off, off + len) whose header is hb bytes.
void repair_chunk(std::vector<uint8_t>& s, uint64_t off, uint64_t len, uint32_t hb, uint16_t version) {
  if (off > s.size() || len > s.size() - off || hb < 8 || hb > len) return;
  uint8_t* chunk = s.data() + off;
  Cursor c{chunk, hb - 8u};
  if (skip_name(c)) {
    const auto plen = c.get<uint32_t>();
    if (plen && c.skip(*plen))
      if (const auto count = c.get<uint32_t>()) repair_sections(c, *count, chunk, len, version);
  }
  put_u64(chunk + hb - 8, xxh64(chunk, hb - 8));
}

}  // namespace

std::vector<uint8_t> with_checksums_repaired(std::span<const uint8_t> in) {
  std::vector<uint8_t> s(in.begin(), in.end());
  Cursor c{s.data(), s.size()};
  if (!c.skip(4)) return s;
  const auto version = c.get<uint16_t>();
  if (!version || !c.skip(2)) return s;
  const auto hs = c.get<uint32_t>();
  if (!hs || *hs < 20 || *hs > s.size()) return s;
  const uint32_t header_size = *hs;
  if (*version < 4) {
    repair_old(s, header_size, *version);
  } else {
    Cursor h{s.data(), header_size - 8u, 12};
    if (skip_field(h) && skip_name(h) && h.skip(8)) {
      const auto count = h.get<uint64_t>();
      for (uint64_t i = 0; count && i < *count; ++i) {
        const auto off = h.get<uint64_t>(), len = h.get<uint64_t>();
        const auto hb = h.get<uint32_t>();
        if (!off || !len || !hb || !h.skip(4)) break;
        repair_chunk(s, *off, *len, *hb, *version);
      }
    }
  }
  put_u64(s.data() + header_size - 8, xxh64(s.data(), header_size - 8));
  return s;
}

}  // namespace sciz::fuzz
