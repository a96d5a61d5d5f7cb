// Huffman blobs that stay on the device (huffman_cuda.cuh, "Blobs that stay on the device").
//
// Decoding never asks the host what a blob holds: a one-thread kernel reads the header and
// lays the blob out (Head, in device memory), one CTA reads the codebook and builds the decode
// tables, a pass checks every chunk's bit count and sums them per group of 64 chunks, a scan
// of the group sums places each group, and each CTA of the decoder then scans its group's
// counts to find each chunk's first bit. Grids are sized from host-known bounds and loop up to
// the counts in Head, so no count crosses PCIe; every kernel returns at once when an earlier
// check failed.
//
// The codebook reader is parallel because a 65,536-symbol codebook is ~100 KB of LEB128: a
// varint ends at every byte without its high bit, so a block scan numbers the varints and
// finds where each starts, and a second scan of (gap + 1) gives every symbol. Canonical codes
// need each symbol's rank among the symbols of its length: one warp per length ballots over
// the symbols in order. The 4,096-entry primary table is then filled entry by entry from the
// canonical ranges (code c of length l is the symbol of rank c - first[l]).
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "core/cuda_check.cuh"
#include "lossless/codes/device_check.cuh"
#include "lossless/huffman/huffman.hpp"
#include "lossless/huffman/huffman_cuda.cuh"
#include "lossless/huffman/huffman_decode.cuh"

