// TCMS_w, CPU twin: the per-symbol map of tcms_math.hpp over OpenMP; the output does not
// depend on the thread count (every symbol maps alone).
#include <cstring>

#include "core/omp_threads.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cpu.hpp"
#include "lossless/stages/symbols.hpp"
#include "lossless/stages/tcms_math.hpp"

namespace sciz::stages::cpu {
namespace {

template <int W, bool Forward>
void map(const uint8_t* in, uint8_t* out, uint64_t n) {
  const int64_t m = static_cast<int64_t>(n / W);
#pragma omp parallel for schedule(static) num_threads(thread_count(n / (kBlocksPerThread * kBlockBytes)))
  for (int64_t i = 0; i < m; ++i) {
    const uint_t<W> v = load_sym<W>(in + i * W);
    store_sym<W>(out + i * W, Forward ? tcms_forward(v) : tcms_inverse(v));
  }
  std::memcpy(out + m * W, in + m * W, n - static_cast<uint64_t>(m) * W);  // the partial symbol
}

}  // namespace

Bytes tcms_encode(StageId id, In in) {
  Bytes out(kHeaderBytes + in.size());
  write_header(out.data(), id, in.size());
  with_width(width_of(id), [&]<int W>() { map<W, true>(in.data(), out.data() + kHeaderBytes, in.size()); });
  return out;
}

Bytes tcms_decode(StageId id, In blob, uint64_t max_out) {
  const uint64_t n = check_same_size(blob, id, max_out);
  Bytes out(n);
  with_width(width_of(id), [&]<int W>() { map<W, false>(blob.data() + kHeaderBytes, out.data(), n); });
  return out;
}

}  // namespace sciz::stages::cpu
