// The GPU paths of the API: a field on the device compressed into device memory chunk by chunk
// (sections, container and checksums never leave the device), host fields staged through it,
// and device streams decoded on the device with every check made there.
#pragma once
#include <sciz/sciz.hpp>

#include <cstdint>
#include <span>
#include <vector>

#include "core/container.hpp"

namespace sciz::gpu {

// f on the device. Writes the stream to d_out[0, capacity) and returns its size; throws
// buffer_too_small naming the size when capacity is short (every chunk is still encoded, to
// learn it). Host synchronizations: one for the value range, one per chunk to learn its
// sections' sizes.
// With host_out, each chunk is also copied there as soon as it is written (d_out is then
// scratch and gets no header).
uint64_t compress_device(const FieldView& f, const CompressOptions& opt, uint8_t* d_out, uint64_t capacity,
                         uint8_t* host_out = nullptr, uint64_t host_capacity = 0);

// f in host memory, compressed on the GPU(s) into host memory (out, capacity), or into a new
// vector when out is null (the size is returned either way). A field that fits the device
// (opt.gpu_memory, else its free memory) goes up whole; otherwise, and over several devices
// (opt.devices), chunks stream through each device's workers.
uint64_t compress_host(const FieldView& f, const CompressOptions& opt, uint8_t* out, uint64_t capacity,
                       std::vector<uint8_t>* grown);

// The head of a device stream: the parsed header and chunk index, and every chunk's header
// (two small copies back, each a synchronization).
struct DeviceHead {
  ParsedStream ps;
  std::vector<ChunkHead> heads;  // one per chunk (format 4)
  std::vector<uint8_t> old;      // formats 1-3: the whole stream, copied back (no chunk index)
};
DeviceHead read_device_head(const uint8_t* d_stream, uint64_t size, Stream s);

// A stream in device memory decoded into device memory: rows [row_begin, row_end) of the
// slowest axis into d_out. Checksums and section contents are checked on the device, and
// nothing is written to d_out unless they pass (one closing synchronization reads the verdict).
void decompress_device(const uint8_t* d_stream, const DeviceHead& head, uint64_t row_begin, uint64_t row_end,
                       uint8_t* d_out, const DecompressOptions& opt);

// The same into host memory, through one device buffer of the rows, sent down once every
// check has passed (a failure leaves `out` untouched).
void decompress_to_host(const uint8_t* d_stream, const DeviceHead& head, uint64_t row_begin, uint64_t row_end,
                        uint8_t* out, const DecompressOptions& opt);

// Whether rows [row_begin, row_end) of a stream of stream_bytes decode within one device's
// share (opt.gpu_memory, else its free memory) on one device.
bool fits(const ParsedStream& ps, uint64_t row_begin, uint64_t row_end, uint64_t stream_bytes,
          const DecompressOptions& opt);

// A host stream whose chunks (already parsed and verified: ps) go up one at a time to the
// workers of opt.devices, each decoding its chunk and sending its rows down: for fields larger
// than a GPU's share and for several GPUs.
void decompress_streamed(std::span<const uint8_t> stream, const ParsedStream& ps, uint64_t row_begin,
                         uint64_t row_end, uint8_t* out, const DecompressOptions& opt);

}  // namespace sciz::gpu
