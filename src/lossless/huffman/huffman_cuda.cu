// CUDA twin of the huffman stage.
// Encode: histogram (shared-memory bins) -> host codebook -> per-chunk bit counts (a warp per
// chunk, coalesced) -> scan -> one thread per chunk writes its codes; the two words a chunk
// may share with its neighbours are ORed in, the rest stored.
// Decode: scan of the stored chunk bit counts -> one thread per chunk decodes from its first
// bit with the primary table in shared memory, 8 symbols per 16-byte store.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "core/launch_grid.hpp"
#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/container.hpp"
#include "core/host_memory.hpp"
#include "lossless/huffman/huffman.hpp"
#include "lossless/huffman/huffman_cuda.cuh"
#include "lossless/huffman/huffman_decode.cuh"

namespace sciz::huffman {
namespace {

using cuda::kPrimary;
using cuda::kSmall;
using cuda::kTableWords;

constexpr int kThreads = 128;
// Decoding CTAs are larger: every CTA holds the 16.6 KB tables in shared memory, and fewer
// copies leave the L1 room for the lanes' stream words.
constexpr int kDecodeThreads = 256;
constexpr uint32_t kSharedBins = 8192;  // larger symbols count in global memory directly
constexpr uint32_t kErrUnknownSymbol = 1, kErrCorrupt = 2;

using gpu::grid_for;  // core/launch_grid.hpp

__device__ void count_symbol(uint32_t s, uint32_t k, uint32_t* sbins, uint32_t nshared, uint32_t alphabet,
                             unsigned long long* ghist, uint32_t* err) {
  if (s < nshared)
    atomicAdd(&sbins[s], k);
  else if (s < alphabet)
    atomicAdd(&ghist[s], static_cast<unsigned long long>(k));
  else
    atomicOr(err, kErrUnknownSymbol);
}

// Eight symbols per load; equal neighbours are merged first, so smooth codes cost about one
// shared atomic per load instead of eight on the same bin.
__global__ void __launch_bounds__(kThreads)
    histogram_kernel(const uint16_t* __restrict__ sym, uint64_t n, uint32_t alphabet,
                     unsigned long long* __restrict__ ghist, uint32_t* err) {
  extern __shared__ uint32_t sbins[];
  const uint32_t nshared = min(alphabet, kSharedBins);
  for (uint32_t b = threadIdx.x; b < nshared; b += blockDim.x) sbins[b] = 0;
  __syncthreads();
  const uint64_t nvec = n / 8, stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  const uint4* v = reinterpret_cast<const uint4*>(sym);
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nvec; i += stride) {
    const uint4 q = v[i];
    const uint32_t w[4] = {q.x, q.y, q.z, q.w};
    uint32_t cur = w[0] & 0xffffu, k = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const uint32_t s = (w[j / 2] >> (16 * (j % 2))) & 0xffffu;
      if (s != cur) {
        count_symbol(cur, k, sbins, nshared, alphabet, ghist, err);
        cur = s;
        k = 0;
      }
      ++k;
    }
    count_symbol(cur, k, sbins, nshared, alphabet, ghist, err);
  }
  if (blockIdx.x == 0)
    for (uint64_t i = nvec * 8 + threadIdx.x; i < n; i += blockDim.x)
      count_symbol(sym[i], 1, sbins, nshared, alphabet, ghist, err);
  __syncthreads();
  for (uint32_t b = threadIdx.x; b < nshared; b += blockDim.x)
    if (sbins[b]) atomicAdd(&ghist[b], static_cast<unsigned long long>(sbins[b]));
}

