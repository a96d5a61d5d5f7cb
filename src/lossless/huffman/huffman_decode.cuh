// One chunk's symbols decoded on the device, shared by the blob decoder and the
// device-resident one: symbols [lo, hi) from r into out, sixteen at a time as two 16-byte stores.
// Include from .cu files only.
#pragma once
#include <cstdint>

#include "lossless/huffman/huffman_math.hpp"

namespace sciz::huffman {

// The GPU's bit window: the same window as BitReader (so the same symbols), filled
// differently. Each lane reads its own chunk, so nearly every word is an L2 or DRAM access that
// no other lane shares: the next kReadAhead words are requested before they are needed and
// wait in registers (with one word requested ahead, 87% of the decoder's time went to those
// loads). Lanes of a warp refill at different symbols, so any branch in a refill is taken by
// some lane at nearly every step and the warp runs it for that lane: a refill is branch-free,
// selects and one predicated load, and happens after every second symbol (>= 33 bits after a
// refill cover two codes of <= 16 bits). (A reader that took words four at a time by 16-byte
// loads, reloading behind a branch, spent ~30 of a refill's ~42 instructions selecting and
// reloading.) Words outside [0, nwords) read as 0, as BitReader's load().
inline constexpr int kReadAhead = 4;

class FifoReader {
 public:
  __device__ FifoReader(uint64_t start_bit, const uint32_t* words, uint64_t nwords)
      : words_(words), nwords_(nwords), first_(start_bit >> 5), r0_(static_cast<uint32_t>(start_bit & 31)) {
    buf_ = (static_cast<uint64_t>(load(first_)) << 32 | load(first_ + 1)) << r0_;
    avail_ = 64 - r0_;
    next_ = first_ + 2;
#pragma unroll
    for (int j = 0; j < kReadAhead; ++j) f_[j] = load(next_ + j);
  }
  __device__ uint32_t peek16() const { return static_cast<uint32_t>(buf_ >> 48); }
  // No refill here: the caller refills after at most two codes.
  __device__ void consume(uint32_t len) {
    buf_ <<= len;
    avail_ -= len;
  }
  // Tops the window up to >= 33 bits.
  __device__ void refill() {
    const bool need = avail_ <= 32;
    buf_ |= static_cast<uint64_t>(need ? f_[0] : 0u) << (need ? 32 - avail_ : 0u);
    avail_ += need ? 32u : 0u;
#pragma unroll
    for (int j = 0; j + 1 < kReadAhead; ++j) f_[j] = need ? f_[j + 1] : f_[j];
    const uint64_t at = next_ + kReadAhead;
    const uint32_t w = need && at < nwords_ ? __ldg(words_ + at) : 0u;
    f_[kReadAhead - 1] = need ? w : f_[kReadAhead - 1];
    next_ += need ? 1u : 0u;
  }
  // The bits consumed since the start bit.
  __device__ uint64_t consumed() const { return (next_ - first_) * 32 - r0_ - avail_; }

 private:
  __device__ uint32_t load(uint64_t i) const { return i < nwords_ ? __ldg(words_ + i) : 0u; }

  const uint32_t* words_;
  uint64_t nwords_, first_;
  uint32_t r0_;
  uint64_t buf_;
  uint32_t avail_;
  uint64_t next_;
  uint32_t f_[kReadAhead];
};

// used: the bits the codes took (the reader's count); ok: false on a code the tables do not know (the chunk is then
// corrupt; the caller compares used with the chunk's stated bits too).
template <class Reader>
__device__ inline void decode_chunk_symbols(Reader& br, const uint32_t* primary, const SlowTables& slow,
                                            uint16_t* __restrict__ out, uint64_t lo, uint64_t hi, uint64_t& used,
                                            bool& ok) {
  auto next = [&]() {
    uint32_t s, l;
    ok &= decode_symbol(br, primary, slow, s, l);
    return s;
  };
  // 16 symbols (a whole 32-byte sector) are stored together: a lane's chunk is far from its
  // neighbours', and a sector left half written between two stores 8 symbols apart cost
  // DRAM traffic several times the output's size.
  uint64_t i = lo;
  for (; i + 16 <= hi; i += 16) {
    uint32_t w[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const uint32_t a = next();
      w[j] = a | next() << 16;
      br.refill();
    }
    *reinterpret_cast<uint4*>(out + i) = make_uint4(w[0], w[1], w[2], w[3]);
    *reinterpret_cast<uint4*>(out + i + 8) = make_uint4(w[4], w[5], w[6], w[7]);
  }
  for (; i < hi; ++i) {
    out[i] = static_cast<uint16_t>(next());
    br.refill();
  }
  used = br.consumed();
}

}  // namespace sciz::huffman
