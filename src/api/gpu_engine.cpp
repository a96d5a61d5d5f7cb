#include "api/gpu_engine.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "core/container_cuda.hpp"
#include "api/worker_pool.hpp"
#include "core/device.hpp"
#include "core/device_streams.hpp"
#include "core/error_bound.hpp"
#include "core/host_memory.hpp"
#include "core/host_transfer.hpp"
#include "core/trace.hpp"
#include "core/value_range.hpp"
#include "api/chunk_codec.hpp"
#include "pipelines/pipeline.hpp"

namespace sciz::gpu {
namespace {

std::string num(uint64_t v) { return std::to_string(v); }

ValueRange device_range(const FieldView& f, Stream s) {
  const uint64_t n = f.shape.count();
  return f.dtype == DType::f32 ? value_range_cuda(static_cast<const float*>(f.data), n, s)
                               : value_range_cuda(static_cast<const double*>(f.data), n, s);
}

Header field_header(const FieldView& f, const CompressOptions& opt, const Pipeline& pipe, const ValueRange& vr) {
  return sciz::field_header(f.dtype, f.shape, opt, pipe, vr);
}

// Chunk rows on the device through the pipeline, or, where that would expand them, the rows
// themselves as the one section of a raw chunk (a view: nothing is copied until it is written).
struct EncodedChunk {
  std::string pipeline;
  DeviceChunkOut out;
  uint64_t bytes = 0, head_bytes = 0;
};

EncodedChunk encode_rows(const Pipeline& pipe, const uint8_t* d_rows, DType dtype, const Shape& shape, double eb,
                         const CompressOptions& opt, RangeKeys* range = nullptr) {
  EncodedChunk c;
  c.pipeline = pipe.name();
  const CompressJob job{d_rows, true, dtype, shape, effective_extent(shape), eb, Device::cuda, opt, range};
  pipe.compress_device(job, c.out);
  if (range && !c.out.range_folded) {  // an encoder that does not fold: a pass of its own, queued
    if (dtype == DType::f32)
      value_range_fold_cuda(reinterpret_cast<const float*>(d_rows), shape.count(), range, opt.stream);
    else
      value_range_fold_cuda(reinterpret_cast<const double*>(d_rows), shape.count(), range, opt.stream);
  }
  c.bytes = devstream::chunk_bytes(c.pipeline, c.out.params.size(), c.out.sections);
  const uint64_t raw = shape.count() * dtype_size(dtype);
  if (c.bytes > raw_chunk_bytes(raw)) {
    c = EncodedChunk{};
    c.pipeline = "raw";
    c.out.sections.push_back({1, d_rows, raw});
    c.bytes = devstream::chunk_bytes(c.pipeline, 0, c.out.sections);
  }
  c.head_bytes = chunk_header_bytes(c.pipeline, c.out.params.size(), c.out.sections.size());
  return c;
}

void require_device_pointer(const void* p, const char* what) {
  SCIZ_REQUIRE(dev::is_device_pointer(p), Status::invalid_argument,
               std::string(what) + " is not device memory (a host pointer passed as a device pointer?)");
}

// An absolute bound needs the field's range for the header only: each worker's chunks fold it
// into the worker's own words on the device (the encoders that read the values anyway, or a
// pass of its own), and the host merges the workers' words once they are done. A relative
// bound needs it before any value is coded, from a pass of its own first.
bool range_after(const CompressOptions& opt) { return opt.eb.mode == EbMode::abs; }

class WorkerRange {
 public:
  WorkerRange(bool on, Stream ws) {
    if (!on) return;
    d_ = dev::Buffer<RangeKeys>(1, ws);
    reset_range_keys(d_.get(), ws);
  }
  RangeKeys* get() const { return d_.get(); }
  // After the worker's last chunk: its words, read on its stream (which waits for its work).
  RangeKeys read(Stream ws) const {
    RangeKeys k = range_keys_identity();
    if (!d_.get()) return k;
    dev::copy_to_host(&k, d_.get(), sizeof k, ws);
    dev::sync(ws);
    return k;
  }