__device__ uint32_t warp_sum(uint32_t v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

__global__ void __launch_bounds__(kThreads)
    chunk_bits_kernel(const uint16_t* __restrict__ sym, uint64_t n, uint32_t chunk, const uint32_t* __restrict__ code,
                      uint16_t* __restrict__ cbits, uint32_t* err) {
  const uint64_t chunks = (n + chunk - 1) / chunk;
  const unsigned lane = threadIdx.x % 32;
  const uint64_t warps = static_cast<uint64_t>(gridDim.x) * (kThreads / 32);
  for (uint64_t c = (static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x) / 32; c < chunks; c += warps) {
    const uint64_t lo = c * chunk, hi = min(n, lo + chunk);
    uint32_t bits = 0;
    bool unknown = false;
    for (uint64_t i = lo + lane; i < hi; i += 32) {
      const uint32_t l = code_len(__ldg(&code[sym[i]]));
      unknown |= l == 0;
      bits += l;
    }
    if (__any_sync(0xffffffffu, unknown) && lane == 0) atomicOr(err, kErrUnknownSymbol);
    bits = warp_sum(bits);
    if (lane == 0) cbits[c] = static_cast<uint16_t>(bits);
  }
}

// A chunk's words as word_step packs them (huffman_math.hpp: the same bits), but only complete
// words are stored, and without a branch per code: a lane's word fills up at its own symbols, so
// a branch there is taken by some lane of the warp at nearly every step and the warp runs the
// write for it. Here every step runs the same few instructions and the stores are predicated.
// The first and the last word may be shared with the neighbouring chunks: ORed atomically into
// the zeroed words. Words at or past nwords are dropped: the starts come from the device's own
// code table, and a table that disagreed with the host's sizes must not write past the blob.
struct LaneWriter {
  uint64_t acc = 0;  // pending bits, left-justified
  uint32_t nb;       // pending bits, counting the previous chunk's bits in the first word
  uint64_t w;        // the word they go to
  bool first = true;

  __device__ explicit LaneWriter(uint64_t start_bit) : nb(static_cast<uint32_t>(start_bit & 31)), w(start_bit >> 5) {}
  __device__ void put(uint32_t code, uint32_t len, uint32_t* __restrict__ words, uint64_t nwords) {
    acc |= static_cast<uint64_t>(code) << (64 - nb - len);
    nb += len;
    const bool full = nb >= 32;
    const uint32_t v = static_cast<uint32_t>(acc >> 32);
    const bool in = full && w < nwords;
    if (in && first) atomicOr(&words[w], v);
    if (in && !first) words[w] = v;
    first = first && !full;
    w += full ? 1u : 0u;
    acc = full ? acc << 32 : acc;
    nb -= full ? 32u : 0u;
  }
  __device__ void finish(uint32_t* __restrict__ words, uint64_t nwords) const {
    if (nb > 0 && w < nwords) atomicOr(&words[w], static_cast<uint32_t>(acc >> 32));
  }
};

__global__ void __launch_bounds__(kThreads)
    encode_kernel(const uint16_t* __restrict__ sym, uint64_t n, uint32_t chunk, const uint32_t* __restrict__ code,
                  const uint64_t* __restrict__ start, uint32_t* __restrict__ words, uint64_t nwords) {
  const uint64_t chunks = (n + chunk - 1) / chunk;
  const uint64_t c = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (c >= chunks) return;
  const uint64_t lo = c * chunk, hi = min(n, lo + chunk);
  LaneWriter bw(start[c]);
  auto put = [&](uint32_t s) {
    const uint32_t e = __ldg(&code[s]);
    bw.put(code_bits(e), code_len(e), words, nwords);
  };
  // lo is a multiple of 8 symbols: 16-byte aligned. Each lane reads its own chunk, so its
  // loads rarely hit L1: four 16-byte loads are kept in flight, each requested 32 symbols
  // before its codes are written (statically indexed, so they stay in registers).
  auto load8 = [&](uint64_t at) {
    return at + 8 <= hi ? __ldg(reinterpret_cast<const uint4*>(sym + at)) : make_uint4(0, 0, 0, 0);
  };
  auto put8 = [&](const uint4& q) {
    const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int j = 0; j < 8; ++j) put((w[j / 2] >> (16 * (j % 2))) & 0xffffu);
  };
  uint4 q[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) q[j] = load8(lo + 8 * j);
  uint64_t i = lo;
  for (; i + 32 <= hi; i += 32) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const uint4 v = q[j];
      q[j] = load8(i + 32 + 8 * j);
      put8(v);
    }
  }
