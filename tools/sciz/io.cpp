#include "io.hpp"

#include <sciz/error.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

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

FieldFile::FieldFile(FieldFile&& o) noexcept { *this = std::move(o); }
FieldFile& FieldFile::operator=(FieldFile&& o) noexcept {
  if (this != &o) {
    if (fd >= 0) ::close(fd);
    path = std::move(o.path);
    dtype = o.dtype;
    shape = std::move(o.shape);
    offset = o.offset;
    fd = std::exchange(o.fd, -1);
  }
  return *this;
}
FieldFile::~FieldFile() {
  if (fd >= 0) ::close(fd);
}

void read_at(int fd, uint64_t offset, void* dst, uint64_t n, const std::string& path) {
  auto* p = static_cast<uint8_t*>(dst);
  for (uint64_t done = 0; done < n;) {
    const size_t want = static_cast<size_t>(std::min(kIoChunk, n - done));
    const ssize_t got = ::pread(fd, p + done, want, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      data_error("cannot read " + quote(path) + ": " + std::strerror(errno));
    }
    if (got == 0)
      data_error(quote(path) + " ended after " + std::to_string(offset + done) + " bytes, " +
                 std::to_string(offset + n) + " expected");
    done += static_cast<uint64_t>(got);
  }
}

InputFile::InputFile(const std::string& p, const char* role) : path(p) {
  FilePtr f = open_input(path, role, size);  // the checks and their messages
  f.reset();
  fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) data_error("cannot read " + std::string(role) + " " + quote(path) + ": " + std::strerror(errno));
}
InputFile::~InputFile() {
  if (fd >= 0) ::close(fd);
}

FieldFile open_field(const Options& o) {
  const std::string& path = o.input;
  uint64_t size = 0;
  FilePtr f = open_input(path, "input", size);
  uint8_t pre[kNpyFixedLen] = {};
  const size_t got = std::fread(pre, 1, std::min<uint64_t>(size, kNpyFixedLen), f.get());
  FieldFile field;
  field.path = path;
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
    field.offset = h.data_offset;
  } else {
    if (!o.dtype || !o.dims)
      usage_error("raw input " + quote(path) + " needs -t f32|f64 and -d DIMS (only .npy files carry their own)");
    field.dtype = *o.dtype;
    field.shape = *o.dims;
  }
  const uint64_t need = field.bytes();
  if (size - field.offset != need) {
    const std::string kind = field.offset ? "npy data of " : "";
    data_error("input " + quote(path) + " holds " + std::to_string(size - field.offset) + " bytes of " + kind +
               "data, but " + field.shape.str() + " " + dtype_name(field.dtype) + " needs " + std::to_string(need) +
               " bytes");
  }
  field.fd = ::open(path.c_str(), O_RDONLY);
  if (field.fd < 0) data_error("cannot read input " + quote(path) + ": " + std::strerror(errno));
  return field;
}

Field read_field(const Options& o, Progress& progress) {
  FieldFile ff = open_field(o);
  progress.consider(ff.bytes());
  progress.phase("reading " + quote(ff.path) + " (" + human_bytes(ff.bytes()) + ")");
  Field field;
  field.dtype = ff.dtype;
  field.shape = ff.shape;
  field.data = HostBuffer::allocate(ff.bytes(), quote(ff.path));
  read_at(ff.fd, ff.offset, field.data.data(), ff.bytes(), ff.path);
  return field;
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

void OutputFile::write_at(uint64_t offset, const void* data, uint64_t n) {
  if (std::fflush(f_) != 0) failed(std::strerror(errno));  // stdio's buffer first, then the positional write
  const auto* p = static_cast<const uint8_t*>(data);
  for (uint64_t done = 0; done < n;) {
    const ssize_t put = ::pwrite(fileno(f_), p + done, static_cast<size_t>(std::min(kIoChunk, n - done)),
                                 static_cast<off_t>(offset + done));
    if (put < 0) {
      if (errno == EINTR) continue;
      failed(std::strerror(errno));
    }
    done += static_cast<uint64_t>(put);
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
