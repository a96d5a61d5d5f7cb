#include "refactor/mdr/format.hpp"

#include <sciz/error.hpp>

#include <cmath>
#include <cstring>
#include <string>

#include "core/byteio.hpp"
#include "core/checksum.hpp"
#include "refactor/bitplanes/bitplanes.hpp"

namespace sciz::mdr {

namespace {

int digits_of(DType t) { return t == DType::f32 ? bitplanes::Digits<float>::count : bitplanes::Digits<double>::count; }
int scale_of(DType t) { return t == DType::f32 ? bitplanes::Digits<float>::scale : bitplanes::Digits<double>::scale; }

[[noreturn]] void corrupt(const std::string& what) { fail(Status::corrupt_stream, "mdr file: " + what); }

// err / 2^exponent as an f32 whose value, scaled back, is >= err: round to nearest, then up
// one f32 step at a time (the scaling may underflow; a step or two covers it).
float error_to_file(double err, int exponent) {
  float f = static_cast<float>(std::ldexp(err, -exponent));
  while (std::ldexp(static_cast<double>(f), exponent) < err) f = std::nextafter(f, INFINITY);
  return f;
}
}  // namespace

multilevel::Layout layout_for(const std::vector<uint64_t>& dims) {
  return multilevel::layout_of(multilevel::grid_of(dims));
}

double stored_error(double err, int exponent) {
  return std::ldexp(static_cast<double>(error_to_file(err, exponent)), exponent);
}

uint64_t group_raw_bytes(const LevelInfo& lv, int g) {
  return static_cast<uint64_t>(lv.group_size(g)) * bitplanes::plane_words(lv.count) * 4;
}

std::string segment_name(const Segment& s) {
  if (s.level == kExactLevel) return "exact values";
  return "level " + std::to_string(s.level) + " group " + std::to_string(s.group);
}

std::vector<uint8_t> write_header(Header& h) {
  ByteWriter w;
  w.bytes(kMagic, 4);
  w.put<uint16_t>(h.version);
  w.put<uint16_t>(0);
  w.put<uint32_t>(0);  // header size, patched below
  w.put<uint8_t>(static_cast<uint8_t>(h.dtype));
  w.put<uint8_t>(static_cast<uint8_t>(h.dims.size()));
  w.put<uint8_t>(static_cast<uint8_t>(h.levels.size()));
  w.put<uint8_t>(static_cast<uint8_t>(h.scale));
  for (uint64_t d : h.dims) w.put<uint64_t>(d);
  w.put<double>(h.value_min);
  w.put<double>(h.value_max);
  w.put<double>(h.max_abs);
  w.put<uint64_t>(h.special);
  for (const LevelInfo& lv : h.levels) {
    w.put<uint64_t>(lv.count);
    w.put<int16_t>(static_cast<int16_t>(lv.exponent));
    w.put<uint8_t>(static_cast<uint8_t>(lv.top));
    w.put<uint8_t>(static_cast<uint8_t>(lv.group_planes));
    for (double e : lv.err) w.put<float>(error_to_file(e, lv.exponent));
  }
  w.put<uint32_t>(static_cast<uint32_t>(h.segments.size()));
  w.put<uint32_t>(0);
  for (const Segment& s : h.segments) {
    w.put<uint8_t>(s.level);
    if (h.version < 2) w.put<uint8_t>(s.group);
    put_varint(w, s.length);
    if (h.version < 2) w.put<uint64_t>(s.checksum);
  }
  std::vector<uint8_t>& b = w.buffer();
  h.header_size = static_cast<uint32_t>(b.size() + 8);
  std::memcpy(b.data() + 8, &h.header_size, 4);
  h.checksum = xxh64(b.data(), b.size());
  w.put<uint64_t>(h.checksum);
  uint64_t off = h.header_size;
  for (Segment& s : h.segments) {
    s.offset = off;
    off += s.length;
  }
  return std::move(w.buffer());
}

uint32_t read_header_size(std::span<const uint8_t> fixed, uint64_t file_size) {
  if (fixed.size() < kFixedBytes || std::memcmp(fixed.data(), kMagic, 4) != 0)
    corrupt("not a refactored (mdr) file: no \"SZMD\" magic in its first " + std::to_string(fixed.size()) + " bytes");
  uint16_t version, flags;
  uint32_t size;
  std::memcpy(&version, fixed.data() + 4, 2);
  std::memcpy(&flags, fixed.data() + 6, 2);
  std::memcpy(&size, fixed.data() + 8, 4);
  if (version < kOldestVersion || version > kVersion)
    fail(Status::unsupported, "mdr file: format version " + std::to_string(version) + " (this build reads versions " +
                                  std::to_string(kOldestVersion) + " to " + std::to_string(kVersion) + ")");
  if (flags != 0) corrupt("unknown flags " + std::to_string(flags));
  if (size < kFixedBytes + 4 + 8 || size > file_size)
    corrupt("header size " + std::to_string(size) + " does not fit a file of " + std::to_string(file_size) + " bytes");
  return size;
}

Header read_header(std::span<const uint8_t> bytes, uint64_t file_size) {
  const uint32_t size = read_header_size(bytes, file_size);
  if (bytes.size() != size) corrupt("header of " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(size));
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + size - 8, 8);
  if (xxh64(bytes.data(), size - 8) != stored) corrupt("header checksum mismatch (header or index damaged)");

