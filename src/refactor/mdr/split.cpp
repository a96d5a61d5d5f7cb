#include "refactor/mdr/split.hpp"

#include <sciz/error.hpp>

#include <cstring>

#include "core/byteio.hpp"

namespace sciz::mdr {

namespace {

// Bits low first, padded with zeros to whole u32 words (the coders take words).
struct BitWriter {
  std::vector<uint8_t> bytes;
  uint64_t bits = 0;
  void put(unsigned b) {
    if (bits % 8 == 0) bytes.push_back(0);
    bytes.back() |= static_cast<uint8_t>(b << (bits % 8));
    ++bits;
  }
  std::vector<uint8_t>& padded() {
    bytes.resize((bits + 31) / 32 * 4, 0);
    return bytes;
  }
};

// "significant before digit d": a non-zero digit above d. Digits above the word are none.
template <class W>
bool above(W v, int d) {
  return d + 1 < static_cast<int>(8 * sizeof(W)) && (v >> (d + 1)) != 0;
}

}  // namespace

template <class W>
std::vector<uint8_t> encode_split(const W* nb, uint64_t n, int high, int planes, const HybridOptions& opt) {
  BitWriter ins, sig;
  std::vector<uint8_t> on(n);
  for (uint64_t i = 0; i < n; ++i) on[i] = above(nb[i], high);
  for (int p = 0; p < planes; ++p) {
    const int d = high - p;
    for (uint64_t i = 0; i < n; ++i) {
      const unsigned b = static_cast<unsigned>((nb[i] >> d) & 1u);
      (on[i] ? sig : ins).put(b);
      on[i] |= static_cast<uint8_t>(b);
    }
  }
  const uint64_t ins_bits = ins.bits;
  const std::vector<uint8_t> a = encode_group(ins.padded(), opt), b = encode_group(sig.padded(), opt);
  ByteWriter w;
  w.put<uint8_t>(static_cast<uint8_t>(Coding::split));
  put_varint(w, ins_bits);
  put_varint(w, a.size());
  w.bytes(a.data(), a.size());
  w.bytes(b.data(), b.size());
  return std::move(w.buffer());
}

template <class W>
void decode_split(std::span<const uint8_t> seg, W* digits, uint64_t n, int high, int planes, const std::string& what) {
  SCIZ_REQUIRE(!seg.empty() && seg[0] == static_cast<uint8_t>(Coding::split), Status::internal,
               what + ": not a split segment");
  ByteReader r(seg.data() + 1, seg.size() - 1, what.c_str());
  const uint64_t total = n * static_cast<uint64_t>(planes);
  const uint64_t ins_bits = get_varint(r, "insignificant bit count");
  SCIZ_REQUIRE(ins_bits <= total, Status::corrupt_stream,
               what + ": " + std::to_string(ins_bits) + " insignificant digits of " + std::to_string(total));
  const uint64_t a_len = get_varint(r, "first stream length");
  SCIZ_REQUIRE(a_len > 0 && a_len < r.remaining(), Status::corrupt_stream,
               what + ": first stream of " + std::to_string(a_len) + " bytes in " + std::to_string(r.remaining()));
  const uint64_t sig_bits = total - ins_bits;
  const std::span<const uint8_t> rest = seg.subspan(1 + r.pos());
  const std::vector<uint8_t> a = decode_group(rest.first(a_len), (ins_bits + 31) / 32 * 4, what + " (insignificant digits)");
  const std::vector<uint8_t> b = decode_group(rest.subspan(a_len), (sig_bits + 31) / 32 * 4, what + " (significant digits)");

  std::vector<uint8_t> on(n);
  for (uint64_t i = 0; i < n; ++i) on[i] = above(digits[i], high);
  uint64_t at_a = 0, at_b = 0;
  for (int p = 0; p < planes; ++p) {
    const int d = high - p;
    for (uint64_t i = 0; i < n; ++i) {
      // Each stream holds exactly its declared bits: overrunning one means a damaged segment.
      uint64_t& at = on[i] ? at_b : at_a;
      const std::vector<uint8_t>& src = on[i] ? b : a;
      SCIZ_REQUIRE(at < (on[i] ? sig_bits : ins_bits), Status::corrupt_stream,
                   what + ": the digits do not match the declared split");
      const unsigned bit = (src[at >> 3] >> (at & 7)) & 1u;
      ++at;
      if (bit) {
        digits[i] |= W(1) << d;
        on[i] = 1;
      }
    }
  }
  SCIZ_REQUIRE(at_a == ins_bits && at_b == sig_bits, Status::corrupt_stream,
               what + ": the digits do not match the declared split");
}

template std::vector<uint8_t> encode_split<uint32_t>(const uint32_t*, uint64_t, int, int, const HybridOptions&);
template std::vector<uint8_t> encode_split<uint64_t>(const uint64_t*, uint64_t, int, int, const HybridOptions&);
template void decode_split<uint32_t>(std::span<const uint8_t>, uint32_t*, uint64_t, int, int, const std::string&);
template void decode_split<uint64_t>(std::span<const uint8_t>, uint64_t*, uint64_t, int, int, const std::string&);

}  // namespace sciz::mdr
