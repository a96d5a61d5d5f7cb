// `lorenzo` = dual-quant Lorenzo predictor -> 16-bit quant codes -> a stage list (a codes stage:
// huffman, rle, rle+huffman, zrle+huffman or format 1's bitpack, chosen per field by default;
// then any byte stages), with outliers and exactly stored values as sparse sections.
// Composition only.
#include <sciz/error.hpp>

#include <cstring>
#include <memory>
#include <span>

#include "core/device.hpp"
#include "core/exact_runs.hpp"
#include "core/host_memory.hpp"
#include "core/sparse_io.hpp"
#include "core/trace.hpp"
#include "lossless/codes/codes.hpp"
#include "lossless/codes/codes_device.hpp"
#include "pipelines/lorenzo_codes.hpp"
#include "pipelines/pipeline.hpp"
#include "pipelines/staging.hpp"
#include "predict/lorenzo/lorenzo.hpp"

namespace sciz {
namespace {

enum Section : uint32_t { kCodes = 1, kOutliers = 2, kExact = 3 };

using lorenzo_codes::Params;

void check_radius(int32_t radius) {
  SCIZ_REQUIRE(radius >= 1 && radius <= lorenzo::kMaxRadius, Status::invalid_argument,
               "radius must be in 1..32768, got " + std::to_string(radius));
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
  check_radius(job.opt.radius);
  const lorenzo_codes::Plan plan = lorenzo_codes::plan_of(job.opt);
  Params lp{job.opt.radius, lorenzo::default_tile(e.ndim), {}};
  const auto qp = lorenzo::make_params<T>(job.eb_abs, lp.radius);
  const stages::Context ctx = lorenzo_codes::context(lp.radius);
  lorenzo::Sparse<T> sp;
  std::vector<uint8_t> packed;
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
    packed = lorenzo_codes::encode_cpu(std::span<const uint16_t>(codes.get(), n), ctx, plan, lp.chain);
  } else {
    dev::Buffer<T> staged;
    const T* dx = staging::input_on_device(job, n, staged);
    dev::Buffer<uint16_t> codes(n, s);
    {
      TracePhase t("lorenzo quantize + sparse (cuda)", true, s);
      lorenzo::compress_cuda<T>(dx, e, lp.tile, qp, codes.get(), sp, s);
    }
    TracePhase t("lossless encode (cuda)", true, s);
    const lorenzo_codes::DeviceSection d = lorenzo_codes::encode_cuda(codes.get(), n, ctx, plan, lp.chain, s);
    packed.resize(d.size);
    dev::copy_to_host(packed.data(), d.bytes.get(), d.size, s);
    dev::sync(s);
  }
  TracePhase t("serialize sparse sections");
  params = lorenzo_codes::write_params(lp);
  const uint64_t slots = tile_grid(e, lp.tile).count() * lp.tile.volume();
  sections.push_back({kCodes, std::move(packed)});
  sections.push_back({kOutliers, write_sparse(sp.outlier_idx, sp.outlier_val, slots)});
  sections.push_back({kExact, write_runs(sp.exact_idx, sp.exact_val)});
}

template <class T>
void decompress_typed(const DecompressJob& job) {
  const ParsedChunk& ps = *job.chunk;
  const Extent& e = job.extent;
  const uint64_t n = e.count();
  const Params lp = lorenzo_codes::read_params(ps.header.params, e, ps.header.version);
  const auto qp = lorenzo::make_params<T>(ps.header.eb_abs, lp.radius);
  const stages::Context ctx = lorenzo_codes::context(lp.radius);
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
    lorenzo_codes::decode_cpu(lp.chain, packed, std::span<uint16_t>(codes.get(), n), ctx);
  } else {
    d_codes = dev::Buffer<uint16_t>(n, s);
    TracePhase t("lossless decode (cuda)", true, s);
    if (lp.chain.size() == 1 && stages::family_of(lp.chain[0]) == stages::Family::codes) {
      codes::decode_cuda(static_cast<Lossless>(lp.chain[0]), packed, d_codes.get(), n, s);
    } else {
      dev::Buffer<uint8_t> d_packed(packed.size(), s);
      dev::copy_to_device(d_packed.get(), packed.data(), packed.size(), s);
      dev::Buffer<DeviceStatus> st(1, s);
      dev::zero(st.get(), sizeof(DeviceStatus), s);
      const lorenzo_codes::DeviceCodes c =
          lorenzo_codes::decode_rest_cuda(lp.chain, {d_packed.get(), packed.size()}, n, ctx, st.get(), s);
      if (c.stage) codes::decode_device(*c.stage, c.span, d_codes.get(), n, st.get(), s);
      else dev::copy_on_device(d_codes.get(), c.span.data, 2 * n, s);
      DeviceStatus hs;
      dev::copy_to_host(&hs, st.get(), sizeof hs, s);
      dev::sync(s);
      throw_if_failed(hs, "lorenzo quant codes");
    }
  }
  staging::decode_to_output<T>(
      job, n, "lorenzo reconstruct (cpu)",
      [&](T* out) { lorenzo::decompress_cpu<T>(codes.get(), sp, e, lp.tile, qp, out); }, "lorenzo reconstruct (cuda)",
      [&](T* out) { lorenzo::decompress_cuda<T>(d_codes.get(), sp, e, lp.tile, qp, out, s); });
}

