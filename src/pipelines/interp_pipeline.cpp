// `interp` = spline interpolation in 17^3 blocks over a coded anchor grid (src/predict/interp,
// docs/INTERP.md) -> uint8 quant codes level by level -> a stage list (interp_codes.hpp: the
// pipeline's named list, the caller's, or per chunk the smallest of a few candidates); outliers
// and exactly stored values apart. Params (interp_params.hpp) carry every level's spline,
// scheme and bound and the stage list, so the decoder needs nothing else. Where the tuner
// estimates first-order Lorenzo smaller on the sampled blocks, the chunk is the lorenzo
// pipeline's, wrapped (params: predictor 1, then lorenzo's params; lorenzo's sections).
// Composition only.
#include <sciz/error.hpp>

#include <cmath>
#include <thread>
#include <memory>
#include <span>

#include "core/device.hpp"
#include "core/device_status.hpp"
#include "core/exact_runs.hpp"
#include "core/trace.hpp"
#include "pipelines/interp_codes.hpp"
#include "pipelines/interp_params.hpp"
#include "pipelines/pipeline.hpp"
#include "pipelines/staging.hpp"
#include "predict/interp/interp.hpp"
#include "predict/lorenzo/lorenzo_math.hpp"

namespace sciz {
namespace {

enum Section : uint32_t { kCodes = 1, kOutliers = 2, kExact = 3 };
// Lorenzo is taken when its estimate is below this share of interp's: the estimate favours
// Lorenzo by a few percent on the real fields (docs/INTERP.md), so close calls stay interp.
constexpr double kLorenzoShare = 0.97;

interp::TuneRequest tune_request(const CompressOptions& o, const interp_codes::Plan& plan) {
  const double a = o.interp_alpha, b = o.interp_beta;
  SCIZ_REQUIRE(a == 0 || (std::isfinite(a) && a >= 1 && a <= 16), Status::invalid_argument,
               "interp alpha must be 0 (tuned) or in [1, 16], got " + std::to_string(a));
  SCIZ_REQUIRE(std::isfinite(b) && b >= 1 && b <= 1024, Status::invalid_argument,
               "interp beta must be in [1, 1024], got " + std::to_string(b));
  interp::TuneRequest t;
  t.spline = o.interp_spline == InterpSpline::auto_select ? -1 : static_cast<int>(o.interp_spline) - 1;
  t.scheme = o.interp_scheme == InterpScheme::auto_select ? -1 : static_cast<int>(o.interp_scheme) - 1;
  t.alpha = a;
  t.beta = b;
  t.codes_bytes = interp_codes::sample_sizer(plan);
  if (o.interp_lorenzo) t.lorenzo_codes_bytes = interp_codes::lorenzo_sample_sizer(plan);
  return t;
}

// The job of the lorenzo pipeline for a chunk that falls back to it: the radius its estimate
// assumed, and the same stage list (or lorenzo's own auto).
CompressJob lorenzo_job(const CompressJob& job, const interp_codes::Plan& plan) {
  CompressJob lz = job;
  lz.opt.radius = lorenzo::kDefaultRadius;
  lz.opt.lossless = Lossless::auto_select;
  lz.opt.stages = interp_codes::lorenzo_stages(plan);
  return lz;
}

// Threads the tuner may use when a GPU codes the chunk: its host thread would otherwise wait
// on the tuner while the host's other cores idle. The engine runs up to eight encoding workers
// a device in a device-resident call (four in a streaming one; api/gpu_engine.cpp), so an
// eighth of the cores each: more would have OpenMP teams of several chunks' tuners spin
// against each other on the same cores.
int gpu_tune_threads() {
  static const int n = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 8);
  return n;
}

template <class T>
void compress_typed(const CompressJob& job, const interp_codes::Plan& plan, std::vector<uint8_t>& params,
                    std::vector<SectionIn>& sections) {
  const interp::Layout L = interp::layout_of(job.extent);
  const bool cpu = job.device == Device::cpu;
  interp::TuneRequest req = tune_request(job.opt, plan);
  if (!cpu) req.threads = gpu_tune_threads();
  cudaStream_t s = job.opt.stream;
  std::vector<T> host_staged;
  dev::Buffer<T> dev_staged;
  const T* x = cpu ? staging::input_on_host(job, L.total, host_staged) : staging::input_on_device(job, L.total, dev_staged);
  interp::Choice ch;
  {
    // The tuner runs on the host in both cases, on what either device gathered.
    TracePhase t(cpu ? "interp tune (cpu)" : "interp gather (cuda) + tune (host)");
    ch = interp::tune<T>(cpu ? interp::gather_cpu<T>(x, L) : interp::gather_cuda<T>(x, L, s), L, job.eb_abs, req);
  }
  if (req.lorenzo_codes_bytes && ch.lorenzo_bits < kLorenzoShare * ch.interp_bits) {
    std::vector<uint8_t> inner;
    find_pipeline("lorenzo").compress(lorenzo_job(job, plan), inner, sections);
    params = interp_params::write_lorenzo(inner);
    return;
  }
  interp::Sparse<T> sp;
  std::vector<uint8_t> packed;
  stages::Chain chain;
  if (cpu) {
    std::unique_ptr<uint8_t[]> codes(new uint8_t[L.total]);
    {
      TracePhase t("interp predict + quantize (cpu)");
      interp::compress_cpu<T>(x, L, ch, job.eb_abs, codes.get(), sp);
    }
    TracePhase t("interp codes section (cpu)");
    packed = interp_codes::encode_cpu(std::span<const uint8_t>(codes.get(), L.total), plan, chain);
  } else {
    dev::Buffer<uint8_t> codes(L.total, s);
    {
      TracePhase t("interp predict + quantize (cuda)", true, s);
      interp::compress_cuda<T>(x, L, ch, job.eb_abs, codes.get(), sp, s);
    }
    TracePhase t("interp codes section (cuda)", true, s);
    const interp_codes::DeviceSection d = interp_codes::encode_cuda(codes.get(), L.total, plan, chain, s);
    packed.resize(d.size);
    dev::copy_to_host(packed.data(), d.bytes.get(), d.size, s);
    dev::sync(s);
  }
  TracePhase t("interp sparse sections");
  params = interp_params::write(ch, chain);
  sections.push_back({kCodes, std::move(packed)});
  sections.push_back({kOutliers, interp::write_outliers(sp.outliers)});
  sections.push_back({kExact, write_runs(sp.exact_idx, sp.exact_val)});
}

// A chunk the lorenzo pipeline coded: its decoder, on the chunk with lorenzo's own params.
void decompress_lorenzo(const DecompressJob& job) {
  ParsedChunk inner = *job.chunk;
  inner.header.params.erase(inner.header.params.begin(), inner.header.params.begin() + interp_params::kLorenzoPrefix);
  DecompressJob j = job;
  j.chunk = &inner;
  find_pipeline("lorenzo").decompress(j);
}

template <class T>
void decompress_typed(const DecompressJob& job) {
  const ParsedChunk& ps = *job.chunk;
  const interp::Layout L = interp::layout_of(job.extent);
  stages::Chain chain;
  const interp::Choice ch = interp_params::read(ps.header.params, L, ps.header.eb_abs, chain);
  interp::Sparse<T> sp;
  {
    TracePhase t("interp sparse sections");
    read_runs(ps.section(kExact, "exact values").bytes, L.total, "interp exact-values section", sp.exact_idx,
              sp.exact_val);
    interp::read_outliers(ps.section(kOutliers, "outliers").bytes, L.total, sp.outliers);
  }
  const auto packed = ps.section(kCodes, "quant codes").bytes;
  cudaStream_t s = job.cuda_stream;
  std::vector<uint8_t> codes;
  dev::Buffer<uint8_t> d_codes;
  interp::OutlierRanks ranks;
  if (job.device == Device::cpu) {
    TracePhase t("interp codes section (cpu)");
    codes = interp_codes::decode_cpu(chain, packed, L.total);
    ranks = interp::check_sparse<T>(codes.data(), L, sp);
  } else {
    TracePhase t("interp codes section (cuda)", true, s);
    dev::Buffer<uint8_t> d_packed(packed.size(), s);
    dev::copy_to_device(d_packed.get(), packed.data(), packed.size(), s);
    d_codes = dev::Buffer<uint8_t>(L.total, s);
    dev::Buffer<DeviceStatus> st(1, s);
    dev::zero(st.get(), sizeof(DeviceStatus), s);
    interp_codes::decode_cuda(chain, {d_packed.get(), packed.size()}, d_codes.get(), L.total, st.get(), s);
    DeviceStatus hs;
    dev::copy_to_host(&hs, st.get(), sizeof hs, s);
    dev::sync(s);
    throw_if_failed(hs, "interp quant codes");
  }
  staging::decode_to_output<T>(
      job, L.total, "interp reconstruct (cpu)",
      [&](T* out) { interp::decompress_cpu<T>(codes.data(), sp, ranks, L, ch, out); }, "interp reconstruct (cuda)",
      [&](T* out) { interp::decompress_cuda<T>(d_codes.get(), sp, L, ch, out, s); });
}

// Device in, device sections out: the codes never leave the device; the tuner's samples (a few
// hundred kB), the counts, the stages' sizes and the outliers (a few bytes each) cross PCIe.
template <class T>
void compress_device_typed(const CompressJob& job, const interp_codes::Plan& plan, DeviceChunkOut& out) {
  const interp::Layout L = interp::layout_of(job.extent);
  interp::TuneRequest req = tune_request(job.opt, plan);
  req.threads = gpu_tune_threads();
  cudaStream_t s = job.opt.stream;
  const T* x = static_cast<const T*>(job.data);
  interp::Choice ch;
  {
    TracePhase t("interp gather (cuda) + tune (host)");
    ch = interp::tune<T>(interp::gather_cuda<T>(x, L, s), L, job.eb_abs, req);
  }
  if (req.lorenzo_codes_bytes && ch.lorenzo_bits < kLorenzoShare * ch.interp_bits) {
    DeviceChunkOut inner;
    find_pipeline("lorenzo").compress_device(lorenzo_job(job, plan), inner);
    out.params = interp_params::write_lorenzo(inner.params);
    out.sections = std::move(inner.sections);
    out.owned = std::move(inner.owned);
    out.range_folded = inner.range_folded;
    return;
  }
  dev::Buffer<uint8_t> codes(L.total, s);
  interp::DeviceSparseOut sp;
  {
    TracePhase t("interp predict + quantize (cuda, device sections)", true, s);
    sp = interp::compress_device<T>(x, L, ch, job.eb_abs, codes.get(), s);
  }
  stages::Chain chain;
  interp_codes::DeviceSection sec;
  {
    TracePhase t("interp codes section (cuda, device)", true, s);
    sec = interp_codes::encode_cuda(codes.get(), L.total, plan, chain, s);
  }
  out.params = interp_params::write(ch, chain);
  out.add(kCodes, std::move(sec.bytes), sec.size);
  out.add(kOutliers, std::move(sp.outliers), sp.outliers_size);
  out.add(kExact, std::move(sp.exact), sp.exact_size);
}

template <class T>
void decompress_device_typed(const DeviceDecodeJob& job) {
  const Header& h = *job.header;
  const interp::Layout L = interp::layout_of(job.extent);
  stages::Chain chain;
  const interp::Choice ch = interp_params::read(h.params, L, h.eb_abs, chain);
  dev::Buffer<uint8_t> codes(L.total, job.s);
  interp_codes::decode_cuda(chain, job.section(kCodes, "quant codes"), codes.get(), L.total, job.st, job.s);
  interp::decompress_device<T>(codes.get(), job.section(kOutliers, "outliers"), job.section(kExact, "exact values"), L, ch,
                               static_cast<T*>(job.d_out), job.st, job.s);
}

// A chunk the lorenzo pipeline coded, on the device: its decoder, with lorenzo's own params.
void decompress_device_lorenzo(const DeviceDecodeJob& job) {
  Header inner = *job.header;
  inner.params.erase(inner.params.begin(), inner.params.begin() + interp_params::kLorenzoPrefix);
  DeviceDecodeJob j = job;
  j.header = &inner;
  find_pipeline("lorenzo").decompress_device(j);
}

class InterpPipeline final : public Pipeline {
 public:
  InterpPipeline(const char* name, std::optional<stages::Chain> preset) : name_(name), preset_(std::move(preset)) {}

