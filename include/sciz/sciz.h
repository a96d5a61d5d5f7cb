/* sciz C API: status codes instead of exceptions; sciz_last_error() names the problem. */
#ifndef SCIZ_H
#define SCIZ_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  SCIZ_OK = 0,
  SCIZ_INVALID_ARGUMENT = 1,
  SCIZ_CORRUPT_STREAM = 2,
  SCIZ_UNSUPPORTED = 3,
  SCIZ_IO_ERROR = 4,
  SCIZ_CUDA_ERROR = 5,
  SCIZ_NO_DEVICE = 6,
  SCIZ_INTERNAL = 7,
  SCIZ_BUFFER_TOO_SMALL = 8
} sciz_status;

typedef enum { SCIZ_F32 = 1, SCIZ_F64 = 2 } sciz_dtype;
typedef enum { SCIZ_DEVICE_AUTO = 0, SCIZ_DEVICE_CPU = 1, SCIZ_DEVICE_CUDA = 2 } sciz_device;
typedef enum { SCIZ_EB_ABS = 0, SCIZ_EB_REL = 1 } sciz_eb_mode;

/* dims: ndims (1..4) entries, slowest to fastest varying. */
uint64_t sciz_max_compressed_size(sciz_dtype dtype, const uint64_t* dims, int ndims);

/* Compresses into out (capacity out_capacity bytes; sciz_max_compressed_size() always suffices);
 * *out_size receives the stream length. */
sciz_status sciz_compress(const void* data, sciz_dtype dtype, const uint64_t* dims, int ndims, sciz_eb_mode mode,
                          double eb, const char* pipeline, sciz_device device, void* out, uint64_t out_capacity,
                          uint64_t* out_size);

/* Decodes a stream into out, which must hold exactly the field's bytes. The decoders here take
 * out_bytes as what the caller accepts: a row range whose cut chunks (decoded whole into
 * scratch) exceed both out_bytes and 1 TiB is refused with SCIZ_INVALID_ARGUMENT before any
 * allocation (C++: DecompressOptions::max_output). */
sciz_status sciz_decompress(const void* stream, uint64_t stream_size, void* out, uint64_t out_bytes,
                            sciz_device device);

/* ---- Device-resident calls (CUDA builds; others return SCIZ_NO_DEVICE) ----
 * cuda_stream: a cudaStream_t (NULL: the default stream); all work is ordered on it.
 * Device memory for temporaries comes from the allocator when one is given (NULL: sciz's pool). */
typedef struct {
  void* (*allocate)(void* ctx, uint64_t bytes, void* cuda_stream);
  void (*deallocate)(void* ctx, void* p, uint64_t bytes, void* cuda_stream);
  void* ctx;
} sciz_allocator;

/* Compresses a field in device memory into device memory (out, capacity out_capacity; bytes from
 * sciz_max_compressed_size() always suffice). SCIZ_BUFFER_TOO_SMALL sets *out_size to the size
 * needed. chunk_mb: MiB per chunk along the slowest axis (0: one chunk; negative: the default). */
sciz_status sciz_compress_device(const void* d_data, sciz_dtype dtype, const uint64_t* dims, int ndims,
                                 sciz_eb_mode mode, double eb, const char* pipeline, double chunk_mb, void* d_out,
                                 uint64_t out_capacity, uint64_t* out_size, void* cuda_stream,
                                 const sciz_allocator* allocator);

/* Decodes a stream in device memory into device memory (out_bytes: exactly the field's bytes). */
sciz_status sciz_decompress_device(const void* d_stream, uint64_t stream_size, void* d_out, uint64_t out_bytes,
                                   void* cuda_stream, const sciz_allocator* allocator);

/* Decodes rows [row_begin, row_end) of the slowest axis of a host stream into host memory. */
sciz_status sciz_decompress_rows(const void* stream, uint64_t stream_size, uint64_t row_begin, uint64_t row_end,
                                 void* out, uint64_t out_bytes, sciz_device device);

/* Hands back the memory sciz keeps between calls (pinned staging, pooled GPU blocks); see
 * sciz::release_cached_memory(). */
sciz_status sciz_release_cached_memory(void);

/* The message of the last failing call on this thread ("" after success). */
const char* sciz_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
