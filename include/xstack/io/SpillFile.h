// A scratch file for what does not fit in a rank's memory budget (the runs of
// io/ExternalSorter.h, the rows of a displayed rank too large to hold): made in
// a folder (`--spill-dir`) and unlinked at once, so its blocks live only while
// it is open and nothing is left behind however the process ends (a kill
// included). Appends are buffered; reads are positional (pread) and see
// everything appended before the last flush(). Sizes and offsets are bytes,
// 64-bit. Errors name the folder and the system's reason (a full disk, a
// folder that cannot be written), so the user can point --spill-dir elsewhere.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xstack/core/Status.h"

namespace xstack {

// Where and how much: a rank holds at most about `memoryBytes` of one
// store's records before it spills them to a SpillFile in `dir`.
struct SpillOptions {
  std::string dir = "/tmp";
  uint64_t memoryBytes = uint64_t{64} << 20;
};

// What a store written once and read back once in order (a PartShelf, an
// owner's arrivals or outcomes, a reader's outcomes) holds in memory of a
// rank's budget: a 32nd of `memoryBytes`, and at most kStoreHeldMaxBytes.
// Holding more saves nothing: what spills waits in the page cache (the
// kernel's, reclaimable) until it is read back, so a bigger hold would only
// make a rank's peak grow with the job until it filled (docs/DESIGN.md "The
// stores' holds").
constexpr uint64_t kStoreHeldMaxBytes = uint64_t{1} << 20;
uint64_t storeHeldBytes(uint64_t memoryBytes);

// $TMPDIR when set (and not empty), else /tmp: on a cluster node, local disk.
std::string defaultSpillDir();

// A read-only mapping (mmap) of a SpillFile's bytes, unmapped when destroyed
// (it outlives the SpillFile). Empty for an empty file.
class SpillMapping {
 public:
  SpillMapping() = default;
  SpillMapping(SpillMapping&& other) noexcept;
  SpillMapping& operator=(SpillMapping&& other) noexcept;
  SpillMapping(const SpillMapping&) = delete;
  SpillMapping& operator=(const SpillMapping&) = delete;
  ~SpillMapping();

  std::string_view bytes() const { return {data_, size_}; }
  // The pages reading `part` may have mapped (a view of bytes(); any other
  // view is ignored) leave this process' memory: the aligned 2 MiB windows
  // it touches, as the kernel may map that much around one fault (a large
  // folio), neighbouring bytes included. They are read
  // again from the file when next touched (madvise MADV_DONTNEED), so every
  // byte stays readable.
  void release(std::string_view part) const;

 private:
  friend class SpillFile;
  SpillMapping(const char* data, size_t size) : data_(data), size_(size) {}
  const char* data_ = nullptr;
  size_t size_ = 0;
};

class SpillFile {
 public:
  // An empty scratch file in `dir`. Error: the folder and why.
  static Expected<SpillFile> create(const std::string& dir);

  SpillFile(SpillFile&& other) noexcept;
  SpillFile& operator=(SpillFile&& other) noexcept;
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  ~SpillFile();

  // Appends `bytes` (buffered: written out at flush() or when the buffer fills).
  Status append(std::string_view bytes);
  // Writes out what append() buffered.
  Status flush();
  // After flush(): the append buffer's memory goes back (a file appended to
  // now and then, e.g. once per track group, need not hold it in between);
  // the next append() takes it again. A no-op while bytes are buffered.
  void dropBuffer();
  // Bytes appended so far (flushed or not).
  uint64_t size() const { return written_ + buffer_.size(); }
  // Reads exactly `n` bytes at `offset` into `out`; the range must have been
  // flushed. Error: a short or failed read.
  Status readAt(uint64_t offset, char* out, size_t n) const;
  const std::string& dir() const { return dir_; }
  // Flushes, then maps everything appended. Error: the flush's, or mmap's.
  Expected<SpillMapping> map();

 private:
  SpillFile(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}
  Error failure(const char* what, int err) const;

  int fd_ = -1;
  std::string dir_;
  std::string buffer_;    // appended, not yet written
  uint64_t written_ = 0;  // bytes in the file
};

}  // namespace xstack
