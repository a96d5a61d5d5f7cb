// CPU twin of `delta`: loops over warp layers calling delta_math.hpp for every decision, so
// its bytes are the ones the CUDA twin computes. Threads take contiguous runs of layers and
// write their own buffers, concatenated in layer order afterwards: the stream does not depend
// on the thread count.
#include <sciz/error.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "core/exact_runs.hpp"
#include "predict/delta/delta.hpp"

namespace sciz::delta {

std::vector<uint8_t> write_params(uint8_t mode) {
  SCIZ_REQUIRE(mode == kModeLinear, Status::invalid_argument, "delta: unknown chain mode " + std::to_string(mode));
  return {mode, 0, 0, 0};
}

uint8_t read_params(std::span<const uint8_t> params) {
  SCIZ_REQUIRE(params.size() == 4, Status::corrupt_stream,
               "delta: params hold " + std::to_string(params.size()) + " bytes, expected 4");
  SCIZ_REQUIRE(params[0] == kModeLinear && params[1] == 0 && params[2] == 0 && params[3] == 0,
               Status::corrupt_stream, "delta: unknown chain mode " + std::to_string(params[0]) + " or reserved bytes");
  return params[0];
}

namespace {

int thread_count(uint64_t work_items) {
  int nt = 1;
#if defined(_OPENMP)
  nt = omp_get_max_threads();
#endif
  return static_cast<int>(std::max<uint64_t>(1, std::min<uint64_t>(static_cast<uint64_t>(nt), work_items)));
}

int thread_id() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

template <class T>
struct Local {
  std::vector<uint8_t> payload;
  size_t used = 0;
  std::vector<uint64_t> ei;
  std::vector<T> ev;
  uint64_t zero_groups = 0;
};

// One group of a layer: quantize, extend the chain, pack. Returns the group's width.
template <class T>
uint32_t encode_group(const T* xg, uint32_t len, uint64_t base, const Quant<T>& p, int32_t& prev, Local<T>& o) {
  int32_t q[kGroup];
  uint32_t special = 0, fill = 0;  // bit i: value i is stored exactly / is kExactFill
  for (uint32_t i = 0; i < len; ++i) {
    const Kind k = prequantize(xg[i], p, q[i]);
    special |= static_cast<uint32_t>(k != Kind::kQuantized) << i;
    fill |= static_cast<uint32_t>(k == Kind::kExactFill) << i;
  }
  if (special) [[unlikely]] {
    for (uint32_t i = 0; i < len; ++i)
      if ((special >> i) & 1u) {
        o.ei.push_back(base + i);
        o.ev.push_back(xg[i]);
      }
  }
  uint32_t mag[kGroup] = {};
  uint32_t sign = 0, any = 0;
  for (uint32_t i = 0; i < len; ++i) {
    const int32_t qi = fill_or((fill >> i) & 1u, q[i], prev);
    const int32_t d = delta_of(qi, prev);
    prev = qi;
    mag[i] = magnitude(d);
    sign |= sign_bit(d) << i;
    any |= mag[i];  // same bit length as the maximum
  }
  const uint32_t w = width_of(any);
  if (w == 0) {
    ++o.zero_groups;
    return 0;
  }
  const uint32_t bytes = group_bytes(w);
  if (o.used + bytes > o.payload.size()) o.payload.resize(std::max(o.used + bytes, o.payload.size() * 2));
  transpose32(mag);  // mag[k] is now plane k (plane_bit over the group)
  std::memcpy(o.payload.data() + o.used, &sign, 4);
  std::memcpy(o.payload.data() + o.used + 4, mag, 4 * w);
  o.used += bytes;
  return w;
}

template <class T>
void encode_layer(const T* x, uint64_t n, uint64_t l, const Quant<T>& p, uint8_t* widths, int32_t& q0,
                  Local<T>& o) {
  const uint64_t base = l * kLayer;
  const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(kLayer, n - base));
  int32_t q;
  const Kind k0 = prequantize(x[base], p, q);
  int32_t prev = initial_q(k0 == Kind::kExactFill, q);
  q0 = prev;
  const size_t start = o.used;
  for (uint32_t g = 0; g * kGroup < len; ++g) {
    const uint64_t gb = base + g * kGroup;
    const uint32_t glen = std::min<uint32_t>(kGroup, len - g * kGroup);
    widths[gb / kGroup] = static_cast<uint8_t>(encode_group(x + gb, glen, gb, p, prev, o));
  }
  const size_t padded = start + align_layer(o.used - start);
  if (padded > o.payload.size()) o.payload.resize(padded);
  std::memset(o.payload.data() + o.used, 0, padded - o.used);
  o.used = padded;
}

}  // namespace

