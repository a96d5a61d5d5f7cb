// Interp's params (format 5, layout 2; docs/FORMAT.md, "Pipelines interp, ..."): written, read
// with every check a decoder makes before any section, and described for `sciz info`.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lossless/stages/registry.hpp"
#include "predict/interp/interp.hpp"

namespace sciz::interp_params {

// Layout 1 was the interp branch's draft (a 16-bit codes stage byte), never released: refused.
inline constexpr uint8_t kLayout = 2;
enum Predictor : uint8_t { kInterp = 0, kLorenzo = 1 };
// Bytes before a Lorenzo chunk's own params (layout and predictor).
inline constexpr size_t kLorenzoPrefix = 2;

std::vector<uint8_t> write(const interp::Choice& ch, const stages::Chain& chain);
// A chunk coded by the lorenzo pipeline: its params behind the layout and predictor bytes.
std::vector<uint8_t> write_lorenzo(std::span<const uint8_t> lorenzo_params);

// The predictor a chunk's params name; unsupported for another layout, corrupt_stream for an
// unknown predictor.
Predictor predictor_of(std::span<const uint8_t> params);
// An interpolation chunk's choice and stage list, checked against the field's layout and bound.
interp::Choice read(std::span<const uint8_t> params, const interp::Layout& L, double eb, stages::Chain& chain);

// The lorenzo pipeline's describe() runs on a Lorenzo chunk's inner params.
std::vector<std::pair<std::string, std::string>> describe_interp(std::span<const uint8_t> params);

}  // namespace sciz::interp_params
