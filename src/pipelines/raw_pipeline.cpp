// `raw` = the field's bytes as they are. The API falls back to it whenever a pipeline would
// expand the data, so no stream is ever larger than the input plus its header (cuSZp's
// output-buffer overflow on incompressible data cannot happen here).
#include <sciz/error.hpp>

#include <cstring>

#include "core/device.hpp"
#include "pipelines/pipeline.hpp"

namespace sciz {
namespace {

constexpr uint32_t kValues = 1;

class RawPipeline final : public Pipeline {
 public:
  const char* name() const override { return "raw"; }


  void compress(const CompressJob& job, std::vector<uint8_t>& params, std::vector<SectionIn>& sections) const override {
    const uint64_t bytes = job.shape.count() * dtype_size(job.dtype);
    std::vector<uint8_t> v(bytes);
    if (job.on_device) {
      dev::copy_to_host(v.data(), job.data, bytes, job.opt.stream);
      dev::sync(job.opt.stream);
    } else {
      std::memcpy(v.data(), job.data, bytes);
    }
    params.clear();
    sections.push_back({kValues, std::move(v)});
  }

  void decompress(const DecompressJob& job) const override {
    const Header& h = job.chunk->header;
    SCIZ_REQUIRE(h.params.empty(), Status::corrupt_stream, "raw: unexpected params");
    const auto& sec = job.chunk->section(kValues, "values");
    const uint64_t bytes = h.shape.count() * dtype_size(h.dtype);
    SCIZ_REQUIRE(sec.bytes.size() == bytes, Status::corrupt_stream,
            "raw: values section holds " + std::to_string(sec.bytes.size()) + " bytes, field needs " + std::to_string(bytes));
    if (job.out_on_device) {
      dev::copy_to_device(job.out, sec.bytes.data(), bytes, job.cuda_stream);
      dev::sync(job.cuda_stream);
    } else {
      std::memcpy(job.out, sec.bytes.data(), bytes);
    }
  }

  void decompress_device(const DeviceDecodeJob& job) const override {
    const Header& h = *job.header;
    SCIZ_REQUIRE(h.params.empty(), Status::corrupt_stream, "raw: unexpected params");
    const DeviceSpan sec = job.section(kValues, "values");
    const uint64_t bytes = h.shape.count() * dtype_size(h.dtype);
    SCIZ_REQUIRE(sec.size == bytes, Status::corrupt_stream,
                 "raw: values section holds " + std::to_string(sec.size) + " bytes, field needs " + std::to_string(bytes));
    devstream::copy_if_ok(job.d_out, sec.data, bytes, job.st, job.s);
  }

  std::vector<std::pair<std::string, std::string>> describe(const std::vector<uint8_t>&, uint16_t) const override {
    return {{"values", "stored verbatim (compression would have expanded the data)"}};
  }
};

}  // namespace

std::unique_ptr<Pipeline> make_raw_pipeline() { return std::make_unique<RawPipeline>(); }

}  // namespace sciz
