// RRE_w and RZE_w, CPU twin: blocks over OpenMP. The encoder writes each block into its own
// 16 KiB slot, a prefix sum of the payload sizes places them, and a second pass copies them
// out, so the bytes do not depend on the thread count. Layout and reasons: eliminate_math.hpp.
#include <sciz/error.hpp>

#include <cstring>
#include <memory>
#include <string>

#include "core/omp_threads.hpp"
#include "lossless/stages/eliminate_math.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/registry.hpp"
#include "lossless/stages/stage_cpu.hpp"
#include "lossless/stages/symbols.hpp"

namespace sciz::stages::cpu {
namespace {

// A block's bitmaps and its payload's size, as encode_block writes them. Level 0 comes 64
// symbols at a time from kept_bits64, the GPU thread's unit (eliminate_math.hpp).
struct BlockMap {
  Levels lv;
  uint8_t bm[kMaxLevelBytes + 8];
  uint64_t bits[kBlockBytes / 64];
  uint32_t m, tail, units;
  uint64_t size;  // the encoded payload's bytes: the block is stored raw unless below its size
};

template <Family F, int W>
void map_block(const uint8_t* in, uint32_t bytes, BlockMap& b) {
  b.m = bytes / W, b.tail = bytes % W;
  b.lv = bitmap_levels(b.m);
  const Levels& lv = b.lv;
  b.units = (b.m + 63) / 64;
  uint64_t kept = 0;
  for (uint32_t u = 0; u < b.units; ++u) {
    b.bits[u] = kept_bits64<F, W>(in, b.m, 64 * u);
    std::memcpy(b.bm + 8 * u, &b.bits[u], 8);  // level 0 is at offset 0; bytes past it are rewritten below
    kept += static_cast<uint64_t>(popcount64(b.bits[u]));
  }
  for (int k = 0; k < lv.top; ++k)
    for (uint32_t j = 0; j < lv.size[k + 1]; ++j) b.bm[lv.at[k + 1] + j] = upper_byte(b.bm + lv.at[k], lv.size[k], j);
  b.size = lv.size[lv.top] + b.tail + kept * W;
  for (int k = 1; k <= lv.top; ++k)  // level k's set bits count the stored bytes of level k - 1
    for (uint32_t j = 0; j < lv.size[k]; ++j) b.size += popcount8(b.bm[lv.at[k] + j]);
}

// The bytes a block takes in the blob (its table entry's size).
template <Family F, int W>
uint32_t block_bytes(const uint8_t* in, uint32_t bytes) {
  BlockMap b;
  map_block<F, W>(in, bytes, b);
  return b.size >= bytes ? bytes : static_cast<uint32_t>(b.size);
}

// Encodes one block into slot (room for `bytes`); returns its table entry.
template <Family F, int W>
uint16_t encode_block(const uint8_t* in, uint32_t bytes, uint8_t* slot) {
  BlockMap b;
  map_block<F, W>(in, bytes, b);
  const Levels& lv = b.lv;
  if (b.size >= bytes) {
    std::memcpy(slot, in, bytes);
    return static_cast<uint16_t>(bytes | kRawFlag);
  }
  uint8_t* p = slot;
  std::memcpy(p, b.bm + lv.at[lv.top], lv.size[lv.top]);
  p += lv.size[lv.top];
  for (int k = lv.top - 1; k >= 0; --k)
    for (uint32_t j = 0; j < lv.size[k]; ++j) {  // branch-free: mixed bitmaps mispredict
      const uint8_t v = b.bm[lv.at[k] + j];
      *p = v;
      p += v != 0;
    }
  for (uint32_t u = 0; u < b.units; ++u) {
    const uint8_t* sym = in + static_cast<uint64_t>(64 * u) * W;
    if (W == 1 && popcount64(b.bits[u]) > 16) {
      // Dense: every symbol stored, the pointer advanced by its bit (no branch to mispredict);
      // the slot has room, since the payload is shorter than the block.
      for (uint32_t i = 0; i < 64 && 64 * u + i < b.m; ++i) {
        *p = sym[i];
        p += (b.bits[u] >> i) & 1;
      }
      continue;
    }
    for (uint64_t v = b.bits[u]; v; v &= v - 1) {
      std::memcpy(p, sym + static_cast<uint64_t>(__builtin_ctzll(v)) * W, W);
      p += W;
    }
  }
  std::memcpy(p, in + static_cast<uint64_t>(b.m) * W, b.tail);
  return static_cast<uint16_t>(b.size);
}

struct Fault {
  uint32_t kind = kBlockOk;
  uint64_t a = 0, b = 0;
};

// Decodes one encoded block's payload p[0, size) into out[0, bytes), or names why not.
// Nothing is read outside the payload; out is written only after the bitmaps check out.
template <Family F, int W>
Fault decode_block(const uint8_t* p, uint32_t size, uint8_t* out, uint32_t bytes) {
  const uint32_t m = bytes / W, tail = bytes % W;
  const Levels lv = bitmap_levels(m);
  uint8_t bm[kMaxLevelBytes];
  uint32_t pos = lv.size[lv.top];
  if (pos > size) return {kBlockSize, size, pos};
  std::memcpy(bm + lv.at[lv.top], p, pos);
  for (int k = lv.top; k >= 0; --k) {
    const uint8_t* level = bm + lv.at[k];
    if (lv.size[k] && (level[lv.size[k] - 1] & padding_mask(level_bits(lv, m, k)))) return {kBlockPadding, uint64_t(k), 0};
    if (k == 0) break;
    uint8_t* lower = bm + lv.at[k - 1];
    uint32_t stored = 0;  // level k's set bits: level k - 1's stored bytes, all checked to be there first
    for (uint32_t j = 0; j < lv.size[k]; ++j) stored += popcount8(level[j]);
    if (pos + stored > size) return {kBlockSize, size, uint64_t(pos) + stored};
    const uint8_t* src = p + pos;
    for (uint32_t j = 0; j < lv.size[k - 1]; ++j) {  // branch-free, reads only the stored bytes
      const uint32_t bit = (level[j / 8] >> (j % 8)) & 1u;
      lower[j] = bit ? *src : 0;
      src += bit;
    }
    pos += stored;
  }
  uint64_t kept = 0;
  for (uint32_t j = 0; j < lv.size[0]; ++j) kept += popcount8(bm[j]);
  const uint64_t need = pos + kept * W + tail;
  if (need != size) return {kBlockSize, size, need};
  if (F == Family::rre && m > 0 && !(bm[0] & 1)) return {kBlockFirst, 0, 0};
  const uint8_t* ks = p + pos;
  // Mixed bitmap bytes are expanded without branches (kept bits of real data are close to
  // random, and a mispredicted branch per symbol cost 5x); their reads clamp to the last kept
  // symbol, so none goes past the kept symbols once they are used up.
  const uint8_t* last = kept ? ks + (kept - 1) * W : ks;
  uint_t<W> cur = 0;
  for (uint32_t j = 0; j < lv.size[0]; ++j) {
    const uint32_t i0 = 8 * j, count = m - i0 < 8 ? m - i0 : 8;
    uint8_t* o = out + static_cast<uint64_t>(i0) * W;
    const uint8_t b = bm[j];
    if (b == 0) {  // nothing kept: repeats of the last kept symbol, or zeros
      if (F == Family::rze) std::memset(o, 0, count * W);
      else
        for (uint32_t t = 0; t < count; ++t) store_sym<W>(o + t * W, cur);
      continue;
    }
    if (b == 0xFF) {  // all kept (a full byte of bits is always 8 symbols: padding bits are zero)
      std::memcpy(o, ks, 8 * W);
      ks += 8 * W;
      cur = load_sym<W>(ks - W);
      continue;
    }
    for (uint32_t t = 0; t < count; ++t) {
      const uint32_t k = (b >> t) & 1u;
      const uint_t<W> v = load_sym<W>(ks < last ? ks : last);
      cur = k ? v : (F == Family::rze ? uint_t<W>(0) : cur);
      store_sym<W>(o + t * W, cur);
      ks += k * W;
    }
  }
  std::memcpy(out + static_cast<uint64_t>(m) * W, ks, tail);
  return {};
}

std::string fault_message(const char* name, uint64_t block, const Fault& f) {
  const std::string who = std::string("stage ") + name + ": block " + std::to_string(block) + ": ";
  switch (f.kind) {
    case kBlockSize:
      return who + "payload of " + std::to_string(f.a) + " bytes, its bitmaps call for " + std::to_string(f.b);
    case kBlockPadding: return who + "bitmap level " + std::to_string(f.a) + " has bits set past its end";
    case kBlockFirst: return who + "first symbol is not marked kept (it has no predecessor)";
  }
  return who + "fault " + std::to_string(f.kind);
}

template <Family F, int W>
Bytes encode(StageId id, In in) {
  const uint64_t n = in.size(), blocks = block_count(n);
  std::unique_ptr<uint8_t[]> slots(new uint8_t[n ? n : 1]);  // each slot is written before it is read
  std::vector<uint16_t> entry(blocks);
#pragma omp parallel for schedule(dynamic, 4) num_threads(thread_count(blocks / kBlocksPerThread))
  for (int64_t b = 0; b < static_cast<int64_t>(blocks); ++b) {
    const uint64_t at = static_cast<uint64_t>(b) * kBlockBytes;
    entry[b] = encode_block<F, W>(in.data() + at, block_size(n, b), slots.get() + at);
  }
  std::vector<uint64_t> at(blocks + 1);
  at[0] = kHeaderBytes + 2 * blocks;
  for (uint64_t b = 0; b < blocks; ++b) at[b + 1] = at[b] + entry_bytes(entry[b]);
  Bytes out(at[blocks]);
  write_header(out.data(), id, n);
  if (blocks) std::memcpy(out.data() + kHeaderBytes, entry.data(), 2 * blocks);
#pragma omp parallel for schedule(static) num_threads(thread_count(blocks / 64 + 1))
  for (int64_t b = 0; b < static_cast<int64_t>(blocks); ++b)
    std::memcpy(out.data() + at[b], slots.get() + static_cast<uint64_t>(b) * kBlockBytes, entry_bytes(entry[b]));
  return out;
}

// What encode() returns the size of, without the slots or the blob.
template <Family F, int W>
uint64_t encoded_size(StageId id, In in) {
  const uint64_t n = in.size(), blocks = block_count(n);
  check_input(id, n);
  uint64_t total = kHeaderBytes + 2 * blocks;
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : total) num_threads(thread_count(blocks / kBlocksPerThread))
  for (int64_t b = 0; b < static_cast<int64_t>(blocks); ++b)
    total += block_bytes<F, W>(in.data() + static_cast<uint64_t>(b) * kBlockBytes, block_size(n, b));
  return total;
}

template <Family F, int W>
Bytes decode(StageId id, In blob, uint64_t max_out) {
  const Table t = parse_table(blob, id, max_out);
  Bytes out(t.n);
  std::vector<Fault> fault(t.blocks);
#pragma omp parallel for schedule(dynamic, 4) num_threads(thread_count(t.blocks / kBlocksPerThread))
  for (int64_t b = 0; b < static_cast<int64_t>(t.blocks); ++b) {
    uint8_t* dst = out.data() + static_cast<uint64_t>(b) * kBlockBytes;
    const uint32_t bytes = block_size(t.n, b);
    if (t.entry[b] & kRawFlag) std::memcpy(dst, blob.data() + t.at[b], bytes);
    else fault[b] = decode_block<F, W>(blob.data() + t.at[b], entry_bytes(t.entry[b]), dst, bytes);
  }
  for (uint64_t b = 0; b < t.blocks; ++b)  // the first damaged block, whatever the threads
    SCIZ_REQUIRE(fault[b].kind == kBlockOk, Status::corrupt_stream, fault_message(stage_name(id), b, fault[b]));
  return out;
}

}  // namespace

Bytes eliminate_encode(StageId id, In in) {
  return with_width(width_of(id), [&]<int W>() {
    return family_of(id) == Family::rze ? encode<Family::rze, W>(id, in) : encode<Family::rre, W>(id, in);
  });
}

uint64_t eliminate_bytes(StageId id, In in) {
  return with_width(width_of(id), [&]<int W>() {
    return family_of(id) == Family::rze ? encoded_size<Family::rze, W>(id, in) : encoded_size<Family::rre, W>(id, in);
  });
}

Bytes eliminate_decode(StageId id, In blob, uint64_t max_out) {
  return with_width(width_of(id), [&]<int W>() {
    return family_of(id) == Family::rze ? decode<Family::rze, W>(id, blob, max_out)
                                        : decode<Family::rre, W>(id, blob, max_out);
  });
}

}  // namespace sciz::stages::cpu