 private:
  dev::Buffer<RangeKeys> d_;
};

// The workers' words merged (order does not matter: min, max and a sum), as a range of n values;
// where an infinity reached them (range_keys_usable), the range by pass(), as a relative bound
// finds it (a field with infinities pays the pass it would have paid).
template <class Pass>
ValueRange merged_range(const std::vector<RangeKeys>& ks, uint64_t n, Pass&& pass) {
  RangeKeys all = range_keys_identity();
  for (const RangeKeys& k : ks) {
    all.lo = std::min(all.lo, k.lo);
    all.hi = std::max(all.hi, k.hi);
    all.bad += k.bad;
  }
  if (!range_keys_usable(all)) {
    TracePhase t("value range (infinities met by the encoders' fold)");
    return pass();
  }
  return range_from_keys(all, n);
}

// Working memory a chunk's encoder may take besides its input and output, measured upper
// bound of the three pipelines (lorenzo's codes and stage buffers, szx's and delta's worst-case
// sections) plus the pool's granularity.
uint64_t chunk_working_bytes(uint64_t chunk_input) { return 4 * chunk_input + (uint64_t(16) << 20); }

}  // namespace

namespace {

// What a worker waiting for its turn gets when an earlier chunk failed: it stops quietly, and
// the failure that mattered is the one rethrown.
struct Aborted {};

// Hands out chunk offsets in chunk order: a chunk's place is known once every earlier chunk's
// size is, which its worker learns right after encoding. A worker whose predecessor failed
// stops waiting.
class Committer {
 public:
  explicit Committer(uint64_t first) : at_(first) {}
  uint64_t place(uint64_t i, uint64_t bytes) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return next_ == i || failed_; });
    if (failed_) throw Aborted{};
    const uint64_t off = at_;
    at_ += bytes;
    ++next_;
    cv_.notify_all();
    return off;
  }
  void abort() {
    std::lock_guard<std::mutex> l(mu_);
    failed_ = true;
    cv_.notify_all();
  }
  uint64_t end() const { return at_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t next_ = 0, at_;
  bool failed_ = false;
};

// Workers per device: enough that one chunk's synchronization and launches hide behind
// another's kernels. Streaming calls (host memory, memory caps, several GPUs) keep four
// encoding and three decoding workers: measured on the H100 (4 GB field, 32 chunks), four gave
// delta 581-598 GB/s against 458-512 with three. Device-resident calls take more since each
// worker keeps its own freed device blocks (core/device.cu) and allocates without a driver
// call: 4 GB and 500 MB Isabel, rel 1e-3, median of 20, GB/s compress / decompress with 4 / 3,
// 6 / 4 and 8 / 6 workers: delta 4 GB 713-737 / 1069-1146, 749 / 1192, 769 / 1229; lorenzo 4 GB
// 222-230 / 249-255, 240 / 271, 241 / 289; szx 4 GB 521-535 / 803-813, 510 / 824, 513 / 846;
// 500 MB decompress delta 739-799 -> 855-891, lorenzo 190-193 -> 218-227, szx 675-679 ->
// 700-719. SCIZ_WORKERS / SCIZ_DECODE_WORKERS override all four for measurements.
int workers_from_env(const char* name, int fallback) {
  const char* v = std::getenv(name);
  const int k = v ? std::atoi(v) : 0;
  return k > 0 ? std::min(k, 16) : fallback;
}
const int kWorkersPerDevice = workers_from_env("SCIZ_WORKERS", 4);
const int kDecodeWorkersPerDevice = workers_from_env("SCIZ_DECODE_WORKERS", 3);
const int kResidentWorkers = workers_from_env("SCIZ_WORKERS", 8);
const int kResidentDecodeWorkers = workers_from_env("SCIZ_DECODE_WORKERS", 6);

// Workers for a device-resident call: no more than the device's free memory holds each a
// chunk's working memory (a caller whose fields fill the device still gets one).
int resident_workers(int most, uint64_t chunks, uint64_t chunk_bytes) {
  const uint64_t k = std::min<uint64_t>(chunks, static_cast<uint64_t>(most));
  if (k <= 1) return static_cast<int>(k);
  const uint64_t fit = dev::free_memory() / 10 * 9 / chunk_working_bytes(chunk_bytes);
  return static_cast<int>(std::clamp<uint64_t>(fit, 1, k));
}

}  // namespace

