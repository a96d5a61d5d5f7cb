// Device-resident quant-code blobs (codes_device.hpp): the counting pass, the choice, the
// encoders writing one device buffer, and the decoders reading every header on the device.
#include <sciz/error.hpp>

#include <algorithm>
#include <cstring>
#include <string>

#include "core/byteio.hpp"
#include "core/cuda_check.cuh"
#include "core/trace.hpp"
#include "lossless/bitpack/bitpack.hpp"
#include "lossless/bitpack/bitpack_cuda.cuh"
#include "lossless/bitpack/bitpack_math.hpp"
#include "lossless/codes/codes_device.hpp"
#include "lossless/codes/device_check.cuh"
#include "lossless/codes/select.hpp"
#include "lossless/codes/stats_cuda.hpp"
#include "lossless/huffman/huffman_cuda.cuh"
#include "lossless/rle/rle_cuda.cuh"
#include "lossless/zrle/zrle_cuda.cuh"

namespace sciz::codes {
namespace {

using cuda::StatsScalar;
using huffman::cuda::BlobRef;

uint32_t stats_flags(Lossless choice) {
  switch (choice) {
    case Lossless::bitpack: return cuda::kStatsWidths;
    case Lossless::huffman: return cuda::kStatsHist;
    case Lossless::rle:
    case Lossless::rle_huffman: return cuda::kStatsRuns;
    case Lossless::zrle_huffman: return cuda::kStatsHist | cuda::kStatsTokens;
    case Lossless::auto_select: break;
  }
  // The histogram and the zero runs first (0.37 ms for 125M codes on the H100, against 0.63
  // with the runs); the runs in a second pass only when rle_huffman_floor, from these counts,
  // does not rule them out. An earlier second pass (e97dc47, reverted) had a floor of a bit a
  // run and a length, which let it run in every chunk of Isabel, and took a read-back block of
  // its own: lorenzo's 4 GB device-resident compression fell from 238 to 83 GB/s. This floor
  // rules the runs out on Isabel at every bound and on 70 of the 100 fields x bounds of
  // ../shared/data (rel 1e-1 .. 1e-5), and a second pass reuses the first one's block.
  return cuda::kStatsHist | cuda::kStatsTokens | cuda::kStatsCont;
}

// Up to the last bin in use: a zero-run histogram has 65536 bins, most of them empty, and the
// host sizes its candidate between the read-back and the encoders' launch.
std::vector<uint64_t> host_hist(const Readback& rb, size_t at, size_t bins) {
  const uint64_t* p = rb.host(at);
  while (bins > 0 && p[bins - 1] == 0) --bins;
  return std::vector<uint64_t>(p, p + bins);
}

void upload(uint8_t* d, ByteWriter& w, cudaStream_t s) {
  dev::copy_to_device(d, w.buffer().data(), w.size(), s);  // small and pageable: staged at once, no wait
}

dev::Buffer<uint8_t> zeroed(uint64_t bytes, cudaStream_t s) {
  dev::Buffer<uint8_t> b(bytes, s);
  if (bytes) SCIZ_CUDA_CHECK(cudaMemsetAsync(b.get(), 0, bytes, s));
  return b;
}

void encode_huffman(const uint16_t* d_sym, uint64_t n, const Sized& z, uint8_t* d_blob, DeviceStatus* st,
                    uint32_t part, cudaStream_t s) {
  huffman::cuda::encode_blob(d_sym, n, z.lens, z.bits, d_blob, st, part, s);
}

}  // namespace

DeviceEncoder::DeviceEncoder(const uint16_t* d_codes, uint64_t n, uint32_t alphabet, uint16_t centre, Lossless choice,
                             Readback& rb)
    : codes_(d_codes),
      n_(n),
      tiles_(cuda::stats_tiles(n)),
      alphabet_(alphabet),
      centre_(centre),
      choice_(choice),
      flags_(stats_flags(choice)),
      rb_(rb) {
  SCIZ_REQUIRE(alphabet >= 1 && alphabet <= huffman::kAlphabet, Status::internal, "codes: alphabet must be 1..65536");
  at_scalars_ = rb.reserve(cuda::kScalarWords);
  if (flags_ & cuda::kStatsHist) at_hist_ = rb.reserve(alphabet);
  if (flags_ & cuda::kStatsTokens) at_zrun_ = rb.reserve(huffman::kAlphabet);
  if (flags_ & cuda::kStatsCont) at_cont_ = rb.reserve(alphabet);
  if ((flags_ & cuda::kStatsRuns) || choice == Lossless::auto_select) {
    const bool later = !(flags_ & cuda::kStatsRuns);  // auto's second pass, if its floor asks for it
    if (later) at_scalars_runs_ = rb.reserve(cuda::kScalarWords, true);
    at_rval_ = rb.reserve(alphabet, later);
    at_rlen_ = rb.reserve(huffman::kAlphabet, later);
  }
}

void DeviceEncoder::launch(cudaStream_t s) {
  if (flags_ & cuda::kStatsTokens) tile_tokens_ = dev::Buffer<uint64_t>(tiles_, s);
  if (flags_ & cuda::kStatsRuns) tile_runs_ = dev::Buffer<uint64_t>(tiles_, s);
  const cuda::StatsOut out{rb_.device(at_scalars_),
                           (flags_ & cuda::kStatsHist) ? rb_.device(at_hist_) : nullptr,
                           (flags_ & cuda::kStatsTokens) ? rb_.device(at_zrun_) : nullptr,
                           (flags_ & cuda::kStatsRuns) ? rb_.device(at_rval_) : nullptr,
                           (flags_ & cuda::kStatsRuns) ? rb_.device(at_rlen_) : nullptr,
                           tile_tokens_.get(),
                           tile_runs_.get(),
                           (flags_ & cuda::kStatsCont) ? rb_.device(at_cont_) : nullptr};
  cuda::launch_stats(codes_, n_, alphabet_, centre_, flags_, out, s);
}

DeviceEncoded DeviceEncoder::finish(DeviceStatus* st, cudaStream_t s) {
  const uint64_t* sc = rb_.host(at_scalars_);
  SCIZ_REQUIRE(sc[cuda::kBadSymbols] == 0, Status::internal,
               "codes: " + std::to_string(sc[cuda::kBadSymbols]) + " codes lie outside the alphabet of " +
                   std::to_string(alphabet_));
  const uint64_t n = n_, tokens = sc[cuda::kTokens];
  uint64_t runs = sc[cuda::kRuns];
  auto count_runs = [&] {  // auto's second pass, into the words reserved after its scalars
    if (flags_ & cuda::kStatsRuns) return;
    TracePhase counting("lossless device: count the runs (second pass, synchronizes)");
    tile_runs_ = dev::Buffer<uint64_t>(tiles_, s);
    const cuda::StatsOut out{rb_.device(at_scalars_runs_), nullptr, nullptr, rb_.device(at_rval_), rb_.device(at_rlen_),
                             nullptr, tile_runs_.get()};
    cuda::launch_stats(codes_, n_, alphabet_, centre_, cuda::kStatsRuns, out, s);
    rb_.fetch_deferred(s);
    runs = rb_.host(at_scalars_runs_)[cuda::kRuns];
  };
  // Sized candidates, each built at most once, only when the choice asks for it.
  Sized h, tv, tz, rv, rl;
  auto size_tokens = [&] {
    // Token values: every non-centre code plus the forced tokens, so the code histogram with
    // the centre bin replaced by the forced tokens that hold the centre (as stats_cpu.hpp).
    std::vector<uint64_t> vh = host_hist(rb_, at_hist_, alphabet_);
    vh.resize(std::max<size_t>(vh.size(), size_t{centre_} + 1), 0);
    vh[centre_] = sc[cuda::kForcedCentre];
    tv = size_from_hist(std::move(vh), tokens);
    tz = size_from_hist(host_hist(rb_, at_zrun_, huffman::kAlphabet), tokens);
    return kZrleHuffmanHeader + tv.bytes + tz.bytes;
  };
  auto size_runs = [&] {
    count_runs();
    rv = size_from_hist(host_hist(rb_, at_rval_, alphabet_), runs);
    rl = size_from_hist(host_hist(rb_, at_rlen_, huffman::kAlphabet), runs);
    return std::pair<uint64_t, uint64_t>{rle_bytes(runs), kRleHuffmanHeader + rv.bytes + rl.bytes};
  };
  DeviceEncoded r;
  r.stage = choice_;
  {
    TracePhase choosing("lossless device: choose (host)");
    switch (choice_) {
      case Lossless::bitpack: r.size = bitpack::words_offset(n) + 4 * sc[cuda::kWidthWords]; break;
      case Lossless::rle: r.size = rle_bytes(runs); break;
      case Lossless::huffman:
        h = size_from_hist(host_hist(rb_, at_hist_, alphabet_), n);
        r.size = h.bytes;
        break;
      case Lossless::rle_huffman: r.size = size_runs().second; break;
      case Lossless::zrle_huffman: r.size = size_tokens(); break;
      case Lossless::auto_select: {
        h = size_from_hist(host_hist(rb_, at_hist_, alphabet_), n);
        const Decision d = decide(
            h, n, centre_, size_tokens, [&] { return n ? sc[cuda::kChanges] + 1 : 0; },
            [&](uint64_t r0) {
              return rle_huffman_floor(h.hist, centre_, r0, sc[cuda::kCentreRuns],
                                       std::span<const uint64_t>(rb_.host(at_zrun_), huffman::kAlphabet),
                                       sc[cuda::kForcedCentre],
                                       std::span<const uint64_t>(rb_.host(at_cont_), alphabet_));
            },
            size_runs);
        r.stage = d.stage;
        r.size = d.bytes;
        break;
      }
    }
  }

  switch (r.stage) {
    case Lossless::bitpack:
      bitpack::require_context(alphabet_, centre_);
      r.bytes = dev::Buffer<uint8_t>(r.size, s);
      bitpack::cuda::encode_async(codes_, n, centre_, r.bytes.get(), s);
      break;
    case Lossless::rle: {
      r.bytes = dev::Buffer<uint8_t>(r.size, s);
      ByteWriter w;
      w.put<uint64_t>(n);
      w.put<uint64_t>(runs);
      upload(r.bytes.get(), w, s);
      uint16_t* value = reinterpret_cast<uint16_t*>(r.bytes.get() + rle::kHeaderBytes);
      rle::cuda::write_runs(codes_, n, tile_runs_.get(), value, value + runs, s);
      break;
    }
    case Lossless::huffman:
      r.bytes = zeroed(r.size, s);
      encode_huffman(codes_, n, h, r.bytes.get(), st, kPartCodes, s);
      break;
    case Lossless::rle_huffman: {
      r.bytes = zeroed(r.size, s);
      ByteWriter w;
      w.put<uint64_t>(n);
      w.put<uint64_t>(runs);
      w.put<uint64_t>(rv.bytes);
      upload(r.bytes.get(), w, s);
      dev::Buffer<uint16_t> value(runs, s), len_m1(runs, s);
      rle::cuda::write_runs(codes_, n, tile_runs_.get(), value.get(), len_m1.get(), s);
      encode_huffman(value.get(), runs, rv, r.bytes.get() + kRleHuffmanHeader, st, kPartRunValues, s);
      encode_huffman(len_m1.get(), runs, rl, r.bytes.get() + kRleHuffmanHeader + rv.bytes, st, kPartRunLengths, s);
      break;
    }
    case Lossless::zrle_huffman: {
      r.bytes = zeroed(r.size, s);
      ByteWriter w;
      w.put<uint64_t>(n);
      w.put<uint64_t>(tokens);
      w.put<uint32_t>(static_cast<uint32_t>(sc[cuda::kTail]));
      w.put<uint16_t>(centre_);
      w.put<uint16_t>(0);
      w.put<uint64_t>(tv.bytes);
      upload(r.bytes.get(), w, s);
      dev::Buffer<uint16_t> value(tokens, s), zrun(tokens, s);
      zrle::cuda::fill_tokens(codes_, n, centre_, tile_tokens_.get(), value.get(), zrun.get(), s);
      encode_huffman(value.get(), tokens, tv, r.bytes.get() + kZrleHuffmanHeader, st, kPartTokenValues, s);
      encode_huffman(zrun.get(), tokens, tz, r.bytes.get() + kZrleHuffmanHeader + tv.bytes, st, kPartZeroRuns, s);
      break;
    }
    case Lossless::auto_select: fail(Status::internal, "codes: no stage chosen");
  }
  return r;
}

DeviceEncoded encode_device(const uint16_t* d_codes, uint64_t n, uint32_t alphabet, uint16_t centre, Lossless choice,
                            DeviceStatus* st, cudaStream_t s) {
  Readback rb;
  DeviceEncoder enc(d_codes, n, alphabet, centre, choice, rb);
  rb.allocate(s);
  enc.launch(s);
  rb.fetch(s);
  return enc.finish(st, s);
}

// ---- decoding ----------------------------------------------------------------------------

namespace {

// What a stage's header says, as the header kernel read it (device memory).
struct StageHead {
  BlobRef a, b;                   // the huffman blobs of the composite stages (a alone for huffman)
  uint64_t count, tail, centre;   // runs or tokens; zrle's tail and centre
};

// The checks of rle::parse, split_rle_huffman and split_zrle_huffman, on the device. size: the
// blob's bytes (>= the stage's fixed header, checked by the host); bound: the capacity of the
// caller's run or token scratch, which a valid stream never exceeds.
__global__ void stage_head_kernel(const uint8_t* p, uint64_t size, uint64_t n, uint64_t bound, uint32_t stage,
                                  StageHead* head, DeviceStatus* st) {
  if (threadIdx.x != 0) return;
  // A head that fails its checks (or follows an earlier failure) still reads as zero counts:
  // later launches size their scans from it before they look at the status.
  *head = StageHead{};
  if (failed(st)) return;
  using check::load_le;
  const uint64_t sn = load_le(p, 8);
  if (sn != n) return report(st, kStatusCodesCount, stage, sn, n);
  StageHead h{};
  switch (static_cast<Lossless>(stage)) {
    case Lossless::rle: {
      h.count = load_le(p + 8, 8);
      const uint64_t payload = size - rle::kHeaderBytes;
      if (!(h.count <= n && payload % 4 == 0 && payload / 4 == h.count)) return report(st, kStatusCodesHeader, stage, h.count, payload);
      break;
    }
    case Lossless::rle_huffman: {
      h.count = load_le(p + 8, 8);
      const uint64_t vb = load_le(p + 16, 8);
      if (!(h.count <= n && (h.count == 0) == (n == 0) && h.count <= bound)) return report(st, kStatusCodesHeader, stage, h.count, n);
      if (vb > size - kRleHuffmanHeader) return report(st, kStatusCodesHeader, stage, vb, size - kRleHuffmanHeader);
      h.a = {kRleHuffmanHeader, vb, h.count};
      h.b = {kRleHuffmanHeader + vb, size - kRleHuffmanHeader - vb, h.count};
      break;
    }
    case Lossless::zrle_huffman: {
      h.count = load_le(p + 8, 8);
      h.tail = load_le(p + 16, 4);
      h.centre = load_le(p + 20, 2);
      const uint64_t vb = load_le(p + 24, 8);
      if (!(h.count <= n && h.tail <= n && h.count <= bound)) return report(st, kStatusCodesHeader, stage, h.count, h.tail);
      if (vb > size - kZrleHuffmanHeader) return report(st, kStatusCodesHeader, stage, vb, size - kZrleHuffmanHeader);
      h.a = {kZrleHuffmanHeader, vb, h.count};
      h.b = {kZrleHuffmanHeader + vb, size - kZrleHuffmanHeader - vb, h.count};
      break;
    }
    default: break;
  }
  *head = h;
}

}  // namespace

void decode_device(Lossless stage, DeviceSpan blob, uint16_t* d_out, uint64_t n, DeviceStatus* st, cudaStream_t s) {
  SCIZ_REQUIRE(reinterpret_cast<uintptr_t>(d_out) % 16 == 0, Status::internal, "codes: output must be 16-byte aligned");
  dev::Buffer<uint8_t> aligned;
  const uint8_t* p = blob.data;
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0) {  // a section placed anywhere in a stream
    aligned = dev::Buffer<uint8_t>(blob.size, s);
    dev::copy_on_device(aligned.get(), p, blob.size, s);
    p = aligned.get();
  }
  const uint64_t size = blob.size;
  const uint32_t where = static_cast<uint32_t>(stage);
  // The stage's fixed header must fit before any kernel reads it.
  const uint64_t fixed = stage == Lossless::rle            ? rle::kHeaderBytes
                         : stage == Lossless::rle_huffman  ? kRleHuffmanHeader
                         : stage == Lossless::zrle_huffman ? kZrleHuffmanHeader
                                                           : 0;
  if (size < fixed) return check::report_from_host(st, kStatusSectionTruncated, 1, size, fixed, s);
  // Runs and tokens cost at least a bit each in their huffman blob: never more than 8 a byte.
  const uint64_t bound = std::min(n, 8 * size);
  auto head_of = [&](dev::Buffer<StageHead>& head) {
    stage_head_kernel<<<1, 1, 0, s>>>(p, size, n, bound, where, head.get(), st);
    SCIZ_CUDA_CHECK_LAUNCH("codes stage_head_kernel");
  };
  switch (stage) {
    case Lossless::bitpack: return bitpack::cuda::decode_device(p, size, n, d_out, st, s);
    case Lossless::huffman: return huffman::cuda::decode_blob(p, BlobRef{0, size, n}, d_out, st, kPartCodes, s);
    case Lossless::rle: {
      dev::Buffer<StageHead> head(1, s);
      head_of(head);
      const uint64_t runs = (size - rle::kHeaderBytes) / 4;  // what a valid header says; checked there
      const uint16_t* value = reinterpret_cast<const uint16_t*>(p + rle::kHeaderBytes);
      return rle::cuda::expand_device(value, value + runs, &head.get()->count, runs, d_out, n, st, where, s);
    }
    case Lossless::rle_huffman: {
      dev::Buffer<StageHead> head(1, s);
      head_of(head);
      dev::Buffer<uint16_t> value(bound, s), len_m1(bound, s);
      huffman::cuda::decode_blob(p, &head.get()->a, bound, value.get(), st, kPartRunValues, s);
      huffman::cuda::decode_blob(p, &head.get()->b, bound, len_m1.get(), st, kPartRunLengths, s);
      return rle::cuda::expand_device(value.get(), len_m1.get(), &head.get()->count, bound, d_out, n, st, where, s);
    }
    case Lossless::zrle_huffman: {
      dev::Buffer<StageHead> head(1, s);
      head_of(head);
      dev::Buffer<uint16_t> value(bound, s), zrun(bound, s);
      huffman::cuda::decode_blob(p, &head.get()->a, bound, value.get(), st, kPartTokenValues, s);
      huffman::cuda::decode_blob(p, &head.get()->b, bound, zrun.get(), st, kPartZeroRuns, s);
      const StageHead* h = head.get();
      return zrle::cuda::expand_device(value.get(), zrun.get(), &h->count, bound, &h->tail, &h->centre, d_out, n, st,
                                       where, s);
    }
    case Lossless::auto_select: break;
  }
  fail(Status::internal, "codes: decode needs a concrete stage");
}

}  // namespace sciz::codes
