// Dispatch from a stage id to its family's CUDA twin, and chains on the device. Host code only
// (built with or without CUDA: without it, the family twins are stages_nocuda.cpp's stubs).
#include "lossless/stages/stages_cuda.hpp"

#include <sciz/error.hpp>

#include <string>

#include "lossless/stages/framing.hpp"
#include "lossless/stages/registry.hpp"
#include "lossless/stages/stage_cuda.hpp"
#include "lossless/stages/stages.hpp"

namespace sciz::stages {
namespace {

std::string who(StageId id) { return std::string("stage ") + stage_name(id) + ": "; }

// The checks the CPU decoder makes of a header before allocating.
uint64_t checked_header(StageId id, uint64_t h, uint64_t bytes, uint64_t max_out, const Context& ctx) {
  if (family_of(id) == Family::codes) return check_codes_header(id, h, bytes, max_out, ctx.code_width);
  return check_header(id, h, bytes, max_out);
}

void require_header_bytes(StageId id, uint64_t bytes) {
  SCIZ_REQUIRE(bytes >= 8, Status::corrupt_stream,
               who(id) + "blob of " + std::to_string(bytes) + " bytes is shorter than its 8-byte header");
}

// Whether chain[i], chain[i + 1] are a tcms then a bit stage, which run fused on the device.
bool fused(std::span<const StageId> chain, size_t i) {
  return i + 1 < chain.size() && family_of(chain[i]) == Family::tcms && family_of(chain[i + 1]) == Family::bit;
}

dev::Buffer<DeviceStatus> zeroed_status(cudaStream_t s) {
  dev::Buffer<DeviceStatus> st(1, s);
  dev::zero(st.get(), sizeof(DeviceStatus), s);
  return st;
}

}  // namespace

uint64_t encode_stage_cuda(StageId id, const uint8_t* d_in, uint64_t n, uint8_t* d_out, uint64_t capacity,
                           const Context& ctx, cudaStream_t s) {
  const uint64_t need = max_encoded_bytes(id, n, ctx);  // refuses an unknown id
  SCIZ_REQUIRE(capacity >= need, Status::invalid_argument,
               who(id) + "output of " + std::to_string(capacity) + " bytes, the blob may need " + std::to_string(need));
  const Family f = family_of(id);
  if (f == Family::codes) {
    check_codes_context(id, ctx);
    SCIZ_REQUIRE(n % ctx.code_width == 0, Status::invalid_argument,
                 who(id) + std::to_string(n) + " input bytes are not a whole number of " +
                     std::to_string(ctx.code_width) + "-byte codes");
    return cuda::codes_encode(id, d_in, n, ctx, d_out, capacity, s);
  }
  SCIZ_REQUIRE(n <= kMaxStageInput, Status::invalid_argument,
               who(id) + "input of " + std::to_string(n) + " bytes exceeds 2^56 - 1");
  switch (f) {
    case Family::tcms: cuda::tcms_encode(id, d_in, n, d_out, s); return kHeaderBytes + n;
    case Family::bit: cuda::bit_encode(id, d_in, n, d_out, s); return kHeaderBytes + n;
    default: return cuda::eliminate_encode(id, d_in, n, d_out, s);
  }
}

uint64_t declared_bytes_cuda(StageId id, const uint8_t* d_blob, uint64_t bytes, uint64_t max_out, const Context& ctx,
                             cudaStream_t s) {
  max_encoded_bytes(id, 0, ctx);  // refuses an unknown id
  require_header_bytes(id, bytes);
  uint64_t h = 0;
  dev::copy_to_host(&h, d_blob, 8, s);
  dev::sync(s);
  return checked_header(id, h, bytes, max_out, ctx);
}

void decode_stage_cuda(StageId id, const uint8_t* d_blob, uint64_t bytes, uint8_t* d_out, uint64_t out_bytes,
                       const Context& ctx, DeviceStatus* st, cudaStream_t s) {
  max_encoded_bytes(id, 0, ctx);  // refuses an unknown id
  // What the host knows already is checked here; the device checks the header against it.
  switch (family_of(id)) {
    case Family::codes:
      SCIZ_REQUIRE(ctx.code_width == 1 || ctx.code_width == 2, Status::invalid_argument,
                   who(id) + "code width " + std::to_string(ctx.code_width) + " (1 or 2 bytes)");
      SCIZ_REQUIRE(out_bytes % ctx.code_width == 0, Status::corrupt_stream,
                   who(id) + std::to_string(out_bytes) + " bytes are not whole " + std::to_string(ctx.code_width) +
                       "-byte codes");
      return cuda::codes_decode(id, d_blob, bytes, out_bytes, ctx, d_out, st, s);
    case Family::tcms:
    case Family::bit:
      SCIZ_REQUIRE(bytes == kHeaderBytes + out_bytes, Status::corrupt_stream,
                   who(id) + "blob of " + std::to_string(bytes) + " bytes cannot hold " + std::to_string(out_bytes));
      if (family_of(id) == Family::tcms) return cuda::tcms_decode(id, d_blob, out_bytes, d_out, st, s);
      return cuda::bit_decode(id, d_blob, out_bytes, d_out, st, s);
    default:
      SCIZ_REQUIRE(bytes >= kHeaderBytes + table_bytes(out_bytes), Status::corrupt_stream,
                   who(id) + "blob of " + std::to_string(bytes) + " bytes cannot hold the table of " +
                       std::to_string(out_bytes) + " bytes");
      return cuda::eliminate_decode(id, d_blob, bytes, out_bytes, d_out, st, s);
  }
}

DeviceBlob encode_codes_cuda(Lossless choice, const uint8_t* d_in, uint64_t n, const Context& ctx, StageId& chosen,
                             cudaStream_t s) {
  SCIZ_REQUIRE(choice == Lossless::auto_select || stage_by_id(static_cast<uint8_t>(choice)), Status::invalid_argument,
               "lossless choice " + std::to_string(static_cast<unsigned>(choice)) + " is not a codes stage");
  check_codes_context(static_cast<StageId>(choice), ctx);
  SCIZ_REQUIRE(n % ctx.code_width == 0, Status::invalid_argument,
               std::to_string(n) + " input bytes are not a whole number of " + std::to_string(ctx.code_width) +
                   "-byte codes");
  return cuda::codes_encode_choice(choice, d_in, n, ctx, chosen, s);
}

DeviceBlob encode_cuda(std::span<const StageId> chain, const uint8_t* d_in, uint64_t n, const Context& ctx,
                       cudaStream_t s) {
  check_chain(chain, Status::invalid_argument);
  DeviceBlob cur;
  const uint8_t* in = d_in;
  for (size_t i = 0; i < chain.size(); ++i) {
    const StageId id = chain[i];
    DeviceBlob next;
    if (fused(chain, i)) {  // tcms then bit: one pass, the tcms blob never written
      SCIZ_REQUIRE(n <= kMaxStageInput - 2 * kHeaderBytes, Status::invalid_argument,
                   who(id) + "input of " + std::to_string(n) + " bytes exceeds 2^56 - 17");
      next = {dev::Buffer<uint8_t>(n + 2 * kHeaderBytes, s), n + 2 * kHeaderBytes};
      cuda::tcms_bit_encode(id, chain[++i], in, n, next.bytes.get(), s);
    } else if (family_of(id) == Family::codes) {  // the encoder's own buffer, not a copy of it
      check_codes_context(id, ctx);
      SCIZ_REQUIRE(n % ctx.code_width == 0, Status::invalid_argument,
                   who(id) + std::to_string(n) + " input bytes are not a whole number of " +
                       std::to_string(ctx.code_width) + "-byte codes");
      next = cuda::codes_encode_blob(id, in, n, ctx, s);
    } else {
      const uint64_t cap = max_encoded_bytes(id, n, ctx);
      next = {dev::Buffer<uint8_t>(cap, s), 0};
      next.size = encode_stage_cuda(id, in, n, next.bytes.get(), cap, ctx, s);
    }
    cur = std::move(next);  // the previous buffer is released in stream order, after its reader
    in = cur.bytes.get();
    n = cur.size;
  }
  return cur;
}

namespace {

// Decodes chain[last], ..., chain[stop]: stage stop's input goes to d_out (stop 0: exactly
// out_bytes bytes), or with d_out null into a buffer returned.
DeviceBlob decode_down_to(std::span<const StageId> chain, size_t stop, const uint8_t* d_blob, uint64_t bytes,
                          uint8_t* d_out, uint64_t out_bytes, const Context& ctx, cudaStream_t s, DeviceStatus* st_in) {
  const bool to_caller = d_out != nullptr;
  check_chain(chain, Status::corrupt_stream);
  std::vector<uint64_t> cap(chain.size());
  cap[0] = out_bytes;
  for (size_t i = 1; i < chain.size(); ++i) cap[i] = max_encoded_bytes(chain[i - 1], cap[i - 1], ctx);
  dev::Buffer<DeviceStatus> own;
  DeviceStatus* st = st_in;
  if (st == nullptr) {
    own = zeroed_status(s);
    st = own.get();
  }
  const std::string what = "stage list " + chain_name(chain);
  dev::Buffer<uint8_t> cur;
  const uint8_t* in = d_blob;
  DeviceBlob result;
  for (size_t i = chain.size(); i-- > stop;) {
    const StageId id = chain[i];
    const Family f = family_of(id);
    require_header_bytes(id, bytes);
    if (i > stop && fused(chain, i - 1)) {  // bit over tcms: one pass back, sizes from the blob's length
      SCIZ_REQUIRE(bytes >= 2 * kHeaderBytes && bytes - kHeaderBytes <= cap[i], Status::corrupt_stream,
                   who(id) + "blob of " + std::to_string(bytes) + " bytes cannot hold a tcms blob of at most " +
                       std::to_string(cap[i]) + " bytes");
      const uint64_t n = bytes - 2 * kHeaderBytes;
      --i;
      SCIZ_REQUIRE(i == 0 ? n == out_bytes : n <= cap[i], Status::corrupt_stream,
                   what + ": decodes to " + std::to_string(n) + " bytes at stage " + stage_name(chain[i]) +
                       ", expected " + (i == 0 ? "" : "at most ") + std::to_string(cap[i]));
      uint8_t* out = d_out;
      dev::Buffer<uint8_t> next;
      if (i > stop || !to_caller) {
        next = dev::Buffer<uint8_t>(n, s);
        out = next.get();
      }
      cuda::bit_tcms_decode(id, chain[i], in, n, out, st, s);
      if (i == stop && !to_caller) result = {std::move(next), n};
      cur = std::move(next);
      in = out;
      bytes = n;
      continue;
    }
    uint64_t n;
    if (i == 0) {
      n = out_bytes;  // the stage's decoder checks the header against it on the device
    } else if (f == Family::tcms || f == Family::bit) {
      n = bytes - kHeaderBytes;  // likewise: a size-preserving blob is 8 bytes longer than its input
      SCIZ_REQUIRE(n <= cap[i], Status::corrupt_stream,
                   who(id) + "blob of " + std::to_string(bytes) + " bytes decodes to more than the " +
                       std::to_string(cap[i]) + " bytes expected");
    } else {
      // One synchronization learns this blob's header and whether a stage decoded before it
      // failed, whose message is then the one to give.
      DeviceStatus hs;
      uint64_t h = 0;
      dev::copy_to_host(&hs, st, sizeof hs, s);
      dev::copy_to_host(&h, in, 8, s);
      dev::sync(s);
      throw_if_failed(hs, what);
      n = checked_header(id, h, bytes, cap[i], ctx);
    }
    uint8_t* out = d_out;
    dev::Buffer<uint8_t> next;
    if (i > stop || !to_caller) {
      next = dev::Buffer<uint8_t>(n, s);
      out = next.get();
    }
    decode_stage_cuda(id, in, bytes, out, n, ctx, st, s);
    if (i == stop && !to_caller) result = {std::move(next), n};
    cur = std::move(next);  // the previous blob is released in stream order, after its reader
    in = out;
    bytes = n;
  }
  if (st_in == nullptr) {
    DeviceStatus hs;
    dev::copy_to_host(&hs, st, sizeof hs, s);
    dev::sync(s);
    throw_if_failed(hs, what);
  }
  return result;
}

}  // namespace

void decode_cuda(std::span<const StageId> chain, const uint8_t* d_blob, uint64_t bytes, uint8_t* d_out,
                 uint64_t out_bytes, const Context& ctx, cudaStream_t s, DeviceStatus* st) {
  SCIZ_REQUIRE(d_out != nullptr, Status::invalid_argument, "stage list: no output buffer");
  decode_down_to(chain, 0, d_blob, bytes, d_out, out_bytes, ctx, s, st);
}

DeviceBlob decode_tail_cuda(std::span<const StageId> chain, const uint8_t* d_blob, uint64_t bytes, uint64_t out_bytes,
                            const Context& ctx, cudaStream_t s, DeviceStatus* st) {
  SCIZ_REQUIRE(chain.size() >= 2, Status::internal, "decode_tail_cuda: a chain of one stage has no tail");
  return decode_down_to(chain, 1, d_blob, bytes, nullptr, out_bytes, ctx, s, st);
}

std::vector<uint8_t> encode_cuda_host(std::span<const StageId> chain, std::span<const uint8_t> in, const Context& ctx,
                                      cudaStream_t s) {
  dev::Buffer<uint8_t> d_in(in.size(), s);
  dev::copy_to_device(d_in.get(), in.data(), in.size(), s);
  const DeviceBlob b = encode_cuda(chain, d_in.get(), in.size(), ctx, s);
  std::vector<uint8_t> out(b.size);
  dev::copy_to_host(out.data(), b.bytes.get(), b.size, s);
  dev::sync(s);
  return out;
}

std::vector<uint8_t> decode_cuda_host(std::span<const StageId> chain, std::span<const uint8_t> blob,
                                      uint64_t out_bytes, const Context& ctx, cudaStream_t s) {
  dev::Buffer<uint8_t> d_blob(blob.size(), s), d_out(out_bytes, s);
  dev::copy_to_device(d_blob.get(), blob.data(), blob.size(), s);
  decode_cuda(chain, d_blob.get(), blob.size(), d_out.get(), out_bytes, ctx, s);
  std::vector<uint8_t> out(out_bytes);
  dev::copy_to_host(out.data(), d_out.get(), out_bytes, s);
  dev::sync(s);
  return out;
}

}  // namespace sciz::stages