namespace sciz::huffman::cuda {
namespace {

using check::block_failed;
using check::load_le;

constexpr uint64_t kHeaderBytes = 32;
constexpr int kGroup = 64;          // chunks per group: one decoding CTA's threads (a 128 MiB field chunk's blob has only ~15-60K chunks: small CTAs reach every SM)
constexpr int kBookThreads = 1024;  // the codebook CTA
constexpr unsigned kFull = 0xffffffffu;
constexpr uint32_t kSortedWords = kAlphabet / 2;  // room for 65536 u16 symbols after the tables

// What a blob's header says and where its parts lie (offsets from the base pointer).
struct Head {
  uint64_t n, total_bits, chunks, groups, words;
  uint64_t cb_at, cbits_at, words_at;
  uint32_t chunk, used, cb_bytes;
};

__host__ __device__ constexpr uint64_t pad4(uint64_t b) { return (b + 3) & ~uint64_t{3}; }
__host__ __device__ constexpr uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The checks of parse() that need only the header, and the layout.
__global__ void head_kernel(const uint8_t* base, BlobRef ref_value, const BlobRef* ref_ptr, uint64_t n_max, Head* head,
                            DeviceStatus* st, uint32_t where) {
  if (threadIdx.x != 0 || failed(st)) return;
  const BlobRef r = ref_ptr ? *ref_ptr : ref_value;
  if (r.size < kHeaderBytes) return report(st, kStatusHuffmanTruncated, where, r.size, kHeaderBytes);
  const uint8_t* b = base + r.at;
  Head h;
  h.n = load_le(b, 8);
  h.chunk = static_cast<uint32_t>(load_le(b + 8, 4));
  h.used = static_cast<uint32_t>(load_le(b + 12, 4));
  h.total_bits = load_le(b + 16, 8);
  h.cb_bytes = static_cast<uint32_t>(load_le(b + 24, 4));
  if (h.n != r.n || h.n > n_max) return report(st, kStatusHuffmanCount, where, h.n, r.n);
  if (!(h.chunk >= 8 && h.chunk <= kMaxChunk && h.chunk % 8 == 0)) return report(st, kStatusHuffmanChunk, where, h.chunk, 0);
  if (!(h.total_bits <= h.n * kMaxLen && h.total_bits >= h.n)) return report(st, kStatusHuffmanBits, where, h.total_bits, h.n);
  if ((h.used == 0) != (h.n == 0)) return report(st, kStatusHuffmanUsed, where, h.used, h.n);
  if (h.cb_bytes > r.size - kHeaderBytes) return report(st, kStatusHuffmanTruncated, where, r.size, kHeaderBytes + h.cb_bytes);
  if (h.used > kAlphabet) return report(st, kStatusHuffmanCodebook, where, kCodebookTooLarge, 0);
  if (h.used == 0 && h.cb_bytes != 0) return report(st, kStatusHuffmanCodebook, where, kCodebookTrailing, 0);
  h.chunks = div_up(h.n, h.chunk);
  h.groups = div_up(h.chunks, kGroup);
  h.words = div_up(h.total_bits, 32);
  const uint64_t cbits = pad4(kHeaderBytes + h.cb_bytes), words = pad4(cbits + 2 * h.chunks), bytes = words + 4 * h.words;
  if (bytes != r.size) return report(st, kStatusHuffmanLayout, where, r.size, bytes);
  // Words are read as u32: a misplaced blob (its size is a multiple of 4, so only a damaged
  // enclosing header can misplace it) is a layout fault too.
  if (reinterpret_cast<uintptr_t>(b) % 4 != 0) return report(st, kStatusHuffmanLayout, where, r.size, r.at);
  h.cb_at = r.at + kHeaderBytes;
  h.cbits_at = r.at + cbits;
  h.words_at = r.at + words;
  *head = h;
}

struct Ends {  // varints ended so far; 1 + position of the last end (0: none)
  uint32_t count, last;
};
struct EndsOp {
  __device__ Ends operator()(const Ends& a, const Ends& b) const { return {a.count + b.count, max(a.last, b.last)}; }
};

// Reads the codebook as read_codebook() + codebook_from_lengths() + decode_tables() do, with
// the same refusals. Writes the encoder's table (code: pack_code per symbol, every entry) and/or
// the decoder's (tables: the layout of device_tables()). syms: 65536 u16, keys: 65536 u32.
__global__ void __launch_bounds__(kBookThreads)
    codebook_kernel(const uint8_t* base, const Head* head, uint16_t* syms, uint32_t* keys, uint32_t* code,
                    uint32_t* tables, DeviceStatus* st, uint32_t where) {
  using EndScan = cub::BlockScan<Ends, kBookThreads>;
  using SumScan = cub::BlockScan<uint64_t, kBookThreads>;
  __shared__ union {
    typename EndScan::TempStorage ends;
    typename SumScan::TempStorage sums;
  } tmp;
  __shared__ uint32_t s_k, s_last, s_end, s_wrap, s_bad;
  __shared__ uint64_t s_sum;
  __shared__ uint32_t s_count[kMaxLen + 1], s_first[kMaxLen + 1], s_offset[kMaxLen + 1], s_limit[kMaxLen + 1];
  if (block_failed(st)) return;
  const Head h = *head;
  const uint8_t* cb = base + h.cb_at;
  const uint32_t used = h.used, nbytes = h.cb_bytes;
  const unsigned tid = threadIdx.x, lane = tid & 31, warp = tid / 32;
  if (tid == 0) s_k = s_last = s_end = s_wrap = s_bad = 0, s_sum = 0;
  if (code)
    for (uint32_t s = tid; s < kAlphabet; s += kBookThreads) code[s] = 0;
  __syncthreads();
  if (used == 0) {  // n == 0: no symbols, and the codebook must be empty
    if (tid == 0 && nbytes != 0) report(st, kStatusHuffmanCodebook, where, kCodebookTrailing, 0);
    return;
  }

  // Symbols: used LEB128 gaps; s += gap, syms[k] = s++ (wrapping u64 as the host reader).
  for (uint32_t b0 = 0; b0 < nbytes; b0 += kBookThreads) {
    if (s_k >= used || s_bad) break;  // block-uniform: read after the barrier below
    const uint32_t p = b0 + tid;
    const bool term = p < nbytes && !(cb[p] & 0x80);
    Ends ex, all;
    EndScan(tmp.ends).ExclusiveScan(Ends{term ? 1u : 0u, term ? p + 1 : 0u}, ex, Ends{0, 0}, EndsOp{}, all);
    const uint32_t k = s_k + ex.count;
    const bool var = term && k < used;
    uint64_t gap = 0;
    if (var) {
      const uint32_t start = max(s_last, ex.last), len = p - start + 1;
      if (len > 10) {
        report(st, kStatusHuffmanCodebook, where, kCodebookLongVarint, start);
        s_bad = 1;
      } else {
        for (uint32_t j = 0; j < len; ++j) gap |= static_cast<uint64_t>(cb[start + j] & 0x7f) << (7 * j);
      }
    }
    __syncthreads();  // tmp is reused
    uint64_t incl = 0, total = 0;
    SumScan(tmp.sums).InclusiveSum(var ? gap + 1 : 0, incl, total);
    if (var) {
      const uint64_t sym = s_sum + incl - 1, prev = s_sum + incl - gap - 2;  // s_k and s_(k-1)
      if (sym >= kAlphabet) {
        report(st, kStatusHuffmanCodebook, where, kCodebookSymbolRange, p);
        s_bad = 1;
      } else {
        syms[k] = static_cast<uint16_t>(sym);
        if (k > 0 && sym <= prev) s_wrap = 1;  // only a wrapped u64 sum goes backwards
      }
      if (k + 1 == used) s_end = p + 1;
    }
    __syncthreads();  // every read of s_k, s_last, s_sum above is done
    if (tid == 0) {
      s_k += all.count;
      s_last = max(s_last, all.last);
      s_sum += total;
      // Ten bytes without an end: the host reader refuses the varint there, and so must this
      // loop, or a hostile codebook of continuation bytes would keep one CTA scanning.
      const uint32_t seen = min(b0 + kBookThreads, nbytes);
      if (s_k < used && !s_bad && seen - s_last >= 10) {
        report(st, kStatusHuffmanCodebook, where, kCodebookLongVarint, s_last);
        s_bad = 1;
      }
    }
    __syncthreads();
  }
  if (s_bad) return;
  const uint32_t nib_at = s_end, nib_bytes = (used + 1) / 2;
  if (s_k < used || nib_at + static_cast<uint64_t>(nib_bytes) > nbytes) {
    if (tid == 0) report(st, kStatusHuffmanCodebook, where, kCodebookTruncated, nbytes);
    return;
  }
  if (used % 2 == 1 && (cb[nib_at + nib_bytes - 1] >> 4) != 0) {
    if (tid == 0) report(st, kStatusHuffmanCodebook, where, kCodebookPadding, nib_at + nib_bytes - 1);
    return;
  }
  if (nib_at + nib_bytes != nbytes) {
    if (tid == 0) report(st, kStatusHuffmanCodebook, where, kCodebookTrailing, nib_at + nib_bytes);
    return;
  }
  auto nibble_len = [&](uint32_t k) { return ((cb[nib_at + k / 2] >> (4 * (k & 1))) & 15u) + 1u; };

  // The (symbol, length) pairs in increasing symbol order. A wrapped sum can repeat or reorder
  // symbols; the host reader then keeps the last length given to a symbol, which the keys
  // (entry index, length) resolve with atomicMax.
  const bool wrap = s_wrap != 0;
  if (wrap) {
    for (uint32_t s = tid; s < kAlphabet; s += kBookThreads) keys[s] = 0;
    __syncthreads();
    for (uint32_t k = tid; k < used; k += kBookThreads) atomicMax(&keys[syms[k]], (k + 1) << 8 | nibble_len(k));
    __syncthreads();
  }
  const uint32_t items = wrap ? kAlphabet : used;
  auto item = [&](uint32_t i, uint32_t& sym, uint32_t& len) {
    if (i >= items) {
      sym = len = 0;
    } else if (wrap) {
      sym = i;
      len = keys[i] & 0xffu;
    } else {
      sym = syms[i];
      len = nibble_len(i);
    }
  };

  // Codes per length, one warp per length.
  if (warp < kMaxLen) {
    const uint32_t l = warp + 1;
    uint32_t c = 0;
    for (uint32_t i0 = 0; i0 < items; i0 += 32) {
      uint32_t sym, len;
      item(i0 + lane, sym, len);
      c += __popc(__ballot_sync(kFull, len == l));
    }
    if (lane == 0) s_count[l] = c;
  }
  __syncthreads();
  if (tid == 0) {
    s_count[0] = 0;
    uint64_t kraft = 0;
    for (int l = 1; l <= kMaxLen; ++l) kraft += static_cast<uint64_t>(s_count[l]) << (kMaxLen - l);
    s_bad = kraft > (uint64_t{1} << kMaxLen);
    if (s_bad) report(st, kStatusHuffmanCodebook, where, kCodebookNotPrefix, nbytes);
    s_first[0] = s_offset[0] = s_limit[0] = 0;
    for (int l = 1; l <= kMaxLen; ++l) {
      s_first[l] = (s_first[l - 1] + s_count[l - 1]) << 1;
      s_offset[l] = s_offset[l - 1] + s_count[l - 1];
      s_limit[l] = (s_first[l] + s_count[l]) << (kMaxLen - l);
    }
  }
  __syncthreads();
  if (s_bad) return;

  // Ranks inside each length: the canonical code and the decoder's sorted order.
  uint16_t* sorted = tables ? reinterpret_cast<uint16_t*>(tables + kTableWords) : nullptr;
  if (warp < kMaxLen) {
    const uint32_t l = warp + 1;
    uint32_t r = 0;
    for (uint32_t i0 = 0; i0 < items; i0 += 32) {
      uint32_t sym, len;
      item(i0 + lane, sym, len);
      const unsigned m = __ballot_sync(kFull, len == l);
      if (len == l) {
        const uint32_t rank = r + __popc(m & ((1u << lane) - 1u));
        if (code) code[sym] = pack_code(s_first[l] + rank, l);
        if (sorted) sorted[s_offset[l] + rank] = static_cast<uint16_t>(sym);
      }
      r += __popc(m);
    }
  }
  __syncthreads();  // sorted[] is read below
  if (!tables) return;
  for (uint32_t v = tid; v < kPrimary; v += kBookThreads) {
    uint32_t e = 0;
    for (uint32_t l = 1; l <= static_cast<uint32_t>(kTableBits); ++l) {
      const uint32_t c = v >> (kTableBits - l);
      if (c - s_first[l] < s_count[l]) {  // unsigned: also false below first[l]
        e = pack_entry(sorted[s_offset[l] + c - s_first[l]], l);
        break;
      }
    }
    tables[v] = e;
  }
  if (tid <= kMaxLen) {
    tables[kPrimary + tid] = s_limit[tid];
    tables[kPrimary + kSmall + tid] = s_first[tid];
    tables[kPrimary + 2 * kSmall + tid] = s_offset[tid];
  }
}

// Checks every chunk's bit count ([symbols, 16 x symbols]) and sums them per group.
__global__ void __launch_bounds__(kGroup)
    group_sums_kernel(const uint8_t* base, const Head* head, uint64_t* group_sum, DeviceStatus* st, uint32_t where) {
  using Reduce = cub::BlockReduce<uint32_t, kGroup>;
  __shared__ typename Reduce::TempStorage tmp;
  if (block_failed(st)) return;
  const Head h = *head;
  const uint16_t* cbits = reinterpret_cast<const uint16_t*>(base + h.cbits_at);
  for (uint64_t g = blockIdx.x; g < h.groups; g += gridDim.x) {
    const uint64_t c = g * kGroup + threadIdx.x;
    uint32_t b = 0;
    if (c < h.chunks) {
      b = cbits[c];
      const uint64_t syms = c + 1 < h.chunks ? h.chunk : h.n - c * h.chunk;
      if (b < syms || b > syms * kMaxLen) report(st, kStatusHuffmanChunkBits, where, c, b);
    }
    const uint32_t sum = Reduce(tmp).Sum(b);
    if (threadIdx.x == 0) group_sum[g] = sum;
    __syncthreads();
  }
}

struct GroupAt {  // scan input: group g's bit count, 0 past the blob's groups
  const uint64_t* sum;
  const Head* head;
  uint64_t groups_max;  // sum's length: a head that failed its checks may declare more groups
  __device__ uint64_t operator()(uint64_t g) const { return g < head->groups && g < groups_max ? sum[g] : 0; }
};

__global__ void __launch_bounds__(kGroup)
    decode_groups_kernel(const uint8_t* base, const Head* head, const uint64_t* __restrict__ group_start,
                         const uint32_t* __restrict__ tables, uint16_t* __restrict__ out, DeviceStatus* st,
                         uint32_t where) {
  using Scan = cub::BlockScan<uint32_t, kGroup>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ uint32_t t[kTableWords];
  if (block_failed(st)) return;
  const Head h = *head;
  for (uint32_t k = threadIdx.x; k < kTableWords; k += kGroup) t[k] = tables[k];
  if (blockIdx.x == 0 && threadIdx.x == 0 && group_start[h.groups] != h.total_bits)
    report(st, kStatusHuffmanChunkSum, where, group_start[h.groups], h.total_bits);
  __syncthreads();
  const SlowTables slow{t + kPrimary, t + kPrimary + kSmall, t + kPrimary + 2 * kSmall,
                        reinterpret_cast<const uint16_t*>(tables + kTableWords)};
  const uint16_t* cbits = reinterpret_cast<const uint16_t*>(base + h.cbits_at);
  const uint32_t* words = reinterpret_cast<const uint32_t*>(base + h.words_at);
  const uint64_t nwords = h.words;
  for (uint64_t g = blockIdx.x; g < h.groups; g += gridDim.x) {  // same trips in every thread
    const uint64_t c = g * kGroup + threadIdx.x;
    const uint32_t bits = c < h.chunks ? cbits[c] : 0u;
    uint32_t before = 0;
    Scan(tmp).ExclusiveSum(bits, before);
    if (c < h.chunks) {
      FifoReader br(group_start[g] + before, words, nwords);
      const uint64_t lo = c * h.chunk, hi = min(h.n, lo + h.chunk);
      uint64_t used = 0;
      bool ok = true;
      decode_chunk_symbols(br, t, slow, out, lo, hi, used, ok);
      if (!ok || used != bits) report(st, kStatusHuffmanDecode, where, c, 0);
    }
    __syncthreads();  // tmp is reused
  }
}

// Scratch of one blob's decode or encode, sized for n_max symbols.
struct Scratch {
  dev::Buffer<Head> head;
  dev::Buffer<uint16_t> syms;
  dev::Buffer<uint32_t> keys;
  Scratch(cudaStream_t s) : head(1, s), syms(kAlphabet, s), keys(kAlphabet, s) {}
};

void launch_codebook(const uint8_t* base, const Scratch& sc, uint32_t* code, uint32_t* tables, DeviceStatus* st,
                     uint32_t where, cudaStream_t s) {
  codebook_kernel<<<1, kBookThreads, 0, s>>>(base, sc.head.get(), sc.syms.get(), sc.keys.get(), code, tables, st, where);
  SCIZ_CUDA_CHECK_LAUNCH("huffman codebook_kernel");
}

void decode_after_head(const uint8_t* base, const Scratch& sc, uint64_t n_max, uint16_t* out, DeviceStatus* st,
                       uint32_t where, cudaStream_t s) {
  if (n_max == 0) return;  // the head has checked n == 0; nothing to decode
  dev::Buffer<uint32_t> tables(kTableWords + kSortedWords, s);
  launch_codebook(base, sc, nullptr, tables.get(), st, where, s);
  const uint64_t groups_max = div_up(div_up(n_max, 8), kGroup);
  dev::Buffer<uint64_t> sum(groups_max, s), start(groups_max + 1, s);
  const unsigned sums_grid = check::resident_grid(group_sums_kernel, kGroup, 0, groups_max);
  group_sums_kernel<<<sums_grid, kGroup, 0, s>>>(base, sc.head.get(), sum.get(), st, where);
  SCIZ_CUDA_CHECK_LAUNCH("huffman group_sums_kernel");
  auto in = thrust::make_transform_iterator(thrust::make_counting_iterator<uint64_t>(0), GroupAt{sum.get(), sc.head.get(), groups_max});
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, start.get(), groups_max + 1, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, in, start.get(), groups_max + 1, s));
  const unsigned grid = check::resident_grid(decode_groups_kernel, kGroup, 0, groups_max);
  decode_groups_kernel<<<grid, kGroup, 0, s>>>(base, sc.head.get(), start.get(), tables.get(), out, st, where);
  SCIZ_CUDA_CHECK_LAUNCH("huffman decode_groups_kernel");
}

