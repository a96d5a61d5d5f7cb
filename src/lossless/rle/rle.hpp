// Lossless stage `rle`: run-length coding of 16-bit symbols. CPU and CUDA twins write one
// format: u64 n, u64 runs, u16 value[runs], u16 len_m1[runs] (little-endian).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"

namespace sciz::rle {

// Longest run one (value, len_m1) pair can hold; longer runs are split into pieces of this
// length followed by the remainder, so len_m1 stays a 16-bit symbol stream.
inline constexpr uint64_t kMaxRun = 65536;
inline constexpr uint64_t kHeaderBytes = 16;

// A run: `value` repeated `len_m1 + 1` times. Runs longer than 65536 are split into several
// runs of the same value (the first ones of length exactly 65536), so both arrays are 16-bit
// symbol streams that a Huffman stage can code. Two neighbouring runs may therefore share a
// value only when the first one has length 65536.
struct Runs {
  std::vector<uint16_t> value, len_m1;
};
Runs runs_cpu(std::span<const uint16_t> sym);
// Expands runs into out; throws Error(corrupt_stream) unless both arrays have one length and
// the run lengths sum to exactly out.size(). Nothing is written before that check.
void expand_cpu(std::span<const uint16_t> value, std::span<const uint16_t> len_m1, std::span<uint16_t> out);

// CUDA twins. Device arrays; `runs` is the run count (after splitting).
struct DeviceRuns {
  dev::Buffer<uint16_t> value, len_m1;
  uint64_t runs = 0;
};
DeviceRuns runs_cuda(const uint16_t* d_sym, uint64_t n, cudaStream_t s);
// Checks on the device that the lengths sum to n (reading the total back) and throws
// corrupt_stream otherwise. Never writes outside d_out[0, n).
void expand_cuda(const uint16_t* d_value, const uint16_t* d_len_m1, uint64_t runs, uint16_t* d_out, uint64_t n,
                 cudaStream_t s);

// Runs before splitting: 1 + the number of i with sym[i] != sym[i-1]; 0 for n = 0. Reads the
// symbols once, for choosing a lossless stage.
uint64_t count_runs_cpu(std::span<const uint16_t> sym);
uint64_t count_runs_cuda(const uint16_t* d_sym, uint64_t n, cudaStream_t s);

// The section: encode/decode wrap the above. decode validates the header, the sizes and the
// length sum before touching the output; any mismatch throws corrupt_stream.
std::vector<uint8_t> encode_cpu(std::span<const uint16_t> sym);
void decode_cpu(std::span<const uint8_t> enc, std::span<uint16_t> out);
std::vector<uint8_t> encode_cuda(const uint16_t* d_sym, uint64_t n, cudaStream_t s);  // result bytes on host
void decode_cuda(std::span<const uint8_t> enc, uint16_t* d_out, uint64_t n, cudaStream_t s);

// Shared by both decoders: checks the header against expected_n and the section size against
// the run count (the length sum is left to expand_*). The arrays may be unaligned.
struct Parsed {
  uint64_t n, runs;
  const uint8_t* value;
  const uint8_t* len_m1;
};
Parsed parse(std::span<const uint8_t> enc, uint64_t expected_n);

}  // namespace sciz::rle
