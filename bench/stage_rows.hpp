// sciz_bench's rows for the lossless stages of src/lossless/stages on the GPU: every byte stage
// alone and the two interp chains, encode and decode, kernel level, on interp-like 1-byte codes
// (lorenzo's codes at radius 128 of the benchmark field: uint8 around 128 from a smooth field).
#pragma once
#include <sciz/types.hpp>

#include <string>
#include <utility>
#include <vector>

#include "gpu_timing.cuh"

namespace sciz::bench {

struct StageRows {
  uint64_t codes = 0;                                   // 1-byte codes (the GB/s basis)
  std::vector<std::pair<std::string, double>> ratio;    // code bytes / blob bytes, per stage and chain
  bool round_trip = true;   // every stage and chain decoded on the GPU to its input
  bool same_as_cpu = true;  // the chains' GPU blobs are the CPU twin's
};

// Appends rows "stage NAME encode|decode" and "chain interp-cr|interp-tp encode|decode" (unit
// "codes8", basis: the code bytes). Encoders of reducers include their one synchronization
// (the blob's size); chain rows are the whole device calls, synchronizations included.
StageRows stage_rows(const float* d_x, const Shape& shape, double eb_abs, int warmups, int runs, std::vector<Row>& rows);

}  // namespace sciz::bench
