// A pipeline composes one predictor with lossless stages and names the stream sections they
// fill. Pipelines hold no kernels: they choose, order and move data between stages.
#pragma once
#include <sciz/sciz.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/container.hpp"
#include "core/container_cuda.hpp"
#include "core/device.hpp"
#include "core/device_span.hpp"
#include "core/device_status.hpp"
#include "core/geometry.hpp"
#include "core/value_range.hpp"

namespace sciz {

struct CompressJob {  // one chunk of a field
  const void* data;  // host or device, see on_device
  bool on_device;
  DType dtype;
  Shape shape;
  Extent extent;
  double eb_abs;
  Device device;     // cpu or cuda, already resolved
  CompressOptions opt;
  // Device path under an absolute bound: the call's range words (core/value_range.hpp), into
  // which the chunk's finite range is folded. An encoder that folds what it reads says so in
  // DeviceChunkOut::range_folded; the engine folds the others' chunks by a pass of their own.
  RangeKeys* range = nullptr;
};

struct DecompressJob {
  const ParsedChunk* chunk;  // its header holds the chunk's shape, pipeline and params
  Extent extent;
  void* out;
  bool out_on_device;
  Device device;
  Stream cuda_stream;
};

// One chunk's sections left on the device by a GPU encoder.
struct DeviceChunkOut {
  std::vector<uint8_t> params;
  std::vector<devstream::Section> sections;   // views into `owned` (or into the job's input)
  std::vector<dev::Buffer<uint8_t>> owned;    // what holds them until the chunk is written
  bool range_folded = false;                  // the job's range words hold this chunk's values
  void add(uint32_t id, dev::Buffer<uint8_t> buf, uint64_t size) {
    sections.push_back({id, buf.get(), size});
    owned.push_back(std::move(buf));
  }
};

// A chunk whose sections lie on the device, decoded into device memory. The sections' bounds
// were checked on the host against the chunk header; their contents are checked by the
// pipeline's kernels, which report into st and write nothing once it holds a failure (the
// checksum kernels ran first, on the same stream).
struct DeviceDecodeJob {
  const Header* header;  // the chunk's: shape, pipeline, params
  std::vector<std::pair<uint32_t, DeviceSpan>> sections;
  Extent extent;
  void* d_out;
  DeviceStatus* st;
  cudaStream_t s;
  DeviceSpan section(uint32_t id, const char* name) const;  // throws corrupt_stream if absent
};

class Pipeline {
 public:
  virtual ~Pipeline() = default;
  virtual const char* name() const = 0;
  // Refuses options this pipeline cannot honour (invalid_argument naming them), before any
  // work. The default refuses a stage list: only pipelines that code quant codes record one.
  virtual void check_options(const CompressOptions& opt) const;
  virtual void compress(const CompressJob& job, std::vector<uint8_t>& params, std::vector<SectionIn>& sections) const = 0;
  virtual void decompress(const DecompressJob& job) const = 0;
  // The params of a stream of this format version, for display; throws as decoding would.
  virtual std::vector<std::pair<std::string, std::string>> describe(const std::vector<uint8_t>& params,
                                                                    uint16_t version) const = 0;
  // GPU path, device in: the chunk's sections left on the device (job.on_device, device cuda).
  // The default runs compress() and uploads its host sections: right for every pipeline, fast
  // only for those that override it.
  virtual void compress_device(const CompressJob& job, DeviceChunkOut& out) const;
  // GPU path, device stream: decodes into job.d_out. The default waits for the checksum
  // checks, copies the sections to the host and runs decompress() with a device output.
  virtual void decompress_device(const DeviceDecodeJob& job) const;
};

// Calls f.template operator()<float>() or <double>() by dtype: the pipelines' typed bodies are
// templates over the value type, their virtual entry points one line each.
template <class F>
void with_type(DType dtype, F&& f) {
  if (dtype == DType::f32)
    f.template operator()<float>();
  else
    f.template operator()<double>();
}

const Pipeline& find_pipeline(const std::string& name);  // throws invalid_argument naming it
std::vector<std::string> pipeline_names();

std::unique_ptr<Pipeline> make_lorenzo_pipeline();
std::unique_ptr<Pipeline> make_raw_pipeline();
std::unique_ptr<Pipeline> make_szx_pipeline();
std::unique_ptr<Pipeline> make_delta_pipeline();
// "interp" (per-chunk choice of stage list, or the caller's), "interp-cr", "interp-tp" (those lists).
std::unique_ptr<Pipeline> make_interp_pipeline(const char* name);


}  // namespace sciz
