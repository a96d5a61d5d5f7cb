// Interp's section 1: its 1-byte quant codes through a stage list (format 5), on either
// device. Composition only: the stages and the codes coders do the work (src/lossless).
//
// A pipeline either names its list (`interp-cr`, `interp-tp`, or any list given as
// CompressOptions::stages) or lets each chunk take the smallest of the auto candidates by exact
// size (`interp`): the best codes stage (lorenzo's `auto` rule), that stage followed by rze1,
// interp-cr and interp-tp, in that order, a tie going to the earlier. docs/INTERP.md, "Codes
// section", has the measurements behind the candidates.
#pragma once
#include <sciz/sciz.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"
#include "core/device_span.hpp"
#include "core/device_status.hpp"
#include "lossless/stages/registry.hpp"

namespace sciz::interp_codes {

// Interp's codes in a chain: 1 byte each, all 256 values possible, 128 a zero residual.
inline constexpr stages::Context kContext{1, 256, 128};

// nullopt: the auto candidates, chunk by chunk.
using Plan = std::optional<stages::Chain>;
// The list a pipeline named `preset` (nullopt for `interp`) takes under opt: a named pipeline
// refuses another list and any lossless choice; `interp` takes any list (opt.stages), one
// codes stage (opt.lossless, the list of that stage) or neither. invalid_argument naming what
// is wrong.
Plan plan_of(const CompressOptions& opt, const std::optional<stages::Chain>& preset);
// The stage-list option the inner lorenzo pipeline of a chunk that falls back to Lorenzo gets:
// the same list (its stages read lorenzo's 2-byte codes), or "" (lorenzo's own auto).
std::string lorenzo_stages(const Plan& plan);

// The candidates of auto once the best codes stage is known, in preference order.
std::vector<stages::Chain> auto_candidates(stages::StageId best_codes_stage);

// Section 1 from host codes; `chain` receives the list written.
std::vector<uint8_t> encode_cpu(std::span<const uint8_t> codes, const Plan& plan, stages::Chain& chain);
// Section 1 (host bytes) -> exactly n codes; every blob validated before use (corrupt_stream).
std::vector<uint8_t> decode_cpu(const stages::Chain& chain, std::span<const uint8_t> section, uint64_t n);

// The same on the device: codes (n bytes, 16-byte aligned) to a section left on the device,
// the same bytes and the same choice as encode_cpu. Synchronizes as the stages do (to learn
// each blob's size).
struct DeviceSection {
  dev::Buffer<uint8_t> bytes;
  uint64_t size = 0;
};
DeviceSection encode_cuda(const uint8_t* d_codes, uint64_t n, const Plan& plan, stages::Chain& chain, cudaStream_t s);
// A device section into d_codes[0, n); failures go to st (nothing written once it holds one).
void decode_cuda(const stages::Chain& chain, DeviceSpan section, uint8_t* d_codes, uint64_t n, DeviceStatus* st,
                 cudaStream_t s);

// The tuner's sizes of sampled codes (predict/interp/interp.hpp, TuneRequest): interp's 1-byte
// codes and lorenzo's 2-byte codes at radius 512, as the plan would store them. A list is run on
// the samples (exact, a fraction of a millisecond); auto is estimated from histograms (the
// smaller of huffman and zrle+huffman, each sized exactly).
std::function<uint64_t(std::span<const uint8_t>)> sample_sizer(const Plan& plan);
std::function<uint64_t(std::span<const uint16_t>)> lorenzo_sample_sizer(const Plan& plan);
// The histogram estimate alone, for any codes below `alphabet` around `centre`.
template <class Sym>
uint64_t estimate_codes_bytes(std::span<const Sym> codes, uint32_t alphabet, uint16_t centre);

}  // namespace sciz::interp_codes