uint64_t compress_device(const FieldView& f, const CompressOptions& opt, uint8_t* d_out, uint64_t capacity,
                         uint8_t* host_out, uint64_t host_capacity) {
  require_device_pointer(f.data, "field data");
  if (capacity) require_device_pointer(d_out, "output buffer");
  const Pipeline& pipe = find_pipeline(opt.pipeline);
  const Stream s = opt.stream;
  const ChunkPlan plan = plan_chunks(f.shape, f.dtype, opt.chunk_mb);
  ValueRange vr;
  const bool later = range_after(opt);
  if (later) {
    dev::sync(s);  // the caller's work on its field before the workers' streams read it
  } else {
    TracePhase t("value range", true, s);
    vr = device_range(f, s);  // synchronizes s: the input is ready for the workers' streams too
  }
  Header h = field_header(f, opt, pipe, vr);
  const size_t w = dtype_size(f.dtype);
  std::vector<ChunkEntry> entries(plan.count);
  const uint64_t head_bytes = align16(stream_header_bytes(f.shape.dims.size(), h.pipeline.size(), plan.count));
  Committer commit(head_bytes);
  std::atomic<uint64_t> next{0};
  const int device = dev::current_device();
  const DeviceAllocator* alloc = dev::current_allocator();
  const int k = resident_workers(kResidentWorkers, plan.count, plan.rows_per_chunk * plan.row_values * w);
  std::vector<RangeKeys> keys(k, range_keys_identity());
  std::vector<dev::Event> done(k);
  for (auto& e : done) e = dev::make_event();
  struct Events {
    std::vector<dev::Event>& v;
    ~Events() {
      for (auto e : v) dev::destroy_event(e);
    }
  } events{done};
  auto settle = [&] {  // the caller's stream, and so its buffers' frees, after every worker's work
    for (auto e : done) dev::wait(s, e);
  };
  try {
  workers::run(k, [&](int wk) {
    dev::set_device(device);
    dev::AllocatorScope scope(alloc);
    const Stream ws = workers::stream_for(device);
    CompressOptions wopt = opt;
    wopt.stream = ws;
    try {
      const WorkerRange range(later, ws);
      for (uint64_t i; (i = next++) < plan.count;) {
        const uint8_t* rows = static_cast<const uint8_t*>(f.data) + plan.row0(i) * plan.row_values * w;
        EncodedChunk c = encode_rows(pipe, rows, f.dtype, plan.chunk_shape(f.shape, i), h.eb_abs, wopt, range.get());
        const uint64_t at = commit.place(i, c.bytes);
        if (at + c.bytes <= capacity) devstream::write_chunk(c.pipeline, c.out.params, c.out.sections, d_out + at, ws);
        // A host copy goes down as soon as its chunk is written, behind other chunks' kernels.
        if (host_out && at + c.bytes <= std::min(capacity, host_capacity))
          dev::download(host_out + at, d_out + at, c.bytes, ws);
        entries[i] = {at, c.bytes, static_cast<uint32_t>(c.head_bytes)};
      }
      keys[wk] = range.read(ws);
    } catch (const Aborted&) {
    } catch (...) {
      commit.abort();
      dev::record(done[wk], ws);
      throw;
    }
    dev::record(done[wk], ws);
  });
  } catch (...) {
    settle();
    dev::sync(s);
    throw;
  }
  settle();  // the caller's stream sees every chunk written
  if (later) h = field_header(f, opt, pipe, merged_range(keys, f.shape.count(), [&] { return device_range(f, s); }));
  const uint64_t at = commit.end();
  if (at > capacity) fail_too_small(capacity, at);
  if (host_out && at > host_capacity) fail_too_small(host_capacity, at);
  const std::vector<uint8_t> head = write_stream_header(h, plan, entries);
  if (host_out) {
    std::memcpy(host_out, head.data(), head.size());
    return at;  // the device copy was scratch
  }
  dev::copy_to_device(d_out, head.data(), head.size(), s);
  return at;
}