// Device in, device sections out: the quant codes never leave the device; counts and
// histograms (a few KB) come back to choose the stage as the CPU does. A list's byte stages
// then run on the device over the chosen stage's blob (or the codes).
template <class T>
void compress_device_typed(const CompressJob& job, DeviceChunkOut& out) {
  const Extent& e = job.extent;
  check_radius(job.opt.radius);
  const lorenzo_codes::Plan plan = lorenzo_codes::plan_of(job.opt);
  Params lp{job.opt.radius, lorenzo::default_tile(e.ndim), {}};
  const auto qp = lorenzo::make_params<T>(job.eb_abs, lp.radius);
  const stages::Context ctx = lorenzo_codes::context(lp.radius);
  cudaStream_t s = job.opt.stream;
  lorenzo::DeviceSectionsOut d;
  {
    TracePhase t("lorenzo encode (cuda, device sections)", true, s);
    d = lorenzo::compress_device<T>(static_cast<const T*>(job.data), e, lp.tile, qp, ctx.alphabet, ctx.centre,
                                    plan.first, s, job.range);
  }
  out.range_folded = job.range != nullptr;
  DeviceStatus check;
  dev::copy_to_host(&check, d.check.get(), sizeof check, s);
  dev::sync(s);
  throw_if_failed(check, "lorenzo encoder self-check");
  lp.chain = lorenzo_codes::recorded(plan, d.stage);
  lorenzo_codes::DeviceSection sec =
      lorenzo_codes::encode_rest_cuda({std::move(d.codes), d.codes_size}, plan.rest, ctx, s);
  out.params = lorenzo_codes::write_params(lp);
  out.add(kCodes, std::move(sec.bytes), sec.size);
  out.add(kOutliers, std::move(d.outliers), d.outliers_size);
  out.add(kExact, std::move(d.exact), d.exact_size);
}

template <class T>
void decompress_device_typed(const DeviceDecodeJob& job) {
  const Header& h = *job.header;
  const Extent& e = job.extent;
  const Params lp = lorenzo_codes::read_params(h.params, e, h.version);
  const auto qp = lorenzo::make_params<T>(h.eb_abs, lp.radius);
  const lorenzo_codes::DeviceCodes c = lorenzo_codes::decode_rest_cuda(
      lp.chain, job.section(kCodes, "quant codes"), e.count(), lorenzo_codes::context(lp.radius), job.st, job.s);
  lorenzo::decompress_device<T>(c.span, job.section(kOutliers, "outliers"), job.section(kExact, "exact values"),
                                c.stage, e, lp.tile, qp, static_cast<T*>(job.d_out), job.st, job.s);
}

class LorenzoPipeline final : public Pipeline {
 public:
  const char* name() const override { return "lorenzo"; }

  void check_options(const CompressOptions& opt) const override {
    check_radius(opt.radius);
    (void)lorenzo_codes::plan_of(opt);
  }

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

  std::vector<std::pair<std::string, std::string>> describe(const std::vector<uint8_t>& params,
                                                            uint16_t version) const override {
    return lorenzo_codes::describe(params, version);
  }
};

}  // namespace

std::unique_ptr<Pipeline> make_lorenzo_pipeline() { return std::make_unique<LorenzoPipeline>(); }

}  // namespace sciz
