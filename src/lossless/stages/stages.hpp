// Lossless stages and chains of them, CPU twin. A stage maps bytes to a self-describing blob
// (its decoded length first); a chain applies its stages in order and decodes by applying the
// inverses in reverse order. Byte layouts: docs/FORMAT.md, "Stage blobs"; what each stage is
// for: docs/LOSSLESS.md. The CUDA twin (stages_cuda.hpp) writes the same bytes.
//
// Decoders validate every length and offset before touching memory and throw
// Error(corrupt_stream) naming the stage and the bad value. They never allocate more than the
// caller's limit: one stage's decode takes max_out, the most bytes the caller accepts back;
// a chain's decode takes the exact output size and bounds every intermediate blob by what an
// encoder could have written for it.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include <sciz/types.hpp>

#include "lossless/stages/registry.hpp"
#include "lossless/stages/stage_id.hpp"

namespace sciz::stages {

// One stage.
std::vector<uint8_t> encode_stage_cpu(StageId id, std::span<const uint8_t> in, const Context& ctx = {});
std::vector<uint8_t> decode_stage_cpu(StageId id, std::span<const uint8_t> blob, uint64_t max_out,
                                      const Context& ctx = {});
// encode_stage_cpu(id, in, ctx).size(), exact, without writing the blob where the stage's
// statistics give it: rre and rze from their bitmaps, the codes stages from the histograms
// their choice builds, tcms and bit from n. For choosing among stages by size, then encoding
// only the one chosen.
uint64_t encoded_bytes_cpu(StageId id, std::span<const uint8_t> in, const Context& ctx = {});
// Largest blob the stage writes for n input bytes.
uint64_t max_encoded_bytes(StageId id, uint64_t n, const Context& ctx = {});
// The decoded length a blob declares (bytes; a codes stage's symbol count times the code
// width), unchecked: for sizing, before decode_stage_*() validates it.
uint64_t declared_bytes(StageId id, std::span<const uint8_t> blob, const Context& ctx = {});

// A codes stage by choice: a named one, or auto_select, the one of huffman, rle, rle+huffman
// and zrle+huffman with the smallest exact size (lorenzo's rule, lossless/codes/codes.hpp);
// `chosen` receives the stage written. The blob is that stage's, as encode_stage_cpu() writes it.
std::vector<uint8_t> encode_codes_cpu(Lossless choice, std::span<const uint8_t> in, const Context& ctx,
                                      StageId& chosen);

// A chain (check_chain() rules: 1..8 stages, a codes stage only first).
std::vector<uint8_t> encode_cpu(std::span<const StageId> chain, std::span<const uint8_t> in, const Context& ctx = {});
// Decodes to exactly out_bytes bytes (anything else is corrupt_stream).
std::vector<uint8_t> decode_cpu(std::span<const StageId> chain, std::span<const uint8_t> blob, uint64_t out_bytes,
                                const Context& ctx = {});
uint64_t max_encoded_bytes(std::span<const StageId> chain, uint64_t n, const Context& ctx = {});
// Decodes every stage of a chain of two or more but the first, giving the first stage's blob,
// so a caller can decode that stage itself (lorenzo decodes its codes stage straight into its
// codes). out_bytes is what the whole chain decodes to; every blob is bounded as decode_cpu()
// bounds it, the one returned by what chain[0] can write for out_bytes.
std::vector<uint8_t> decode_tail_cpu(std::span<const StageId> chain, std::span<const uint8_t> blob,
                                     uint64_t out_bytes, const Context& ctx = {});

}  // namespace sciz::stages
