// Files in and out: input fields (raw or .npy), whole stream files, and outputs that appear
// under their final name only once completely written.
#pragma once
#include <sciz/types.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "args.hpp"

namespace sciz::cli {

// Uninitialised on purpose: zero-filling a multi-GB buffer that fread overwrites anyway
// costs as long as reading it.
struct HostBuffer {
  std::unique_ptr<uint8_t[]> p;
  uint64_t size = 0;
  static HostBuffer allocate(uint64_t n, const std::string& what);
  uint8_t* data() const { return p.get(); }
};

struct Field {
  DType dtype;
  Shape shape;
  HostBuffer data;  // exactly shape.count() * dtype_size(dtype) bytes
  uint64_t bytes() const { return data.size; }
};

// Phase lines on stderr, only for big inputs and never with -q.
class Progress {
 public:
  inline static constexpr uint64_t kThreshold = 256ull << 20;
  Progress(bool quiet) : quiet_(quiet) {}
  void consider(uint64_t input_bytes) { enabled_ = !quiet_ && input_bytes > kThreshold; }
  void phase(const std::string& what) const;

 private:
  bool quiet_;
  bool enabled_ = false;
};

// An input field's file, opened and described but not read: the values start at `offset`.
struct FieldFile {
  std::string path;
  DType dtype;
  Shape shape;
  uint64_t offset = 0;  // the .npy preamble, or 0 for raw values
  int fd = -1;
  uint64_t bytes() const { return shape.count() * dtype_size(dtype); }
  FieldFile() = default;
  FieldFile(FieldFile&& o) noexcept;
  FieldFile& operator=(FieldFile&& o) noexcept;
  ~FieldFile();
};

// Opens -i as .npy (detected by its magic) or raw (-t and -d required), checks -t/-d against
// an .npy header and the file size against the dims.
FieldFile open_field(const Options& o);

// n bytes at offset of an open file (positional: safe from several threads); each failure
// named with the path.
void read_at(int fd, uint64_t offset, void* dst, uint64_t n, const std::string& path);

// The whole field in memory (eval).
Field read_field(const Options& o, Progress& progress);

// An open file to read positionally (a stream), with its size.
struct InputFile {
  std::string path;
  int fd = -1;
  uint64_t size = 0;
  explicit InputFile(const std::string& path, const char* role);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();
  void read(uint64_t offset, void* dst, uint64_t n) const { read_at(fd, offset, dst, n, path); }
};

// Opens PATH.tmp at once, so an unwritable output fails before any expensive work, and
// renames it to PATH on commit(). Destroyed without commit, it removes the temporary.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  void write(const void* data, uint64_t n);
  // Overwrites bytes already written (e.g. a header whose room was left at the start).
  void write_at(uint64_t offset, const void* data, uint64_t n);
  void commit();
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void failed(const std::string& why);
  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
  bool committed_ = false;
};

std::string human_bytes(uint64_t n);

}  // namespace sciz::cli