#pragma unroll
  for (int j = 0; j < 3; ++j)  // fewer than 32 left: their whole groups of 8 are in q[0..2]
    if (i + 8 <= hi) {
      put8(q[j]);
      i += 8;
    }
  for (; i < hi; ++i) put(sym[i]);
  bw.finish(words, nwords);
}

// The 2 (CTAs an SM) lets ptxas use the registers it needs: with the thread count alone it
// capped this kernel at 32 and spilled the reader's waiting words.
__global__ void __launch_bounds__(kDecodeThreads, 2)
    decode_kernel(const uint32_t* __restrict__ words, uint64_t nwords, const uint64_t* __restrict__ start, uint64_t n,
                  uint32_t chunk, const uint32_t* __restrict__ tables, uint16_t* __restrict__ out, uint32_t* err) {
  __shared__ uint32_t t[kTableWords];
  for (uint32_t k = threadIdx.x; k < kTableWords; k += blockDim.x) t[k] = tables[k];
  __syncthreads();
  const uint64_t chunks = (n + chunk - 1) / chunk;
  const uint64_t c = static_cast<uint64_t>(blockIdx.x) * kDecodeThreads + threadIdx.x;
  if (c >= chunks) return;
  const SlowTables slow{t + kPrimary, t + kPrimary + kSmall, t + kPrimary + 2 * kSmall,
                        reinterpret_cast<const uint16_t*>(tables + kTableWords)};
  const uint64_t b0 = start[c];
  FifoReader br(b0, words, nwords);
  const uint64_t lo = c * chunk, hi = min(n, lo + chunk);
  uint64_t used = 0;
  bool ok = true;
  decode_chunk_symbols(br, t, slow, out, lo, hi, used, ok);
  if (!ok || used != start[c + 1] - b0) atomicOr(err, kErrCorrupt);
}

struct BitsAt {
  const uint16_t* cbits;
  uint64_t chunks;
  __host__ __device__ uint64_t operator()(uint64_t i) const { return i < chunks ? cbits[i] : 0; }
};

// start[c] = first bit of chunk c; start[chunks] = total bits.
dev::Buffer<uint64_t> chunk_starts(const uint16_t* d_cbits, uint64_t chunks, cudaStream_t s) {
  dev::Buffer<uint64_t> start(chunks + 1, s);
  auto in = thrust::make_transform_iterator(thrust::make_counting_iterator<uint64_t>(0), BitsAt{d_cbits, chunks});
  size_t temp_bytes = 0;
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, start.get(), chunks + 1, s));
  dev::Buffer<uint8_t> temp(temp_bytes, s);
  SCIZ_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, in, start.get(), chunks + 1, s));
  return start;
}

uint32_t read_flag(const dev::Buffer<uint32_t>& d_err, cudaStream_t s) {
  uint32_t e = 0;
  dev::copy_to_host(&e, d_err.get(), 4, s);
  dev::sync(s);
  return e;
}

dev::Buffer<uint32_t> zeroed_flag(cudaStream_t s) {
  dev::Buffer<uint32_t> f(1, s);
  SCIZ_CUDA_CHECK(cudaMemsetAsync(f.get(), 0, 4, s));
  return f;
}

void require_aligned(const void* p, const char* what) {
  SCIZ_REQUIRE(reinterpret_cast<uintptr_t>(p) % 16 == 0, Status::internal,
               std::string("huffman: ") + what + " must be 16-byte aligned");
}

}  // namespace

