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

// Device memory for sciz's temporaries and for the outputs it allocates, for callers that
// manage device memory themselves (CuPy, PyTorch, RMM pools). Calls are ordered on `s`, the
// call's CUDA stream; deallocate gets the size allocate was asked for. Without one, sciz uses
// the device's stream-ordered pool (cudaMallocAsync), kept warm across calls.
struct DeviceAllocator {
  void* (*allocate)(void* ctx, uint64_t bytes, CUstream_st* s) = nullptr;
  void (*deallocate)(void* ctx, void* p, uint64_t bytes, CUstream_st* s) = nullptr;
  void* ctx = nullptr;
};

struct FieldView {
  const void* data = nullptr;
  DType dtype = DType::f32;
  Shape shape;
  bool on_device = false;  // data is a CUDA device pointer
};

// The default chunk size, measured on an H100 (docs/PERF_NOTES.md, "Chunk size"): larger
// chunks cut the device path's per-chunk costs (64 -> 128 MiB: delta 356 -> 417 GB/s,
// lorenzo 117 -> 126 on 500 MB) at no cost in ratio; smaller ones give finer random access,
// more workers under a memory cap and more chunks to spread over GPUs.
inline constexpr double kDefaultChunkMiB = 128;

struct CompressOptions {
  ErrorBound eb;
  std::string pipeline = "lorenzo";
  Device device = Device::auto_select;
  int32_t radius = 512;  // lorenzo: quant codes span [0, 2 radius); 1..32768
  Lossless lossless = Lossless::auto_select;  // lorenzo, interp: stage for the quant codes
  // lorenzo, interp: a stage list for the quant codes instead (docs/LOSSLESS.md, "Stages and
  // chains"), e.g. "huffman,rre4,tcms8,rze1", or a named list ("interp-cr", "interp-tp"): a
  // codes stage first (or none), then byte stages. Empty: the one stage `lossless` names
  // (interp's auto: per chunk the smallest of a few lists, docs/INTERP.md). Give one of them.
  // The pipelines interp-cr and interp-tp code with their own list and take no other.
  std::string stages;
  DeltaChain delta_chain = DeltaChain::auto_select;  // delta: chain order (types.hpp)
  // interp: spline and scheme of every level (auto: tuned per level), and the level-wise
  // bounds eb_l = eb / min(alpha^(l-1), beta) of QoZ (l = 1 the finest level): interp_alpha 0
  // tunes alpha and beta, 1 keeps every level at eb; interp_beta >= 1 caps the tightening.
  InterpSpline interp_spline = InterpSpline::auto_select;
  InterpScheme interp_scheme = InterpScheme::auto_select;
  double interp_alpha = 0;
  double interp_beta = 4;
  // interp: a chunk whose sampled blocks the tuner estimates smaller under first-order Lorenzo
  // (rough data, e.g. along a time or particle axis) is coded by the lorenzo pipeline inside
  // the interp stream; false keeps the interpolation everywhere.
  bool interp_lorenzo = true;
  uint32_t szx_block = 128;  // szx: values per block, a multiple of 32 in 32..4096
  // MiB of input per chunk, cut along the slowest axis (dims[0]); <= 0: the whole field in
  // one chunk. Fields up to 1.5 chunks are one chunk. The stream depends on it (and on
  // nothing about the machine: device kind or count, threads, memory cap).
  double chunk_mb = kDefaultChunkMiB;
  Stream stream = nullptr;  // CUDA stream the call's work is ordered on
  // GPU work from host memory: device memory sciz may hold at once, per device (0: what the
  // device has free). Below the field's size, chunks stream through the GPU.
  uint64_t gpu_memory = 0;
  // CUDA devices to spread chunks over (empty: the current device). The stream is the same.
  std::vector<int> devices;
  const DeviceAllocator* allocator = nullptr;
};

// Decoded bytes a decompress call accepts by default (DecompressOptions::max_output): far above
// any field a machine holds today, far below the 2 PiB a 32-byte header can claim (2^48
// doubles). For streams from untrusted sources, set it to what you are prepared to receive.
inline constexpr uint64_t kDefaultMaxOutput = uint64_t(1) << 40;  // 1 TiB

// Options of decompress() beyond the output: where to decode, and the GPU resources it may use.
struct DecompressOptions {
  Device device = Device::auto_select;
  bool out_on_device = false;  // out is a CUDA device pointer
  Stream stream = nullptr;
  uint64_t gpu_memory = 0;     // as CompressOptions::gpu_memory
  std::vector<int> devices;    // as CompressOptions::devices
  const DeviceAllocator* allocator = nullptr;
  // The most bytes the call may decode: the output asked for, and each chunk decoded whole to
  // serve it (a row range decodes the chunks it cuts whole, into scratch). A stream declaring
  // more is refused with invalid_argument from its header alone, before anything is allocated
  // or decoded (a small stream can legitimately declare a huge field: a constant one).
  // 0: no limit.
  uint64_t max_output = kDefaultMaxOutput;
};

