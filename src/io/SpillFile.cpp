#include "xstack/io/SpillFile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "xstack/core/FaultInjection.h"

namespace xstack {

namespace {

constexpr size_t kBufferBytes = size_t{256} << 10;

// An unnamed file in `dir`: O_TMPFILE where the file system has it, else a
// named one (mkstemp) unlinked at once. -1 with errno set on failure.
int openUnnamed(const std::string& dir) {
#ifdef O_TMPFILE
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
#endif
  std::string path = dir + "/.xstack-spill-XXXXXX";
  int fd2 = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd2 >= 0) ::unlink(path.c_str());
  return fd2;
}

}  // namespace

std::string defaultSpillDir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

uint64_t storeHeldBytes(uint64_t memoryBytes) {
  return std::min(memoryBytes / 32, kStoreHeldMaxBytes);
}

Expected<SpillFile> SpillFile::create(const std::string& dir) {
  int fd = openUnnamed(dir);
  if (fd < 0) {
    const int err = errno;
    return Error("cannot make a scratch file in " + dir + ": " + std::strerror(err) +
                 " (--spill-dir names another folder)")
        .atFile(dir);
  }
  return SpillFile(fd, dir);
}

SpillFile::SpillFile(SpillFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      dir_(std::move(other.dir_)),
      buffer_(std::move(other.buffer_)),
      written_(other.written_) {}

SpillFile& SpillFile::operator=(SpillFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    dir_ = std::move(other.dir_);
    buffer_ = std::move(other.buffer_);
    written_ = other.written_;
  }
  return *this;
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

Error SpillFile::failure(const char* what, int err) const {
  return Error(std::string(what) + " a scratch file in " + dir_ + ": " + std::strerror(err) +
               " (--spill-dir names another folder)")
      .atFile(dir_);
}

Status SpillFile::append(std::string_view bytes) {
  if (buffer_.capacity() < kBufferBytes) buffer_.reserve(kBufferBytes);
  while (!bytes.empty()) {
    const size_t room = kBufferBytes - buffer_.size();
    const size_t n = std::min(room, bytes.size());
    buffer_.append(bytes.substr(0, n));
    bytes.remove_prefix(n);
    if (buffer_.size() == kBufferBytes)
      if (Status st = flush(); !st) return st;
  }
  return {};
}

Status SpillFile::flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::pwrite(fd_, buffer_.data() + done, buffer_.size() - done,
                               static_cast<off_t>(written_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return failure("cannot write", n < 0 ? errno : ENOSPC);
    done += static_cast<size_t>(n);
  }
  written_ += buffer_.size();
  buffer_.clear();
  return {};
}

void SpillFile::dropBuffer() {
  if (buffer_.empty()) std::string().swap(buffer_);
}

Status SpillFile::readAt(uint64_t offset, char* out, size_t n) const {
  if (faultArmed("spill-read")) return failure("cannot read back", EIO);
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return failure("cannot read back", got < 0 ? errno : EIO);
    done += static_cast<size_t>(got);
  }
  return {};
}

Expected<SpillMapping> SpillFile::map() {
  if (Status st = flush(); !st) return st.error();
  if (faultArmed("spill-read")) return failure("cannot map", EIO);
  if (written_ == 0) return SpillMapping();
  void* p = ::mmap(nullptr, written_, PROT_READ, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) return failure("cannot map", errno);
  return SpillMapping(static_cast<const char*>(p), written_);
}

SpillMapping::SpillMapping(SpillMapping&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

SpillMapping& SpillMapping::operator=(SpillMapping&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

SpillMapping::~SpillMapping() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

// What one page fault on a file mapping may map at once: the fault-around
// window (64 KiB by default, aligned in the address space) and, on recent
// kernels, the whole large folio of the page cache, up to a PMD (2 MiB with
// 4 KiB pages, aligned in the file): measured on Linux 6.18/ext4, one byte
// read mapped the aligned 2 MiB around it.
constexpr uintptr_t kFaultAroundBytes = uintptr_t{64} << 10;
constexpr uintptr_t kLargestFolioBytes = uintptr_t{2} << 20;

void SpillMapping::release(std::string_view part) const {
  if (!data_ || part.data() < data_ || part.data() + part.size() > data_ + size_) return;
  // Every page that reading `part` may have mapped: the folio windows it
  // touches and the fault-around windows at their edges, neighbours' bytes
  // included. A shared file mapping reads a dropped page back from the file,
  // so a neighbour still in use only faults it in again; without the
  // neighbours' pages, what the faults mapped beyond every part would stay
  // for the life of the mapping.
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t folio = std::max(page, kLargestFolioBytes);
  const uintptr_t around = std::max(page, kFaultAroundBytes);
  const auto begin = reinterpret_cast<uintptr_t>(data_);  // file offset 0, page-aligned
  const uintptr_t limit = begin + (size_ + page - 1) / page * page;
  const uintptr_t from = reinterpret_cast<uintptr_t>(part.data()) - begin;
  const uintptr_t to = from + part.size();
  const uintptr_t first = begin + from / folio * folio;
  const uintptr_t last = begin + (to + folio - 1) / folio * folio;
  const uintptr_t start = std::max(begin, first / around * around);
  const uintptr_t end = std::min(limit, (last + around - 1) / around * around);
  if (end > start) ::madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED);
}

}  // namespace xstack
