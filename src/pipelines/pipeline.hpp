// A pipeline composes one predictor with lossless stages and names the stream sections they
// fill. Pipelines hold no kernels: they choose, order and move data between stages.
#pragma once
#include <sciz/sciz.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/container.hpp"
#include "core/geometry.hpp"

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
};

struct DecompressJob {
  const ParsedChunk* chunk;  // its header holds the chunk's shape, pipeline and params
  Extent extent;
  void* out;
  bool out_on_device;
  Device device;
  Stream cuda_stream;
};

class Pipeline {
 public:
  virtual ~Pipeline() = default;
  virtual const char* name() const = 0;
  virtual uint64_t max_compressed_bytes(DType dtype, const Shape& shape) const = 0;
  virtual void compress(const CompressJob& job, std::vector<uint8_t>& params, std::vector<SectionIn>& sections) const = 0;
  virtual void decompress(const DecompressJob& job) const = 0;
  virtual std::vector<std::pair<std::string, std::string>> describe(const std::vector<uint8_t>& params) const = 0;
};

const Pipeline& find_pipeline(const std::string& name);  // throws invalid_argument naming it
std::vector<std::string> pipeline_names();

std::unique_ptr<Pipeline> make_lorenzo_pipeline();
std::unique_ptr<Pipeline> make_raw_pipeline();
std::unique_ptr<Pipeline> make_szx_pipeline();
std::unique_ptr<Pipeline> make_delta_pipeline();

// Generous bound on magic + header + section table of any stream we write.
inline constexpr uint64_t kMaxHeaderBytes = 4096;

}  // namespace sciz
