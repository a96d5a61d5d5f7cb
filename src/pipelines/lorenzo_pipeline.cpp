// `lorenzo` = dual-quant Lorenzo predictor -> 16-bit quant codes -> a lossless stage (huffman,
// rle, rle+huffman, zrle+huffman, or format 1's bitpack), with outliers and exactly stored values as sparse
// sections. Composition only.
#include <sciz/error.hpp>

#include <cstring>
#include <memory>
#include <span>

#include "core/byteio.hpp"
#include "core/device.hpp"
#include "core/exact_runs.hpp"
#include "core/host_memory.hpp"
#include "core/sparse_io.hpp"
#include "core/trace.hpp"
#include "lossless/codes/codes.hpp"
#include "pipelines/pipeline.hpp"
#include "pipelines/staging.hpp"
#include "predict/lorenzo/lorenzo.hpp"

namespace sciz {
namespace {

enum Section : uint32_t { kCodes = 1, kOutliers = 2, kExact = 3 };

struct LorenzoParams {
  int32_t radius;
  TileShape tile;
  Lossless lossless;  // never auto_select in a stream
};

std::vector<uint8_t> encode_params(const LorenzoParams& lp) {
  ByteWriter w;
  w.put<uint16_t>(static_cast<uint16_t>(lp.radius == lorenzo::kMaxRadius ? 0 : lp.radius));  // 0 means 32768
  w.put<uint16_t>(static_cast<uint16_t>(lp.tile.cz));
  w.put<uint16_t>(static_cast<uint16_t>(lp.tile.cy));
  w.put<uint16_t>(static_cast<uint16_t>(lp.tile.cx));
  w.put<uint8_t>(static_cast<uint8_t>(lp.lossless));
  for (int i = 0; i < 3; ++i) w.put<uint8_t>(0);
  return std::move(w.buffer());
}

LorenzoParams decode_params(const std::vector<uint8_t>& b, const Extent& e, uint16_t version) {
  ByteReader r(b.data(), b.size(), "lorenzo params");
  LorenzoParams lp;
  const uint16_t rad = r.get<uint16_t>("radius");
  lp.radius = rad == 0 ? lorenzo::kMaxRadius : rad;
  lp.tile.cz = r.get<uint16_t>("tile z");
  lp.tile.cy = r.get<uint16_t>("tile y");
  lp.tile.cx = r.get<uint16_t>("tile x");
  const uint8_t ll = r.get<uint8_t>("lossless stage");
  lp.lossless = static_cast<Lossless>(ll);
  r.take(3, "reserved");
  SCIZ_REQUIRE(r.remaining() == 0, Status::corrupt_stream, "lorenzo params: " + std::to_string(r.remaining()) + " extra bytes");
  const TileShape& c = lp.tile;
  SCIZ_REQUIRE(c.cz >= 1 && c.cy >= 1 && c.cx >= 1 && c.volume() <= (1u << 16), Status::corrupt_stream,
          "lorenzo params: tile " + std::to_string(c.cz) + "x" + std::to_string(c.cy) + "x" + std::to_string(c.cx) +
              " is empty or larger than 65536 values");
  SCIZ_REQUIRE((e.ndim >= 3 || c.cz == 1) && (e.ndim >= 2 || c.cy == 1), Status::corrupt_stream,
          "lorenzo params: tile shape does not match a " + std::to_string(e.ndim) + "-D field");
  // Format 1 knew bitpack only; format 2 added huffman (2), rle (3), rle+huffman (4) and
  // zrle+huffman (5).
  const uint8_t last = version == 1 ? 1 : 5;
  SCIZ_REQUIRE(ll >= 1 && ll <= last, Status::unsupported,
          "lorenzo params: unknown lossless stage " + std::to_string(ll) + " in a format " + std::to_string(version) + " stream");
  return lp;
}

// Host buffer of n quant codes for the CPU twins, not zero-filled: the quantizer writes every
// code, and every stage's decoder validates its section and then writes every code, before
// any is read. Advised as huge pages before that first touch (core/host_memory.hpp).
std::unique_ptr<uint16_t[]> fresh_codes(uint64_t n) {
  std::unique_ptr<uint16_t[]> p(new uint16_t[n]);
  advise_huge_pages(p.get(), n * sizeof(uint16_t));
  return p;
}

template <class T>
void compress_typed(const CompressJob& job, std::vector<uint8_t>& params, std::vector<SectionIn>& sections) {
  const Extent& e = job.extent;
  const uint64_t n = e.count();
  SCIZ_REQUIRE(job.opt.radius >= 1 && job.opt.radius <= lorenzo::kMaxRadius, Status::invalid_argument,
          "radius must be in 1..32768, got " + std::to_string(job.opt.radius));
  LorenzoParams lp{job.opt.radius, lorenzo::default_tile(e.ndim), job.opt.lossless};
  const auto qp = lorenzo::make_params<T>(job.eb_abs, lp.radius);
  const uint16_t centre = static_cast<uint16_t>(lp.radius);
  const uint32_t alphabet = 2 * static_cast<uint32_t>(lp.radius);
  lorenzo::Sparse<T> sp;
  codes::Encoded packed;
  cudaStream_t s = job.opt.stream;
  if (job.device == Device::cpu) {
    std::vector<T> staged;
    const T* x = staging::input_on_host(job, n, staged);
    const std::unique_ptr<uint16_t[]> codes = fresh_codes(n);
    {
      TracePhase t("lorenzo quantize + sparse (cpu)");
      lorenzo::compress_cpu<T>(x, e, lp.tile, qp, codes.get(), sp);
    }
    TracePhase t("lossless encode (cpu)");
    packed = codes::encode_cpu(std::span<const uint16_t>(codes.get(), n), alphabet, centre, lp.lossless);
  } else {
    dev::Buffer<T> staged;
    const T* dx = staging::input_on_device(job, n, staged);
    dev::Buffer<uint16_t> codes(n, s);
    {
      TracePhase t("lorenzo quantize + sparse (cuda)", true, s);
      lorenzo::compress_cuda<T>(dx, e, lp.tile, qp, codes.get(), sp, s);
    }
    TracePhase t("lossless encode (cuda)", true, s);
    packed = codes::encode_cuda(codes.get(), n, alphabet, centre, lp.lossless, s);
  }
  TracePhase t("serialize sparse sections");
  lp.lossless = packed.stage;
  params = encode_params(lp);
  const uint64_t slots = tile_grid(e, lp.tile).count() * lp.tile.volume();
  sections.push_back({kCodes, std::move(packed.bytes)});
  sections.push_back({kOutliers, write_sparse(sp.outlier_idx, sp.outlier_val, slots)});
  sections.push_back({kExact, write_runs(sp.exact_idx, sp.exact_val)});
}

template <class T>
void decompress_typed(const DecompressJob& job) {
  const ParsedChunk& ps = *job.chunk;
  const Extent& e = job.extent;
  const uint64_t n = e.count();
  const LorenzoParams lp = decode_params(ps.header.params, e, ps.header.version);
  const auto qp = lorenzo::make_params<T>(ps.header.eb_abs, lp.radius);
  const uint64_t slots = tile_grid(e, lp.tile).count() * lp.tile.volume();
  lorenzo::Sparse<T> sp;
  {
    TracePhase t("parse sparse sections");
    read_sparse(ps.section(kOutliers, "outliers").bytes, slots, "outliers section", sp.outlier_idx, sp.outlier_val);
    read_runs(ps.section(kExact, "exact values").bytes, n, "exact-values section", sp.exact_idx, sp.exact_val);
  }
  // Every stage's decoders validate the whole section before they touch memory.
  const auto packed = ps.section(kCodes, "quant codes").bytes;
  cudaStream_t s = job.cuda_stream;
  std::unique_ptr<uint16_t[]> codes;  // the quant codes on the side of the twin that runs
  dev::Buffer<uint16_t> d_codes;
  if (job.device == Device::cpu) {
    codes = fresh_codes(n);
    TracePhase t("lossless decode (cpu)");
    codes::decode_cpu(lp.lossless, packed, std::span<uint16_t>(codes.get(), n));
  } else {
    d_codes = dev::Buffer<uint16_t>(n, s);
    TracePhase t("lossless decode (cuda)", true, s);
    codes::decode_cuda(lp.lossless, packed, d_codes.get(), n, s);
  }
  staging::decode_to_output<T>(
      job, n, "lorenzo reconstruct (cpu)",
      [&](T* out) { lorenzo::decompress_cpu<T>(codes.get(), sp, e, lp.tile, qp, out); }, "lorenzo reconstruct (cuda)",
      [&](T* out) { lorenzo::decompress_cuda<T>(d_codes.get(), sp, e, lp.tile, qp, out, s); });
}

// Device in, device sections out: the quant codes never leave the device; counts and
// histograms (a few KB) come back to choose the stage as the CPU does.
template <class T>
void compress_device_typed(const CompressJob& job, DeviceChunkOut& out) {
  const Extent& e = job.extent;
  SCIZ_REQUIRE(job.opt.radius >= 1 && job.opt.radius <= lorenzo::kMaxRadius, Status::invalid_argument,
               "radius must be in 1..32768, got " + std::to_string(job.opt.radius));
  LorenzoParams lp{job.opt.radius, lorenzo::default_tile(e.ndim), job.opt.lossless};
  const auto qp = lorenzo::make_params<T>(job.eb_abs, lp.radius);
  cudaStream_t s = job.opt.stream;
  lorenzo::DeviceSectionsOut d;
  {
    TracePhase t("lorenzo encode (cuda, device sections)", true, s);
    d = lorenzo::compress_device<T>(static_cast<const T*>(job.data), e, lp.tile, qp, 2 * static_cast<uint32_t>(lp.radius),
                                    static_cast<uint16_t>(lp.radius), lp.lossless, s);
  }
  DeviceStatus check;
  dev::copy_to_host(&check, d.check.get(), sizeof check, s);
  dev::sync(s);
  throw_if_failed(check, "lorenzo encoder self-check");
  lp.lossless = d.stage;
  out.params = encode_params(lp);
  out.add(kCodes, std::move(d.codes), d.codes_size);
  out.add(kOutliers, std::move(d.outliers), d.outliers_size);
  out.add(kExact, std::move(d.exact), d.exact_size);
}

template <class T>
void decompress_device_typed(const DeviceDecodeJob& job) {
  const Header& h = *job.header;
  const Extent& e = job.extent;
  const LorenzoParams lp = decode_params(h.params, e, h.version);
  const auto qp = lorenzo::make_params<T>(h.eb_abs, lp.radius);
  lorenzo::decompress_device<T>(job.section(kCodes, "quant codes"), job.section(kOutliers, "outliers"),
                                job.section(kExact, "exact values"), lp.lossless, e, lp.tile, qp,
                                static_cast<T*>(job.d_out), job.st, job.s);
}

class LorenzoPipeline final : public Pipeline {
 public:
  const char* name() const override { return "lorenzo"; }


