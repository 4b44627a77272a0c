// Reading a whole input file without ever blocking: the file is opened with
// O_NONBLOCK and must be a regular file (a FIFO, a folder or a device is an
// error, not a hang). At most `maxBytes` are read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "xstack/core/Status.h"

namespace xstack {

Expected<std::string> readFileBytes(const std::string& path, uint64_t maxBytes = UINT64_MAX);

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

  // `reuse`: a buffer no longer needed; its memory is reused when large
  // enough (fresh pages are costly, docs/PERFORMANCE.md).
  static Expected<std::unique_ptr<FileBuffer>> open(const std::string& path,
                                                    std::unique_ptr<FileBuffer> reuse = nullptr);

 private:
  FileBuffer() = default;
  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  std::unique_ptr<char[]> heap_;
};

}  // namespace xstack
