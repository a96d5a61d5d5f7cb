// The default GPU paths of a pipeline: through its host sections. Correct for every pipeline;
// pipelines whose codecs keep their sections on the device override them.
#include <sciz/error.hpp>

#include <cstring>

#include "pipelines/pipeline.hpp"

namespace sciz {

DeviceSpan DeviceDecodeJob::section(uint32_t id, const char* name) const {
  for (const auto& [sid, span] : sections)
    if (sid == id) return span;
  fail(Status::corrupt_stream, std::string("stream lacks its '") + name + "' section (id " + std::to_string(id) + ")");
}

void Pipeline::compress_device(const CompressJob& job, DeviceChunkOut& out) const {
  std::vector<SectionIn> host;
  compress(job, out.params, host);
  for (auto& sec : host) {
    dev::Buffer<uint8_t> b(sec.bytes.size(), job.opt.stream);
    dev::copy_to_device(b.get(), sec.bytes.data(), sec.bytes.size(), job.opt.stream);
    out.add(sec.id, std::move(b), sec.bytes.size());
  }
  dev::sync(job.opt.stream);  // the host sections are freed at return
}

void Pipeline::decompress_device(const DeviceDecodeJob& job) const {
  DeviceStatus st;
  dev::copy_to_host(&st, job.st, sizeof st, job.s);
  uint64_t total = 0;
  for (const auto& [id, span] : job.sections) total += span.size;
  std::vector<uint8_t> bytes(total);
  uint64_t at = 0;
  for (const auto& [id, span] : job.sections) {
    dev::copy_to_host(bytes.data() + at, span.data, span.size, job.s);
    at += span.size;
  }
  dev::sync(job.s);
  throw_if_failed(st, "stream");  // checksums first: a damaged stream decodes nothing
  ParsedChunk c;
  c.header = *job.header;
  at = 0;
  for (const auto& [id, span] : job.sections) {
    c.sections.push_back({id, std::span<const uint8_t>(bytes.data() + at, span.size), 0});
    at += span.size;
  }
  c.verified = true;
  DecompressJob dj{&c, job.extent, job.d_out, true, Device::cuda, job.s};
  decompress(dj);
}

}  // namespace sciz
