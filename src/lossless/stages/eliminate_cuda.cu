// RRE_w and RZE_w, CUDA twin: a CTA of 256 threads per 16 KiB block, the layout of
// eliminate_math.hpp. Thread t owns symbols 64t .. 64t + 63 of its block: their level-0 bits are
// one 64-bit word (kept_bits64, shared with the CPU twin) and their level-1 byte is byte t, so
// the level-0 bytes and the kept symbols are placed by one block scan of two packed counts.
// The levels above (at most 32 + 4 + 1 bytes) are one warp's work.
//
// Encoding is one pass: a CTA takes blocks in order from an atomic counter, codes each in
// shared memory, learns where its payload goes by decoupled look-back (core/lookback.cuh) and
// writes payload and table entry straight into the blob, in 4-byte stores whatever the
// payload's alignment. One copy of the total to the host learns the blob's size.
//
// Decoding: the table is checked and scanned on the device; each block's CTA loads its payload
// into shared memory in 4-byte loads (kept inside the blob), parses the levels down (a warp
// for levels 4 .. 1, a block scan for level 0, a second for the kept symbols), checks every
// count against the payload before it reads, and writes its block only once it checked out.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <sciz/error.hpp>

#include <cstdlib>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/lookback.cuh"
#include "lossless/stages/eliminate_cuda.cuh"
#include "lossless/stages/eliminate_math.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cuda.cuh"
#include "lossless/stages/stage_cuda.hpp"
#include "lossless/stages/symbols.hpp"

