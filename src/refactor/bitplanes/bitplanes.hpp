// Bitplanes of one level's coefficients (docs/MDR.md section 2): exponent alignment, negabinary
// digits, the measured error of every truncation, and planes in the register-block layout.
// CPU twin: bitplanes_cpu.cpp; the arithmetic lives in bitplanes_math.hpp.
#pragma once
#include <cstdint>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "refactor/bitplanes/bitplanes_math.hpp"

namespace sciz::bitplanes {

// A level in fixed point: max |c| < 2^exponent, nb[i] the negabinary digits of coefficient
// i, top the number of digit positions any of them uses (0: every coefficient is 0).
template <class W>
struct Level {
  int exponent = 0;
  int top = 0;
  double max_abs = 0;
  std::vector<W> nb;
};
template <class W>
Level<W> quantize_cpu(const double* c, uint64_t n, int scale, int digits);

// Digits still unknown after t groups of g planes (counted from the top).
inline int unknown_digits(int top, int g, int t) { return top - g * t > 0 ? top - g * t : 0; }
inline int group_count(int top, int g) { return (top + g - 1) / g; }

// err[t], t = 0..groups: max |c - c'| over the level when the top t groups are known, c' as the
// decoder reconstructs it. Exact up to the last rounding, which is taken upward.
template <class W>
std::vector<double> level_errors_cpu(const double* c, const Level<W>& lv, int scale, int digits, int g);

// Every plane of the level, from digit top-1 down to 0: plane p (p = 0 is digit top-1) is
// words [p * plane_words(n), (p + 1) * plane_words(n)).
template <class W>
std::vector<uint32_t> encode_planes_cpu(const W* nb, uint64_t n, int top);

// ORs `planes` planes, the first being digit `high`, the next high-1, ..., into nb.
template <class W>
void decode_planes_cpu(const uint32_t* words, uint64_t n, int high, int planes, W* nb);

// c[i] as the decoder reconstructs it from nb with `unknown` low digits missing (read: any
// group read at all; without, every c is 0).
template <class W>
void reconstruct_cpu(const W* nb, uint64_t n, int unknown, int digits, int exponent, int scale, bool read, double* c);
// The same values for one run of coefficients, on the calling thread (retrieval reconstructs
// a row at a time inside the recomposition). nb is not read when `read` is false.
template <class W>
void reconstruct_run_cpu(const W* nb, uint64_t n, int unknown, int digits, int exponent, int scale, bool read, double* c);

// ---- Coefficient-order planes (retrieval, CPU): the digits of one plane as a bitmap, word w
// holding coefficients 32 w .. 32 w + 31 in bits 0 .. 31; plane_words(n) words, like a
// register-block plane. Retrieval gathers every plane it decodes in this order and ORs them
// into the digits once, 32 coefficients at a time, instead of a pass over the digits a plane.

// Register-block planes (encode_planes_cpu's words) to coefficient order, `planes` planes.
void coefficient_order_cpu(const uint32_t* words, uint64_t n, int planes, uint32_t* out);
// The same for the regions [r0, r1) of 1024 coefficients alone (words [32 r0, 32 r1) of each
// plane), on the calling thread, plane p's words written from out + p * stride: a caller cutting
// one group into pieces (each its own task) orders each piece into a buffer of its own.
void coefficient_order_regions_cpu(const uint32_t* words, uint64_t n, int planes, uint64_t r0, uint64_t r1,
                                   uint32_t* out, uint64_t stride);
// bits[w] bit j: coefficient 32 w + j has a non-zero digit above `high` (significant before it).
template <class W>
void significance_cpu(const W* nb, uint64_t n, int high, uint32_t* bits);
// ORs `planes` coefficient-order planes, the first being digit `high`, the next high-1, ...,
// into nb: decode_planes_cpu for planes in coefficient order. fresh: nb holds nothing yet (not
// even zeros) and every digit word is written, not ORed.
template <class W>
void or_planes_cpu(const uint32_t* bits, uint64_t n, int high, int planes, W* nb, bool fresh = false);

// ---- CUDA twin (bitplanes_cuda.cu): the same words and values, device pointers, work on s ----

// d_nb receives the digits (Level::nb stays empty); synchronizes s to learn max |c| and top.
template <class W>
Level<W> quantize_cuda(const double* d_c, uint64_t n, int scale, int digits, W* d_nb, cudaStream_t s);
template <class W>
std::vector<double> level_errors_cuda(const double* d_c, const W* d_nb, uint64_t n, const Level<W>& lv, int scale,
                                      int digits, int g, cudaStream_t s);
// d_words: top x plane_words(n) words. One thread per word: the register-block layout itself.
template <class W>
void encode_planes_cuda(const W* d_nb, uint64_t n, int top, uint32_t* d_words, cudaStream_t s);
template <class W>
void decode_planes_cuda(const uint32_t* d_words, uint64_t n, int high, int planes, W* d_nb, cudaStream_t s);
template <class W>
void reconstruct_cuda(const W* d_nb, uint64_t n, int unknown, int digits, int exponent, int scale, bool read, double* d_c,
                      cudaStream_t s);

}  // namespace sciz::bitplanes
