// A refactored (mdr) file from anywhere: the header and index parsed and checked, retrievals at
// a loose, a middle and a tight bound on one Retriever, the state saved and resumed, and a fresh
// one-shot retrieval, on the input with its header and segment checksums repaired. Besides
// crashes and sanitizer reports, it traps where a progressive retrieval differs from the one-shot
// one at the same bound (docs/MDR.md section 5 promises them equal, bit for bit), or where a
// resumed state reads differently from the Retriever that saved it.
#include <sciz/mdr.hpp>

#include <cstring>
#include <vector>

#include "core/checksum.hpp"
#include "limits.hpp"
#include "refactor/mdr/format.hpp"

namespace {

using namespace sciz;

// The header checksum, then, where the header parses, every segment's checksum: at the
// segment's start (version 2), or written into a re-serialized header, used only if it has the
// input's layout (the same size; version 1).
std::vector<uint8_t> repaired(std::span<const uint8_t> in) {
  std::vector<uint8_t> f(in.begin(), in.end());
  if (f.size() < mdr::kFixedBytes) return f;
  uint32_t size;
  std::memcpy(&size, f.data() + 8, 4);
  if (size < mdr::kFixedBytes + 8 || size > f.size()) return f;
  const uint64_t sum = xxh64(f.data(), size - 8);
  std::memcpy(f.data() + size - 8, &sum, 8);
  try {
    mdr::Header h = mdr::read_header({f.data(), size}, f.size());
    if (const uint64_t c = mdr::inline_checksum_bytes(h.version)) {  // in each segment
      for (const mdr::Segment& s : h.segments) {
        const uint64_t sum = chunked_xxh64(f.data() + s.offset + c, s.length - c, kDigestBlockV4);
        std::memcpy(f.data() + s.offset, &sum, 8);
      }
    } else {  // in the index
      for (mdr::Segment& s : h.segments) s.checksum = chunked_xxh64(f.data() + s.offset, s.length, kDigestBlockV4);
      const std::vector<uint8_t> head = mdr::write_header(h);
      if (head.size() == size) std::memcpy(f.data(), head.data(), size);
    }
  } catch (const Error&) {
  }
  return f;
}

const ErrorBound kBounds[] = {{EbMode::rel, 1e-1}, {EbMode::rel, 1e-3}, {EbMode::rel, 1e-6}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> f = repaired({data, size});
  try {
    mdr::Retriever r(mdr::memory_source(f));
    const mdr::FileInfo info = r.info();
    const uint64_t bytes = info.shape.count() * dtype_size(info.dtype);
    if (bytes > fuzz::kMaxDecodedBytes) return 0;
    std::vector<uint8_t> a(bytes), b(bytes);
    for (int k = 0; k < 3; ++k) {
      r.retrieve(kBounds[k], a.data(), bytes);
      if (k == 1) {
        // A fresh Retriever at the same bound gives the same bits.
        mdr::Retriever once(mdr::memory_source(f));
        once.retrieve(kBounds[k], b.data(), bytes);
        if (a != b) __builtin_trap();
        // So does one resumed from the state of the first.
        const std::vector<uint8_t> st = r.state();
        mdr::Retriever resumed(mdr::memory_source(f), st);
        resumed.retrieve(kBounds[k], b.data(), bytes);
        if (a != b) __builtin_trap();
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