namespace {

// The CUDA devices a host-memory call spreads its chunks over.
std::vector<int> devices_of(const std::vector<int>& asked) {
  if (asked.empty()) return {dev::current_device()};
  for (int d : asked) {
    SCIZ_REQUIRE(d >= 0 && d < dev::device_count(), Status::invalid_argument,
                 "CUDA device " + std::to_string(d) + " does not exist (" + std::to_string(dev::device_count()) + " visible)");
  }
  return asked;
}

// The device memory a call may plan on: the caller's cap, else 90% of what is free (sciz's idle
// pool included).
uint64_t memory_budget(uint64_t gpu_memory) { return gpu_memory ? gpu_memory : dev::free_memory() / 10 * 9; }

// Workers per device under a memory budget: each holds a chunk's rows and its encoded chunk
// plus the encoder's working memory. Too small for one: the caller's cap is a bad argument;
// a full device is out of memory, said before anything is allocated.
int workers_within(uint64_t budget, uint64_t chunk_in, bool capped = true) {
  const uint64_t each = 2 * chunk_in + chunk_working_bytes(chunk_in);
  if (budget < each) {
    if (capped)
      fail(Status::invalid_argument, "GPU memory cap of " + num(budget) + " bytes holds less than one chunk's work (" +
                                         num(each) + " bytes): lower --chunk-mb or raise the cap");
    fail(Status::cuda_error, "out of GPU memory: one chunk's work needs " + num(each) + " bytes, " + num(budget) +
                                 " bytes are usable on the device: lower --chunk-mb or free device memory");
  }
  return static_cast<int>(std::clamp<uint64_t>(budget / each, 1, kWorkersPerDevice));
}

// A streaming worker's body: its stream drained however it ends; an earlier chunk's failure
// ends it quietly (that failure is the one reported), its own aborts the others.
template <class F>
void as_worker(Committer& commit, Stream ws, F&& body) {
  try {
    body();
    dev::sync(ws);
  } catch (const Aborted&) {
    dev::sync(ws);
  } catch (...) {
    commit.abort();
    try {
      dev::sync(ws);
    } catch (...) {
    }
    throw;
  }
}

// Places an encoded chunk in order, writes it into d_chunk and sends it down to its place in
// out (waiting for ws: d_chunk is free again on return).
ChunkEntry send_down(Committer& commit, uint64_t i, const EncodedChunk& c, uint8_t* d_chunk, uint8_t* out,
                     uint64_t capacity, Stream ws) {
  const uint64_t at = commit.place(i, c.bytes);
  devstream::write_chunk(c.pipeline, c.out.params, c.out.sections, d_chunk, ws);
  if (at + c.bytes <= capacity)
    dev::download(out + at, d_chunk, c.bytes, ws);
  else
    dev::sync(ws);
  return {at, c.bytes, static_cast<uint32_t>(c.head_bytes)};
}

ValueRange host_range(const FieldView& f);

// A host field through one or more GPUs a chunk at a time: each worker uploads its chunk's
// rows, encodes them, writes the chunk and downloads it to its place, while the other workers'
// copies and kernels run beside it. `vr` is the whole field's range, found beforehand, unless
// range_after(opt): then the workers fold it as they go.
uint64_t compress_streamed(const FieldView& f, const CompressOptions& opt, const std::vector<int>& devices,
                           const ValueRange& vr, uint8_t* out, uint64_t capacity) {
  const Pipeline& pipe = find_pipeline(opt.pipeline);
  const ChunkPlan plan = plan_chunks(f.shape, f.dtype, opt.chunk_mb);
  const size_t w = dtype_size(f.dtype);
  const uint64_t chunk_in = plan.rows_per_chunk * plan.row_values * w;
  const bool later = range_after(opt);
  Header h = field_header(f, opt, pipe, vr);
  std::vector<ChunkEntry> entries(plan.count);
  Committer commit(align16(stream_header_bytes(f.shape.dims.size(), h.pipeline.size(), plan.count)));
  std::atomic<uint64_t> next{0};
  const DeviceAllocator* alloc = dev::current_allocator();
  const int per = workers_within(opt.gpu_memory ? opt.gpu_memory : UINT64_MAX, chunk_in);
  const int k = static_cast<int>(std::min<uint64_t>(plan.count, per * devices.size()));
  std::vector<RangeKeys> keys(k, range_keys_identity());
  workers::run(k, [&](int wk) {
    const int device = devices[wk % devices.size()];
    dev::set_device(device);
    dev::AllocatorScope scope(alloc);
    const Stream ws = workers::stream_for(device);
    CompressOptions wopt = opt;
    wopt.stream = ws;
    as_worker(commit, ws, [&] {
      dev::Buffer<uint8_t> d_rows(chunk_in, ws), d_chunk(raw_chunk_bytes(chunk_in), ws);
      const WorkerRange range(later, ws);
      for (uint64_t i; (i = next++) < plan.count;) {
        const uint8_t* rows = static_cast<const uint8_t*>(f.data) + plan.row0(i) * plan.row_values * w;
        dev::upload(d_rows.get(), rows, plan.values(i) * w, ws);
        EncodedChunk c =
            encode_rows(pipe, d_rows.get(), f.dtype, plan.chunk_shape(f.shape, i), h.eb_abs, wopt, range.get());
        entries[i] = send_down(commit, i, c, d_chunk.get(), out, capacity, ws);
      }
      keys[wk] = range.read(ws);
    });
  });
  if (later) h = field_header(f, opt, pipe, merged_range(keys, f.shape.count(), [&] { return host_range(f); }));
  const uint64_t at = commit.end();
  if (at > capacity) fail_too_small(capacity, at);
  const std::vector<uint8_t> head = write_stream_header(h, plan, entries);
  std::memcpy(out, head.data(), head.size());
  return at;
}

// Several GPUs whose memory holds their shares of the field: chunk i lives on device
// i mod count. Each device takes its chunks up (its own PCIe link) and reduces their range;
// with the whole field's range known, each device encodes its resident chunks and sends them
// down to their places. The field crosses PCIe once, split over the links, and no host pass
// over it is needed for the range.
uint64_t compress_resident(const FieldView& f, const CompressOptions& opt, const std::vector<int>& devices,
                           uint8_t* out, uint64_t capacity) {
  const Pipeline& pipe = find_pipeline(opt.pipeline);
  const ChunkPlan plan = plan_chunks(f.shape, f.dtype, opt.chunk_mb);
  const size_t w = dtype_size(f.dtype);
  const uint64_t chunk_in = plan.rows_per_chunk * plan.row_values * w;
  const size_t D = devices.size();
  const DeviceAllocator* alloc = dev::current_allocator();
  // Where chunk i sits in its device's share.
  std::vector<uint64_t> at_in_share(plan.count), share_bytes(D, 0);
  for (uint64_t i = 0; i < plan.count; ++i) {
    at_in_share[i] = share_bytes[i % D];
    share_bytes[i % D] += plan.values(i) * w;
  }
  // The caller's current device is theirs: restored however this returns.
  struct Home {
    int d = dev::current_device();
    ~Home() {
      try {
        dev::set_device(d);
      } catch (...) {
      }
    }
  } home;
  std::vector<dev::Buffer<uint8_t>> share(D);
  std::vector<ValueRange> ranges(D);
  workers::run(static_cast<int>(D), [&](int k) {
    dev::set_device(devices[k]);
    dev::AllocatorScope scope(alloc);
    const Stream ws = workers::stream_for(devices[k]);
    share[k] = dev::Buffer<uint8_t>(share_bytes[k], ws);
    for (uint64_t i = k; i < plan.count; i += D)
      dev::upload(share[k].get() + at_in_share[i],
                  static_cast<const uint8_t*>(f.data) + plan.row0(i) * plan.row_values * w, plan.values(i) * w, ws);
    const uint64_t n = share_bytes[k] / w;
    ranges[k] = f.dtype == DType::f32 ? value_range_cuda(reinterpret_cast<const float*>(share[k].get()), n, ws)
                                      : value_range_cuda(reinterpret_cast<const double*>(share[k].get()), n, ws);
  });
  ValueRange vr;
  for (const auto& r : ranges) {
    if (r.finite) {
      vr.min = vr.finite ? std::min(vr.min, r.min) : r.min;
      vr.max = vr.finite ? std::max(vr.max, r.max) : r.max;
    }
    vr.finite += r.finite;
    vr.nonfinite += r.nonfinite;
  }
  const Header h = field_header(f, opt, pipe, vr);
  std::vector<ChunkEntry> entries(plan.count);
  Committer commit(align16(stream_header_bytes(f.shape.dims.size(), h.pipeline.size(), plan.count)));
  std::vector<std::atomic<uint64_t>> next(D);
  for (size_t k = 0; k < D; ++k) next[k] = 0;
  const int per = kWorkersPerDevice;
  workers::run(static_cast<int>(D) * per, [&](int wk) {
    const size_t k = static_cast<size_t>(wk) % D;
    dev::set_device(devices[k]);
    dev::AllocatorScope scope(alloc);
    const Stream ws = workers::stream_for(devices[k]);
    CompressOptions wopt = opt;
    wopt.stream = ws;
    as_worker(commit, ws, [&] {
      dev::Buffer<uint8_t> d_chunk(raw_chunk_bytes(chunk_in), ws);
      // This device's chunks in increasing order: the chunk before any of them is always
      // held by a running worker, so placing them in order cannot deadlock.
      for (uint64_t j; (j = next[k]++) * D + k < plan.count;) {
        const uint64_t i = j * D + k;
        EncodedChunk c = encode_rows(pipe, share[k].get() + at_in_share[i], f.dtype, plan.chunk_shape(f.shape, i),
                                     h.eb_abs, wopt);
        entries[i] = send_down(commit, i, c, d_chunk.get(), out, capacity, ws);
      }
    });
  });
  for (size_t k = 0; k < D; ++k) {  // freed on their own devices
    dev::set_device(devices[k]);
    share[k].reset();
  }
  const uint64_t at = commit.end();
  if (at > capacity) fail_too_small(capacity, at);
  const std::vector<uint8_t> head = write_stream_header(h, plan, entries);
  std::memcpy(out, head.data(), head.size());
  return at;
}

ValueRange host_range(const FieldView& f) {
  return f.dtype == DType::f32 ? value_range_cpu(static_cast<const float*>(f.data), f.shape.count())
                               : value_range_cpu(static_cast<const double*>(f.data), f.shape.count());
}

}  // namespace

