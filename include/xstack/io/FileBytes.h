// Reading a whole input file without ever blocking: the file is opened with
// O_NONBLOCK and must be a regular file (a FIFO, a folder or a device is an
// error, not a hang). At most `maxBytes` are read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "xstack/core/FileIdentity.h"
#include "xstack/core/Status.h"

namespace xstack {

Expected<std::string> readFileBytes(const std::string& path, uint64_t maxBytes = UINT64_MAX);

// Watches a file arrive in pieces and says how many of its bytes can be of use, so that
// what cannot be a file of its format is rejected after its first piece and memory does
// not grow with a bad file's size. Stateful: one per file read.
class PrefixCheck {
 public:
  virtual ~PrefixCheck() = default;
  // `prefix`: the file's first bytes read so far (each call a longer one); `fileSize`: its
  // size when opened. Returns a byte count: reading stops once that many are read (a
  // value <= prefix.size() stops it now; UINT64_MAX reads on).
  virtual uint64_t usefulBytes(std::string_view prefix, uint64_t fileSize) = 0;
};

// A whole file in memory, read into an uninitialized heap buffer (no
// zero-filling). Not memory-mapped on purpose: profiles are kept between
// reading and rendering, and a mapped file truncated in between would kill
// the rank with SIGBUS. Same checks as readFileBytes.
class FileBuffer {
 public:
  ~FileBuffer();
  FileBuffer(const FileBuffer&) = delete;
  FileBuffer& operator=(const FileBuffer&) = delete;
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  std::string_view view() const { return {data_, size_}; }

  // The file's size at open when `check` stopped the read early (size() is then less),
  // else size(): the bytes read (fewer than at open when the file shrank meanwhile).
  uint64_t fileSize() const { return fileSize_; }

  // The file as opened (device, inode, size, mtime) and the digest of the
  // size() bytes read (core/FileIdentity.h): a second read is checked against it.
  const FileIdentity& identity() const { return identity_; }

  // `reuse`: a buffer no longer needed; its memory is reused when large
  // enough (fresh pages are costly, docs/PERFORMANCE.md). `check`: when given,
  // the file is read in pieces (64 KiB, then 4 MiB), memory for the whole file
  // is taken only once the first piece passes, and reading stops where `check`
  // says nothing more is of use.
  static Expected<std::unique_ptr<FileBuffer>> open(const std::string& path,
                                                    std::unique_ptr<FileBuffer> reuse = nullptr,
                                                    PrefixCheck* check = nullptr);

 private:
  FileBuffer() = default;
  void reserve(size_t bytes, size_t keep);
  void noteDigest();
  Status readChecked(int fd, size_t want, PrefixCheck& check, const std::string& path);
  const char* data_ = nullptr;
  size_t size_ = 0;
  uint64_t fileSize_ = 0;
  FileIdentity identity_;
  size_t capacity_ = 0;
  std::unique_ptr<char[]> heap_;
};

}  // namespace xstack
