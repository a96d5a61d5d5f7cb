// The CPU twins of the stage families, behind the dispatch in stages_cpu.cpp. The id gives
// the symbol width, the header's stage byte and the name in messages; max_out bounds the
// decoded bytes.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "lossless/codes/codes.hpp"
#include "lossless/stages/stage_id.hpp"

namespace sciz::stages::cpu {

// Blocks per OpenMP thread at least: a parallel region costs microseconds (far more when the
// machine is busy and a thread waits at the barrier for a core), which 4 blocks of work repay.
inline constexpr uint64_t kBlocksPerThread = 4;

using Bytes = std::vector<uint8_t>;
using In = std::span<const uint8_t>;

Bytes tcms_encode(StageId id, In in);
Bytes tcms_decode(StageId id, In blob, uint64_t max_out);

Bytes bit_encode(StageId id, In in);
Bytes bit_decode(StageId id, In blob, uint64_t max_out);

Bytes eliminate_encode(StageId id, In in);  // rre and rze
uint64_t eliminate_bytes(StageId id, In in);  // eliminate_encode(id, in).size(), without writing it
Bytes eliminate_decode(StageId id, In blob, uint64_t max_out);

Bytes codes_encode(StageId id, In in, const Context& ctx);
// The same for a Lossless choice, auto_select included (the stage written is in the result).
codes::Encoded codes_encode_choice(Lossless choice, In in, const Context& ctx);
Bytes codes_decode(StageId id, In blob, const Context& ctx, uint64_t max_out);
// codes_encode(id, in, ctx).size(), from the codes' statistics where they give it exactly.
uint64_t codes_bytes(StageId id, In in, const Context& ctx);
uint64_t codes_max_bytes(uint64_t n, const Context& ctx);

}  // namespace sciz::stages::cpu
