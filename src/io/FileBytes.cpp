#include "xstack/io/FileBytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace xstack {

namespace {

// Opens a regular file without ever blocking; fills `st`.
Expected<int> openRegular(const std::string& path, struct stat& st) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Error{path + ": cannot stat: " + std::strerror(e)};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* what = S_ISDIR(st.st_mode)    ? "a folder"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a device";
    return Error{path + ": not a regular file (" + what + ")"};
  }
  return fd;
}

// Reads up to `want` bytes of `fd` into `dst` and closes it: the bytes read
// (fewer when the file shrank meanwhile), or an error naming path and offset.
Expected<size_t> readAndClose(int fd, char* dst, size_t want, const std::string& path) {
  size_t got = 0;
  while (got < want) {
    ssize_t n = ::read(fd, dst + got, want - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return Error{path + ": read failed at byte " + std::to_string(got) + ": " + std::strerror(e)};
    }
    if (n == 0) break;  // the file shrank while we read it
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  return got;
}

}  // namespace

FileBuffer::~FileBuffer() = default;

Expected<std::unique_ptr<FileBuffer>> FileBuffer::open(const std::string& path,
                                                       std::unique_ptr<FileBuffer> reuse) {
  struct stat st {};
  auto opened = openRegular(path, st);
  if (!opened) return opened.error();
  int fd = *opened;
  std::unique_ptr<FileBuffer> b =
      reuse ? std::move(reuse) : std::unique_ptr<FileBuffer>(new FileBuffer);
  const size_t want = static_cast<size_t>(st.st_size);
  if (!b->heap_ || b->capacity_ < want) {
    b->heap_.reset();
    b->capacity_ = want + want / 8 + 1;  // headroom: the next file may be a little larger
    b->heap_ = std::make_unique_for_overwrite<char[]>(b->capacity_);
  }
  auto got = readAndClose(fd, b->heap_.get(), want, path);
  if (!got) return got.error();
  b->data_ = b->heap_.get();
  b->size_ = *got;
  return b;
}

Expected<std::string> readFileBytes(const std::string& path, uint64_t maxBytes) {
  struct stat st {};
  auto opened = openRegular(path, st);
  if (!opened) return opened.error();
  int fd = *opened;
  uint64_t want = static_cast<uint64_t>(st.st_size);
  if (want > maxBytes) want = maxBytes;
  std::string buf;
  buf.resize(want);
  auto got = readAndClose(fd, buf.data(), static_cast<size_t>(want), path);
  if (!got) return got.error();
  buf.resize(*got);
  return buf;
}

}  // namespace xstack
