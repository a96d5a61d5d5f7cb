// C API over the C++ one: exceptions become status codes plus a per-thread message.
#include <sciz/sciz.h>
#include <sciz/sciz.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace {

// The C calls have no options: the caller's buffer is what it accepts, and at least the C++
// default (a C caller could not raise the limit for a field above it).
uint64_t limit_for(uint64_t out_bytes) { return std::max(sciz::kDefaultMaxOutput, out_bytes); }

thread_local std::string g_last_error;

sciz::Shape make_shape(const uint64_t* dims, int ndims) {
  SCIZ_REQUIRE(dims != nullptr && ndims >= 1 && ndims <= 4, sciz::Status::invalid_argument,
                "ndims must be 1..4, got " + std::to_string(ndims));
  return sciz::Shape{std::vector<uint64_t>(dims, dims + ndims)};
}

template <class F>
sciz_status guarded(F&& f) {
  try {
    f();
    g_last_error.clear();
    return SCIZ_OK;
  } catch (const sciz::Error& e) {
    g_last_error = e.what();
    return static_cast<sciz_status>(e.status());
  } catch (const std::bad_alloc&) {
    g_last_error = "out of host memory";
    return SCIZ_INTERNAL;
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return SCIZ_INTERNAL;
  }
}
}  // namespace

extern "C" {

uint64_t sciz_max_compressed_size(sciz_dtype dtype, const uint64_t* dims, int ndims) {
  uint64_t r = 0;
  guarded([&] { r = sciz::max_compressed_size(static_cast<sciz::DType>(dtype), make_shape(dims, ndims)); });
  return r;
}

// The C allocator's calls behind the C++ one: same ctx, the stream passed through as void*.
struct CAllocator {
  sciz::DeviceAllocator a;
  explicit CAllocator(const sciz_allocator* c) {
    if (!c) return;
    SCIZ_REQUIRE(c->allocate && c->deallocate, sciz::Status::invalid_argument,
                 "allocator lacks allocate or deallocate");
    a.ctx = const_cast<sciz_allocator*>(c);
    a.allocate = [](void* ctx, uint64_t bytes, CUstream_st* s) {
      auto* c = static_cast<sciz_allocator*>(ctx);
      return c->allocate(c->ctx, bytes, s);
    };
    a.deallocate = [](void* ctx, void* p, uint64_t bytes, CUstream_st* s) {
      auto* c = static_cast<sciz_allocator*>(ctx);
      c->deallocate(c->ctx, p, bytes, s);
    };
  }
  const sciz::DeviceAllocator* get() const { return a.allocate ? &a : nullptr; }
};

sciz_status sciz_compress(const void* data, sciz_dtype dtype, const uint64_t* dims, int ndims, sciz_eb_mode mode,
                          double eb, const char* pipeline, sciz_device device, void* out, uint64_t out_capacity,
                          uint64_t* out_size) {
  uint64_t size = 0;
  const sciz_status st = guarded([&] {
    SCIZ_REQUIRE(dtype == SCIZ_F32 || dtype == SCIZ_F64, sciz::Status::invalid_argument,
                 "unknown dtype code " + std::to_string(static_cast<int>(dtype)));
    sciz::CompressOptions o;
    o.eb = {mode == SCIZ_EB_REL ? sciz::EbMode::rel : sciz::EbMode::abs, eb};
    if (pipeline) o.pipeline = pipeline;
    o.device = static_cast<sciz::Device>(device);
    try {
      size = sciz::compress_into({data, static_cast<sciz::DType>(dtype), make_shape(dims, ndims)}, out, out_capacity,
                                 false, o);
    } catch (const sciz::Error& e) {
      size = e.needed_bytes();  // buffer_too_small: the size the caller needs
      throw;
    }
  });
  if (out_size) *out_size = size;
  return st;
}

sciz_status sciz_decompress(const void* stream, uint64_t stream_size, void* out, uint64_t out_bytes,
                            sciz_device device) {
  return guarded([&] {
    SCIZ_REQUIRE(stream != nullptr, sciz::Status::invalid_argument, "stream pointer is null");
    sciz::DecompressOptions o;
    o.device = static_cast<sciz::Device>(device);
    o.max_output = limit_for(out_bytes);
    sciz::decompress(sciz::StreamView(stream, stream_size), out, out_bytes, o);
  });
}

sciz_status sciz_compress_device(const void* d_data, sciz_dtype dtype, const uint64_t* dims, int ndims,
                                 sciz_eb_mode mode, double eb, const char* pipeline, double chunk_mb, void* d_out,
                                 uint64_t out_capacity, uint64_t* out_size, void* cuda_stream,
                                 const sciz_allocator* allocator) {
  uint64_t size = 0;
  sciz_status st = guarded([&] {
    SCIZ_REQUIRE(dtype == SCIZ_F32 || dtype == SCIZ_F64, sciz::Status::invalid_argument,
                 "unknown dtype code " + std::to_string(static_cast<int>(dtype)));
    const CAllocator ca(allocator);
    sciz::CompressOptions o;
    o.eb = {mode == SCIZ_EB_REL ? sciz::EbMode::rel : sciz::EbMode::abs, eb};
    if (pipeline) o.pipeline = pipeline;
    if (chunk_mb >= 0) o.chunk_mb = chunk_mb;
    o.device = sciz::Device::cuda;
    o.stream = static_cast<CUstream_st*>(cuda_stream);
    o.allocator = ca.get();
    try {
      size = sciz::compress_into({d_data, static_cast<sciz::DType>(dtype), make_shape(dims, ndims), true}, d_out,
                                 out_capacity, true, o);
    } catch (const sciz::Error& e) {
      size = e.needed_bytes();  // buffer_too_small: the size the caller needs
      throw;
    }
  });
  if (out_size) *out_size = size;
  return st;
}

sciz_status sciz_decompress_device(const void* d_stream, uint64_t stream_size, void* d_out, uint64_t out_bytes,
                                   void* cuda_stream, const sciz_allocator* allocator) {
  return guarded([&] {
    const CAllocator ca(allocator);
    sciz::DecompressOptions o;
    o.device = sciz::Device::cuda;
    o.out_on_device = true;
    o.stream = static_cast<CUstream_st*>(cuda_stream);
    o.allocator = ca.get();
    o.max_output = limit_for(out_bytes);
    sciz::decompress(sciz::StreamView(d_stream, stream_size, true), d_out, out_bytes, o);
  });
}

sciz_status sciz_decompress_rows(const void* stream, uint64_t stream_size, uint64_t row_begin, uint64_t row_end,
                                 void* out, uint64_t out_bytes, sciz_device device) {
  return guarded([&] {
    SCIZ_REQUIRE(stream != nullptr, sciz::Status::invalid_argument, "stream pointer is null");
    sciz::DecompressOptions o;
    o.device = static_cast<sciz::Device>(device);
    o.max_output = limit_for(out_bytes);
    sciz::decompress_rows(sciz::StreamView(stream, stream_size), row_begin, row_end, out, out_bytes, o);
  });
}

sciz_status sciz_release_cached_memory(void) {
  return guarded([] { sciz::release_cached_memory(); });
}

const char* sciz_last_error(void) { return g_last_error.c_str(); }

}  // extern "C"
