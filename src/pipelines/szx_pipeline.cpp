// `szx` = the SZx block codec (src/predict/szx, format in docs/SZX.md) over the flattened
// field: params are the block size and layout, sections 1..6 the codec's sections (layout 2
// has no section 2). Composition only.
#include <sciz/error.hpp>

#include "core/device.hpp"
#include "core/exact_runs_cuda.hpp"
#include "core/trace.hpp"
#include "pipelines/pipeline.hpp"
#include "pipelines/staging.hpp"
#include "predict/szx/szx.hpp"

namespace sciz {
namespace {

enum Section : uint32_t { kKinds = 1, kMus, kMidCounts, kCodes, kMid, kExact };

template <class T>
void compress_typed(const CompressJob& job, std::vector<uint8_t>& params, std::vector<SectionIn>& sections) {
  const uint64_t n = job.shape.count();
  cudaStream_t s = job.opt.stream;
  szx::Encoded enc;
  if (job.device == Device::cpu) {
    std::vector<T> staged;
    const T* x = staging::input_on_host(job, n, staged);
    TracePhase t("szx encode (cpu)");
    enc = szx::encode_cpu<T>(x, n, job.eb_abs, job.opt.szx_block);
  } else {
    dev::Buffer<T> staged;
    const T* dx = staging::input_on_device(job, n, staged);
    TracePhase t("szx encode (cuda)", true, s);
    enc = szx::encode_cuda<T>(dx, n, job.eb_abs, job.opt.szx_block, s);
  }
  params = szx::write_params({enc.block, enc.layout});
  sections.push_back({kKinds, std::move(enc.kinds)});
  if (enc.layout == szx::kLayout1) sections.push_back({kMus, std::move(enc.mus)});
  sections.push_back({kMidCounts, std::move(enc.mid_counts)});
  sections.push_back({kCodes, std::move(enc.codes)});
  sections.push_back({kMid, std::move(enc.mid)});
  sections.push_back({kExact, std::move(enc.exact)});
}

// Device in, device sections out: nothing but sizes (and any exact values) crosses to the host.
template <class T>
void compress_device_typed(const CompressJob& job, DeviceChunkOut& out) {
  const uint64_t n = job.shape.count();
  cudaStream_t s = job.opt.stream;
  szx::DeviceEncoded<T> d;
  {
    TracePhase t("szx encode (cuda, device sections)", true, s);
    d = szx::encode_device<T>(static_cast<const T*>(job.data), n, job.eb_abs, job.opt.szx_block, s, job.range);
  }
  out.range_folded = d.range_folded;
  out.params = szx::write_params({d.block, szx::kLayout2});
  runs::DeviceBlob exact = runs::write_device<T>(d.exact_idx.get(), d.exact_val.get(), d.exact_count, s);
  out.add(kKinds, std::move(d.kinds), d.nblocks);
  out.add(kMidCounts, std::move(d.mid_counts), 2 * d.nonconstant);
  out.add(kCodes, std::move(d.codes), d.code_bytes);
  out.add(kMid, std::move(d.mid), d.mid_bytes);
  out.add(kExact, std::move(exact.bytes), exact.size);
}

template <class T>
void decompress_typed(const DecompressJob& job) {
  const ParsedChunk& ps = *job.chunk;
  const uint64_t n = ps.header.shape.count();
  szx::Sections sec;
  const szx::Params p = szx::read_params(ps.header.params);
  sec.block = p.block;
  sec.layout = p.layout;
  sec.kinds = ps.section(kKinds, "szx block kinds").bytes;
  if (p.layout == szx::kLayout1)
    sec.mus = ps.section(kMus, "szx block means").bytes;
  else if (const SectionView* m = ps.find(kMus))
    sec.mus = m->bytes;  // layout 2 has none: any bytes here are refused by the codec
  sec.mid_counts = ps.section(kMidCounts, "szx mid-byte counts").bytes;
  sec.codes = ps.section(kCodes, "szx leading-byte codes").bytes;
  sec.mid = ps.section(kMid, "szx mid-bytes").bytes;
  sec.exact = ps.section(kExact, "szx exact values").bytes;
  staging::decode_to_output<T>(
      job, n, "szx decode (cpu)", [&](T* out) { szx::decode_cpu<T>(sec, n, out); }, "szx decode (cuda)",
      [&](T* out) { szx::decode_cuda<T>(sec, n, out, job.cuda_stream); });
}

template <class T>
void decompress_device_typed(const DeviceDecodeJob& job) {
  const Header& h = *job.header;
  szx::DeviceSectionsIn sec;
  const szx::Params p = szx::read_params(h.params);
  sec.block = p.block;
  sec.layout = p.layout;
  sec.kinds = job.section(kKinds, "szx block kinds");
  if (p.layout == szx::kLayout1) sec.mus = job.section(kMus, "szx block means");
  sec.mid_counts = job.section(kMidCounts, "szx mid-byte counts");
  sec.codes = job.section(kCodes, "szx leading-byte codes");
  sec.mid = job.section(kMid, "szx mid-bytes");
  sec.exact = job.section(kExact, "szx exact values");
  szx::decode_device_sections<T>(sec, h.shape.count(), static_cast<T*>(job.d_out), job.st, job.s);
}

class SzxPipeline final : public Pipeline {
 public:
  const char* name() const override { return "szx"; }


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
    const szx::Params p = szx::read_params(params);
    return {{"block", std::to_string(p.block)},
            {"layout", p.layout == szx::kLayout1 ? "1 (byte-truncated, full-width means)"
                                                 : "2 (bit-aligned, short bases)"}};
  }
};

}  // namespace

std::unique_ptr<Pipeline> make_szx_pipeline() { return std::make_unique<SzxPipeline>(); }

}  // namespace sciz
