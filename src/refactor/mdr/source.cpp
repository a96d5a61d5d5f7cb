// Sources of a refactored file's bytes: a span in memory, or a file read positionally, so a
// retrieval reads exactly the ranges it asks for.
#include <sciz/mdr.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

#include "core/host_memory.hpp"

namespace sciz::mdr {

Source memory_source(std::span<const uint8_t> bytes) {
  Source s;
  s.size = bytes.size();
  s.read = [bytes](uint64_t off, uint64_t n, void* dst) {
    SCIZ_REQUIRE(off <= bytes.size() && n <= bytes.size() - off, Status::corrupt_stream,
                 "mdr: read of " + std::to_string(n) + " bytes at " + std::to_string(off) + " past the end of " +
                     std::to_string(bytes.size()));
    if (n) parallel_copy(dst, bytes.data() + off, n);  // a retrieval reads up to the whole file at once
  };
  return s;
}

namespace {
struct Fd {
  int fd = -1;
  std::string path;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

Source file_source(const std::string& path) {
  auto f = std::make_shared<Fd>();
  f->path = path;
  f->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  SCIZ_REQUIRE(f->fd >= 0, Status::io_error, "cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  SCIZ_REQUIRE(::fstat(f->fd, &st) == 0 && S_ISREG(st.st_mode), Status::io_error, "'" + path + "' is not a regular file");
  Source s;
  s.size = static_cast<uint64_t>(st.st_size);
  s.read = [f](uint64_t off, uint64_t n, void* dst) {
    auto* p = static_cast<uint8_t*>(dst);
    while (n) {
      const ssize_t got = ::pread(f->fd, p, n, static_cast<off_t>(off));
      if (got < 0 && errno == EINTR) continue;
      SCIZ_REQUIRE(got > 0, Status::io_error,
                   "reading '" + f->path + "' at byte " + std::to_string(off) + ": " +
                       (got == 0 ? std::string("unexpected end of file") : std::strerror(errno)));
      p += got, off += static_cast<uint64_t>(got), n -= static_cast<uint64_t>(got);
    }
  };
  return s;
}

}  // namespace sciz::mdr