template <class T>
Encoded encode_cpu(const T* x, uint64_t n, double eb, Stats* stats) {
  SCIZ_REQUIRE(std::isfinite(eb) && eb > 0, Status::invalid_argument,
               "delta: error bound " + std::to_string(eb) + " must be finite and positive");
  SCIZ_REQUIRE(n < (uint64_t(1) << 56), Status::invalid_argument, "delta: field of " + std::to_string(n) + " values");
  const Quant<T> p = make_quant<T>(eb);
  const uint64_t L = layer_count(n), G = group_count(n);
  Encoded e;
  e.widths.resize(G);
  std::vector<int32_t> q0(L);
  const int nt = thread_count(L);
  std::vector<Local<T>> loc(nt);
  std::vector<uint64_t> off_pay(nt + 1, 0), off_ex(nt + 1, 0);
  std::vector<uint64_t> exact_idx;
  std::vector<T> exact_val;

#pragma omp parallel num_threads(nt)
  {
    const int tid = thread_id();
    Local<T>& o = loc[tid];
    const uint64_t l0 = L * tid / nt, l1 = L * (tid + 1) / nt;
    // Room for about 12 bits a value before any regrowth.
    o.payload.resize(static_cast<size_t>(std::min<uint64_t>(n, (l1 - l0) * kLayer)) * 3 / 2 + 64);
    for (uint64_t l = l0; l < l1; ++l) encode_layer(x, n, l, p, e.widths.data(), q0[l], o);
#pragma omp barrier
#pragma omp single
    {
      for (int t = 0; t < nt; ++t) {
        off_pay[t + 1] = off_pay[t] + loc[t].used;
        off_ex[t + 1] = off_ex[t] + loc[t].ei.size();
      }
      e.payload.resize(off_pay[nt]);
      exact_idx.resize(off_ex[nt]);
      exact_val.resize(off_ex[nt]);
    }
    if (o.used) std::memcpy(e.payload.data() + off_pay[tid], o.payload.data(), o.used);
    std::copy(o.ei.begin(), o.ei.end(), exact_idx.begin() + off_ex[tid]);
    std::copy(o.ev.begin(), o.ev.end(), exact_val.begin() + off_ex[tid]);
  }
  e.initial.resize(L * 4);
  if (L) std::memcpy(e.initial.data(), q0.data(), L * 4);
  e.exact = write_runs<T>(exact_idx, exact_val);
  if (stats) {
    stats->layers = L;
    stats->groups = G;
    stats->zero_groups = 0;
    for (const auto& o : loc) stats->zero_groups += o.zero_groups;
    stats->exact_values = exact_idx.size();
  }
  return e;
}

