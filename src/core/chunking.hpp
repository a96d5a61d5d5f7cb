// How a stream cuts its field into chunks: consecutive runs of rows of the slowest axis (the
// first dim), every chunk but the last holding rows_per_chunk of them. A chunk is the unit of
// streaming through a GPU smaller than the field, of random access, and of spreading work
// over several GPUs or threads.
#pragma once
#include <sciz/types.hpp>

#include <algorithm>
#include <cstdint>

namespace sciz {

struct ChunkPlan {
  uint64_t rows_total = 1;      // dims[0]
  uint64_t rows_per_chunk = 1;  // every chunk but the last
  uint64_t count = 1;
  uint64_t row_values = 1;      // values per row: the product of dims[1..]

  uint64_t row0(uint64_t i) const { return i * rows_per_chunk; }
  uint64_t rows(uint64_t i) const { return std::min(rows_per_chunk, rows_total - row0(i)); }
  uint64_t values(uint64_t i) const { return rows(i) * row_values; }
  uint64_t chunk_of_row(uint64_t row) const { return row / rows_per_chunk; }
  Shape chunk_shape(const Shape& field, uint64_t i) const {
    Shape s = field;
    s.dims[0] = rows(i);
    return s;
  }
};

// Chunks of about chunk_mib MiB of input; chunk_mib <= 0 (or a field no larger than 1.5
// chunks) gives one chunk. Rows per chunk are rounded down to a multiple of 32 (or 8) when
// that many fit, so that lorenzo's tiles (32 rows in 2-D, 8 planes in 3-D) are not cut by a
// chunk boundary.
ChunkPlan plan_chunks(const Shape& shape, DType dtype, double chunk_mib);

// The plan a stream states (rows per chunk along dims[0]); throws corrupt_stream when it does
// not describe `count` chunks of `shape`.
ChunkPlan stated_plan(const Shape& shape, uint64_t rows_per_chunk, uint64_t count);

}  // namespace sciz
