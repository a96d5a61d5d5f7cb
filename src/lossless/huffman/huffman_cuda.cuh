// Device-level huffman entry points, for the benchmark's kernel-only timings and for callers
// that keep everything on the GPU. huffman_cuda.cu wraps them into blob in / blob out.
#pragma once
#include <cstdint>
#include <vector>

#include "core/device.hpp"
#include "core/device_status.hpp"
#include "lossless/huffman/codebook.hpp"

namespace sciz::huffman::cuda {

// Device copy of DecodeTables: primary, then limit/first/offset, then the sorted symbols.
inline constexpr uint32_t kPrimary = 1u << kTableBits, kSmall = kMaxLen + 1;
inline constexpr uint32_t kTableWords = kPrimary + 3 * kSmall;
std::vector<uint32_t> device_tables(const Codebook& cb);

struct DeviceEncoded {
  dev::Buffer<uint16_t> cbits;
  dev::Buffer<uint32_t> words;
  uint64_t chunks = 0, total_bits = 0;
};
// Codebook::code as the kernels read it: 65536 entries, indexed by any u16 symbol, zero (no
// code) past the codebook's table. Ordered on s; cb must outlive the copy (pageable source).
dev::Buffer<uint32_t> upload_code_table(const Codebook& cb, cudaStream_t s);
// d_code: upload_code_table's buffer. Syncs once, to size the words.
DeviceEncoded encode(const uint16_t* d_sym, uint64_t n, const uint32_t* d_code, uint32_t chunk, cudaStream_t s);
// Asynchronous; a corrupt chunk sets *d_err nonzero.
void decode(const uint16_t* d_cbits, const uint32_t* d_words, uint64_t nwords, uint64_t n, uint32_t chunk,
            const uint32_t* d_tables, uint16_t* d_out, uint32_t* d_err, cudaStream_t s);

// The two halves of encode() without its synchronization: chunk bit counts into d_cbits (a
// symbol without a code sets *d_err), then the codes into d_words (nwords words, zeroed by the
// caller), for callers that know the total from the histogram.
void chunk_bits(const uint16_t* d_sym, uint64_t n, const uint32_t* d_code, uint32_t chunk, uint16_t* d_cbits,
                uint32_t* d_err, cudaStream_t s);
void encode_words(const uint16_t* d_sym, uint64_t n, const uint32_t* d_code, uint32_t chunk, const uint16_t* d_cbits,
                  uint32_t* d_words, uint64_t nwords, cudaStream_t s);

// ---- Blobs that stay on the device (huffman_device.cu) ----

// Where a blob lies: `size` bytes at base + `at`, holding `n` symbols. Kept in device memory
// when the enclosing header is read on the device.
struct BlobRef {
  uint64_t at, size, n;
};

// Writes the whole blob for d_sym[0, n) into d_blob[0, bytes), which the caller has zeroed:
// the header and codebook (one small upload, serialized from the lengths without building the
// 65536-entry tables on the host), then the chunk bit counts and the words. The codes come from
// reading the uploaded codebook back on the device with the decoder's own reader, so the
// encoder's table is the one a decoder will build. total_bits: from the histogram
// (coded_bits). No synchronization; a failed self-check is reported into st (not null).
void encode_blob(const uint16_t* d_sym, uint64_t n, const Lengths& lengths, uint64_t total_bits, uint8_t* d_blob,
                 DeviceStatus* st, uint32_t where, cudaStream_t s, uint32_t chunk = kDefaultChunk);

// Decodes the blob that *d_ref (device memory) places in d_base into d_out (16-byte aligned,
// room for n_max symbols), validating it as parse() and decode_cpu() do: header, codebook
// (read and turned into decode tables on the device), layout, every chunk's bit count, their
// sum, and every chunk's decode. A failure is reported into st (where: a HuffmanPart) and
// nothing after it runs; nothing runs when st already holds one. d_ref->n above n_max is
// reported too. d_base must be 4-byte aligned. No synchronization.
void decode_blob(const uint8_t* d_base, const BlobRef* d_ref, uint64_t n_max, uint16_t* d_out, DeviceStatus* st,
                 uint32_t where, cudaStream_t s);
// The same for a blob whose place the host knows.
void decode_blob(const uint8_t* d_base, const BlobRef& ref, uint16_t* d_out, DeviceStatus* st, uint32_t where,
                 cudaStream_t s);

}  // namespace sciz::huffman::cuda