// A stream's bytes in host memory or (on_device) in device memory.
struct StreamView {
  const void* data = nullptr;
  uint64_t size = 0;
  bool on_device = false;
  StreamView() = default;
  StreamView(const void* d, uint64_t n, bool dev = false) : data(d), size(n), on_device(dev) {}
  StreamView(std::span<const uint8_t> s) : data(s.data()), size(s.size()) {}
  StreamView(const std::vector<uint8_t>& v) : data(v.data()), size(v.size()) {}
};

// Device memory sciz allocated (from the call's allocator, else its pool): released on the
// stream it was allocated on when destroyed.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(void* p, uint64_t capacity, uint64_t size, int device, Stream s, const DeviceAllocator* a)
      : p_(p), capacity_(capacity), size_(size), device_(device), s_(s), alloc_(a ? *a : DeviceAllocator{}) {}
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return p_; }
  uint64_t size() const { return size_; }          // bytes of the stream
  uint64_t capacity() const { return capacity_; }  // bytes allocated
  int device() const { return device_; }
  StreamView view() const { return {p_, size_, true}; }
  void* release();  // the caller owns the memory from now on (free it with the same allocator)

 private:
  void* p_ = nullptr;
  uint64_t capacity_ = 0, size_ = 0;
  int device_ = 0;
  Stream s_ = nullptr;
  DeviceAllocator alloc_;
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
int cuda_device_count();  // CUDA devices this process can use (0 without a usable one)
Device resolve_device(Device requested);  // auto -> cuda when a GPU is usable, else cpu
std::vector<std::string> pipelines();

// sciz keeps some memory between calls so that the next call does not pay to allocate it
// again: pinned host staging (2 x 32 MiB per GPU, for pageable host fields), small pinned
// read-back blocks, and the idle blocks of each GPU's memory pool. This hands all of it back
// (to the OS and the driver) once work already queued on it is done; later calls allocate
// afresh. Safe to call at any time from any thread; a no-op without CUDA.
void release_cached_memory();

// Upper bound on compress()'s output for any input of this type and shape (every chunk that
// a pipeline would expand is stored verbatim instead).
uint64_t max_compressed_size(DType dtype, const Shape& shape, const std::string& pipeline = "lorenzo",
                             double chunk_mb = CompressOptions{}.chunk_mb);

std::vector<uint8_t> compress(const FieldView& field, const CompressOptions& opt);

// Compresses into out[0, capacity): host memory, or device memory when out_on_device. With the
// field on the device too, no field-sized data crosses PCIe and all work is ordered on
// opt.stream (docs/API.md lists the host synchronizations that remain). Returns the stream's
// size; a smaller capacity throws Error(buffer_too_small) naming the size needed
// (max_compressed_size() always suffices). Throws invalid_argument when a pointer said to be
// device memory is not.
uint64_t compress_into(const FieldView& field, void* out, uint64_t capacity, bool out_on_device,
                       const CompressOptions& opt);
// The same into device memory sciz allocates (opt.allocator, else its pool).
DeviceBuffer compress_to_device(const FieldView& field, const CompressOptions& opt);

// Decodes into `out` (out_bytes must equal the field's size exactly). Validates every length,
// offset and checksum before use; throws Error on any problem and leaves `out` untouched then
// only if the failure is found before decoding starts (always, for damaged streams).
void decompress(std::span<const uint8_t> stream, void* out, uint64_t out_bytes, Device device = Device::auto_select,
                bool out_on_device = false, Stream cuda_stream = nullptr);

// Any stream (host or device memory) into any output (opt.out_on_device). Device stream into a
// device output: no field-sized data crosses PCIe; checksums and section contents are checked
// on the device before anything is written to out.
void decompress(const StreamView& stream, void* out, uint64_t out_bytes, const DecompressOptions& opt);

// Decodes rows [row_begin, row_end) of the slowest axis into `out` (out_bytes must equal their
// size exactly), reading and checking only the chunks that hold them.
void decompress_rows(std::span<const uint8_t> stream, uint64_t row_begin, uint64_t row_end, void* out,
                     uint64_t out_bytes, Device device = Device::auto_select, bool out_on_device = false,
                     Stream cuda_stream = nullptr);

void decompress_rows(const StreamView& stream, uint64_t row_begin, uint64_t row_end, void* out,
                     uint64_t out_bytes, const DecompressOptions& opt);

// Checks and describes a stream. In host memory, every checksum is verified; in device memory,
// the header, chunk index and chunk headers are read back and checked, and the sections'
// checksums are checked when the stream is decoded.
StreamInfo inspect(const StreamView& stream);

}  // namespace sciz
