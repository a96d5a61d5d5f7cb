// One chunk's symbols decoded on the device, shared by the blob decoder and the
// device-resident one: symbols [lo, hi) from r into out, sixteen at a time as two 16-byte stores.
// Include from .cu files only.
#pragma once
#include <cstdint>

#include "lossless/huffman/huffman_math.hpp"

namespace sciz::huffman {

// The GPU's bit window: the same window as BitReader (so the same symbols), filled
// differently. Each lane reads its own chunk, so nearly every word is an L2 or DRAM access that
// no other lane shares: words come 4 at a time by 16-byte loads, and the next 4 are requested
// when the current 4 are taken, so a refill waits on a load issued ~4 words (~50 codes)
// earlier (with one word requested ahead, 87% of the decoder's time went to those loads). And
// lanes of a warp refill at different symbols, so a refill branch after every symbol was taken
// by some lane at nearly every step: the window is refilled after every second symbol instead
// (>= 33 bits after a refill cover two codes of <= 16 bits), without a branch. Words outside
// [0, nwords) read as 0, as BitReader's load().
class QuadReader {
 public:
  __device__ QuadReader(uint64_t start_bit, const uint32_t* words, uint64_t nwords) : words_(words), nwords_(nwords) {
    const uint64_t w = start_bit >> 5;
    const uint32_t r = static_cast<uint32_t>(start_bit & 31);
    const uint32_t mis = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(words + w) >> 2) & 3u;
    const int64_t a = static_cast<int64_t>(w) - mis;  // words + a is 16-byte aligned
    cur_ = quad(a);
    nxt_ = quad(a + 4);
    q_ = a + 8;
    k_ = mis;
    const uint64_t hi = take();
    advance();
    const uint64_t lo = take();
    advance();
    buf_ = (hi << 32 | lo) << r;
    avail_ = 64 - r;
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
    const uint32_t sh = need ? 32 - avail_ : 0u;
    buf_ |= static_cast<uint64_t>(need ? take() : 0u) << sh;
    avail_ += need ? 32u : 0u;
    k_ += need ? 1u : 0u;
    if (k_ == 4) reload();
  }

 private:
  __device__ uint4 quad(int64_t i) const {
    if (i >= 0 && static_cast<uint64_t>(i) + 4 <= nwords_) return __ldg(reinterpret_cast<const uint4*>(words_ + i));
    uint32_t v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t at = i + j;
      v[j] = at >= 0 && static_cast<uint64_t>(at) < nwords_ ? __ldg(words_ + at) : 0u;
    }
    return make_uint4(v[0], v[1], v[2], v[3]);
  }
  __device__ uint32_t take() const { return k_ == 0 ? cur_.x : k_ == 1 ? cur_.y : k_ == 2 ? cur_.z : cur_.w; }
  __device__ void advance() {
    if (++k_ == 4) reload();
  }
  __device__ void reload() {
    cur_ = nxt_;
    nxt_ = quad(q_);
    q_ += 4;
    k_ = 0;
  }

  const uint32_t* words_;
  uint64_t nwords_;
  uint64_t buf_;
  uint32_t avail_;
  uint4 cur_, nxt_;
  uint32_t k_;
  int64_t q_;
};

// used: the bits the codes took; ok: false on a code the tables do not know (the chunk is then
// corrupt; the caller compares used with the chunk's stated bits too).
template <class Reader>
__device__ inline void decode_chunk_symbols(Reader& br, const uint32_t* primary, const SlowTables& slow,
                                            uint16_t* __restrict__ out, uint64_t lo, uint64_t hi, uint64_t& used,
                                            bool& ok) {
  auto next = [&]() {
    uint32_t s, l;
    ok &= decode_symbol(br, primary, slow, s, l);
    used += l;
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
}

}  // namespace sciz::huffman
