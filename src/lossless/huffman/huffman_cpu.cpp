// CPU twin of the huffman stage: OpenMP over chunks, the same bit writer/reader as the GPU.
#include <sciz/error.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>

#include "core/container.hpp"
#include "core/host_memory.hpp"
#include "core/omp_threads.hpp"
#include "lossless/huffman/huffman.hpp"

namespace sciz::huffman {

namespace {
// Below this many symbols a parallel region costs more (thread wake-up, per-thread bins)
// than the work: small fields stay on one thread.
constexpr int64_t kParallelMin = 1 << 18;

// Counts s[lo, hi) into four tables of `bins` counters, one per lane of four consecutive
// symbols: quant codes repeat (the centre code dominates smooth data), and the increments of
// one counter would wait on each other through memory.
void count_four_lanes(const uint16_t* s, int64_t lo, int64_t hi, uint32_t* t, size_t bins) {
  uint32_t* t0 = t;
  uint32_t* t1 = t0 + bins;
  uint32_t* t2 = t1 + bins;
  uint32_t* t3 = t2 + bins;
  int64_t i = lo;
  for (; i + 4 <= hi; i += 4) {
    ++t0[s[i]];
    ++t1[s[i + 1]];
    ++t2[s[i + 2]];
    ++t3[s[i + 3]];
  }
  for (; i < hi; ++i) ++t0[s[i]];
}

// Counter v of the four lanes' tables, summed.
uint64_t lanes_sum(const uint32_t* t, size_t bins, size_t v) {
  return uint64_t{t[v]} + t[bins + v] + t[2 * bins + v] + t[3 * bins + v];
}
}  // namespace

std::vector<uint64_t> histogram_cpu(std::span<const uint16_t> sym) {
  const int64_t n = static_cast<int64_t>(sym.size());
  if (n < kParallelMin) {
    // Small: one table, up to the largest symbol (quant codes sit around the centre, so the
    // 65536-bin table, and its fresh pages on a first call, would mostly be zeros).
    // Four counters a symbol, one per lane of four consecutive symbols, as below: in one table
    // the increments of the centre code waited on each other through memory (a 200 KB cut's
    // codes are 30 % centre).
    uint16_t top = 0;
    for (int64_t i = 0; i < n; ++i) top = sym[i] > top ? sym[i] : top;
    const size_t bins = n ? size_t{top} + 1 : 0;
    std::vector<uint32_t> t(4 * bins, 0);  // n < 2^18: no counter overflows
    count_four_lanes(sym.data(), 0, n, t.data(), bins);
    std::vector<uint64_t> hist(bins);
    for (size_t v = 0; v < bins; ++v) hist[v] = lanes_sum(t.data(), bins, v);
    return hist;
  }
  std::vector<uint64_t> hist(kAlphabet, 0);
#pragma omp parallel if (n >= kParallelMin)
  {
    // Four 32-bit lane tables (count_four_lanes); each lane counts at most 2^30 per block
    // before it is flushed.
    std::vector<uint32_t> t(4 * size_t{kAlphabet}, 0);
    std::vector<uint64_t> local(kAlphabet, 0);
    const Share sh = thread_share(static_cast<uint64_t>(n));
    const int64_t lo = static_cast<int64_t>(sh.lo), hi = static_cast<int64_t>(sh.hi);
    constexpr int64_t kBlock = int64_t{1} << 30;
    for (int64_t b0 = lo; b0 < hi; b0 += kBlock) {
      count_four_lanes(sym.data(), b0, std::min(hi, b0 + kBlock), t.data(), kAlphabet);
      for (uint32_t v = 0; v < kAlphabet; ++v) local[v] += lanes_sum(t.data(), kAlphabet, v);
      std::fill(t.begin(), t.end(), 0u);
    }
#pragma omp critical
    for (uint32_t v = 0; v < kAlphabet; ++v) hist[v] += local[v];
  }
  return hist;
}

namespace {

// The blob of n symbols from its per-chunk bit counts and its words.
std::vector<uint8_t> assemble(const Codebook& cb, uint64_t n, uint32_t chunk, uint64_t total,
                              const std::vector<uint16_t>& cbits, const uint32_t* words, uint64_t nwords) {
  const uint64_t chunks = cbits.size();
  std::vector<uint8_t> out = header_and_codebook(cb, n, chunk, total);
  const Layout l = layout(out.size() - 32, chunks, nwords);
  reserve_large(out, l.bytes);
  out.resize(l.bytes, 0);
  // n = 0 leaves both empty: memcpy from their null data() is undefined even for 0 bytes.
  if (chunks) std::memcpy(out.data() + l.chunk_bits_at, cbits.data(), chunks * 2);
  if (nwords) std::memcpy(out.data() + l.words_at, words, nwords * 4);
  return out;
}

// One thread, one pass: the chunks' bits are contiguous, so one writer through them all lays
// the words down as the chunked path does (each chunk from the bit where the previous ended)
// and counts each chunk's bits as it goes. The chunked path's first pass, which sizes every
// chunk before any is written, and its per-step test for a chunk's shared first and last words
// made the Isabel cut's codes take 94 us instead of 69-89.
std::vector<uint8_t> encode_one_pass(std::span<const uint16_t> sym, const Codebook& cb, uint32_t chunk) {
  const uint64_t n = sym.size(), chunks = (n + chunk - 1) / chunk;
  std::vector<uint16_t> cbits(chunks);
  // At most kMaxLen bits a symbol; the pages past the words written are never touched.
  std::unique_ptr<uint32_t[]> words(new uint32_t[(n * kMaxLen + 31) / 32 + 1]);
  // Only the code table is read (an entry carries its length, 0 for a symbol without code, as
  // the length table has it), a chunk's bits are the writer's position after it less before
  // it, and a missing code is an all-ones high bit of (length - 1): the loop keeps its state in
  // registers (the lambdas over captured locals had the table pointers reloaded from the stack
  // at every step).
  const uint32_t table = cb.table();
  const uint32_t* __restrict code = cb.code.data();
  const uint16_t* __restrict s = sym.data();
  uint32_t* __restrict wp = words.get();
  uint64_t acc = 0, w = 0, total = 0;
  uint32_t nb = 0, missing = 0;
  auto entry = [table, code](uint32_t v) { return v < table ? code[v] : 0u; };  // by value: registers
  // l may be 0 here (a symbol without code: refused below).
  auto put = [&](uint64_t bits, uint32_t l) {
    word_step(acc, nb, w, bits, l, [wp](uint64_t at, uint32_t v) { wp[at] = v; });
  };
  for (uint64_t c = 0; c < chunks; ++c) {
    const uint64_t lo = c * chunk, hi = std::min<uint64_t>(n, lo + chunk);
    const uint64_t at = 32 * w + nb;
    uint64_t i = lo;
    for (; i + 2 <= hi; i += 2) {
      const uint32_t e0 = entry(s[i]), e1 = entry(s[i + 1]);
      const uint32_t l1 = code_len(e1), l = code_len(e0) + l1;
      missing |= (code_len(e0) - 1) | (l1 - 1);
      put(static_cast<uint64_t>(code_bits(e0)) << l1 | code_bits(e1), l);
    }
    if (i < hi) {
      const uint32_t e0 = entry(s[i]), l = code_len(e0);
      missing |= l - 1;
      put(code_bits(e0), l);
    }
    const uint64_t bits = 32 * w + nb - at;
    cbits[c] = static_cast<uint16_t>(bits);
    total += bits;
  }
  const bool zero = missing >> 31;  // lengths are at most kMaxLen: length - 1 sets it only for 0
  SCIZ_REQUIRE(!zero, Status::internal, "huffman: a symbol has no code in the codebook");
  if (nb > 0) wp[w] = static_cast<uint32_t>(acc >> 32);
  return assemble(cb, n, chunk, total, cbits, words.get(), (total + 31) / 32);
}

}  // namespace

std::vector<uint8_t> encode_cpu(std::span<const uint16_t> sym, const Codebook& cb, uint32_t chunk) {
  SCIZ_REQUIRE(chunk >= 8 && chunk <= kMaxChunk && chunk % 8 == 0, Status::invalid_argument,
               "huffman: chunk size must be a multiple of 8 in 8..4088");
  if (static_cast<int64_t>(sym.size()) < kParallelMin) return encode_one_pass(sym, cb, chunk);
  return encode_cpu_chunked(sym, cb, chunk);
}

std::vector<uint8_t> encode_cpu_chunked(std::span<const uint16_t> sym, const Codebook& cb, uint32_t chunk) {
  SCIZ_REQUIRE(chunk >= 8 && chunk <= kMaxChunk && chunk % 8 == 0, Status::invalid_argument,
               "huffman: chunk size must be a multiple of 8 in 8..4088");
  const uint64_t n = sym.size(), chunks = (n + chunk - 1) / chunk;
  std::vector<uint16_t> cbits(chunks);
  bool unknown = false;
#pragma omp parallel for schedule(static) reduction(|| : unknown) if (static_cast<int64_t>(n) >= kParallelMin)
  for (int64_t c = 0; c < static_cast<int64_t>(chunks); ++c) {
    const uint64_t lo = static_cast<uint64_t>(c) * chunk, hi = std::min<uint64_t>(n, lo + chunk);
    const uint8_t* __restrict len = cb.len.data();
    const uint16_t* __restrict s = sym.data();
    const uint32_t table = cb.table();
    uint32_t bits = 0, zero = 0;
    for (uint64_t i = lo; i < hi; ++i) {
      const uint32_t v = s[i], l = v < table ? len[v] : 0;
      zero |= l == 0;
      bits += l;
    }
    unknown = unknown || zero;
    cbits[c] = static_cast<uint16_t>(bits);
  }
  SCIZ_REQUIRE(!unknown, Status::internal, "huffman: a symbol has no code in the codebook");
  std::vector<uint64_t> start(chunks + 1, 0);
  for (uint64_t c = 0; c < chunks; ++c) start[c + 1] = start[c] + cbits[c];
  const uint64_t total = start[chunks];
  std::vector<uint32_t> words;
  reserve_large(words, (total + 31) / 32);
  words.resize((total + 31) / 32, 0);
#pragma omp parallel for schedule(static) if (static_cast<int64_t>(n) >= kParallelMin)
  for (int64_t c = 0; c < static_cast<int64_t>(chunks); ++c) {
    const uint64_t lo = static_cast<uint64_t>(c) * chunk, hi = std::min<uint64_t>(n, lo + chunk);
    if (lo == hi || start[c] == start[c + 1]) continue;
    // word_step's words (huffman_math.hpp), written without a branch per word: two codes a
    // step (each at most kMaxLen = 16 bits, so a pair fits the 32 free bits of the
    // accumulator), the current word stored every step (complete once the step fills it) and
    // the position advanced by the carry. A chunk's first and last words may be shared with its
    // neighbours: they are staged in locals and OR-ed in once (atomic); the words in between
    // are the chunk's own. On one core this took 1.4-1.7x less time than a step per code with
    // a branch per word (3.7M codes, 2.3-6.7 bits each).
    static_assert(2 * kMaxLen <= 32, "a pair of codes must fit the accumulator's free half");
    const uint32_t* __restrict code = cb.code.data();
    const uint16_t* __restrict s = sym.data();
    uint32_t* __restrict wp = words.data();
    const uint64_t w0 = start[c] >> 5, wl = (start[c + 1] - 1) >> 5;
    uint32_t head = 0, tail = 0;
    uint64_t acc = 0, w = w0;
    uint32_t nb = static_cast<uint32_t>(start[c] & 31);
    auto store = [&](uint64_t at, uint32_t v) { *(at == w0 ? &head : at == wl ? &tail : wp + at) = v; };
    auto push = [&](uint64_t bits, uint32_t len) { word_step(acc, nb, w, bits, len, store); };
    uint64_t i = lo;
    for (; i + 2 <= hi; i += 2) {
      const uint32_t e0 = code[s[i]], e1 = code[s[i + 1]], l1 = code_len(e1);
      push(static_cast<uint64_t>(code_bits(e0)) << l1 | code_bits(e1), code_len(e0) + l1);
    }
    if (i < hi) push(code_bits(code[s[i]]), code_len(code[s[i]]));
    // The last word, when the last step moved past a full one.
    if (nb > 0) store(w, static_cast<uint32_t>(acc >> 32));
    std::atomic_ref<uint32_t>(wp[w0]).fetch_or(head, std::memory_order_relaxed);
    if (wl != w0) std::atomic_ref<uint32_t>(wp[wl]).fetch_or(tail, std::memory_order_relaxed);
  }
  return assemble(cb, n, chunk, total, cbits, words.data(), words.size());
}

std::vector<uint8_t> encode_cpu(std::span<const uint16_t> sym) {
  return encode_cpu(sym, build_codebook(histogram_cpu(sym)));
}

void decode_cpu(std::span<const uint8_t> blob, std::span<uint16_t> out) {
  const Parsed p = parse(blob, out.size());
  const DecodeTables t = decode_tables(p.cb);
  const SlowTables slow = t.slow();
  const uint8_t* cbits = blob.data() + p.chunk_bits_at;
  const uint8_t* words = blob.data() + p.words_at;
  const uint64_t nwords = p.words;
  std::vector<uint64_t> start(p.chunks + 1, 0);
  for (uint64_t c = 0; c < p.chunks; ++c) {
    uint16_t b;
    std::memcpy(&b, cbits + 2 * c, 2);
    start[c + 1] = start[c] + b;
  }
  auto load = [words, nwords](uint64_t i) {
    uint32_t v = 0;
    if (i < nwords) std::memcpy(&v, words + 4 * i, 4);
    return v;
  };
  using Reader = BitReader<decltype(load)>;
  // One chunk's decoding state. Each code's table lookup waits on the previous code's length,
  // a chain of ~10 cycles a code; two chunks are decoded side by side so that a core overlaps
  // their chains, and each window is tested for a refill once per two codes.
  struct Lane {
    Reader br;
    uint64_t i, hi, used = 0;
    bool ok = true;
  };
  const uint32_t* primary = t.primary.data();
  auto two = [&](Lane& x) {
    NoRefill<Reader> nr{x.br};
    uint32_t s0, l0, s1, l1;
    x.ok &= decode_symbol(nr, primary, slow, s0, l0);
    x.ok &= decode_symbol(nr, primary, slow, s1, l1);
    x.br.refill();
    out[x.i] = static_cast<uint16_t>(s0);
    out[x.i + 1] = static_cast<uint16_t>(s1);
    x.used += l0 + l1;
    x.i += 2;
  };
  auto finish = [&](Lane& x) {
    while (x.i + 2 <= x.hi) two(x);
    if (x.i < x.hi) {
      uint32_t s, l;
      x.ok &= decode_symbol(x.br, primary, slow, s, l);
      out[x.i++] = static_cast<uint16_t>(s);
      x.used += l;
    }
  };
  auto lane = [&](uint64_t c) {
    const uint64_t lo = c * p.chunk;
    return Lane{Reader(start[c], load), lo, std::min<uint64_t>(p.n, lo + p.chunk)};
  };
  auto good = [&](const Lane& x, uint64_t c) { return x.ok && x.used == start[c + 1] - start[c]; };
  const int64_t pairs = static_cast<int64_t>((p.chunks + 1) / 2);
  int64_t bad = -1;
#pragma omp parallel for schedule(static) reduction(max : bad) if (static_cast<int64_t>(p.n) >= kParallelMin)
  for (int64_t pc = 0; pc < pairs; ++pc) {
    const uint64_t c0 = 2 * static_cast<uint64_t>(pc), c1 = c0 + 1;
    Lane a = lane(c0);
    if (c1 < p.chunks) {
      Lane b = lane(c1);
      while (a.i + 2 <= a.hi && b.i + 2 <= b.hi) {
        two(a);
        two(b);
      }
      finish(b);
      if (!good(b, c1)) bad = std::max<int64_t>(bad, static_cast<int64_t>(c1));
    }
    finish(a);
    if (!good(a, c0)) bad = std::max<int64_t>(bad, static_cast<int64_t>(c0));
  }
  SCIZ_REQUIRE(bad < 0, Status::corrupt_stream,
               "huffman stream: chunk " + std::to_string(bad) + " does not decode to its stated bit count");
}

}  // namespace sciz::huffman