  Header h;
  std::memcpy(&h.version, bytes.data() + 4, 2);
  h.header_size = size;
  h.checksum = stored;
  ByteReader r(bytes.data(), size - 8, "mdr header");
  r.take(kFixedBytes, "fixed part");
  const uint8_t dtype = r.get<uint8_t>("dtype");
  const uint8_t ndims = r.get<uint8_t>("ndims");
  const uint8_t nlevels = r.get<uint8_t>("levels");
  h.scale = r.get<uint8_t>("scale bits");
  if (dtype != 1 && dtype != 2) corrupt("dtype " + std::to_string(dtype));
  h.dtype = static_cast<DType>(dtype);
  if (ndims < 1 || ndims > 4) corrupt("ndims " + std::to_string(ndims));
  for (int k = 0; k < ndims; ++k) h.dims.push_back(r.get<uint64_t>("dims"));
  try {
    Shape{h.dims}.validate();
  } catch (const Error& e) {
    corrupt(std::string("dims: ") + e.what());
  }
  if (h.scale != scale_of(h.dtype)) corrupt("scale bits " + std::to_string(h.scale) + " for " + dtype_name(h.dtype));
  h.value_min = r.get<double>("value min");
  h.value_max = r.get<double>("value max");
  h.max_abs = r.get<double>("max abs");
  h.special = r.get<uint64_t>("special count");
  const bool no_range = std::isnan(h.value_min) && std::isnan(h.value_max);
  if (!no_range && !(std::isfinite(h.value_min) && std::isfinite(h.value_max) && h.value_min <= h.value_max))
    corrupt("value range [" + std::to_string(h.value_min) + ", " + std::to_string(h.value_max) + "]");
  if (!(std::isfinite(h.max_abs) && h.max_abs >= 0)) corrupt("max abs " + std::to_string(h.max_abs));
  const uint64_t n = Shape{h.dims}.count();
  if (h.special > n) corrupt("special count " + std::to_string(h.special) + " above " + std::to_string(n) + " values");