uint64_t compress_host(const FieldView& f, const CompressOptions& opt, uint8_t* out, uint64_t capacity,
                       std::vector<uint8_t>* grown) {
  const Stream s = opt.stream;
  const uint64_t bytes = f.shape.count() * dtype_size(f.dtype);
  const uint64_t max_stream = max_compressed_size(f.dtype, f.shape, opt.pipeline, opt.chunk_mb);
  const ChunkPlan plan = plan_chunks(f.shape, f.dtype, opt.chunk_mb);
  const uint64_t chunk_in = plan.rows_per_chunk * plan.row_values * dtype_size(f.dtype);
  const std::vector<int> devices = devices_of(opt.devices);
  const uint64_t budget = memory_budget(opt.gpu_memory);
  (void)workers_within(budget, chunk_in, opt.gpu_memory != 0);  // a cap or a device too small for any chunk
  // An absolute bound lets a chunk be coded while the next goes up, which the whole-field path
  // cannot (its upload ends before any chunk starts): from pinned memory the chunk-by-chunk path
  // is then the faster one (H100, 4 GB, 32 chunks: lorenzo 0.81 -> 0.97 of H2D, delta 0.85 ->
  // 0.97, szx 0.72 -> 0.95). A relative bound needs the range first: its whole-field path finds
  // it on the GPU after the upload, where chunk by chunk the host would read the field for it.
  // Pageable fields keep the whole-field path too: chunk by chunk they measured slower (4 GB,
  // abs: lorenzo 30 against 33-37 GB/s, szx 21-25 against 25-26; the staging buffers are shared).
  const bool overlap = range_after(opt) && plan.count > 1 && dev::is_pinned_host_pointer(f.data);
  if (devices.size() == 1 && devices[0] == dev::current_device() && !overlap &&
      bytes + max_stream + kResidentWorkers * chunk_working_bytes(chunk_in) <= budget) {
    // The whole field fits: up once, compressed device to device, each chunk down as soon as it
    // is written (into the caller's buffer) or the stream down once (into a new vector).
    dev::Buffer<uint8_t> d_field(bytes, s), d_stream(max_stream, s);
    {
      TracePhase t("upload field", true, s);
      dev::upload(d_field.get(), f.data, bytes, s);
    }
    const FieldView df{d_field.get(), f.dtype, f.shape, true};
    if (out) {
      const uint64_t size = compress_device(df, opt, d_stream.get(), max_stream, out, capacity);
      dev::sync(s);
      return size;
    }
    const uint64_t size = compress_device(df, opt, d_stream.get(), max_stream);
    grow_fresh(*grown, size, 0);  // huge pages before the first touch (core/host_memory.hpp)
    TracePhase t("download stream", true, s);
    dev::download(grown->data(), d_stream.get(), size, s);
    return size;
  }
  const int home = dev::current_device();
  if (devices.size() > 1) {
    // Several GPUs, each holding its share of the chunks if it can.
    bool all_fit = true;
    for (int d : devices) {
      dev::set_device(d);
      const uint64_t b = memory_budget(opt.gpu_memory);
      all_fit = all_fit && bytes / devices.size() + chunk_in + kWorkersPerDevice * (2 * chunk_in + chunk_working_bytes(chunk_in)) <= b;
    }
    dev::set_device(home);
    if (all_fit) {
      dev::sync(s);  // the caller's earlier work on s before the workers read its field
      if (out) return compress_resident(f, opt, devices, out, capacity);
      std::unique_ptr<uint8_t[]> tmp(new uint8_t[max_stream]);
      advise_huge_pages(tmp.get(), max_stream);
      const uint64_t size = compress_resident(f, opt, devices, tmp.get(), max_stream);
      grow_fresh(*grown, size, 0);  // huge pages before the first touch (core/host_memory.hpp)
      parallel_copy(grown->data(), tmp.get(), size);
      return size;
    }
  }
  // Larger than the GPUs' share: chunk by chunk, a relative bound's range found on the host
  // first (it fixes the bound every chunk uses); an absolute bound's is folded on the way.
  ValueRange vr;
  if (!range_after(opt)) {
    TracePhase t("value range (host)");
    vr = host_range(f);
  }
  dev::sync(s);  // the caller's earlier work on s (its field) before the workers read it
  if (out) return compress_streamed(f, opt, devices, vr, out, capacity);
  // Into a buffer of the largest possible size (pages are touched only where chunks land),
  // then into the vector.
  std::unique_ptr<uint8_t[]> tmp(new uint8_t[max_stream]);
  advise_huge_pages(tmp.get(), max_stream);
  const uint64_t size = compress_streamed(f, opt, devices, vr, tmp.get(), max_stream);
  grow_fresh(*grown, size, 0);  // huge pages before the first touch (core/host_memory.hpp)
  parallel_copy(grown->data(), tmp.get(), size);
  return size;
}

