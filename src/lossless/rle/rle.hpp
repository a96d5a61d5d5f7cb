// Lossless stage `rle`: run-length coding of 16-bit symbols. CPU and CUDA twins write one
// format: u64 n, u64 runs, u16 value[runs], u16 len_m1[runs] (little-endian).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"

namespace sciz::rle {

// Longest run one (value, len_m1) pair can hold. Runs are cut at every position that is a
// multiple of kMaxRun, so no run is longer and each kMaxRun-aligned tile of symbols holds whole
// runs only: both twins then find a tile's runs without looking outside it.
inline constexpr uint64_t kMaxRun = 65536;
inline constexpr uint64_t kHeaderBytes = 16;

// A run: `value` repeated `len_m1 + 1` times. Position i starts a run when i is a multiple of
// 65536 or sym[i] != sym[i - 1], so both arrays are 16-bit symbol streams that a Huffman stage
// can code, and two neighbouring runs share a value only across a multiple of 65536. Decoders
// accept any runs whose lengths sum to n; only the encoders follow this rule.
struct Runs {
  std::vector<uint16_t> value, len_m1;
};
Runs runs_cpu(std::span<const uint16_t> sym);
// Expands runs into out; throws Error(corrupt_stream) unless both arrays have one length and
// the run lengths sum to exactly out.size(). Nothing is written before that check.
void expand_cpu(std::span<const uint16_t> value, std::span<const uint16_t> len_m1, std::span<uint16_t> out);

// CUDA twins. Device arrays; `runs` is the run count (after cutting at multiples of 65536).
struct DeviceRuns {
  dev::Buffer<uint16_t> value, len_m1;
  uint64_t runs = 0;
};
DeviceRuns runs_cuda(const uint16_t* d_sym, uint64_t n, cudaStream_t s);
// Checks on the device that the lengths sum to n (reading the total back) and throws
// corrupt_stream otherwise. Never writes outside d_out[0, n).
void expand_cuda(const uint16_t* d_value, const uint16_t* d_len_m1, uint64_t runs, uint16_t* d_out, uint64_t n,
                 cudaStream_t s);

// Runs before cutting at multiples of 65536, a floor for the count runs_* give: 1 + the
// number of i with sym[i] != sym[i-1]; 0 for n = 0. Reads the symbols once, for choosing a
// lossless stage.
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
