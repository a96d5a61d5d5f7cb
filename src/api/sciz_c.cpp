// C API over the C++ one: exceptions become status codes plus a per-thread message.
#include <sciz/sciz.h>
#include <sciz/sciz.hpp>

#include <cstring>
#include <string>

namespace {
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

sciz_status sciz_compress(const void* data, sciz_dtype dtype, const uint64_t* dims, int ndims, sciz_eb_mode mode,
                          double eb, const char* pipeline, sciz_device device, void* out, uint64_t out_capacity,
                          uint64_t* out_size) {
  std::vector<uint8_t> st;
  sciz_status s = guarded([&] {
    SCIZ_REQUIRE(dtype == SCIZ_F32 || dtype == SCIZ_F64, sciz::Status::invalid_argument,
                  "unknown dtype code " + std::to_string(static_cast<int>(dtype)));
    sciz::CompressOptions o;
    o.eb = {mode == SCIZ_EB_REL ? sciz::EbMode::rel : sciz::EbMode::abs, eb};
    if (pipeline) o.pipeline = pipeline;
    o.device = static_cast<sciz::Device>(device);
    st = sciz::compress({data, static_cast<sciz::DType>(dtype), make_shape(dims, ndims)}, o);
  });
  if (s != SCIZ_OK) return s;
  if (out_size) *out_size = st.size();
  if (!out || st.size() > out_capacity) {
    g_last_error = "output buffer of " + std::to_string(out_capacity) + " bytes is too small for " +
                   std::to_string(st.size());
    return SCIZ_BUFFER_TOO_SMALL;
  }
  std::memcpy(out, st.data(), st.size());
  return SCIZ_OK;
}

sciz_status sciz_decompress(const void* stream, uint64_t stream_size, void* out, uint64_t out_bytes,
                            sciz_device device) {
  return guarded([&] {
    SCIZ_REQUIRE(stream != nullptr, sciz::Status::invalid_argument, "stream pointer is null");
    sciz::decompress({static_cast<const uint8_t*>(stream), stream_size}, out, out_bytes,
                     static_cast<sciz::Device>(device));
  });
}

const char* sciz_last_error(void) { return g_last_error.c_str(); }

}  // extern "C"
