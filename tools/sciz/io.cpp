#include "io.hpp"

#include <sciz/error.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>

#include "cli_error.hpp"
#include "npy.hpp"
#include "core/host_memory.hpp"

namespace sciz::cli {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kIoChunk = 64ull << 20;  // keeps each fread/fwrite well inside any size limit

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// Exists, is a regular file, opens: each failure named with the path.
FilePtr open_input(const std::string& path, const char* role, uint64_t& size) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) data_error(std::string(role) + " file " + quote(path) + " does not exist");
  if (!fs::is_regular_file(st)) data_error(std::string(role) + " " + quote(path) + " is not a regular file");
  size = fs::file_size(path, ec);
  if (ec) data_error("cannot read " + std::string(role) + " " + quote(path) + ": " + ec.message());
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) data_error("cannot read " + std::string(role) + " " + quote(path) + ": " + std::strerror(errno));
  return f;
}

void read_exact(std::FILE* f, uint8_t* dst, uint64_t n, const std::string& path) {
  uint64_t done = 0;
  while (done < n) {
    const size_t want = static_cast<size_t>(std::min(kIoChunk, n - done));
    const size_t got = std::fread(dst + done, 1, want, f);
    if (got != want) {
      if (std::ferror(f)) data_error("cannot read " + quote(path) + ": " + std::strerror(errno));
      data_error(quote(path) + " ended after " + std::to_string(done + got) + " of " + std::to_string(n) + " bytes");
    }
    done += got;
  }
}

}  // namespace

std::string human_bytes(uint64_t n) {
  char buf[32];
  if (n >= 1000000000ull) std::snprintf(buf, sizeof buf, "%.2f GB", n / 1e9);
  else if (n >= 1000000ull) std::snprintf(buf, sizeof buf, "%.1f MB", n / 1e6);
  else std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
  return buf;
}

HostBuffer HostBuffer::allocate(uint64_t n, const std::string& what) {
  HostBuffer b;
  b.size = n;
  b.p.reset(new (std::nothrow) uint8_t[n ? n : 1]);
  if (!b.p) data_error("out of memory allocating " + std::to_string(n) + " bytes for " + what);
  advise_huge_pages(b.p.get(), n);  // fields are touched once, right away (see host_memory.hpp)
  return b;
}

void Progress::phase(const std::string& what) const {
  if (enabled_) std::fprintf(stderr, "sciz: %s\n", what.c_str());
}

Field read_field(const Options& o, Progress& progress) {
  const std::string& path = o.input;
  uint64_t size = 0;
  FilePtr f = open_input(path, "input", size);
  progress.consider(size);
  progress.phase("reading " + quote(path) + " (" + human_bytes(size) + ")");

  uint8_t pre[kNpyFixedLen] = {};
  const size_t got = std::fread(pre, 1, std::min<uint64_t>(size, kNpyFixedLen), f.get());
  Field field;
  uint64_t offset = 0;
  if (has_npy_magic(pre, got)) {
    const uint64_t plen = npy_preamble_size(pre, got, path);
    if (plen > size) data_error(quote(path) + ": truncated npy header (need " + std::to_string(plen) + " bytes, file has " + std::to_string(size) + ")");
    std::vector<uint8_t> preamble(plen);
    std::fseek(f.get(), 0, SEEK_SET);
    read_exact(f.get(), preamble.data(), plen, path);
    const NpyHeader h = parse_npy_preamble(preamble.data(), plen, path);
    if (o.dtype && *o.dtype != h.dtype)
      usage_error("-t " + o.dtype_arg + " does not match " + quote(path) + ", which holds " + dtype_name(h.dtype));
    if (o.dims && o.dims->dims != h.shape.dims)
      usage_error("-d " + o.dims_arg + " does not match the shape " + h.shape.str() + " of " + quote(path));
    field.dtype = h.dtype;
    field.shape = h.shape;
    offset = h.data_offset;
  } else {
    if (!o.dtype || !o.dims)
      usage_error("raw input " + quote(path) + " needs -t f32|f64 and -d DIMS (only .npy files carry their own)");
    field.dtype = *o.dtype;
    field.shape = *o.dims;
  }
  const uint64_t need = field.shape.count() * dtype_size(field.dtype);
  if (size - offset != need) {
    const std::string kind = offset ? "npy data of " : "";
    data_error("input " + quote(path) + " holds " + std::to_string(size - offset) + " bytes of " + kind + "data, but " +
               field.shape.str() + " " + dtype_name(field.dtype) + " needs " + std::to_string(need) + " bytes");
  }
  field.data = HostBuffer::allocate(need, quote(path));
  std::fseek(f.get(), static_cast<long>(offset), SEEK_SET);
  read_exact(f.get(), field.data.data(), need, path);
  return field;
}

HostBuffer read_whole(const std::string& path, const char* role, Progress& progress) {
  uint64_t size = 0;
  FilePtr f = open_input(path, role, size);
  progress.consider(size);
  progress.phase("reading " + quote(path) + " (" + human_bytes(size) + ")");
  HostBuffer b = HostBuffer::allocate(size, quote(path));
  read_exact(f.get(), b.data(), size, path);
  return b;
}

OutputFile::OutputFile(const std::string& path) : path_(path), tmp_(path + ".tmp") {
  std::error_code ec;
  if (fs::is_directory(path, ec)) data_error("cannot write output " + quote(path) + ": it is a directory");
  f_ = std::fopen(tmp_.c_str(), "wb");
  if (!f_) data_error("cannot write output " + quote(path) + ": " + std::strerror(errno));
}

OutputFile::~OutputFile() {
  if (f_) std::fclose(f_);
  if (!committed_) std::remove(tmp_.c_str());
}

void OutputFile::failed(const std::string& why) {
  if (f_) std::fclose(f_);
  f_ = nullptr;
  std::remove(tmp_.c_str());
  data_error("cannot write output " + quote(path_) + ": " + why);
}

void OutputFile::write(const void* data, uint64_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (uint64_t done = 0; done < n;) {
    const size_t want = static_cast<size_t>(std::min(kIoChunk, n - done));
    if (std::fwrite(p + done, 1, want, f_) != want) failed(std::strerror(errno));
    done += want;
  }
}

void OutputFile::commit() {
  // fclose reports deferred write errors (a full disk shows up here), so check it before
  // the rename makes the file visible.
  if (std::fflush(f_) != 0) failed(std::strerror(errno));
  const int rc = std::fclose(f_);
  f_ = nullptr;
  if (rc != 0) failed(std::strerror(errno));
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) failed(std::strerror(errno));
  committed_ = true;
}

}  // namespace sciz::cli
