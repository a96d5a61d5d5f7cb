// Little-endian writer and a bounds-checked reader: every read names what it was reading
// when the bytes run out, so a truncated stream gives a clear error instead of a wild read.
#pragma once
#include <sciz/error.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "sciz streams are little-endian; big-endian hosts need byte swaps");

namespace sciz {

class ByteWriter {
 public:
  template <class V>
  void put(V v) {
    static_assert(std::is_trivially_copyable_v<V>);
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    buf_.insert(buf_.end(), p, p + sizeof(V));
  }
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  size_t size() const { return buf_.size(); }
  std::vector<uint8_t>& buffer() { return buf_; }

 private:
  std::vector<uint8_t> buf_;
};

class ByteReader {
 public:
  ByteReader(const uint8_t* p, size_t n, std::string what) : p_(p), n_(n), what_(std::move(what)) {}
  template <class V>
  V get(const char* field) {
    static_assert(std::is_trivially_copyable_v<V>);
    need(sizeof(V), field);
    V v;
    std::memcpy(&v, p_ + pos_, sizeof(V));
    pos_ += sizeof(V);
    return v;
  }
  const uint8_t* take(uint64_t n, const char* field) {
    need(n, field);
    const uint8_t* r = p_ + pos_;
    pos_ += n;
    return r;
  }
  size_t pos() const { return pos_; }
  size_t remaining() const { return n_ - pos_; }

 private:
  void need(uint64_t k, const char* field) const {
    if (k > n_ - pos_)
      fail(Status::corrupt_stream, what_ + ": truncated while reading " + field + " (need " +
                                       std::to_string(k) + " bytes at offset " + std::to_string(pos_) +
                                       ", have " + std::to_string(n_ - pos_) + ")");
  }
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
  std::string what_;
};

// LEB128: seven bits per byte, low first; the reader refuses more than 64 bits.
inline void put_varint(ByteWriter& w, uint64_t v) {
  while (v >= 0x80) {
    w.put<uint8_t>(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  w.put<uint8_t>(static_cast<uint8_t>(v));
}
// The bytes put_varint writes for v.
inline uint64_t varint_bytes(uint64_t v) {
  uint64_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}
inline uint64_t get_varint(ByteReader& r, const char* what) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    const uint8_t b = r.get<uint8_t>(what);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  fail(Status::corrupt_stream, std::string(what) + ": varint longer than 64 bits");
}

}  // namespace sciz