std::vector<uint64_t> histogram_cuda(const uint16_t* d_sym, uint64_t n, uint32_t alphabet, cudaStream_t s) {
  SCIZ_REQUIRE(alphabet >= 1 && alphabet <= kAlphabet, Status::internal, "huffman: alphabet must be 1..65536");
  require_aligned(d_sym, "symbols");
  dev::Buffer<unsigned long long> d_hist(alphabet, s);
  SCIZ_CUDA_CHECK(cudaMemsetAsync(d_hist.get(), 0, alphabet * sizeof(unsigned long long), s));
  auto err = zeroed_flag(s);
  const uint32_t smem = std::min(alphabet, kSharedBins) * 4;
  // A few CTAs per SM amortize the shared-bin flush; grid-stride covers the rest.
  const unsigned grid = std::min<unsigned>(grid_for(n / 8 + 1, kThreads * 16), 132 * 8);
  histogram_kernel<<<grid, kThreads, smem, s>>>(d_sym, n, alphabet, d_hist.get(), err.get());
  SCIZ_CUDA_CHECK_LAUNCH("huffman histogram_kernel");
  std::vector<uint64_t> hist(alphabet);
  dev::copy_to_host(hist.data(), d_hist.get(), alphabet * 8, s);
  SCIZ_REQUIRE(read_flag(err, s) == 0, Status::internal, "huffman: a symbol lies outside the alphabet");
  return hist;
}

namespace cuda {

void chunk_bits(const uint16_t* d_sym, uint64_t n, const uint32_t* d_code, uint32_t chunk, uint16_t* d_cbits,
                uint32_t* d_err, cudaStream_t s) {
  const uint64_t chunks = (n + chunk - 1) / chunk;
  if (chunks == 0) return;
  chunk_bits_kernel<<<grid_for(chunks, kThreads / 32), kThreads, 0, s>>>(d_sym, n, chunk, d_code, d_cbits, d_err);
  SCIZ_CUDA_CHECK_LAUNCH("huffman chunk_bits_kernel");
}

void encode_words(const uint16_t* d_sym, uint64_t n, const uint32_t* d_code, uint32_t chunk, const uint16_t* d_cbits,
                  uint32_t* d_words, uint64_t nwords, cudaStream_t s) {
  const uint64_t chunks = (n + chunk - 1) / chunk;
  if (chunks == 0) return;
  dev::Buffer<uint64_t> start = chunk_starts(d_cbits, chunks, s);
  encode_kernel<<<grid_for(chunks, kThreads), kThreads, 0, s>>>(d_sym, n, chunk, d_code, start.get(), d_words, nwords);
  SCIZ_CUDA_CHECK_LAUNCH("huffman encode_kernel");
}

DeviceEncoded encode(const uint16_t* d_sym, uint64_t n, const uint32_t* d_code, uint32_t chunk, cudaStream_t s) {
  DeviceEncoded r;
  r.chunks = (n + chunk - 1) / chunk;
  r.cbits = dev::Buffer<uint16_t>(r.chunks, s);
  auto err = zeroed_flag(s);
  chunk_bits(d_sym, n, d_code, chunk, r.cbits.get(), err.get(), s);
  {
    const dev::Buffer<uint64_t> start = chunk_starts(r.cbits.get(), r.chunks, s);
    dev::copy_to_host(&r.total_bits, start.get() + r.chunks, 8, s);
  }
  SCIZ_REQUIRE(read_flag(err, s) == 0, Status::internal, "huffman: a symbol has no code in the codebook");
  const uint64_t nwords = (r.total_bits + 31) / 32;
  r.words = dev::Buffer<uint32_t>(nwords, s);
  if (r.chunks) {
    SCIZ_CUDA_CHECK(cudaMemsetAsync(r.words.get(), 0, nwords * 4, s));
    encode_words(d_sym, n, d_code, chunk, r.cbits.get(), r.words.get(), nwords, s);
  }
  return r;
}

std::vector<uint32_t> device_tables(const Codebook& cb) {
  const DecodeTables t = decode_tables(cb);
  std::vector<uint32_t> h(kTableWords + (t.sorted.size() + 1) / 2, 0);
  std::copy(t.primary.begin(), t.primary.end(), h.begin());
  std::copy(t.limit, t.limit + kSmall, h.begin() + kPrimary);
  std::copy(t.first, t.first + kSmall, h.begin() + kPrimary + kSmall);
  std::copy(t.offset, t.offset + kSmall, h.begin() + kPrimary + 2 * kSmall);
  std::memcpy(h.data() + kTableWords, t.sorted.data(), t.sorted.size() * 2);
  return h;
}

void decode(const uint16_t* d_cbits, const uint32_t* d_words, uint64_t nwords, uint64_t n, uint32_t chunk,
            const uint32_t* d_tables, uint16_t* d_out, uint32_t* d_err, cudaStream_t s) {
  const uint64_t chunks = (n + chunk - 1) / chunk;
  if (chunks == 0) return;
  dev::Buffer<uint64_t> start = chunk_starts(d_cbits, chunks, s);
  decode_kernel<<<grid_for(chunks, kDecodeThreads), kDecodeThreads, 0, s>>>(d_words, nwords, start.get(), n, chunk, d_tables,
                                                                d_out, d_err);
  SCIZ_CUDA_CHECK_LAUNCH("huffman decode_kernel");
}

dev::Buffer<uint32_t> upload_code_table(const Codebook& cb, cudaStream_t s) {
  SCIZ_REQUIRE(cb.code.size() <= kAlphabet, Status::internal, "huffman: code table beyond 65536 symbols");
  dev::Buffer<uint32_t> d_code(kAlphabet, s);
  dev::zero(d_code.get(), kAlphabet * 4, s);
  if (!cb.code.empty()) dev::copy_to_device(d_code.get(), cb.code.data(), cb.code.size() * 4, s);
  return d_code;
}

}  // namespace cuda