DeviceHead read_device_head(const uint8_t* d_stream, uint64_t size, Stream s) {
  require_device_pointer(d_stream, "stream");
  DeviceHead d;
  // One copy usually holds the whole header (64 KiB: over 2,000 chunks' index entries).
  std::vector<uint8_t> head(std::min<uint64_t>(size, 65536));
  dev::copy_to_host(head.data(), d_stream, head.size(), s);
  dev::sync(s);
  const uint64_t need = head_needed(head, size);
  if (need > head.size()) {
    head.resize(need);
    dev::copy_to_host(head.data(), d_stream, need, s);
    dev::sync(s);
  }
  if (head.size() > need) head.resize(need);
  d.ps = read_stream_head(head, size);
  if (d.ps.header.version < 4) {
    d.old = std::move(head);  // the whole stream; read_stream_head's views point into it
    d.ps = read_stream_head(d.old, size);
    return d;
  }
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const auto& c : d.ps.chunks) ranges.push_back({c.offset, c.head_bytes});
  std::vector<uint8_t> heads;
  devstream::gather_to_host(d_stream, ranges, heads, s);
  uint64_t at = 0;
  for (uint64_t i = 0; i < d.ps.chunks.size(); ++i) {
    d.heads.push_back(parse_chunk_head(d.ps, i, std::span<const uint8_t>(heads).subspan(at, ranges[i].second)));
    at += ranges[i].second;
  }
  return d;
}

