// The stage layouts of docs/FORMAT.md ("Stage blobs") written the slow, obvious way, bit by
// bit, sharing no code with src/lossless/stages: the encoders must match them byte for byte.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

namespace sciz::test {

inline constexpr uint64_t kRefBlock = 16384;

// n in the low 7 bytes, the writing stage's id in the 8th.
inline void ref_header(std::vector<uint8_t>& out, uint8_t id, uint64_t n) {
  for (int b = 0; b < 7; ++b) out.push_back(static_cast<uint8_t>(n >> (8 * b)));
  out.push_back(id);
}

inline uint64_t ref_load(const uint8_t* p, int w) {
  uint64_t v = 0;
  for (int b = 0; b < w; ++b) v |= static_cast<uint64_t>(p[b]) << (8 * b);
  return v;
}

// TCMS: sign-extend the w-byte value, (v << 1) ^ (v >> 63), keep 8w bits.
inline std::vector<uint8_t> ref_tcms(const std::vector<uint8_t>& in, int w, uint8_t id) {
  std::vector<uint8_t> out;
  ref_header(out, id, in.size());
  const uint64_t m = in.size() / w;
  for (uint64_t i = 0; i < m; ++i) {
    const uint64_t u = ref_load(&in[i * w], w);
    const int shift = 64 - 8 * w;
    const int64_t v = static_cast<int64_t>(u << shift) >> shift;  // sign extension
    const uint64_t t = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    for (int b = 0; b < w; ++b) out.push_back(static_cast<uint8_t>(t >> (8 * b)));
  }
  out.insert(out.end(), in.begin() + static_cast<int64_t>(m * w), in.end());
  return out;
}

// BIT: per block, plane k of the first m8 symbols, bit by bit; the rest verbatim.
inline std::vector<uint8_t> ref_bit(const std::vector<uint8_t>& in, int w, uint8_t id) {
  std::vector<uint8_t> out;
  ref_header(out, id, in.size());
  for (uint64_t at = 0; at < in.size(); at += kRefBlock) {
    const uint64_t bytes = std::min<uint64_t>(kRefBlock, in.size() - at);
    const uint64_t m8 = (bytes / w) / 8 * 8;
    std::vector<uint8_t> blk(bytes, 0);
    for (uint64_t k = 0; k < 8u * w; ++k)
      for (uint64_t i = 0; i < m8; ++i) {
        const int bit = (in[at + i * w + k / 8] >> (k % 8)) & 1;
        blk[k * (m8 / 8) + i / 8] |= static_cast<uint8_t>(bit << (i % 8));
      }
    for (uint64_t b = m8 * w; b < bytes; ++b) blk[b] = in[at + b];
    out.insert(out.end(), blk.begin(), blk.end());
  }
  return out;
}

inline std::vector<uint8_t> ref_bitmap(const std::vector<bool>& bits) {
  std::vector<uint8_t> b((bits.size() + 7) / 8, 0);
  for (size_t i = 0; i < bits.size(); ++i)
    if (bits[i]) b[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  return b;
}

// RRE (zero = false) or RZE (zero = true): per block, kept flags, levels of non-zero bytes
// down to one byte, payload top-first; raw unless strictly shorter.
inline std::vector<uint8_t> ref_eliminate(const std::vector<uint8_t>& in, int w, bool zero, uint8_t id) {
  std::vector<uint8_t> head, body;
  ref_header(head, id, in.size());
  for (uint64_t at = 0; at < in.size(); at += kRefBlock) {
    const uint64_t bytes = std::min<uint64_t>(kRefBlock, in.size() - at);
    const uint64_t m = bytes / w;
    std::vector<bool> keep(m);
    std::vector<uint8_t> kept;
    for (uint64_t i = 0; i < m; ++i) {
      const uint64_t v = ref_load(&in[at + i * w], w);
      keep[i] = zero ? v != 0 : (i == 0 || v != ref_load(&in[at + (i - 1) * w], w));
      if (keep[i]) kept.insert(kept.end(), &in[at + i * w], &in[at + i * w] + w);
    }
    std::vector<std::vector<uint8_t>> level{ref_bitmap(keep)};
    while (level.back().size() > 1) {
      std::vector<bool> nz;
      for (uint8_t b : level.back()) nz.push_back(b != 0);
      level.push_back(ref_bitmap(nz));
    }
    std::vector<uint8_t> p = level.back();
    for (size_t k = level.size() - 1; k-- > 0;)
      for (uint8_t b : level[k])
        if (b) p.push_back(b);
    p.insert(p.end(), kept.begin(), kept.end());
    p.insert(p.end(), in.begin() + static_cast<int64_t>(at + m * w), in.begin() + static_cast<int64_t>(at + bytes));
    uint16_t entry = static_cast<uint16_t>(p.size());
    if (p.size() >= bytes) {
      p.assign(in.begin() + static_cast<int64_t>(at), in.begin() + static_cast<int64_t>(at + bytes));
      entry = static_cast<uint16_t>(bytes | 0x8000);
    }
    head.push_back(static_cast<uint8_t>(entry));
    head.push_back(static_cast<uint8_t>(entry >> 8));
    body.insert(body.end(), p.begin(), p.end());
  }
  head.insert(head.end(), body.begin(), body.end());
  return head;
}

}  // namespace sciz::test