std::vector<uint8_t> encode_cuda(const uint16_t* d_sym, uint64_t n, const Codebook& cb, cudaStream_t s,
                                 uint32_t chunk) {
  SCIZ_REQUIRE(chunk >= 8 && chunk <= kMaxChunk && chunk % 8 == 0, Status::invalid_argument,
               "huffman: chunk size must be a multiple of 8 in 8..4088");
  require_aligned(d_sym, "symbols");
  const dev::Buffer<uint32_t> d_code = cuda::upload_code_table(cb, s);
  const cuda::DeviceEncoded r = cuda::encode(d_sym, n, d_code.get(), chunk, s);
  const uint64_t nwords = (r.total_bits + 31) / 32;
  std::vector<uint8_t> out = header_and_codebook(cb, n, chunk, r.total_bits);
  const Layout l = layout(out.size() - 32, r.chunks, nwords);
  reserve_large(out, l.bytes);
  out.resize(l.bytes, 0);
  dev::copy_to_host(out.data() + l.chunk_bits_at, r.cbits.get(), r.chunks * 2, s);
  dev::copy_to_host(out.data() + l.words_at, r.words.get(), nwords * 4, s);
  dev::sync(s);
  return out;
}

std::vector<uint8_t> encode_cuda(const uint16_t* d_sym, uint64_t n, uint32_t alphabet, cudaStream_t s) {
  return encode_cuda(d_sym, n, build_codebook(histogram_cuda(d_sym, n, alphabet, s)), s);
}

void decode_cuda(std::span<const uint8_t> blob, uint16_t* d_out, uint64_t n, cudaStream_t s) {
  const Parsed p = parse(blob, n);  // every count and length checked before the device sees them
  if (n == 0) return;
  require_aligned(d_out, "output");
  const std::vector<uint32_t> tables = cuda::device_tables(p.cb);
  dev::Buffer<uint32_t> d_tables(tables.size(), s);
  dev::copy_to_device(d_tables.get(), tables.data(), tables.size() * 4, s);
  dev::Buffer<uint8_t> d_blob(blob.size(), s);
  dev::copy_to_device(d_blob.get(), blob.data(), blob.size(), s);
  auto err = zeroed_flag(s);
  cuda::decode(reinterpret_cast<const uint16_t*>(d_blob.get() + p.chunk_bits_at),
               reinterpret_cast<const uint32_t*>(d_blob.get() + p.words_at), p.words, n, p.chunk, d_tables.get(), d_out,
               err.get(), s);
  SCIZ_REQUIRE(read_flag(err, s) == 0, Status::corrupt_stream,
               "huffman stream: a chunk does not decode to its stated bit count");
}

}  // namespace sciz::huffman
