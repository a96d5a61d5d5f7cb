// The sciz HDF5 filter: the two entry points HDF5's plugin loader looks for, and the filter
// class's callbacks. Every callback catches everything: an exception must never unwind into
// HDF5's C frames. Failures go onto HDF5's error stack with sciz's message.
#include <sciz/chunked.hpp>
#include <sciz/sciz.hpp>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "cd_values.hpp"
#include "hdf5_abi.hpp"
#include "hdf5_runtime.hpp"

namespace sciz::h5 {
namespace {

using namespace h5abi;

// Where chunks are coded: the CPU unless SCIZ_HDF5_DEVICE says otherwise. HDF5 chunks are
// small and come one at a time, and starting CUDA in every process that opens a file (h5dump,
// netCDF readers) would cost more than it saves.
Device filter_device() {
  const char* v = std::getenv("SCIZ_HDF5_DEVICE");
  return v && *v ? parse_device(v) : Device::cpu;
}

template <class F>
auto guarded(const Hdf5Api& api, const char* where, auto failed, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::exception& e) {
    api.report(where, std::string("sciz: ") + e.what());
  } catch (...) {
    api.report(where, "sciz: unknown error");
  }
  return failed;
}

FilterParams dataset_params(const Hdf5Api& api, hid_t dcpl, unsigned* flags_out = nullptr) {
  SCIZ_REQUIRE(api.has_dataset_calls(), Status::internal,
               "the sciz filter could not find the HDF5 functions it needs in " + api.library);
  unsigned flags = 0;
  size_t n = 64;
  unsigned cd[64] = {};
  SCIZ_REQUIRE(api.pget_filter_by_id2(dcpl, kFilterId, &flags, &n, cd, 0, nullptr, nullptr) >= 0,
               Status::invalid_argument, "the dataset's property list holds no sciz filter");
  SCIZ_REQUIRE(n <= 64, Status::invalid_argument, "sciz filter parameters of " + std::to_string(n) + " words (at most 64)");
  if (flags_out) *flags_out = flags;
  return parse_cd_values({cd, n});
}

// A wrong pipeline name or option would otherwise surface only when HDF5 flushes the first
// chunk, often at file close: compress a few values now so that creating the dataset fails.
void check_options_now(const FilterParams& p, DType dtype) {
  const double probe[64] = {};
  CompressOptions opt = compress_options(p);
  opt.device = Device::cpu;
  (void)compress({probe, dtype, Shape{{dtype == DType::f32 ? 128u : 64u}}}, opt);
}

htri_t can_apply(hid_t dcpl, hid_t type, hid_t) {
  const Hdf5Api& api = api_for_caller(__builtin_return_address(0));
  // A negative answer, not 0: h5py adds filters as optional, and an optional filter that
  // cannot apply is dropped silently, storing the data raw.
  return guarded(api, "sciz can_apply", htri_t{-1}, [&]() -> htri_t {
    (void)dataset_params(api, dcpl);  // refuses bad parameters when the dataset is created
    const int cls = api.tget_class(type);
    const size_t size = api.tget_size(type);
    const int order = api.tget_order(type);
    SCIZ_REQUIRE(cls == kClassFloat && (size == 4 || size == 8), Status::invalid_argument,
                 "the sciz filter compresses float32 and float64 datasets only (HDF5 type class " +
                     std::to_string(cls) + ", " + std::to_string(size) + " bytes)");
    SCIZ_REQUIRE(order == kOrderLittle, Status::invalid_argument,
                 "the sciz filter needs little-endian floats; this dataset's type is big-endian");
    return 1;
  });
}

herr_t set_local(hid_t dcpl, hid_t type, hid_t) {
  const Hdf5Api& api = api_for_caller(__builtin_return_address(0));
  return guarded(api, "sciz set_local", herr_t{-1}, [&]() -> herr_t {
    unsigned flags = 0;
    FilterParams p = dataset_params(api, dcpl, &flags);
    ChunkLayout c;
    c.dtype = api.tget_size(type) == 8 ? DType::f64 : DType::f32;
    hsize_t dims[kMaxChunkRank] = {};
    const int rank = api.pget_chunk(dcpl, static_cast<int>(kMaxChunkRank), dims);
    SCIZ_REQUIRE(rank >= 1 && rank <= static_cast<int>(kMaxChunkRank), Status::invalid_argument,
                 "the sciz filter needs a chunked dataset");
    c.dims.assign(dims, dims + rank);
    (void)sciz_shape(c.dims);  // refuses a chunk sciz cannot code now, not at the first write
    check_options_now(p, c.dtype);
    p.chunk = std::move(c);
    const std::vector<unsigned> cd = encode_cd_values(p);
    // Mandatory: a chunk the filter fails on must fail the write, never be stored raw.
    SCIZ_REQUIRE(api.pmodify_filter(dcpl, kFilterId, flags & ~kFlagOptional, cd.size(), cd.data()) >= 0,
                 Status::internal, "HDF5 refused the sciz filter's dataset parameters");
    return 0;
  });
}

// Swaps HDF5's buffer for `bytes` (copied into memory from the same allocator).
size_t hand_back(const Hdf5Api& api, const void* bytes, size_t n, size_t* buf_size, void** buf) {
  void* out = api.allocate(n);
  SCIZ_REQUIRE(out != nullptr, Status::internal, "out of memory for a " + std::to_string(n) + "-byte chunk");
  std::memcpy(out, bytes, n);
  api.release(*buf);
  *buf = out;
  *buf_size = n;
  return n;
}

size_t encode(const Hdf5Api& api, const FilterParams& p, size_t nbytes, size_t* buf_size, void** buf) {
  SCIZ_REQUIRE(p.chunk.has_value(), Status::invalid_argument,
               "sciz filter parameters lack the chunk layout that set_local records");
  const Shape shape = sciz_shape(p.chunk->dims);
  const uint64_t expect = shape.count() * dtype_size(p.chunk->dtype);
  SCIZ_REQUIRE(nbytes == expect, Status::invalid_argument,
               "a chunk of " + std::to_string(nbytes) + " bytes where the layout says " + std::to_string(expect));
  CompressOptions opt = compress_options(p);
  opt.device = filter_device();
  const std::vector<uint8_t> s = compress({*buf, p.chunk->dtype, shape}, opt);
  return hand_back(api, s.data(), s.size(), buf_size, buf);
}

size_t decode(const Hdf5Api& api, const FilterParams& p, size_t nbytes, size_t* buf_size, void** buf) {
  const std::span<const uint8_t> s(static_cast<const uint8_t*>(*buf), nbytes);
  const ChunkedDecompressor head(s, nbytes);  // checks the header before anything is sized from it
  const uint64_t out_bytes = head.shape().count() * dtype_size(head.dtype());
  if (p.chunk) {
    const uint64_t expect = sciz_shape(p.chunk->dims).count() * dtype_size(p.chunk->dtype);
    SCIZ_REQUIRE(out_bytes == expect, Status::corrupt_stream,
                 "a stored chunk decodes to " + std::to_string(out_bytes) + " bytes, the dataset's chunk holds " +
                     std::to_string(expect));
  }
  void* out = api.allocate(out_bytes);
  SCIZ_REQUIRE(out != nullptr, Status::internal, "out of memory for a " + std::to_string(out_bytes) + "-byte chunk");
  try {
    decompress(s, out, out_bytes, filter_device());
  } catch (...) {
    api.release(out);  // HDF5's buffer is untouched: the read fails cleanly
    throw;
  }
  api.release(*buf);
  *buf = out;
  *buf_size = out_bytes;
  return out_bytes;
}

size_t filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes, size_t* buf_size, void** buf) {
  const Hdf5Api& api = api_for_caller(__builtin_return_address(0));
  return guarded(api, (flags & kFlagReverse) ? "sciz decode" : "sciz encode", size_t{0}, [&]() -> size_t {
    SCIZ_REQUIRE(buf && *buf && buf_size, Status::invalid_argument, "HDF5 passed no chunk buffer");
    const FilterParams p = parse_cd_values({cd_values, cd_nelmts});
    return (flags & kFlagReverse) ? decode(api, p, nbytes, buf_size, buf) : encode(api, p, nbytes, buf_size, buf);
  });
}

const FilterClass kClass{kClassVersion, kFilterId, 1, 1,
                         "sciz: error-bounded lossy compression of float32/float64 (sciz HDF5 filter)",
                         can_apply, set_local, filter};

}  // namespace
}  // namespace sciz::h5

extern "C" {
__attribute__((visibility("default"))) int H5PLget_plugin_type() { return sciz::h5abi::kPluginTypeFilter; }
__attribute__((visibility("default"))) const void* H5PLget_plugin_info() { return &sciz::h5::kClass; }
}
