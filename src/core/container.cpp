#include "core/container.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/byteio.hpp"
#include "core/checksum.hpp"
#include "core/host_memory.hpp"

namespace sciz {

namespace {
constexpr size_t kEntryBytes = 4 + 4 + 8 + 8 + 8;
}

uint64_t section_checksum(uint16_t version, std::span<const uint8_t> bytes) {
  return version >= 3 ? chunked_xxh64(bytes.data(), bytes.size()) : xxh64(bytes.data(), bytes.size());
}

std::vector<uint8_t> write_stream(const Header& h, std::vector<SectionIn> sections) {
  h.shape.validate();
  SCIZ_REQUIRE(h.pipeline.size() < 256, Status::internal, "pipeline name too long");
  SCIZ_REQUIRE(sections.size() <= kMaxSections, Status::internal, "too many sections");
  ByteWriter w;
  w.bytes(kMagic, 4);
  w.put<uint16_t>(kFormatVersion);
  w.put<uint16_t>(0);  // flags
  const size_t header_size_at = w.size();
  w.put<uint32_t>(0);  // header size, patched below
  w.put<uint8_t>(static_cast<uint8_t>(h.dtype));
  w.put<uint8_t>(static_cast<uint8_t>(h.shape.dims.size()));
  w.put<uint8_t>(static_cast<uint8_t>(h.eb_mode));
  w.put<uint8_t>(0);
  for (auto d : h.shape.dims) w.put<uint64_t>(d);
  w.put<double>(h.eb_value);
  w.put<double>(h.eb_abs);
  w.put<double>(h.value_min);
  w.put<double>(h.value_max);
  w.put<uint64_t>(h.nonfinite);
  w.put<uint8_t>(static_cast<uint8_t>(h.pipeline.size()));
  w.bytes(h.pipeline.data(), h.pipeline.size());
  w.put<uint32_t>(static_cast<uint32_t>(h.params.size()));
  w.bytes(h.params.data(), h.params.size());
  w.put<uint32_t>(static_cast<uint32_t>(sections.size()));
  uint64_t offset = w.size() + sections.size() * kEntryBytes + 8;
  for (const auto& s : sections) {
    w.put<uint32_t>(s.id);
    w.put<uint32_t>(0);
    w.put<uint64_t>(offset);
    w.put<uint64_t>(s.bytes.size());
    w.put<uint64_t>(section_checksum(kFormatVersion, s.bytes));
    offset += s.bytes.size();
  }
  const uint32_t header_size = static_cast<uint32_t>(w.size() + 8);
  std::memcpy(w.buffer().data() + header_size_at, &header_size, 4);
  w.put<uint64_t>(xxh64(w.buffer().data(), w.size()));
  // In place: a large section with room for the whole stream becomes the stream. Its bytes move
  // up to their offset inside memory they already occupy, and only the header and the other
  // sections are copied, instead of faulting in and filling a fresh buffer of the stream's size.
  size_t big = sections.size();
  for (size_t i = 0; i < sections.size(); ++i)
    if (sections[i].bytes.size() >= (size_t{1} << 20) && sections[i].bytes.capacity() >= offset &&
        (big == sections.size() || sections[i].bytes.size() > sections[big].bytes.size()))
      big = i;
  if (big < sections.size()) {
    std::vector<uint8_t> out = std::move(sections[big].bytes);
    size_t at = w.size();
    for (size_t i = 0; i < big; ++i) at += sections[i].bytes.size();
    const size_t n = out.size();
    out.resize(offset);
    std::memmove(out.data() + at, out.data(), n);
    std::memcpy(out.data(), w.buffer().data(), w.size());
    size_t pos = w.size();
    for (size_t i = 0; i < sections.size(); ++i) {
      if (i != big && !sections[i].bytes.empty()) std::memcpy(out.data() + pos, sections[i].bytes.data(), sections[i].bytes.size());
      pos += i == big ? n : sections[i].bytes.size();
    }
    return out;
  }
  reserve_large(w.buffer(), offset);  // one allocation for the whole stream, not one per growth step
  for (const auto& s : sections) w.bytes(s.bytes.data(), s.bytes.size());
  return std::move(w.buffer());
}

const SectionView* ParsedStream::find(uint32_t id) const {
  for (const auto& s : sections)
    if (s.id == id) return &s;
  return nullptr;
}

const SectionView& ParsedStream::section(uint32_t id, const char* name) const {
  const SectionView* s = find(id);
  if (!s) fail(Status::corrupt_stream, std::string("stream lacks its '") + name + "' section (id " + std::to_string(id) + ")");
  return *s;
}

ParsedStream read_stream(std::span<const uint8_t> stream, bool verify_sections) {
  ByteReader r(stream.data(), stream.size(), "sciz stream");
  const uint8_t* magic = r.take(4, "magic");
  if (std::memcmp(magic, kMagic, 4) != 0) fail(Status::corrupt_stream, "not a sciz stream (bad magic bytes)");
  ParsedStream ps;
  Header& h = ps.header;
  h.version = r.get<uint16_t>("format version");
  if (h.version < kOldestReadableVersion || h.version > kFormatVersion)
    fail(Status::unsupported, "stream format version " + std::to_string(h.version) +
                                  " is not supported by this build (reads versions " +
                                  std::to_string(kOldestReadableVersion) + " to " + std::to_string(kFormatVersion) + ")");
  const auto flags = r.get<uint16_t>("flags");
  SCIZ_REQUIRE(flags == 0, Status::unsupported, "unknown stream flags " + std::to_string(flags));
  const uint32_t header_size = r.get<uint32_t>("header size");
  SCIZ_REQUIRE(header_size <= stream.size(), Status::corrupt_stream,
          "header size " + std::to_string(header_size) + " exceeds stream size " + std::to_string(stream.size()));
  SCIZ_REQUIRE(header_size >= 12 + 8, Status::corrupt_stream, "header size " + std::to_string(header_size) + " too small");
  // Verify the header checksum before trusting any field after the size.
  uint64_t stored;
  std::memcpy(&stored, stream.data() + header_size - 8, 8);
  SCIZ_REQUIRE(xxh64(stream.data(), header_size - 8) == stored, Status::corrupt_stream, "header checksum mismatch: stream is corrupted");
  ByteReader hr(stream.data(), header_size - 8, "sciz header");
  hr.take(12, "prefix");
  const auto dt = hr.get<uint8_t>("dtype");
  SCIZ_REQUIRE(dt == 1 || dt == 2, Status::corrupt_stream, "unknown dtype code " + std::to_string(dt));
  h.dtype = static_cast<DType>(dt);
  const auto nd = hr.get<uint8_t>("ndims");
  SCIZ_REQUIRE(nd >= 1 && nd <= 4, Status::corrupt_stream, "ndims " + std::to_string(nd) + " out of range 1..4");
  const auto mode = hr.get<uint8_t>("eb mode");
  SCIZ_REQUIRE(mode <= 1, Status::corrupt_stream, "unknown error-bound mode " + std::to_string(mode));
  h.eb_mode = static_cast<EbMode>(mode);
  hr.get<uint8_t>("reserved");
  for (int i = 0; i < nd; ++i) h.shape.dims.push_back(hr.get<uint64_t>("dims"));
  try {
    h.shape.validate();
  } catch (const Error& e) {
    fail(Status::corrupt_stream, std::string("header: ") + e.what());
  }
  h.eb_value = hr.get<double>("eb value");
  h.eb_abs = hr.get<double>("resolved eb");
  SCIZ_REQUIRE(std::isfinite(h.eb_abs) && h.eb_abs > 0, Status::corrupt_stream, "resolved error bound " + std::to_string(h.eb_abs) + " is not positive");
  h.value_min = hr.get<double>("value min");
  h.value_max = hr.get<double>("value max");
  h.nonfinite = hr.get<uint64_t>("non-finite count");
  const auto name_len = hr.get<uint8_t>("pipeline name length");
  const uint8_t* name = hr.take(name_len, "pipeline name");
  h.pipeline.assign(reinterpret_cast<const char*>(name), name_len);
  const auto params_len = hr.get<uint32_t>("params length");
  const uint8_t* params = hr.take(params_len, "pipeline params");
  h.params.assign(params, params + params_len);
  const auto nsec = hr.get<uint32_t>("section count");
  SCIZ_REQUIRE(nsec <= kMaxSections, Status::corrupt_stream, "section count " + std::to_string(nsec) + " exceeds " + std::to_string(kMaxSections));
  uint64_t prev_end = header_size;
  for (uint32_t i = 0; i < nsec; ++i) {
    const auto id = hr.get<uint32_t>("section id");
    hr.get<uint32_t>("section reserved");
    const auto off = hr.get<uint64_t>("section offset");
    const auto len = hr.get<uint64_t>("section length");
    const auto sum = hr.get<uint64_t>("section checksum");
    SCIZ_REQUIRE(off >= prev_end && off <= stream.size() && len <= stream.size() - off, Status::corrupt_stream,
            "section " + std::to_string(id) + " [offset " + std::to_string(off) + ", length " + std::to_string(len) +
                "] lies outside the stream of " + std::to_string(stream.size()) + " bytes or overlaps another");
    SCIZ_REQUIRE(ps.find(id) == nullptr, Status::corrupt_stream, "section id " + std::to_string(id) + " appears twice");
    if (verify_sections)
      SCIZ_REQUIRE(section_checksum(h.version, stream.subspan(off, len)) == sum, Status::corrupt_stream,
              "section " + std::to_string(id) + " checksum mismatch: stream is corrupted");
    ps.sections.push_back({id, stream.subspan(off, len), sum});
    prev_end = off + len;
  }
  SCIZ_REQUIRE(hr.remaining() == 0, Status::corrupt_stream, "header has " + std::to_string(hr.remaining()) + " unexplained bytes");
  SCIZ_REQUIRE(prev_end == stream.size(), Status::corrupt_stream,
          "stream has " + std::to_string(stream.size() - prev_end) + " trailing bytes after its last section (truncated or concatenated?)");
  (void)r;
  return ps;
}

}  // namespace sciz