namespace {
devstream::ChunkCheck chunk_check(const uint8_t* d_stream, const DeviceHead& dh, uint64_t i) {
  const ParsedChunk& c = dh.ps.chunks[i];
  devstream::ChunkCheck k{d_stream + c.offset, c.length, c.head_bytes, {}, {}, static_cast<uint32_t>(i)};
  for (const auto& e : dh.heads[i].sections) {
    k.secs.push_back({e.id, d_stream + c.offset + e.offset, e.length});
    k.stored.push_back(e.checksum);
  }
  return k;
}
}  // namespace

void decompress_device(const uint8_t* d_stream, const DeviceHead& dh, uint64_t row_begin, uint64_t row_end,
                       uint8_t* d_out, const DecompressOptions& opt) {
  const Stream s = opt.stream;
  require_device_pointer(d_out, "output buffer");
  const ParsedStream& ps = dh.ps;
  const size_t w = dtype_size(ps.header.dtype);
  const uint64_t row_bytes = ps.plan.row_values * w;
  if (ps.header.version < 4) {  // no chunks: the old stream decodes through the host parser
    const ParsedStream full = read_stream(dh.old);
    const ParsedChunk& c = full.chunks[0];
    Device d = Device::cuda;
    if (row_begin == 0 && row_end == c.rows) {
      DecompressJob job{&c, effective_extent(c.header.shape), d_out, true, d, s};
      find_pipeline(c.header.pipeline).decompress(job);
      return;
    }
    dev::Buffer<uint8_t> tmp(c.rows * row_bytes, s);
    DecompressJob job{&c, effective_extent(c.header.shape), tmp.get(), true, d, s};
    find_pipeline(c.header.pipeline).decompress(job);
    dev::copy_on_device(d_out, tmp.get() + row_begin * row_bytes, (row_end - row_begin) * row_bytes, s);
    dev::sync(s);
    return;
  }
  const uint64_t first = ps.plan.chunk_of_row(row_begin), last = ps.plan.chunk_of_row(row_end - 1) + 1;
  dev::Buffer<DeviceStatus> st(1, s);
  dev::zero(st.get(), sizeof(DeviceStatus), s);
  // Every checksum first, on the caller's stream: the decoders (on the workers' streams) start
  // after it, so a damaged chunk anywhere keeps every chunk from writing.
  std::vector<std::vector<devstream::Section>> secs(last - first);
  {
    TracePhase t("verify checksums (cuda)", true, s);
    std::vector<devstream::ChunkCheck> checks;
    for (uint64_t i = first; i < last; ++i) {
      checks.push_back(chunk_check(d_stream, dh, i));
      secs[i - first] = checks.back().secs;
    }
    devstream::verify_chunks(checks, st.get(), s);
  }
  dev::Event verified = dev::make_event();
  dev::record(verified, s);
  const int device = dev::current_device();
  const DeviceAllocator* alloc = dev::current_allocator();
  const int k = resident_workers(kResidentDecodeWorkers, last - first,
                                 ps.plan.rows_per_chunk * ps.plan.row_values * dtype_size(ps.header.dtype));
  std::vector<dev::Event> done(k);
  for (auto& e : done) e = dev::make_event();
  struct Events {
    std::vector<dev::Event>& v;
    dev::Event one;
    ~Events() {
      for (auto e : v) dev::destroy_event(e);
      dev::destroy_event(one);
    }
  } events{done, verified};
  std::atomic<uint64_t> next{first};
  try {
  workers::run(k, [&](int wk) {
    dev::set_device(device);
    dev::AllocatorScope scope(alloc);
    const Stream ws = workers::stream_for(device);
    dev::wait(ws, verified);
    struct Done {  // the caller's stream must wait for this worker's work even when it throws
      dev::Event e;
      Stream s;
      ~Done() {
        try {
          dev::record(e, s);
        } catch (...) {
        }
      }
    } mark{done[wk], ws};
    for (uint64_t i; (i = next++) < last;) {
      const ParsedChunk& c = ps.chunks[i];
      const Header hd = chunk_header(ps, i, dh.heads[i]);
      const Pipeline* pipe = nullptr;
      try {
        pipe = &find_pipeline(hd.pipeline);
      } catch (const Error&) {
        fail(Status::unsupported, "stream uses pipeline '" + hd.pipeline + "', which this build does not know");
      }
      const uint64_t a = std::max(row_begin, c.row0), b = std::min(row_end, c.row0 + c.rows);
      const bool whole = a == c.row0 && b == c.row0 + c.rows;
      dev::Buffer<uint8_t> scratch;
      uint8_t* dst = d_out + (a - row_begin) * row_bytes;
      if (!whole) {
        scratch = dev::Buffer<uint8_t>(c.rows * row_bytes, ws);
        dst = scratch.get();
      }
      DeviceDecodeJob job{&hd, {}, effective_extent(hd.shape), dst, st.get(), ws};
      for (const auto& x : secs[i - first]) job.sections.push_back({x.id, DeviceSpan{x.data, x.size}});
      pipe->decompress_device(job);
      if (!whole)
        devstream::copy_if_ok(d_out + (a - row_begin) * row_bytes, dst + (a - c.row0) * row_bytes, (b - a) * row_bytes,
                              st.get(), ws);
    }
  });
  } catch (...) {
    for (auto e : done) dev::wait(s, e);
    dev::sync(s);
    throw;
  }
  for (auto e : done) dev::wait(s, e);
  DeviceStatus verdict;
  dev::copy_to_host(&verdict, st.get(), sizeof verdict, s);
  dev::sync(s);
  throw_if_failed(verdict, "stream");
}

