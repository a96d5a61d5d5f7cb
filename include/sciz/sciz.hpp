// sciz public C++ API: error-bounded lossy compression of float32/float64 fields, 1-4 D,
// on the CPU or a CUDA GPU, into one self-describing stream either side decodes.
#pragma once
#include <sciz/error.hpp>
#include <sciz/types.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

struct CUstream_st;

namespace sciz {

using Stream = CUstream_st*;  // a cudaStream_t; nullptr is the default stream

struct FieldView {
  const void* data = nullptr;
  DType dtype = DType::f32;
  Shape shape;
  bool on_device = false;  // data is a CUDA device pointer
};

struct CompressOptions {
  ErrorBound eb;
  std::string pipeline = "lorenzo";
  Device device = Device::auto_select;
  int32_t radius = 512;  // lorenzo: quant codes span [0, 2 radius); 1..32768
  Lossless lossless = Lossless::auto_select;  // lorenzo: stage for the quant codes
  DeltaChain delta_chain = DeltaChain::auto_select;  // delta: chain order (types.hpp)
  uint32_t szx_block = 128;  // szx: values per block, a multiple of 32 in 32..4096
  // MiB of input per chunk, cut along the slowest axis (dims[0]); <= 0: the whole field in
  // one chunk. Fields up to 1.5 chunks are one chunk. The stream depends on it (and on
  // nothing about the machine: device kind or count, threads, memory cap).
  double chunk_mb = 64;
  Stream stream = nullptr;  // CUDA stream the call's work is ordered on
  // GPU work from host memory: device memory sciz may hold at once, per device (0: what the
  // device has free). Below the field's size, chunks stream through the GPU.
  uint64_t gpu_memory = 0;
  // CUDA devices to spread chunks over (empty: the current device). The stream is the same.
  std::vector<int> devices;
};

// Options of decompress() beyond the output: where to decode, and the GPU resources it may use.
struct DecompressOptions {
  Device device = Device::auto_select;
  bool out_on_device = false;  // out is a CUDA device pointer
  Stream stream = nullptr;
  uint64_t gpu_memory = 0;     // as CompressOptions::gpu_memory
  std::vector<int> devices;    // as CompressOptions::devices
};

struct ChunkInfo {
  uint64_t row0, rows;      // rows [row0, row0 + rows) of the slowest axis
  uint64_t offset, length;  // the chunk's bytes in the stream
  std::string pipeline;     // the pipeline that encoded it ("raw" where that would have expanded it)
};

struct SectionInfo {
  uint32_t id;
  uint64_t offset, length, checksum;
};

struct StreamInfo {
  uint16_t version;
  DType dtype;
  Shape shape;
  EbMode eb_mode;
  double eb_value, eb_abs, value_min, value_max;
  uint64_t nonfinite;
  std::string pipeline;
  std::vector<std::pair<std::string, std::string>> params;  // first chunk's, decoded, for display
  std::vector<SectionInfo> sections;                        // first chunk's; offsets in the stream
  uint64_t stream_bytes;
  uint64_t rows_per_chunk;
  std::vector<ChunkInfo> chunks;  // one for streams of format versions 1 to 3
  uint64_t original_bytes() const { return shape.count() * dtype_size(dtype); }
};

bool cuda_available();
Device resolve_device(Device requested);  // auto -> cuda when a GPU is usable, else cpu
std::vector<std::string> pipelines();

// Upper bound on compress()'s output for any input of this type and shape (every chunk that
// a pipeline would expand is stored verbatim instead).
uint64_t max_compressed_size(DType dtype, const Shape& shape, const std::string& pipeline = "lorenzo",
                             double chunk_mb = CompressOptions{}.chunk_mb);

std::vector<uint8_t> compress(const FieldView& field, const CompressOptions& opt);

// Decodes into `out` (out_bytes must equal the field's size exactly). Validates every length,
// offset and checksum before use; throws Error on any problem and leaves `out` untouched then
// only if the failure is found before decoding starts (always, for damaged streams).
void decompress(std::span<const uint8_t> stream, void* out, uint64_t out_bytes, Device device = Device::auto_select,
                bool out_on_device = false, Stream cuda_stream = nullptr);

void decompress(std::span<const uint8_t> stream, void* out, uint64_t out_bytes, const DecompressOptions& opt);

// Decodes rows [row_begin, row_end) of the slowest axis into `out` (out_bytes must equal their
// size exactly), reading and checking only the chunks that hold them.
void decompress_rows(std::span<const uint8_t> stream, uint64_t row_begin, uint64_t row_end, void* out,
                     uint64_t out_bytes, Device device = Device::auto_select, bool out_on_device = false,
                     Stream cuda_stream = nullptr);

void decompress_rows(std::span<const uint8_t> stream, uint64_t row_begin, uint64_t row_end, void* out,
                     uint64_t out_bytes, const DecompressOptions& opt);

StreamInfo inspect(std::span<const uint8_t> stream);

}  // namespace sciz
