// The container's device half: a chunk whose sections lie on the device is written into device
// memory with its header and section checksums computed there, and a stream in device memory
// has its section checksums verified there. Only the chunk header's fixed fields come from the
// host (a few hundred bytes, as a kernel argument); no section byte crosses PCIe.
// Host-only interface (container_cuda.cu).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/device_status.hpp"

namespace sciz::devstream {

struct Section {
  uint32_t id;
  const uint8_t* data;  // device
  uint64_t size;
};

// Bytes write_chunk() writes for these sections (chunk_bytes of the host container).
uint64_t chunk_bytes(const std::string& pipeline, size_t params_bytes, const std::vector<Section>& secs);

// Writes the chunk to d_dst[0, chunk_bytes): the header, whose section checksums (16 KiB
// digests) and own checksum are computed on the device, then the sections copied into place.
// d_dst must not overlap the sections. Queued on s, no synchronization. The bytes equal the
// host writer's (core/container.cpp write_chunk) for the same sections.
void write_chunk(const std::string& pipeline, const std::vector<uint8_t>& params, const std::vector<Section>& secs,
                 uint8_t* d_dst, cudaStream_t s);

// A chunk of a device stream to check: its bytes at d_chunk (bytes long, its header
// head_bytes), its sections and their stored checksums.
struct ChunkCheck {
  const uint8_t* d_chunk;
  uint64_t bytes, head_bytes;
  std::vector<Section> secs;
  std::vector<uint64_t> stored;
  uint32_t index;
};

// Checks every section of the chunks against its stored checksum, and their padding for
// zeros, on the device, all chunks' digests in as few launches as the batch allows; a failure
// is reported into st (kStatusChecksum: a = the section id; kStatusPadding: a = the byte;
// where = the chunk). Queued on s, no synchronization.
void verify_chunks(const std::vector<ChunkCheck>& chunks, DeviceStatus* st, cudaStream_t s);

// Copies src[0, bytes) to dst on s unless st holds a failure (read on the device): how a
// decoder's scratch reaches the caller's output only when every check passed.
void copy_if_ok(void* dst, const void* src, uint64_t bytes, const DeviceStatus* st, cudaStream_t s);

// Copies the device ranges [base + offset, + length) back to the host, one after another into
// `out`: one upload of the ranges, one kernel, one download (one synchronization), however many.
void gather_to_host(const uint8_t* base, const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                    std::vector<uint8_t>& out, cudaStream_t s);

}  // namespace sciz::devstream
