// SZx (Yu et al., HPDC'22): the field, flattened, is cut into blocks of B values; a block
// whose values all lie within eb of a base value is stored as that base alone, any other
// block as the top bits of x - base with leading bytes shared with the previous value elided.
// Every point is checked against the bound; misses and NaN/Inf are stored exactly.
//
// This is the codec (sections in, sections out); docs/SZX.md is its normative format, in two
// layouts: the encoders write layout 2, the decoders read both. The CPU twin is here; a CUDA
// twin must write the same bytes using szx_math.hpp.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/device_span.hpp"
#include "core/device_status.hpp"
#include "core/value_range.hpp"
#include "predict/szx/szx_math.hpp"

namespace sciz::szx {

// The sections of one szx stream, in the order docs/SZX.md numbers them.
struct Encoded {
  uint32_t block = kDefaultBlock;
  int layout = kLayout2;
  std::vector<uint8_t> kinds;       // 1: u8 per block (layout 1: kept bytes, 0 = constant; 2: make_kind)
  std::vector<uint8_t> mus;         // 2: layout 1 only: T per block
  std::vector<uint8_t> mid_counts;  // 3: u16 per non-constant block: its mid-byte count
  std::vector<uint8_t> codes;       // 4: 2-bit leading-byte codes per non-constant block
  std::vector<uint8_t> mid;         // 5: block after block, (layout 2) its base's bytes and its mid-bytes
  std::vector<uint8_t> exact;       // 6: exactly stored values (core/exact_runs.hpp)

