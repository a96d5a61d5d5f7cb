// Sparse (index, value) lists as stream sections: u64 count, u8 index width (4 or 8), 7 pad
// bytes, the indices, then the values. The reader insists on strictly ascending indices below
// a bound, so a decoder can scatter them without any further check.
#pragma once
#include <sciz/error.hpp>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "core/byteio.hpp"

namespace sciz {

template <class V>
std::vector<uint8_t> write_sparse(const std::vector<uint64_t>& idx, const std::vector<V>& val, uint64_t bound) {
  ByteWriter w;
  const uint8_t width = bound <= (1ull << 32) ? 4 : 8;
  w.put<uint64_t>(idx.size());
  w.put<uint8_t>(width);
  for (int i = 0; i < 7; ++i) w.put<uint8_t>(0);
  for (auto i : idx) {
    if (width == 4)
      w.put<uint32_t>(static_cast<uint32_t>(i));
    else
      w.put<uint64_t>(i);
  }
  w.bytes(val.data(), val.size() * sizeof(V));
  return std::move(w.buffer());
}

template <class V>
void read_sparse(std::span<const uint8_t> sec, uint64_t bound, const char* what, std::vector<uint64_t>& idx,
                 std::vector<V>& val) {
  ByteReader r(sec.data(), sec.size(), what);
  const uint64_t count = r.get<uint64_t>("count");
  const uint8_t width = r.get<uint8_t>("index width");
  SCIZ_REQUIRE(width == 4 || width == 8, Status::corrupt_stream, std::string(what) + ": index width " + std::to_string(width));
  r.take(7, "padding");
  SCIZ_REQUIRE(count <= bound && r.remaining() == count * (width + sizeof(V)), Status::corrupt_stream,
          std::string(what) + ": " + std::to_string(count) + " entries do not fit a section of " +
              std::to_string(sec.size()) + " bytes");
  idx.resize(count);
  val.resize(count);
  const uint8_t* ip = r.take(count * width, "indices");
  uint64_t prev = 0;
  for (uint64_t k = 0; k < count; ++k) {
    uint64_t i = 0;
    std::memcpy(&i, ip + k * width, width);
    SCIZ_REQUIRE(i < bound && (k == 0 || i > prev), Status::corrupt_stream,
            std::string(what) + ": index " + std::to_string(i) + " at entry " + std::to_string(k) +
                " is out of range or out of order");
    idx[k] = prev = i;
  }
  const uint8_t* vp = r.take(count * sizeof(V), "values");
  if (count) std::memcpy(val.data(), vp, count * sizeof(V));  // an empty vector's data() may be null
}

}  // namespace sciz