namespace sciz::stages::cuda {
namespace {

static_assert(kThreads * 64 >= kBlockBytes, "a thread owns 64 symbols, so a CTA covers a block of 1-byte symbols");
static_assert(kThreads == 256, "level 1 (at most 256 bytes) is one byte per thread");

using Scan = cub::BlockScan<uint32_t, kThreads>;
using Agg = lookback::Counts<3>;
using Packing = lookback::Packing<24, 24, 12>;  // a payload's size (< 2^15) in the first word

constexpr uint32_t kWords = kBlockBytes / 4 + 4;  // a block's bytes as words, with room past the end

// ---- moving spans between global and shared memory in 4-byte accesses ----

// Bytes [src, src + size) into words, starting at byte (src % 4) of words[0] (returned): the
// aligned words that cover the span, each read whole where it lies in [lo, hi) and byte by
// byte at the edges, so nothing outside [lo, hi) is read. All threads call it.
__device__ uint32_t load_span(const uint8_t* src, uint32_t size, const uint8_t* lo, const uint8_t* hi, uint32_t* words) {
  const uint32_t shift = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(src) & 3);
  const uint8_t* base = src - shift;
  const uint32_t nw = (shift + size + 3) / 4;
  for (uint32_t k = threadIdx.x; k < nw; k += kThreads) {
    const uint8_t* p = base + 4 * k;
    if (p >= lo && p + 4 <= hi) {
      words[k] = *reinterpret_cast<const uint32_t*>(p);
    } else {
      uint32_t v = 0;
      for (int b = 0; b < 4; ++b)
        if (p + b >= lo && p + b < hi) v |= static_cast<uint32_t>(p[b]) << (8 * b);
      words[k] = v;
    }
  }
  return shift;
}

// Bytes [shift, shift + size) of words to dst, any alignment: the head and tail bytes alone,
// the rest as aligned 4-byte stores assembled by funnel shifts (words has a word past the span).
// All threads call it.
__device__ void store_span(uint8_t* dst, const uint32_t* words, uint32_t shift, uint32_t size) {
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(words) + shift;
  const uint32_t head = min(size, static_cast<uint32_t>((4 - (reinterpret_cast<uintptr_t>(dst) & 3)) & 3));
  if (threadIdx.x < head) dst[threadIdx.x] = bytes[threadIdx.x];
  const uint32_t body = (size - head) / 4, s0 = shift + head, w0 = s0 / 4, bits = 8 * (s0 % 4);
  uint32_t* out = reinterpret_cast<uint32_t*>(dst + head);
  for (uint32_t k = threadIdx.x; k < body; k += kThreads)
    out[k] = bits ? __funnelshift_r(words[w0 + k], words[w0 + k + 1], bits) : words[w0 + k];
  const uint32_t done = head + 4 * body;
  if (threadIdx.x < size - done) dst[done + threadIdx.x] = bytes[done + threadIdx.x];
}

// ---- encoding ----

// Word arrays 16-byte aligned: symbols of up to 8 bytes are read and written whole in them.
struct EncodeShared {
  alignas(16) uint32_t in[kWords];   // the block
  alignas(16) uint32_t out[kWords];  // its payload
  uint8_t bm[kMaxLevelBytes + 7];
  Levels lv;  // in shared memory: indexed by level at run time, it would live in local memory
  typename Scan::TempStorage scan;
  unsigned long long tile;
  uint32_t upper;   // payload bytes before level 0's stored bytes
  uint64_t offset;  // where the payload goes, from the start of the payloads
};

// Warp 0: levels 2 .. top from level 1, then the payload's first part (level top verbatim, the
// non-zero bytes of levels top - 1 .. 1) into out; returns its length in every lane.
__device__ uint32_t upper_levels(EncodeShared& sh, const Levels& lv) {
  const uint32_t lane = threadIdx.x & 31;
  for (int k = 1; k < lv.top; ++k) {
    for (uint32_t j = lane; j < lv.size[k + 1]; j += 32) sh.bm[lv.at[k + 1] + j] = upper_byte(sh.bm + lv.at[k], lv.size[k], j);
    __syncwarp();
  }
  uint8_t* out = reinterpret_cast<uint8_t*>(sh.out);
  if (lane < lv.size[lv.top]) out[lane] = sh.bm[lv.at[lv.top] + lane];
  uint32_t pos = lv.size[lv.top];
  for (int k = lv.top - 1; k >= 1; --k)
    for (uint32_t base = 0; base < lv.size[k]; base += 32) {
      const uint32_t j = base + lane;
      const uint8_t v = j < lv.size[k] ? sh.bm[lv.at[k] + j] : 0;
      const uint32_t mask = __ballot_sync(0xffffffffu, v != 0);
      if (v) out[pos + __popc(mask & ((1u << lane) - 1))] = v;
      pos += __popc(mask);
    }
  return pos;
}

template <Family F, int W>
__global__ void __launch_bounds__(kThreads)
    encode_kernel(const uint8_t* __restrict__ in, uint64_t n, uint8_t* __restrict__ blob, uint64_t header,
                  lookback::State<3> ls) {
  __shared__ __align__(16) EncodeShared sh;
  const uint64_t blocks = block_count(n), payload_at = kHeaderBytes + 2 * blocks;
  const uint32_t t = threadIdx.x, warp = t / 32;
  uint8_t* sin = reinterpret_cast<uint8_t*>(sh.in);
  uint8_t* sout = reinterpret_cast<uint8_t*>(sh.out);
  for (;;) {
    const uint64_t blk = lookback::next_tile(ls, blocks, &sh.tile);
    if (blk >= blocks) return;
    const uint32_t bytes = block_size(n, blk), m = bytes / W, tail = bytes % W;
    const uint8_t* src = in + blk * kBlockBytes;
    if (reinterpret_cast<uintptr_t>(in) % 4 == 0) {
      load_span(src, bytes, src, src + bytes, sh.in);
    } else {
      for (uint32_t i = t; i < bytes; i += kThreads) sin[i] = src[i];
    }
    if (t == 0) sh.lv = bitmap_levels(m);
    __syncthreads();

    // Level 0 (8 bytes a thread) and level 1 (a byte a thread), in registers and shared memory.
    const Levels& lv = sh.lv;
    const uint64_t bits = kept_bits64<F, W>(sin, m, 64 * t);
    for (uint32_t k = 0; k < 8 && 8 * t + k < lv.size[0]; ++k) sh.bm[8 * t + k] = static_cast<uint8_t>(bits >> (8 * k));
    const uint32_t l1 = nonzero_bytes8(bits);
    if (lv.top >= 1 && t < lv.size[1]) sh.bm[lv.at[1] + t] = static_cast<uint8_t>(l1);
    __syncthreads();
    if (warp == 0) {
      const uint32_t upper = upper_levels(sh, lv);
      if (t == 0) sh.upper = upper;
    }
    // Level 0's stored bytes (none when level 0 is the top, stored whole) and kept symbols: one
    // scan of both counts, packed (at most 2048 and 16384).
    const uint32_t c0 = lv.top >= 1 ? static_cast<uint32_t>(__popc(l1)) : 0;
    const uint32_t ck = static_cast<uint32_t>(__popcll(bits));
    uint32_t before, total;
    Scan(sh.scan).ExclusiveSum(ck << 16 | c0, before, total);
    __syncthreads();
    const uint32_t upper = sh.upper, c0_total = total & 0xFFFFu, kept = total >> 16;
    const uint32_t size = upper + c0_total + kept * W + tail;
    const bool raw = size >= bytes;
    if (!raw) {
      uint32_t o = upper + (before & 0xFFFFu);
      if (lv.top >= 1)
        for (int k = 0; k < 8; ++k) {
          const uint8_t b = static_cast<uint8_t>(bits >> (8 * k));
          if (b) sout[o++] = b;
        }
      uint8_t* ko = sout + upper + c0_total + W * (before >> 16);
      for (uint64_t b = bits; b; b &= b - 1) {
        const uint32_t i = 64 * t + static_cast<uint32_t>(__ffsll(static_cast<long long>(b)) - 1);
        for (int q = 0; q < W; ++q) ko[q] = sin[i * W + q];
        ko += W;
      }
      if (t < tail) sout[size - tail + t] = sin[m * W + t];
    }
    const uint32_t psize = raw ? bytes : size;
    if (warp == 0) {
      const Agg before_tile = lookback::exclusive_prefix<Packing>(ls, blk, Agg{{psize, 0, 0}});
      if (t == 0) sh.offset = before_tile.w[0];
    }
    __syncthreads();
    store_span(blob + payload_at + sh.offset, raw ? sh.in : sh.out, 0, psize);
    const uint16_t entry = static_cast<uint16_t>(raw ? bytes | kRawFlag : size);
    if (t < 2) blob[kHeaderBytes + 2 * blk + t] = static_cast<uint8_t>(entry >> (8 * t));
    if (blk == 0 && t < 8) blob[t] = static_cast<uint8_t>(header >> (8 * t));
    __syncthreads();  // shared memory is refilled for the next block
  }
}

// ---- decoding ----

// Checks every table entry against its block's size and gathers the payload sizes.
__global__ void __launch_bounds__(kThreads)
    table_kernel(const uint8_t* __restrict__ blob, uint64_t n, uint32_t id, uint64_t* __restrict__ sizes,
                 DeviceStatus* st) {
  const uint64_t blocks = block_count(n);
  const uint64_t first = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (first == 0) sizes[blocks] = 0;
  for (uint64_t b = first; b < blocks; b += static_cast<uint64_t>(gridDim.x) * kThreads) {
    const uint16_t e = static_cast<uint16_t>(check::load_le(blob + kHeaderBytes + 2 * b, 2));
    if (!entry_fits(e, block_size(n, b))) report(st, kStatusStageEntry, id, b, e);
    sizes[b] = entry_bytes(e);
  }
}

__global__ void total_kernel(const uint64_t* offset, uint64_t blocks, uint64_t bytes, uint32_t id, DeviceStatus* st) {
  const uint64_t total = kHeaderBytes + 2 * blocks + offset[blocks];
  if (total != bytes) report(st, kStatusStageTotal, id, total, bytes);
}

struct DecodeShared {
  alignas(16) uint32_t pay[kWords + 1];  // the payload, from byte `shift` of word 0
  alignas(16) uint32_t out[kWords];      // the block
  uint8_t bm[kMaxLevelBytes + 7];
  Levels lv;  // in shared memory, as EncodeShared's
  typename Scan::TempStorage scan;
  uint32_t fault, pos;
};

// Warp 0: level top from the payload, then levels top - 1 .. 1 down from it, each level's
// padding checked; returns the payload bytes used (in every lane) or a fault.
__device__ uint32_t decode_upper(DecodeShared& sh, const uint8_t* pay, uint32_t size, const Levels& lv, uint32_t m,
                                 uint32_t& fault) {
  const uint32_t lane = threadIdx.x & 31;
  uint32_t pos = lv.size[lv.top];
  if (pos > size) {
    fault = kBlockSize;
    return pos;
  }
  if (lane < pos) sh.bm[lv.at[lv.top] + lane] = pay[lane];
  __syncwarp();
  for (int k = lv.top; k >= 1; --k) {
    if (lv.size[k] && (sh.bm[lv.at[k] + lv.size[k] - 1] & padding_mask(level_bits(lv, m, k)))) {
      fault = kBlockPadding;
      return pos;
    }
    if (k == 1) break;  // level 0, the largest, is the whole CTA's work
    for (uint32_t base = 0; base < lv.size[k - 1]; base += 32) {
      const uint32_t j = base + lane;
      const bool set = j < lv.size[k - 1] && ((sh.bm[lv.at[k] + j / 8] >> (j % 8)) & 1);
      const uint32_t mask = __ballot_sync(0xffffffffu, set);
      if (pos + __popc(mask) > size) {
        fault = kBlockSize;
        return pos;
      }
      if (j < lv.size[k - 1]) sh.bm[lv.at[k - 1] + j] = set ? pay[pos + __popc(mask & ((1u << lane) - 1))] : 0;
      pos += __popc(mask);
    }
    __syncwarp();
  }
  return pos;
}

template <Family F, int W>
__global__ void __launch_bounds__(kThreads)
    decode_kernel(const uint8_t* __restrict__ blob, uint64_t blob_bytes, const uint64_t* __restrict__ offset, uint64_t n,
                  uint32_t id, uint8_t* __restrict__ out, DeviceStatus* st) {
  if (check::gate(st)) return;
  __shared__ __align__(16) DecodeShared sh;
  const uint64_t blocks = block_count(n), payload_at = kHeaderBytes + 2 * blocks;
  const uint32_t t = threadIdx.x;
  uint8_t* sout = reinterpret_cast<uint8_t*>(sh.out);
  for (uint64_t blk = blockIdx.x; blk < blocks; blk += gridDim.x) {
    const uint32_t bytes = block_size(n, blk), m = bytes / W, tail = bytes % W;
    const uint16_t e = static_cast<uint16_t>(check::load_le(blob + kHeaderBytes + 2 * blk, 2));
    const uint32_t size = entry_bytes(e);
    const uint32_t shift = load_span(blob + payload_at + offset[blk], size, blob, blob + blob_bytes, sh.pay);
    uint8_t* dst = out + blk * kBlockBytes;
    if (t == 0) sh.lv = bitmap_levels(m);
    __syncthreads();
    if (e & kRawFlag) {
      store_span(dst, sh.pay, shift, bytes);
      __syncthreads();
      continue;
    }
    const uint8_t* pay = reinterpret_cast<const uint8_t*>(sh.pay) + shift;
    const Levels& lv = sh.lv;
    if (t < 32) {
      uint32_t fault = kBlockOk;
      const uint32_t pos = decode_upper(sh, pay, size, lv, m, fault);
      if (t == 0) sh.fault = fault, sh.pos = pos;
    }
    __syncthreads();
    uint32_t fault = sh.fault, pos = sh.pos;
    // Level 0 (unless it is the top, read whole above): thread t's 8 bytes from its level-1 byte.
    uint32_t l1 = 0;
    if (lv.top >= 1 && t < lv.size[1]) l1 = sh.bm[lv.at[1] + t];
    uint32_t before, total;
    Scan(sh.scan).ExclusiveSum(fault == kBlockOk && lv.top >= 1 ? static_cast<uint32_t>(__popc(l1)) : 0u, before, total);
    if (fault == kBlockOk && pos + total > size) fault = kBlockSize;
    if (fault == kBlockOk && lv.top >= 1) {
      uint32_t r = pos + before;
      for (uint32_t k = 0; k < 8 && 8 * t + k < lv.size[0]; ++k) sh.bm[8 * t + k] = ((l1 >> k) & 1) ? pay[r++] : 0;
    }
    pos += total;
    __syncthreads();
    // Thread t's level-0 word; bits past m are padding, which must be zero.
    uint64_t bits = 0;
    for (uint32_t k = 0; k < 8 && 8 * t + k < lv.size[0]; ++k) bits |= static_cast<uint64_t>(sh.bm[8 * t + k]) << (8 * k);
    const uint32_t first = 64 * t;
    const uint64_t valid = first < m ? low_bits64(m - first) : 0;
    if (__syncthreads_or(fault == kBlockOk && (bits & ~valid) != 0) && fault == kBlockOk) fault = kBlockPadding;
    uint32_t kept_before, kept;
    Scan(sh.scan).ExclusiveSum(static_cast<uint32_t>(__popcll(bits)), kept_before, kept);
    if (fault == kBlockOk && pos + kept * W + tail != size) fault = kBlockSize;
    if (fault == kBlockOk && F == Family::rre && m > 0 && !(sh.bm[0] & 1)) fault = kBlockFirst;
    if (fault != kBlockOk) {  // block-uniform: every count above is the CTA's
      if (t == 0) report(st, kStatusStageBlock, id, blk, fault);
      __syncthreads();
      continue;
    }
    // Symbols 64t .. 64t + 63: kept ones from the payload in order, the others repeat the last
    // kept one (rre) or are zero (rze).
    const uint8_t* ks = pay + pos + kept_before * W;
    uint_t<W> cur = (F == Family::rre && kept_before > 0) ? load_sym<W>(ks - W) : uint_t<W>(0);
    uint32_t end = first < m ? min(m, first + 64) : first;
    if constexpr (W == 1) {
      if (end == first + 64) {  // a whole unit of bytes: built in registers, 4 wide stores
        uint32_t w[16];
        SCIZ_UNROLL
        for (int k = 0; k < 64; ++k) {
          if ((bits >> k) & 1) cur = *ks++;
          else if (F == Family::rze) cur = 0;
          const uint32_t b = static_cast<uint32_t>(cur) << (8 * (k % 4));
          w[k / 4] = k % 4 ? w[k / 4] | b : b;
        }
        uint4* o = reinterpret_cast<uint4*>(sout + first);
        SCIZ_UNROLL
        for (int q = 0; q < 4; ++q) o[q] = make_uint4(w[4 * q], w[4 * q + 1], w[4 * q + 2], w[4 * q + 3]);
        end = first;  // done
      }
    }
    for (uint32_t i = first; i < end; ++i) {
      if ((bits >> (i - first)) & 1) {
        cur = load_sym<W>(ks);
        ks += W;
      } else if (F == Family::rze) {
        cur = 0;
      }
      store_sym_aligned<W>(sout + i * W, cur);
    }
    if (t < tail) sout[m * W + t] = pay[pos + kept * W + t];
    __syncthreads();
    store_span(dst, sh.out, 0, bytes);
    __syncthreads();
  }
}

template <class F>
decltype(auto) with_family(StageId id, F&& f) {
  return with_width(width_of(id), [&]<int W>() {
    return family_of(id) == Family::rze ? f.template operator()<Family::rze, W>() : f.template operator()<Family::rre, W>();
  });
}

}  // namespace