void decompress_to_host(const uint8_t* d_stream, const DeviceHead& dh, uint64_t row_begin, uint64_t row_end,
                        uint8_t* out, const DecompressOptions& opt) {
  const Stream s = opt.stream;
  const uint64_t row_bytes = dh.ps.plan.row_values * dtype_size(dh.ps.header.dtype);
  const uint64_t bytes = (row_end - row_begin) * row_bytes;
  dev::Buffer<uint8_t> d(bytes, s);
  // Decoded whole on the device and sent down only once the verdict is in: chunks sent down as
  // they were decoded wrote undecoded device memory into the caller's buffer when a later
  // checksum failed (the Python suite's damaged-stream test on the H100). Decoding takes a few
  // percent of the download's time, so little overlap is lost.
  decompress_device(d_stream, dh, row_begin, row_end, d.get(), opt);
  dev::download(out, d.get(), bytes, s);
}

bool fits(const ParsedStream& ps, uint64_t row_begin, uint64_t row_end, uint64_t stream_bytes,
          const DecompressOptions& opt) {
  const uint64_t row_bytes = ps.plan.row_values * dtype_size(ps.header.dtype);
  const uint64_t chunk_out = ps.plan.rows_per_chunk * row_bytes;
  const uint64_t budget = memory_budget(opt.gpu_memory);
  return (opt.devices.size() <= 1) &&
         stream_bytes + (row_end - row_begin) * row_bytes +
             std::max(kResidentWorkers, kResidentDecodeWorkers) * chunk_working_bytes(chunk_out) <= budget;
}

void decompress_streamed(std::span<const uint8_t> stream, const ParsedStream& ps, uint64_t row_begin,
                         uint64_t row_end, uint8_t* out, const DecompressOptions& opt) {
  const std::vector<int> devices = devices_of(opt.devices);
  const uint64_t row_bytes = ps.plan.row_values * dtype_size(ps.header.dtype);
  const uint64_t chunk_out = ps.plan.rows_per_chunk * row_bytes;
  const uint64_t first = ps.plan.chunk_of_row(row_begin), last = ps.plan.chunk_of_row(row_end - 1) + 1;
  uint64_t max_chunk = 0;
  for (uint64_t i = first; i < last; ++i) max_chunk = std::max(max_chunk, ps.chunks[i].length);
  const int per = workers_within(opt.gpu_memory ? opt.gpu_memory : UINT64_MAX, chunk_out);
  const int k = static_cast<int>(std::min<uint64_t>(last - first, per * devices.size()));
  std::atomic<uint64_t> next{first};
  const DeviceAllocator* alloc = dev::current_allocator();
  workers::run(k, [&](int wk) {
    const int device = devices[wk % devices.size()];
    dev::set_device(device);
    dev::AllocatorScope scope(alloc);
    const Stream ws = workers::stream_for(device);
    try {
      dev::Buffer<uint8_t> d_chunk(max_chunk, ws), d_rows(chunk_out, ws);
      dev::Buffer<DeviceStatus> st(1, ws);
      for (uint64_t i; (i = next++) < last;) {
        const ParsedChunk& c = ps.chunks[i];
        dev::upload(d_chunk.get(), stream.data() + c.offset, c.length, ws);
        dev::zero(st.get(), sizeof(DeviceStatus), ws);
        DeviceDecodeJob job{&c.header, {}, effective_extent(c.header.shape), d_rows.get(), st.get(), ws};
        for (const auto& sec : c.sections)
          job.sections.push_back({sec.id, DeviceSpan{d_chunk.get() + (sec.bytes.data() - (stream.data() + c.offset)),
                                                     sec.bytes.size()}});
        find_pipeline(c.header.pipeline).decompress_device(job);
        DeviceStatus verdict;
        dev::copy_to_host(&verdict, st.get(), sizeof verdict, ws);
        dev::sync(ws);
        throw_if_failed(verdict, "stream: chunk " + std::to_string(i));
        const uint64_t a = std::max(row_begin, c.row0), b = std::min(row_end, c.row0 + c.rows);
        dev::download(out + (a - row_begin) * row_bytes, d_rows.get() + (a - c.row0) * row_bytes, (b - a) * row_bytes,
                      ws);
      }
    } catch (...) {
      try {
        dev::sync(ws);
      } catch (...) {
      }
      throw;
    }
  });
}

}  // namespace sciz::gpu
