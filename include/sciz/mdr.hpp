// sciz `mdr`: refactor a field once into a file of separately readable segments, then
// retrieve it at any bound, reading only the segments that bound needs (docs/MDR.md).
//
//   auto file = sciz::mdr::refactor({data, sciz::DType::f32, sciz::Shape::parse("100x500x500")});
//   sciz::mdr::Retriever r(sciz::mdr::memory_source(file));      // or file_source("f.sciz")
//   auto got = r.retrieve({sciz::EbMode::rel, 1e-3}, out, bytes);  // reads the header and a prefix
//   got = r.retrieve({sciz::EbMode::rel, 1e-5}, out, bytes);        // reads only what 1e-5 adds
//
// Every finite point of a retrieval lies within got.bound of the original (got.bound is a
// proven upper bound, rounding included); NaN and Inf come back bit for bit.
#pragma once
#include <sciz/error.hpp>
#include <sciz/sciz.hpp>
#include <sciz/types.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sciz::mdr {

struct RefactorOptions {
  // Bitplanes per segment (the paper's unit is 4): fewer give a finer choice of what to read,
  // more give fewer, larger segments. 1..32 for f32, 1..52 for f64.
  uint32_t planes_per_group = 1;
  // Algorithm 2's thresholds: a group of at most copy_below bytes is stored as it is, and a
  // coder (Huffman or RLE) is used only where its estimated ratio exceeds min_ratio.
  uint64_t copy_below = 256;
  double min_ratio = 1.0;
  Device device = Device::cpu;  // the CPU twin (cuda: not yet)
};

// The whole refactored file in memory.
std::vector<uint8_t> refactor(const FieldView& field, const RefactorOptions& opt = {});

// Random access to a refactored file: read(offset, n, dst) fills dst with bytes
// [offset, offset + n) of the file, or throws.
struct Source {
  uint64_t size = 0;
  std::function<void(uint64_t offset, uint64_t n, void* dst)> read;
};
Source memory_source(std::span<const uint8_t> bytes);  // the bytes must outlive the Source
Source file_source(const std::string& path);           // the file stays open while the Source lives

struct FileInfo {
  DType dtype = DType::f32;
  Shape shape;
  double value_min = 0, value_max = 0;  // finite values (NaN when there are none)
  uint64_t special = 0;                 // values carried exactly (NaN, Inf, f64 beyond 2^1000)
  uint32_t levels = 0, segments = 0;
  uint64_t header_bytes = 0, file_bytes = 0;
  double coarsest_bound = 0;  // reading nothing beyond the header (and the exact values)
  double finest_bound = 0;    // reading every segment
};

struct Retrieval {
  double requested = 0;  // the absolute bound asked for
  double bound = 0;      // guaranteed: |x - x'| <= bound at every finite point
  bool met = false;      // bound <= requested (false only below finest_bound)
  uint64_t segments = 0;          // segments held after this call
  uint64_t bytes_read = 0;        // by this call (the header counts on the first)
  uint64_t total_bytes_read = 0;  // since the first retrieval (a resumed state included)
};

// Reads and checks the header and index when constructed; each retrieve() refines what it
// holds, reading only segments it lacks, and reconstructs the whole field into out.
class Retriever {
 public:
  explicit Retriever(Source src);
  // Continues from state() of an earlier Retriever on the same file (checked).
  Retriever(Source src, std::span<const uint8_t> state);
  ~Retriever();
  Retriever(Retriever&&) noexcept;
  Retriever& operator=(Retriever&&) noexcept;

  const FileInfo& info() const;
  double resolve(const ErrorBound& eb) const;  // the absolute bound a request means
  // out: exactly count x sizeof(dtype) bytes. A bound below finest_bound reads everything and
  // reports met = false.
  Retrieval retrieve(const ErrorBound& eb, void* out, uint64_t out_bytes);
  // What has been read so far, to resume from later: the segments as read (compressed).
  std::vector<uint8_t> state() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sciz::mdr
