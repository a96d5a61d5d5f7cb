// Lorenzo's section 1: its 2-byte quant codes through a stage list (format 5), on either
// device, and the params that record the list. Composition only: the stages and the codes
// coders do the work (src/lossless).
//
// A list is a codes stage (huffman, rle, rle+huffman, zrle+huffman, bitpack; `auto` picks one
// per field by exact size, as format 4 did) followed by byte stages, or byte stages alone.
// Without byte stages the section is that codes stage's blob, byte for byte format 4's.
#pragma once
#include <sciz/sciz.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/device_span.hpp"
#include "core/device_status.hpp"
#include "core/geometry.hpp"
#include "lossless/stages/registry.hpp"

namespace sciz::lorenzo_codes {

// What the caller asked for, before the field is seen.
struct Plan {
  std::optional<Lossless> first;  // a codes stage, auto_select, or none (the list opens with a byte stage)
  stages::Chain rest;             // the byte stages after it
};
// From opt.stages, else opt.lossless; invalid_argument naming a bad list, or both given.
Plan plan_of(const CompressOptions& opt);
// The list a stream records once `chosen` (never auto_select) resolved plan.first.
stages::Chain recorded(const Plan& plan, std::optional<Lossless> chosen);

// Lorenzo's params: radius, tile and the stage list (format 5; versions 1 to 4 had one
// lossless byte, which reads as a list of that one codes stage).
struct Params {
  int32_t radius = 512;
  TileShape tile;
  stages::Chain chain;
};
std::vector<uint8_t> write_params(const Params& p);
// Checks everything a stream's params can be checked against alone: corrupt_stream or
// unsupported naming the field.
Params read_params(std::span<const uint8_t> b, const Extent& e, uint16_t version);
std::vector<std::pair<std::string, std::string>> describe(std::span<const uint8_t> b, uint16_t version);

// The context of lorenzo's codes in a chain: 2 bytes each, below 2 radius, centre radius.
stages::Context context(int32_t radius);

// Section 1 from host codes; `chain` receives the list written.
std::vector<uint8_t> encode_cpu(std::span<const uint16_t> codes, const stages::Context& ctx, const Plan& plan,
                                stages::Chain& chain);
// Section 1 (host bytes) -> the codes; every blob validated before it is used.
void decode_cpu(const stages::Chain& chain, std::span<const uint8_t> section, std::span<uint16_t> codes,
                const stages::Context& ctx);

// Section 1 from device codes (n of them, 16-byte aligned) left on the device.
struct DeviceSection {
  dev::Buffer<uint8_t> bytes;
  uint64_t size = 0;
};
DeviceSection encode_cuda(const uint16_t* d_codes, uint64_t n, const stages::Context& ctx, const Plan& plan,
                          stages::Chain& chain, cudaStream_t s);
// The byte stages of a list applied on the device to what its first stage wrote there (the
// codes stage's blob, or the raw codes when the list has none): section 1.
DeviceSection encode_rest_cuda(DeviceSection first, const stages::Chain& rest, const stages::Context& ctx,
                               cudaStream_t s);

// Section 1 on the device undone down to what lorenzo's codes decoder takes: the codes stage's
// blob with that stage, or (no codes stage) the 2n bytes of raw codes with none. Failures go to
// st; a failure there already stops every kernel. Synchronizes to read the headers of the
// reducers and codes stages it decodes, none when the list is one codes stage.
struct DeviceCodes {
  dev::Buffer<uint8_t> owned;   // holds `span` unless it is the section itself
  DeviceSpan span;
  std::optional<Lossless> stage;
};
DeviceCodes decode_rest_cuda(const stages::Chain& chain, DeviceSpan section, uint64_t n, const stages::Context& ctx,
                             DeviceStatus* st, cudaStream_t s);

}  // namespace sciz::lorenzo_codes
