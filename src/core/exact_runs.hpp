// Exactly stored values as runs: maximal stretches of consecutive indices holding the same
// bit pattern (a NaN land mask is a few long runs, not millions of entries). Each run is a
// LEB128 gap from the previous run's end, a LEB128 length-1, and its value: a palette byte
// when the list holds at most 256 distinct bit patterns and that is smaller, else the raw
// value. Layout: u64 entries, u64 runs, u8 mode (0 raw, 1 palette), u8 palette size-1,
// 6 zero bytes, [palette], runs. The reader checks every run against the bound and the
// totals, so the expanded lists are strictly ascending and in range.
#pragma once
#include <sciz/error.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "core/byteio.hpp"

namespace sciz {

namespace detail {
template <class T>
inline bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
}  // namespace detail

template <class T>
std::vector<uint8_t> write_runs(const std::vector<uint64_t>& idx, const std::vector<T>& val) {
  struct Run {
    uint64_t start, len;
    T v;
  };
  std::vector<Run> runs;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (!runs.empty() && runs.back().start + runs.back().len == idx[k] && detail::same_bits(runs.back().v, val[k]))
      ++runs.back().len;
    else
      runs.push_back({idx[k], 1, val[k]});
  }
  std::vector<T> palette;
  bool palette_ok = true;
  for (const auto& r : runs) {
    if (std::none_of(palette.begin(), palette.end(), [&](const T& p) { return detail::same_bits(p, r.v); })) {
      if (palette.size() == 256) {
        palette_ok = false;
        break;
      }
      palette.push_back(r.v);
    }
  }
  const bool use_palette = palette_ok && palette.size() * sizeof(T) + runs.size() < runs.size() * sizeof(T);
  ByteWriter w;
  w.put<uint64_t>(idx.size());
  w.put<uint64_t>(runs.size());
  w.put<uint8_t>(use_palette ? 1 : 0);
  w.put<uint8_t>(use_palette ? static_cast<uint8_t>(palette.size() - 1) : 0);
  for (int i = 0; i < 6; ++i) w.put<uint8_t>(0);
  if (use_palette) w.bytes(palette.data(), palette.size() * sizeof(T));
  uint64_t end = 0;
  for (const auto& r : runs) {
    put_varint(w, r.start - end);
    put_varint(w, r.len - 1);
    if (use_palette) {
      const auto at = std::find_if(palette.begin(), palette.end(), [&](const T& p) { return detail::same_bits(p, r.v); });
      w.put<uint8_t>(static_cast<uint8_t>(at - palette.begin()));
    } else {
      w.put<T>(r.v);
    }
    end = r.start + r.len;
  }
  return std::move(w.buffer());
}

template <class T>
void read_runs(std::span<const uint8_t> sec, uint64_t bound, const char* what, std::vector<uint64_t>& idx,
               std::vector<T>& val) {
  ByteReader r(sec.data(), sec.size(), what);
  const uint64_t count = r.get<uint64_t>("entry count");
  const uint64_t nruns = r.get<uint64_t>("run count");
  const uint8_t mode = r.get<uint8_t>("value mode");
  const uint32_t psize = r.get<uint8_t>("palette size") + 1u;
  r.take(6, "padding");
  SCIZ_REQUIRE(mode <= 1 && count <= bound && nruns <= count, Status::corrupt_stream,
          std::string(what) + ": " + std::to_string(count) + " entries in " + std::to_string(nruns) +
              " runs (mode " + std::to_string(mode) + ") do not fit a field of " + std::to_string(bound));
  // Every run takes at least 3 bytes, which caps a hostile run count before any allocation.
  SCIZ_REQUIRE(nruns <= r.remaining() / 3 + 1, Status::corrupt_stream, std::string(what) + ": run count exceeds section");
  std::vector<T> palette;
  if (mode == 1) {
    palette.resize(psize);
    std::memcpy(palette.data(), r.take(psize * sizeof(T), "palette"), psize * sizeof(T));
  }
  idx.clear();
  val.clear();
  idx.reserve(count);
  val.reserve(count);
  uint64_t end = 0;
  for (uint64_t k = 0; k < nruns; ++k) {
    const uint64_t gap = get_varint(r, "run gap");
    const uint64_t len = get_varint(r, "run length") + 1;
    SCIZ_REQUIRE(gap <= bound - end && len <= bound - end - gap && len <= count - idx.size(), Status::corrupt_stream,
            std::string(what) + ": run " + std::to_string(k) + " leaves the field or the entry count");
    T v;
    if (mode == 1) {
      const uint8_t pi = r.get<uint8_t>("palette index");
      SCIZ_REQUIRE(pi < psize, Status::corrupt_stream, std::string(what) + ": palette index " + std::to_string(pi));
      v = palette[pi];
    } else {
      v = r.get<T>("run value");
    }
    const uint64_t start = end + gap;
    for (uint64_t i = 0; i < len; ++i) {
      idx.push_back(start + i);
      val.push_back(v);
    }
    end = start + len;
  }
  SCIZ_REQUIRE(idx.size() == count && r.remaining() == 0, Status::corrupt_stream,
          std::string(what) + ": runs hold " + std::to_string(idx.size()) + " entries, header says " +
              std::to_string(count) + (r.remaining() ? " (and trailing bytes)" : ""));
}

}  // namespace sciz