  void compress(const CompressJob& job, std::vector<uint8_t>& params, std::vector<SectionIn>& sections) const override {
    with_type(job.dtype, [&]<class T>() { compress_typed<T>(job, params, sections); });
  }

  void decompress(const DecompressJob& job) const override {
    with_type(job.chunk->header.dtype, [&]<class T>() { decompress_typed<T>(job); });
  }

  void compress_device(const CompressJob& job, DeviceChunkOut& out) const override {
    with_type(job.dtype, [&]<class T>() { compress_device_typed<T>(job, out); });
  }

  void decompress_device(const DeviceDecodeJob& job) const override {
    with_type(job.header->dtype, [&]<class T>() { decompress_device_typed<T>(job); });
  }

  std::vector<std::pair<std::string, std::string>> describe(const std::vector<uint8_t>& params) const override {
    ByteReader r(params.data(), params.size(), "lorenzo params");
    const uint16_t rad = r.get<uint16_t>("radius");
    const auto cz = r.get<uint16_t>("cz"), cy = r.get<uint16_t>("cy"), cx = r.get<uint16_t>("cx");
    const auto ll = r.get<uint8_t>("lossless");
    return {{"radius", std::to_string(rad == 0 ? 32768 : rad)},
            {"tile", std::to_string(cz) + "x" + std::to_string(cy) + "x" + std::to_string(cx)},
            {"lossless", ll >= 1 && ll <= 5 ? lossless_name(static_cast<Lossless>(ll)) : "unknown(" + std::to_string(ll) + ")"}};
  }
};

}  // namespace

std::unique_ptr<Pipeline> make_lorenzo_pipeline() { return std::make_unique<LorenzoPipeline>(); }

}  // namespace sciz