  const multilevel::Layout lay = layout_for(h.dims);
  if (nlevels != lay.levels())
    corrupt(std::to_string(nlevels) + " levels, the dims imply " + std::to_string(lay.levels()));
  const int digits = digits_of(h.dtype);
  uint64_t expected_segments = h.special ? 1 : 0;
  for (int j = 0; j < nlevels; ++j) {
    const std::string at = "level " + std::to_string(j) + ": ";
    LevelInfo lv;
    lv.count = r.get<uint64_t>("level count");
    lv.exponent = r.get<int16_t>("level exponent");
    lv.top = r.get<uint8_t>("level top digit");
    lv.group_planes = r.get<uint8_t>("planes per group");
    if (lv.count != lay.level_count(j))
      corrupt(at + std::to_string(lv.count) + " coefficients, the dims imply " + std::to_string(lay.level_count(j)));
    if (lv.exponent < -1100 || lv.exponent > 1100) corrupt(at + "exponent " + std::to_string(lv.exponent));
    if (lv.top > digits) corrupt(at + "top digit " + std::to_string(lv.top) + " above " + std::to_string(digits));
    if (lv.group_planes < 1 || lv.group_planes > digits)
      corrupt(at + std::to_string(lv.group_planes) + " planes per group");
    const int groups = bitplanes::group_count(lv.top, lv.group_planes);
    for (int t = 0; t <= groups; ++t) {
      const float f = r.get<float>("level error");
      const double e = std::ldexp(static_cast<double>(f), lv.exponent);
      if (!(std::isfinite(e) && e >= 0)) corrupt(at + "error " + std::to_string(e) + " after " + std::to_string(t) + " groups");
      lv.err.push_back(e);
    }
    expected_segments += groups;
    h.levels.push_back(std::move(lv));
  }

  const uint32_t count = r.get<uint32_t>("segment count");
  if (r.get<uint32_t>("segment count padding") != 0) corrupt("non-zero padding after the segment count");
  if (count != expected_segments)
    corrupt("index lists " + std::to_string(count) + " segments, the levels need " + std::to_string(expected_segments));
  // Every entry takes at least 11 bytes (version 2: 2): a hostile count cannot make us loop long.
  const uint64_t min_entry = h.version < 2 ? 11 : 2;
  if (r.remaining() < static_cast<uint64_t>(count) * min_entry)
    corrupt("index of " + std::to_string(r.remaining()) + " bytes for " + std::to_string(count) + " entries");
  std::vector<int> next(nlevels, 0);
  uint64_t off = size;
  for (uint32_t k = 0; k < count; ++k) {
    Segment s;
    s.level = r.get<uint8_t>("segment level");
    if (h.version < 2) {
      s.group = r.get<uint8_t>("segment group");
    } else if (s.level != kExactLevel && s.level < nlevels) {
      if (next[s.level] >= h.levels[s.level].groups())
        corrupt("index entry " + std::to_string(k) + " (level " + std::to_string(s.level) + "): the level has " +
                std::to_string(h.levels[s.level].groups()) + " groups");
      s.group = static_cast<uint8_t>(next[s.level]);
    }
    s.length = get_varint(r, "segment length");
    if (h.version < 2) s.checksum = r.get<uint64_t>("segment checksum");
    const std::string at = "index entry " + std::to_string(k) + " (" + segment_name(s) + "): ";
    if (s.level == kExactLevel) {
      if (k != 0 || h.special == 0) corrupt(at + "exact values must come first, and only with special values");
      if (s.group != 0) corrupt(at + "group " + std::to_string(s.group));
    } else {
      if (h.special && k == 0) corrupt(at + "the exact values must come first");
      if (s.level >= nlevels) corrupt(at + "no such level");
      if (s.group >= h.levels[s.level].groups())
        corrupt(at + "the level has " + std::to_string(h.levels[s.level].groups()) + " groups");
      if (s.group != next[s.level])
        corrupt(at + "out of order (level " + std::to_string(s.level) + " expects group " + std::to_string(next[s.level]) + ")");
      ++next[s.level];
    }
    if (s.length <= inline_checksum_bytes(h.version)) corrupt(at + "empty");
    if (s.length > file_size - off)
      corrupt(at + std::to_string(s.length) + " bytes at offset " + std::to_string(off) + " run past the end of the " +
              std::to_string(file_size) + "-byte file (truncated?)");
    s.offset = off;
    off += s.length;
    h.segments.push_back(s);
  }
  if (r.remaining() != 0) corrupt(std::to_string(r.remaining()) + " bytes after the index");
  if (off != file_size)
    corrupt("segments end at byte " + std::to_string(off) + " but the file has " + std::to_string(file_size) +
            " (trailing bytes)");
  return h;
}

}  // namespace sciz::mdr
