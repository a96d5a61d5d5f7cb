// `delta` = the AATROX hierarchical delta codec (src/predict/delta, format in docs/DELTA.md):
// params are the chain (serpentine over rows of the fastest extent for 2-D to 4-D fields,
// linear for 1-D), sections 1..4 the codec's four sections. Composition only.
#include <sciz/error.hpp>

#include "core/device.hpp"
#include "core/exact_runs_cuda.hpp"
#include "core/trace.hpp"
#include "pipelines/pipeline.hpp"
#include "pipelines/staging.hpp"
#include "predict/delta/delta.hpp"

namespace sciz {
namespace {

enum Section : uint32_t { kWidths = 1, kInitial, kPayload, kExact };

// The row length handed to the codec (0: linear). auto: serpentine on rows of <= 128 values
// (measured on ../shared/data: x1.03-1.61 on rows of 38-100, within 1 % from 128 up, so the
// GPU speed it costs buys nothing there).
uint64_t chain_row(DeltaChain c, const Shape& shape) {
  const uint64_t row = shape.dims.back();
  if (shape.dims.size() < 2 || c == DeltaChain::linear) return 0;
  if (c == DeltaChain::auto_select && row > 128) return 0;
  return row;  // (chain_for still keeps one-row fields linear)
}

template <class T>
void compress_typed(const CompressJob& job, std::vector<uint8_t>& params, std::vector<SectionIn>& sections) {
  const uint64_t n = job.shape.count();
  const uint64_t row = chain_row(job.opt.delta_chain, job.shape);
  cudaStream_t s = job.opt.stream;
  delta::Encoded enc;
  if (job.device == Device::cpu) {
    std::vector<T> staged;
    const T* x = staging::input_on_host(job, n, staged);
    TracePhase t("delta encode (cpu)");
    enc = delta::encode_cpu<T>(x, n, job.eb_abs, nullptr, row);
  } else {
    dev::Buffer<T> staged;
    const T* dx = staging::input_on_device(job, n, staged);
    TracePhase t("delta encode (cuda)", true, s);
    enc = delta::encode_cuda<T>(dx, n, job.eb_abs, s, nullptr, row);
  }
  params = delta::write_params(enc.mode, enc.row);
  sections.push_back({kWidths, std::move(enc.widths)});
  sections.push_back({kInitial, std::move(enc.initial)});
  sections.push_back({kPayload, std::move(enc.payload)});
  sections.push_back({kExact, std::move(enc.exact)});
}

// Device in, device sections out: nothing but sizes (and any exact values) crosses to the host.
template <class T>
void compress_device_typed(const CompressJob& job, DeviceChunkOut& out) {
  const uint64_t n = job.shape.count();
  const uint64_t row = chain_row(job.opt.delta_chain, job.shape);
  cudaStream_t s = job.opt.stream;
  delta::DeviceEncoded<T> d;
  {
    TracePhase t("delta encode (cuda, device sections)", true, s);
    d = delta::encode_device<T>(static_cast<const T*>(job.data), n, job.eb_abs, s, row, job.range);
  }
  out.range_folded = job.range != nullptr;
  out.params = delta::write_params(d.mode, d.row);
  runs::DeviceBlob exact = runs::write_device<T>(d.exact_idx.get(), d.exact_val.get(), d.exact_count, s);
  out.add(kWidths, std::move(d.widths), delta::group_count(n));
  out.add(kInitial, std::move(d.initial), 4 * delta::layer_count(n));
  out.add(kPayload, std::move(d.payload), d.payload_bytes);
  out.add(kExact, std::move(exact.bytes), exact.size);
}

template <class T>
void decompress_typed(const DecompressJob& job) {
  const ParsedChunk& ps = *job.chunk;
  const uint64_t n = ps.header.shape.count();
  const double eb = ps.header.eb_abs;
  delta::Sections sec;
  const delta::Chain chain = delta::read_params(ps.header.params);
  sec.mode = chain.mode;
  sec.row = chain.row;
  sec.widths = ps.section(kWidths, "delta widths").bytes;
  sec.initial = ps.section(kInitial, "delta initial values").bytes;
  sec.payload = ps.section(kPayload, "delta payload").bytes;
  sec.exact = ps.section(kExact, "delta exact values").bytes;
  staging::decode_to_output<T>(
      job, n, "delta decode (cpu)", [&](T* out) { delta::decode_cpu<T>(sec, n, eb, out); }, "delta decode (cuda)",
      [&](T* out) { delta::decode_cuda<T>(sec, n, eb, out, job.cuda_stream); });
}

template <class T>
void decompress_device_typed(const DeviceDecodeJob& job) {
  const Header& h = *job.header;
  const delta::Chain chain = delta::read_params(h.params);
  delta::DeviceSectionsIn sec;
  sec.mode = chain.mode;
  sec.row = chain.row;
  sec.widths = job.section(kWidths, "delta widths");
  sec.initial = job.section(kInitial, "delta initial values");
  sec.payload = job.section(kPayload, "delta payload");
  sec.exact = job.section(kExact, "delta exact values");
  delta::decode_device_sections<T>(sec, h.shape.count(), h.eb_abs, static_cast<T*>(job.d_out), job.st, job.s);
}

class DeltaPipeline final : public Pipeline {
 public:
  const char* name() const override { return "delta"; }


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

  std::vector<std::pair<std::string, std::string>> describe(const std::vector<uint8_t>& params, uint16_t) const override {
    const delta::Chain c = delta::read_params(params);
    if (c.mode == delta::kModeLinear) return {{"chain", "linear per warp layer of 32768"}};
    return {{"chain", "serpentine over rows of " + std::to_string(c.row) + ", per warp layer of 32768"}};
  }
};

}  // namespace

std::unique_ptr<Pipeline> make_delta_pipeline() { return std::make_unique<DeltaPipeline>(); }

}  // namespace sciz