bool use_baseline() {
  static const bool b = [] {
    const char* v = std::getenv("SCIZ_STAGES_BASELINE");
    return v != nullptr && v[0] == '1';
  }();
  return b;
}

void exclusive_scan(const uint64_t* in, uint64_t* out, uint64_t count, cudaStream_t s) {
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, out, static_cast<int64_t>(count), s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, in, out, static_cast<int64_t>(count), s));
}

uint64_t eliminate_encode(StageId id, const uint8_t* d_in, uint64_t n, uint8_t* d_out, cudaStream_t s) {
  if (use_baseline()) return eliminate_encode_baseline(id, d_in, n, d_out, s);
  const uint64_t blocks = block_count(n);
  if (blocks == 0) {  // the header alone
    const uint64_t h = make_header(id, n);
    dev::copy_to_device(d_out, &h, 8, s);
    dev::sync(s);  // h is a host temporary
    return kHeaderBytes;
  }
  lookback::Storage<3> ls(blocks, s);
  ls.reset(s);
  with_family(id, [&]<Family F, int W>() {
    encode_kernel<F, W><<<grid_for(blocks, 1), kThreads, 0, s>>>(d_in, n, d_out, make_header(id, n), ls.state());
    SCIZ_CUDA_CHECK_LAUNCH("eliminate encode_kernel");
  });
  lookback::Counts<3> total{};
  ls.totals(&total, s);
  dev::sync(s);  // the one synchronization: the caller needs the blob's size
  return kHeaderBytes + 2 * blocks + total.w[0];
}