  const char* name() const override { return name_; }

  void check_options(const CompressOptions& opt) const override {
    (void)tune_request(opt, interp_codes::plan_of(opt, preset_));
  }

  void compress(const CompressJob& job, std::vector<uint8_t>& params, std::vector<SectionIn>& sections) const override {
    const interp_codes::Plan plan = interp_codes::plan_of(job.opt, preset_);
    with_type(job.dtype, [&]<class T>() { compress_typed<T>(job, plan, params, sections); });
  }

  void decompress(const DecompressJob& job) const override {
    if (interp_params::predictor_of(job.chunk->header.params) == interp_params::kLorenzo)
      return decompress_lorenzo(job);
    with_type(job.chunk->header.dtype, [&]<class T>() { decompress_typed<T>(job); });
  }

  void compress_device(const CompressJob& job, DeviceChunkOut& out) const override {
    const interp_codes::Plan plan = interp_codes::plan_of(job.opt, preset_);
    with_type(job.dtype, [&]<class T>() { compress_device_typed<T>(job, plan, out); });
  }

  void decompress_device(const DeviceDecodeJob& job) const override {
    if (interp_params::predictor_of(job.header->params) == interp_params::kLorenzo)
      return decompress_device_lorenzo(job);
    with_type(job.header->dtype, [&]<class T>() { decompress_device_typed<T>(job); });
  }

  std::vector<std::pair<std::string, std::string>> describe(const std::vector<uint8_t>& params,
                                                            uint16_t version) const override {
    if (interp_params::predictor_of(params) == interp_params::kLorenzo) {
      const std::vector<uint8_t> inner(params.begin() + interp_params::kLorenzoPrefix, params.end());
      auto d = find_pipeline("lorenzo").describe(inner, version);
      d.insert(d.begin(), {"predictor", "lorenzo (estimated smaller than interpolation on sampled blocks)"});
      return d;
    }
    return interp_params::describe_interp(params);
  }

 private:
  const char* name_;
  std::optional<stages::Chain> preset_;
};

}  // namespace

std::unique_ptr<Pipeline> make_interp_pipeline(const char* name) {
  return std::make_unique<InterpPipeline>(name, stages::preset_chain(name));
}

}  // namespace sciz
