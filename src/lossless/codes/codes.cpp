#include "lossless/codes/codes.hpp"

#include <sciz/error.hpp>

#include <cstring>
#include <optional>
#include <string>

#include "core/byteio.hpp"
#include "core/container.hpp"
#include "core/host_memory.hpp"
#include "core/device.hpp"
#include "core/device_status.hpp"
#include "core/trace.hpp"
#include "lossless/bitpack/bitpack.hpp"
#include "lossless/codes/codes_device.hpp"
#include "lossless/codes/select.hpp"
#include "lossless/codes/stats_cpu.hpp"
#include "lossless/huffman/huffman.hpp"
#include "lossless/rle/rle.hpp"
#include "lossless/zrle/zrle.hpp"

namespace sciz {

const char* lossless_name(Lossless l) {
  switch (l) {
    case Lossless::auto_select: return "auto";
    case Lossless::bitpack: return "bitpack";
    case Lossless::huffman: return "huffman";
    case Lossless::rle: return "rle";
    case Lossless::rle_huffman: return "rle+huffman";
    case Lossless::zrle_huffman: return "zrle+huffman";
  }
  return "unknown";
}

const char* delta_chain_name(DeltaChain c) {
  switch (c) {
    case DeltaChain::auto_select: return "auto";
    case DeltaChain::linear: return "linear";
    case DeltaChain::serpentine: return "serpentine";
  }
  return "unknown";
}

DeltaChain parse_delta_chain(const std::string& name) {
  for (DeltaChain c : {DeltaChain::auto_select, DeltaChain::linear, DeltaChain::serpentine})
    if (name == delta_chain_name(c)) return c;
  fail(Status::invalid_argument, "unknown delta chain '" + name + "' (auto, linear, serpentine)");
}

Lossless parse_lossless(const std::string& name) {
  for (Lossless l : {Lossless::auto_select, Lossless::bitpack, Lossless::huffman, Lossless::rle, Lossless::rle_huffman,
                     Lossless::zrle_huffman})
    if (name == lossless_name(l)) return l;
  fail(Status::invalid_argument,
       "unknown lossless stage '" + name + "' (auto, huffman, rle, rle+huffman, zrle+huffman, bitpack)");
}

namespace codes {
namespace {

// The two devices differ only in where symbols live and which twin runs; the choice and the
// blob layout are written once, over this interface.
struct Cpu {
  using Syms = std::span<const uint16_t>;
  struct Runs {
    rle::Runs r;
    Syms value() const { return r.value; }
    Syms len_m1() const { return r.len_m1; }
    uint64_t count() const { return r.value.size(); }
  };
  static uint64_t size(Syms s) { return s.size(); }
  static std::vector<uint64_t> hist(Syms s, uint32_t) { return huffman::histogram_cpu(s); }
  static uint64_t count_runs(Syms s) { return rle::count_runs_cpu(s); }
  static uint64_t centre_runs(Syms s, uint16_t centre) { return centre_runs_cpu(s, centre); }
  static uint64_t forced_centre(Syms s, uint16_t centre) { return forced_centre_cpu(s, centre); }
  static Runs runs(Syms s) { return {rle::runs_cpu(s)}; }
  struct Tokens {
    zrle::Tokens t;
    Syms value() const { return t.value; }
    Syms zrun() const { return t.zrun; }
    uint64_t count() const { return t.value.size(); }
    uint32_t tail() const { return t.tail; }
  };
  static Tokens tokens(Syms s, uint16_t centre) { return {zrle::tokens_cpu(s, centre)}; }
  // The candidates' histograms straight from the codes (stats_cpu.hpp): the token and run
  // arrays are built only for the stage that is chosen.
  template <class Sel>
  static void token_sizes(Syms s, uint16_t centre, uint32_t, const std::vector<uint64_t>& hist, Sel& sel) {
    TokenStats st = token_stats_cpu(s, centre, hist);
    sel.v = size_from_hist(std::move(st.value), st.count);
    sel.z = size_from_hist(std::move(st.zrun), st.count);
  }
  template <class Sel>
  static void run_sizes(Syms s, uint32_t, const std::vector<uint64_t>* hist, Sel& sel) {
    RunStats st = run_stats_cpu(s, hist);
    sel.count = st.count;
    sel.v = size_from_hist(std::move(st.value), st.count);
    sel.l = size_from_hist(std::move(st.len_m1), st.count);
  }
  static std::vector<uint8_t> huffman(Syms s, const huffman::Codebook& cb) { return huffman::encode_cpu(s, cb); }
  static std::vector<uint8_t> rle(Syms s) { return rle::encode_cpu(s); }
  static std::vector<uint8_t> bitpack(Syms s, uint16_t centre) { return bitpack::encode_cpu(s, centre); }
};

template <class B, class S>
Sized size_huffman(const B& b, S syms, uint32_t alphabet) {
  return size_from_hist(b.hist(syms, alphabet), B::size(syms));
}

std::vector<uint8_t> join_rle_huffman(uint64_t n, uint64_t runs, const std::vector<uint8_t>& val,
                                      const std::vector<uint8_t>& len) {
  ByteWriter w;
  const size_t bytes = kRleHuffmanHeader + val.size() + len.size();
  reserve_large(w.buffer(), bytes);
  w.put<uint64_t>(n);
  w.put<uint64_t>(runs);
  w.put<uint64_t>(val.size());
  w.bytes(val.data(), val.size());
  w.bytes(len.data(), len.size());
  return std::move(w.buffer());
}

template <class B>
std::vector<uint8_t> rle_huffman(const B& b, const typename B::Runs& r, uint64_t n, const Sized& v, const Sized& l) {
  return join_rle_huffman(n, r.count(), b.huffman(r.value(), v.codebook()), b.huffman(r.len_m1(), l.codebook()));
}

template <class B>
std::vector<uint8_t> zrle_huffman(const B& b, const typename B::Tokens& t, uint64_t n, uint16_t centre, const Sized& v,
                                  const Sized& z) {
  const std::vector<uint8_t> val = b.huffman(t.value(), v.codebook()), run = b.huffman(t.zrun(), z.codebook());
  ByteWriter w;
  const size_t bytes = kZrleHuffmanHeader + val.size() + run.size();
  reserve_large(w.buffer(), bytes);
  w.put<uint64_t>(n);
  w.put<uint64_t>(t.count());
  w.put<uint32_t>(t.tail());
  w.put<uint16_t>(centre);
  w.put<uint16_t>(0);
  w.put<uint64_t>(val.size());
  w.bytes(val.data(), val.size());
  w.bytes(run.data(), run.size());
  return std::move(w.buffer());
}

template <class B>
Encoded encode(const B& b, typename B::Syms syms, uint32_t alphabet, uint16_t centre, Lossless choice) {
  const uint64_t n = B::size(syms);
  switch (choice) {
    case Lossless::bitpack:
      bitpack::require_context(alphabet, centre);
      return {choice, b.bitpack(syms, centre)};
    case Lossless::rle: return {choice, b.rle(syms)};
    case Lossless::huffman: {
      const Sized h = size_huffman(b, syms, alphabet);
      return {choice, b.huffman(syms, h.codebook())};
    }
    case Lossless::rle_huffman: {
      const auto r = b.runs(syms);
      return {choice, rle_huffman(b, r, n, size_huffman(b, r.value(), alphabet), size_huffman(b, r.len_m1(), huffman::kAlphabet))};
    }
    case Lossless::zrle_huffman: {
      const auto t = b.tokens(syms, centre);
      return {choice, zrle_huffman(b, t, n, centre, size_huffman(b, t.value(), alphabet),
                                   size_huffman(b, t.zrun(), huffman::kAlphabet))};
    }
    case Lossless::auto_select: break;
  }
  Sized h;
  {
    TracePhase tp("lossless select: huffman size");
    h = size_huffman(b, syms, alphabet);
  }
  struct TokenSel {
    std::optional<typename B::Tokens> t;  // the tokens, where sizing them built them
    Sized v, z;
  } zs;
  struct RunSel {
    std::optional<typename B::Runs> r;  // the runs, where sizing them built them
    uint64_t count = 0;
    Sized v, l;
  } rs;
  const Decision d = decide(
      h, n, centre,
      [&] {
        TracePhase tp("lossless select: zero-run sizes");
        b.token_sizes(syms, centre, alphabet, h.hist, zs);
        return kZrleHuffmanHeader + zs.v.bytes + zs.z.bytes;
      },
      [&] { return b.count_runs(syms); },
      [&](uint64_t r0) {
        TracePhase tp("lossless select: run floor");
        const std::span<const uint64_t> zrun = zs.z.hist;  // empty where zero runs were not sized
        return rle_huffman_floor(h.hist, centre, r0, b.centre_runs(syms, centre), zrun, b.forced_centre(syms, centre));
      },
      [&] {
        TracePhase tp("lossless select: run sizes");
        b.run_sizes(syms, alphabet, &h.hist, rs);
        return std::pair<uint64_t, uint64_t>{rle_bytes(rs.count), kRleHuffmanHeader + rs.v.bytes + rs.l.bytes};
      });
  const Lossless stage = d.stage;
  if (trace_enabled())
    std::fprintf(stderr, "[sciz] lossless: huffman %llu bytes, zrle floor %llu, %llu runs; chose %s (%llu bytes)\n",
                 static_cast<unsigned long long>(h.bytes), static_cast<unsigned long long>(d.zfloor),
                 static_cast<unsigned long long>(d.r0), lossless_name(stage), static_cast<unsigned long long>(d.bytes));
  TracePhase tp("lossless encode of the chosen stage");
  switch (stage) {
    case Lossless::zrle_huffman:
      if (!zs.t) zs.t.emplace(b.tokens(syms, centre));
      return {stage, zrle_huffman(b, *zs.t, n, centre, zs.v, zs.z)};
    case Lossless::rle: return {stage, b.rle(syms)};
    case Lossless::rle_huffman:
      if (!rs.r) rs.r.emplace(b.runs(syms));
      return {stage, rle_huffman(b, *rs.r, n, rs.v, rs.l)};
    default: return {Lossless::huffman, b.huffman(syms, h.codebook())};
  }
}

struct RleHuffmanParts {
  uint64_t runs;
  std::span<const uint8_t> val, len;
};

RleHuffmanParts split_rle_huffman(std::span<const uint8_t> bytes, uint64_t n) {
  ByteReader rd(bytes.data(), bytes.size(), "rle+huffman stream");
  const uint64_t sn = rd.get<uint64_t>("symbol count");
  RleHuffmanParts p;
  p.runs = rd.get<uint64_t>("run count");
  const uint64_t vb = rd.get<uint64_t>("values blob bytes");
  SCIZ_REQUIRE(sn == n, Status::corrupt_stream,
               "rle+huffman stream: holds " + std::to_string(sn) + " symbols, expected " + std::to_string(n));
  SCIZ_REQUIRE(p.runs <= n && (p.runs == 0) == (n == 0), Status::corrupt_stream,
               "rle+huffman stream: " + std::to_string(p.runs) + " runs for " + std::to_string(n) + " symbols");
  p.val = {rd.take(vb, "values blob"), vb};
  p.len = {bytes.data() + rd.pos(), rd.remaining()};
  return p;
}

struct ZrleHuffmanParts {
  uint64_t tokens;
  uint32_t tail;
  uint16_t centre;
  std::span<const uint8_t> val, run;
};

ZrleHuffmanParts split_zrle_huffman(std::span<const uint8_t> bytes, uint64_t n) {
  ByteReader rd(bytes.data(), bytes.size(), "zrle+huffman stream");
  const uint64_t sn = rd.get<uint64_t>("symbol count");
  ZrleHuffmanParts p;
  p.tokens = rd.get<uint64_t>("token count");
  p.tail = rd.get<uint32_t>("tail");
  p.centre = rd.get<uint16_t>("centre");
  rd.get<uint16_t>("reserved");
  const uint64_t vb = rd.get<uint64_t>("values blob bytes");
  SCIZ_REQUIRE(sn == n, Status::corrupt_stream,
               "zrle+huffman stream: holds " + std::to_string(sn) + " symbols, expected " + std::to_string(n));
  SCIZ_REQUIRE(p.tokens <= n && p.tail <= n, Status::corrupt_stream,
               "zrle+huffman stream: " + std::to_string(p.tokens) + " tokens for " + std::to_string(n) + " symbols");
  p.val = {rd.take(vb, "values blob"), vb};
  p.run = {bytes.data() + rd.pos(), rd.remaining()};
  return p;
}

}  // namespace

Encoded encode_cpu(std::span<const uint16_t> c, uint32_t alphabet, uint16_t centre, Lossless choice) {
  return encode(Cpu{}, c, alphabet, centre, choice);
}

uint64_t encoded_bytes_cpu(std::span<const uint16_t> c, uint32_t alphabet, uint16_t centre, Lossless stage) {
  const Cpu b;
  switch (stage) {
    case Lossless::huffman: return size_huffman(b, c, alphabet).bytes;
    case Lossless::zrle_huffman: {
      // The tokens' histograms come from the codes' own; their Huffman size is not needed.
      struct {
        Sized v, z;
      } zs;
      b.token_sizes(c, centre, alphabet, b.hist(c, alphabet), zs);
      return kZrleHuffmanHeader + zs.v.bytes + zs.z.bytes;
    }
    case Lossless::rle:
    case Lossless::rle_huffman: {
      struct {
        uint64_t count = 0;
        Sized v, l;
      } rs;
      b.run_sizes(c, alphabet, nullptr, rs);
      return stage == Lossless::rle ? rle_bytes(rs.count) : kRleHuffmanHeader + rs.v.bytes + rs.l.bytes;
    }
    case Lossless::bitpack:
    case Lossless::auto_select: break;
  }
  return encode(b, c, alphabet, centre, stage).bytes.size();
}

namespace {
dev::Buffer<DeviceStatus> zeroed_status(cudaStream_t s) {
  dev::Buffer<DeviceStatus> st(1, s);
  const DeviceStatus ok{};
  dev::copy_to_device(st.get(), &ok, sizeof ok, s);
  return st;
}
}  // namespace

// The device encoder with its blob brought to the host: one implementation for both callers.
Encoded encode_cuda(const uint16_t* d_codes, uint64_t n, uint32_t alphabet, uint16_t centre, Lossless choice,
                    cudaStream_t s) {
  const dev::Buffer<DeviceStatus> st = zeroed_status(s);
  const DeviceEncoded d = encode_device(d_codes, n, alphabet, centre, choice, st.get(), s);
  Encoded e{d.stage, {}};
  reserve_large(e.bytes, d.size);
  e.bytes.resize(d.size);
  dev::copy_to_host(e.bytes.data(), d.bytes.get(), d.size, s);
  DeviceStatus hs;
  dev::copy_to_host(&hs, st.get(), sizeof hs, s);
  dev::sync(s);
  SCIZ_REQUIRE(hs.code == 0, Status::internal, "codes (CUDA encoder): " + device_status_message(hs));
  return e;
}

void decode_cpu(Lossless stage, std::span<const uint8_t> bytes, std::span<uint16_t> out) {
  switch (stage) {
    case Lossless::bitpack: return bitpack::decode_cpu(bytes, out);
    case Lossless::huffman: return huffman::decode_cpu(bytes, out);
    case Lossless::rle: return rle::decode_cpu(bytes, out);
    case Lossless::rle_huffman: {
      const auto p = split_rle_huffman(bytes, out.size());
      std::vector<uint16_t> val, len;
      reserve_large(val, p.runs);
      reserve_large(len, p.runs);
      val.resize(p.runs);
      len.resize(p.runs);
      huffman::decode_cpu(p.val, val);
      huffman::decode_cpu(p.len, len);
      return rle::expand_cpu(val, len, out);
    }
    case Lossless::zrle_huffman: {
      const auto p = split_zrle_huffman(bytes, out.size());
      std::vector<uint16_t> val, run;
      reserve_large(val, p.tokens);
      reserve_large(run, p.tokens);
      val.resize(p.tokens);
      run.resize(p.tokens);
      huffman::decode_cpu(p.val, val);
      huffman::decode_cpu(p.run, run);
      return zrle::expand_cpu(val, run, p.tail, p.centre, out);
    }
    case Lossless::auto_select: break;
  }
  fail(Status::internal, "codes: decode needs a concrete stage");
}

// The device decoder on an uploaded copy: the same validation as a device-resident stream gets.
void decode_cuda(Lossless stage, std::span<const uint8_t> bytes, uint16_t* d_out, uint64_t n, cudaStream_t s) {
  if (stage == Lossless::auto_select) fail(Status::internal, "codes: decode needs a concrete stage");
  dev::Buffer<uint8_t> blob(bytes.size(), s);
  dev::copy_to_device(blob.get(), bytes.data(), bytes.size(), s);
  const dev::Buffer<DeviceStatus> st = zeroed_status(s);
  decode_device(stage, DeviceSpan{blob.get(), bytes.size()}, d_out, n, st.get(), s);
  DeviceStatus hs;
  dev::copy_to_host(&hs, st.get(), sizeof hs, s);
  dev::sync(s);
  throw_if_failed(hs, "quant codes");
}

}  // namespace codes
}  // namespace sciz
