// TCMS_w, CPU twin: the word map of tcms_math.hpp over OpenMP, 8 bytes at a time; the output
// does not depend on the thread count (every symbol maps alone).
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
  const int64_t words = static_cast<int64_t>(n / 8);
#pragma omp parallel for schedule(static) num_threads(thread_count(n / (kBlocksPerThread * kBlockBytes)))
  for (int64_t i = 0; i < words; ++i) {
    uint64_t v;
    std::memcpy(&v, in + 8 * i, 8);
    v = Forward ? tcms_forward_word<W>(v) : tcms_inverse_word<W>(v);
    std::memcpy(out + 8 * i, &v, 8);
  }
  // The last word's worth: whole symbols mapped alone, then the partial symbol verbatim.
  const uint64_t m = n / W;
  for (uint64_t i = static_cast<uint64_t>(words) * 8 / W; i < m; ++i) {
    const uint_t<W> v = load_sym<W>(in + i * W);
    store_sym<W>(out + i * W, Forward ? tcms_forward(v) : tcms_inverse(v));
  }
  if (n > m * W) std::memcpy(out + m * W, in + m * W, n - m * W);  // in is null for an empty input
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