template <class T>
Validated<T> validate(const Sections& s, uint64_t n) {
  SCIZ_REQUIRE(s.mode == kModeLinear, Status::corrupt_stream, "delta: unknown chain mode " + std::to_string(s.mode));
  SCIZ_REQUIRE(n < (uint64_t(1) << 56), Status::corrupt_stream, "delta: field of " + std::to_string(n) + " values");
  const uint64_t L = layer_count(n), G = group_count(n);
  SCIZ_REQUIRE(s.widths.size() == G, Status::corrupt_stream,
               "delta: widths section holds " + std::to_string(s.widths.size()) + " bytes, the field has " +
                   std::to_string(G) + " groups of 32");
  SCIZ_REQUIRE(s.initial.size() == 4 * L, Status::corrupt_stream,
               "delta: initial values section holds " + std::to_string(s.initial.size()) + " bytes, expected " +
                   std::to_string(4 * L));
  Validated<T> v;
  v.layer_off.assign(L + 1, 0);
  for (uint64_t l = 0; l < L; ++l) {
    const uint64_t g1 = std::min<uint64_t>(G, (l + 1) * kLayerGroups);
    uint64_t bytes = 0;
    uint32_t wmax = 0;
    for (uint64_t g = l * kLayerGroups; g < g1; ++g) {
      wmax = std::max<uint32_t>(wmax, s.widths[g]);
      bytes += group_bytes(s.widths[g]);
    }
    if (wmax > kMaxWidth) [[unlikely]] {
      uint64_t g = l * kLayerGroups;
      while (s.widths[g] <= kMaxWidth) ++g;
      fail(Status::corrupt_stream, "delta: group " + std::to_string(g) + " claims width " +
                                       std::to_string(s.widths[g]) + ", more than " + std::to_string(kMaxWidth));
    }
    v.layer_off[l + 1] = v.layer_off[l] + align_layer(bytes);
  }
  SCIZ_REQUIRE(v.layer_off[L] == s.payload.size(), Status::corrupt_stream,
               "delta: payload section holds " + std::to_string(s.payload.size()) + " bytes, the widths call for " +
                   std::to_string(v.layer_off[L]));
  read_runs<T>(s.exact, n, "delta exact values", v.exact_idx, v.exact_val);
  return v;
}

template <class T>
void decode_cpu(const Sections& s, uint64_t n, double eb, T* out) {
  SCIZ_REQUIRE(std::isfinite(eb) && eb > 0, Status::corrupt_stream,
               "delta: error bound " + std::to_string(eb) + " must be finite and positive");
  const Validated<T> v = validate<T>(s, n);
  const Quant<T> p = make_quant<T>(eb);
  const uint64_t L = layer_count(n);
  const int nt = thread_count(L);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t li = 0; li < static_cast<int64_t>(L); ++li) {
    const uint64_t l = static_cast<uint64_t>(li), base = l * kLayer;
    const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(kLayer, n - base));
    const uint8_t* pp = s.payload.data() + v.layer_off[l];
    int32_t acc;
    std::memcpy(&acc, s.initial.data() + 4 * l, 4);
    for (uint32_t g = 0; g * kGroup < len; ++g) {
      const uint64_t gb = base + g * kGroup;
      const uint32_t glen = std::min<uint32_t>(kGroup, len - g * kGroup);
      const uint32_t w = s.widths[gb / kGroup];
      T* o = out + gb;
      if (w == 0) {
        std::fill(o, o + glen, reconstruct(acc, p));
        continue;
      }
      uint32_t sign, mag[kGroup] = {};
      std::memcpy(&sign, pp, 4);
      std::memcpy(mag, pp + 4, 4 * w);  // planes 0..w-1, the rest zero
      pp += group_bytes(w);
      transpose32(mag);  // back to magnitudes (from_plane over the group)
      for (uint32_t i = 0; i < glen; ++i) {
        acc = wrap_add(acc, signed_delta(sign, i, mag[i]));
        o[i] = reconstruct(acc, p);
      }
    }
  }
  for (size_t q = 0; q < v.exact_idx.size(); ++q) out[v.exact_idx[q]] = v.exact_val[q];
}

template Encoded encode_cpu<float>(const float*, uint64_t, double, Stats*);
template Encoded encode_cpu<double>(const double*, uint64_t, double, Stats*);
template Validated<float> validate<float>(const Sections&, uint64_t);
template Validated<double> validate<double>(const Sections&, uint64_t);
template void decode_cpu<float>(const Sections&, uint64_t, double, float*);
template void decode_cpu<double>(const Sections&, uint64_t, double, double*);

}  // namespace sciz::delta
