#include "core/chunking.hpp"

#include <sciz/error.hpp>

#include <cmath>
#include <string>

namespace sciz {

namespace {
uint64_t values_per_row(const Shape& s) {
  uint64_t v = 1;
  for (size_t i = 1; i < s.dims.size(); ++i) v *= s.dims[i];
  return v;
}
}  // namespace

ChunkPlan plan_chunks(const Shape& shape, DType dtype, double chunk_mib) {
  shape.validate();
  SCIZ_REQUIRE(std::isfinite(chunk_mib), Status::invalid_argument, "chunk size must be finite");
  ChunkPlan p;
  p.rows_total = shape.dims[0];
  p.row_values = values_per_row(shape);
  p.rows_per_chunk = p.rows_total;
  const double row_bytes = static_cast<double>(p.row_values) * static_cast<double>(dtype_size(dtype));
  const double chunk_bytes = chunk_mib * 1048576.0;
  if (chunk_mib > 0 && row_bytes * static_cast<double>(p.rows_total) > 1.5 * chunk_bytes) {
    uint64_t rows = static_cast<uint64_t>(std::max(1.0, std::floor(chunk_bytes / row_bytes)));
    const uint64_t align = shape.dims.size() == 1 ? 2048 : rows >= 32 ? 32 : rows >= 8 ? 8 : 1;
    rows = std::max<uint64_t>(align, rows / align * align);
    p.rows_per_chunk = std::min(rows, p.rows_total);
  }
  p.count = (p.rows_total + p.rows_per_chunk - 1) / p.rows_per_chunk;
  return p;
}

ChunkPlan stated_plan(const Shape& shape, uint64_t rows_per_chunk, uint64_t count) {
  ChunkPlan p;
  p.rows_total = shape.dims[0];
  p.row_values = values_per_row(shape);
  SCIZ_REQUIRE(rows_per_chunk >= 1 && rows_per_chunk <= p.rows_total, Status::corrupt_stream,
               "header: " + std::to_string(rows_per_chunk) + " rows per chunk for a slowest axis of " +
                   std::to_string(p.rows_total));
  p.rows_per_chunk = rows_per_chunk;
  p.count = (p.rows_total + rows_per_chunk - 1) / rows_per_chunk;
  SCIZ_REQUIRE(count == p.count, Status::corrupt_stream,
               "header: " + std::to_string(count) + " chunks stated, " + std::to_string(p.rows_total) + " rows in " +
                   std::to_string(rows_per_chunk) + "-row chunks make " + std::to_string(p.count));
  return p;
}

}  // namespace sciz