void eliminate_decode(StageId id, const uint8_t* d_blob, uint64_t bytes, uint64_t n, uint8_t* d_out, DeviceStatus* st,
                      cudaStream_t s) {
  check_header(id, d_blob, n, st, s);
  const uint64_t blocks = block_count(n);
  if (blocks == 0) return;
  const uint32_t sid = static_cast<uint32_t>(id);
  dev::Buffer<uint64_t> sizes(blocks + 1, s), offset(blocks + 1, s);
  table_kernel<<<grid_for(blocks, kThreads), kThreads, 0, s>>>(d_blob, n, sid, sizes.get(), st);
  SCIZ_CUDA_CHECK_LAUNCH("eliminate table_kernel");
  exclusive_scan(sizes.get(), offset.get(), blocks + 1, s);
  total_kernel<<<1, 1, 0, s>>>(offset.get(), blocks, bytes, sid, st);
  SCIZ_CUDA_CHECK_LAUNCH("eliminate total_kernel");
  if (use_baseline()) return launch_decode_baseline(id, d_blob, offset.get(), n, d_out, st, s);
  with_family(id, [&]<Family F, int W>() {
    decode_kernel<F, W><<<grid_for(blocks, 1), kThreads, 0, s>>>(d_blob, bytes, offset.get(), n, sid, d_out, st);
    SCIZ_CUDA_CHECK_LAUNCH("eliminate decode_kernel");
  });
}

}  // namespace sciz::stages::cuda