void require_aligned(const void* p, uintptr_t to, const char* what) {
  SCIZ_REQUIRE(reinterpret_cast<uintptr_t>(p) % to == 0, Status::internal,
               std::string("huffman (device): ") + what + " is not " + std::to_string(to) + "-byte aligned");
}

}  // namespace

void encode_blob(const uint16_t* d_sym, uint64_t n, const Lengths& lengths, uint64_t total_bits, uint8_t* d_blob,
                 DeviceStatus* st, uint32_t where, cudaStream_t s, uint32_t chunk) {
  require_aligned(d_blob, 4, "blob");
  const std::vector<uint8_t> prefix = header_and_codebook(lengths, n, chunk, total_bits);
  dev::copy_to_device(d_blob, prefix.data(), prefix.size(), s);  // pageable and small: staged, no wait
  if (n == 0) return;
  require_aligned(d_sym, 16, "symbols");
  const uint64_t chunks = div_up(n, chunk), words = div_up(total_bits, 32);
  const Layout l = layout(prefix.size() - kHeaderBytes, chunks, words);
  Scratch sc(s);
  head_kernel<<<1, 32, 0, s>>>(d_blob, BlobRef{0, l.bytes, n}, nullptr, n, sc.head.get(), st, where);
  SCIZ_CUDA_CHECK_LAUNCH("huffman head_kernel");
  dev::Buffer<uint32_t> code(kAlphabet, s);
  launch_codebook(d_blob, sc, code.get(), nullptr, st, where, s);
  // A symbol without a code cannot occur (the codebook comes from these symbols' histogram);
  // the flag is the old encoder's and is not read here.
  dev::Buffer<uint32_t> err(1, s);
  uint16_t* cbits = reinterpret_cast<uint16_t*>(d_blob + l.chunk_bits_at);
  chunk_bits(d_sym, n, code.get(), chunk, cbits, err.get(), s);
  encode_words(d_sym, n, code.get(), chunk, cbits, reinterpret_cast<uint32_t*>(d_blob + l.words_at), words, s);
}

void decode_blob(const uint8_t* d_base, const BlobRef* d_ref, uint64_t n_max, uint16_t* d_out, DeviceStatus* st,
                 uint32_t where, cudaStream_t s) {
  require_aligned(d_base, 4, "section");
  require_aligned(d_out, 16, "output");
  Scratch sc(s);
  head_kernel<<<1, 32, 0, s>>>(d_base, BlobRef{}, d_ref, n_max, sc.head.get(), st, where);
  SCIZ_CUDA_CHECK_LAUNCH("huffman head_kernel");
  decode_after_head(d_base, sc, n_max, d_out, st, where, s);
}

void decode_blob(const uint8_t* d_base, const BlobRef& ref, uint16_t* d_out, DeviceStatus* st, uint32_t where,
                 cudaStream_t s) {
  require_aligned(d_base, 4, "section");
  require_aligned(d_out, 16, "output");
  Scratch sc(s);
  head_kernel<<<1, 32, 0, s>>>(d_base, ref, nullptr, ref.n, sc.head.get(), st, where);
  SCIZ_CUDA_CHECK_LAUNCH("huffman head_kernel");
  decode_after_head(d_base, sc, ref.n, d_out, st, where, s);
}

}  // namespace sciz::huffman::cuda