  uint64_t payload_bytes() const {
    return kinds.size() + mus.size() + mid_counts.size() + codes.size() + mid.size() + exact.size();
  }
};

// A decoder's view of the same sections (e.g. straight out of a container).
struct Sections {
  uint32_t block = kDefaultBlock;
  int layout = kLayout2;
  std::span<const uint8_t> kinds, mus, mid_counts, codes, mid, exact;
};

inline Sections view(const Encoded& e) {
  return {e.block, e.layout, e.kinds, e.mus, e.mid_counts, e.codes, e.mid, e.exact};
}

// Params: layout 1, u32 block size (4 bytes); layout 2, u32 block size, u8 layout (2), three
// zero bytes. read_params validates them (corrupt_stream otherwise).
struct Params {
  uint32_t block = kDefaultBlock;
  int layout = kLayout2;
};
std::vector<uint8_t> write_params(const Params& p);
Params read_params(std::span<const uint8_t> params);

// Encoder statistics, for tests and benchmarks (not part of the stream).
struct Stats {
  uint64_t blocks = 0, constant_blocks = 0, exact_values = 0;
};

// CPU twin, OpenMP over blocks. eb: the absolute bound (finite, > 0); block: valid_block().
// Throws invalid_argument on a bad eb or block size. Layout 1 is written only to test its
// decoders on fields the goldens do not cover.
template <class T>
Encoded encode_cpu(const T* x, uint64_t n, double eb, uint32_t block = kDefaultBlock, Stats* stats = nullptr,
                   int layout = kLayout2);

// What both decoders learn from the host-side sections before touching memory: the
// non-constant blocks in order, their offsets into the mid-bytes, and the exact values.
// Checks the block size, every section length, every kind and every mid-byte count
// (corrupt_stream otherwise); the per-block code checks stay with each decoder, beside the
// reads they protect.
template <class T>
struct Validated {
  std::vector<uint8_t> kinds;      // every block's kind as layout 2 writes it (layout 1's mapped)
  std::vector<T> base;             // every block's base
  std::vector<uint64_t> nc_block;  // block index of each non-constant block
  std::vector<uint64_t> mid_off;   // its first mid-byte in section 5, + the section's size
  std::vector<uint16_t> mid_count; // its mid-byte count
  std::vector<uint64_t> exact_idx;
  std::vector<T> exact_val;
};
template <class T>
Validated<T> validate(const Sections& s, uint64_t n);
// What validate() checks from lengths alone (block size, layout, n and the per-block
// sections), shared with the device decoder, which checks the contents on the device.
void check_layout(uint32_t block, int layout, uint64_t n, int value_bytes, uint64_t kinds_bytes, uint64_t mus_bytes);

// Decodes n values into out. Every length, count and code is validated first; a stream that
// does not fit throws Error(corrupt_stream) before any out-of-bounds read or write.
template <class T>
void decode_cpu(const Sections& s, uint64_t n, T* out);

// ---- CUDA twin (szx_encode_cuda.cu, szx_decode_cuda.cu) ----

// The sections as the encoder leaves them on the device, with their sizes on the host.
template <class T>
struct DeviceEncoded {
  uint32_t block = kDefaultBlock;
  uint64_t nblocks = 0, nonconstant = 0, code_bytes = 0, mid_bytes = 0, exact_count = 0;
  dev::Buffer<uint8_t> kinds, mid_counts, codes, mid;  // layout 2
  dev::Buffer<uint64_t> exact_idx;  // ascending
  dev::Buffer<T> exact_val;
  bool range_folded = false;  // x's finite range folded into the caller's words
};

// x on the device; one pass over the field for B <= 128 (offsets by decoupled look-back), two
// for larger blocks. Synchronizes s once, to learn the section sizes. Same argument checks as
// encode_cpu. range (device, optional): the one-pass encoder folds x's finite range into it
// (core/value_range.hpp) before that synchronization and says so in range_folded.
template <class T>
DeviceEncoded<T> encode_device(const T* d_x, uint64_t n, double eb, uint32_t block, cudaStream_t s,
                               RangeKeys* range = nullptr);

// The device sections copied to the host, byte-identical to encode_cpu's.
template <class T>
Encoded download(const DeviceEncoded<T>& d, cudaStream_t s, Stats* stats = nullptr);

template <class T>
Encoded encode_cuda(const T* d_x, uint64_t n, double eb, uint32_t block, cudaStream_t s, Stats* stats = nullptr) {
  return download(encode_device<T>(d_x, n, eb, block, s), s, stats);
}

// What the decode kernel reads, on the device: the validated sections plus per-block lookups
// found on the host during validation, in either layout: kinds in layout 2's form, bases (T
// per block), rank among non-constant blocks and payload offsets.
template <class T>
struct DeviceSections {
  uint32_t block = kDefaultBlock;
  uint64_t n = 0, nblocks = 0;
  dev::Buffer<uint8_t> kinds, mus, codes, mid;
  dev::Buffer<uint32_t> rank;
  dev::Buffer<uint64_t> mid_off;  // per block, where its payload (base bytes, mid-bytes) starts, + total
  dev::Buffer<uint64_t> exact_idx;
  dev::Buffer<T> exact_val;
};

// Validates the host sections exactly as decode_cpu does (corrupt_stream otherwise) and
// uploads them.
template <class T>
DeviceSections<T> upload(const Sections& sec, uint64_t n, cudaStream_t s);

// Decodes into d_out. The per-block code checks run on the device before any mid-byte is
// read; a corrupt block throws Error(corrupt_stream). Synchronizes s once.
template <class T>
void decode_device(const DeviceSections<T>& d, T* d_out, cudaStream_t s);

// The sections in device memory (lengths from the container, contents on the device; mid-bytes
// on a 16-byte boundary with readable bytes past the codes and mid-bytes, as a stream's chunk
// layout gives them), decoded into d_out with every check of validate() made: the length checks
// here (throwing corrupt_stream), the content checks on the device (kinds, counts and section
// sizes, every block's codes, the exact runs), reported into st. The decode kernels write
// nothing once st holds a failure found before them. No synchronization.
struct DeviceSectionsIn {
  uint32_t block = kDefaultBlock;
  int layout = kLayout2;
  DeviceSpan kinds, mus, mid_counts, codes, mid, exact;  // mus: layout 1 only
};
template <class T>
void decode_device_sections(const DeviceSectionsIn& sec, uint64_t n, T* d_out, DeviceStatus* st, cudaStream_t s);

template <class T>
void decode_cuda(const Sections& sec, uint64_t n, T* d_out, cudaStream_t s) {
  decode_device<T>(upload<T>(sec, n, s), d_out, s);
}

}  // namespace sciz::szx
