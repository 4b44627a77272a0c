// Byte strings a rank keeps from one stage to a later one (the analyses'
// per-rank parts, made while reading, used when the analyses merge and
// write): in memory up to a budget in all, the rest appended to a SpillFile
// as they come, so that what a rank holds does not grow with the profiles it
// reads. After seal() every part is a string_view, of memory or of a
// read-only mapping of the file, valid while the shelf lives; release() lets
// a mapped part's pages leave memory once a stage is done with it (touching
// it again reads it from the file). Each stream (e.g. one per analysis) has
// a file of its own, so that touching one stream's small parts does not map
// another's pages with them (the kernel maps up to 64 KiB around a fault).
// Sizes are bytes, 64-bit.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "xstack/io/SpillFile.h"

namespace xstack {

class PartShelf {
 public:
  // Parts are kept in memory while they come to at most `memoryBytes`; the
  // others go to a scratch file in `dir`. `faultStage`: the test hook that
  // makes this shelf's read back fail (core/FaultInjection.h).
  PartShelf(std::string dir, uint64_t memoryBytes, const char* faultStage = "shelf-read")
      : dir_(std::move(dir)), memoryBytes_(memoryBytes), faultStage_(faultStage) {}
  PartShelf(const PartShelf&) = delete;
  PartShelf& operator=(const PartShelf&) = delete;

  // Keeps `bytes` of `stream` (any thread); returns its handle for view().
  // After seal(), or when the scratch file cannot be made or written, a part
  // stays in memory.
  size_t put(size_t stream, std::string bytes);
  // After the last put of the stage that makes the parts: maps the file.
  // When it cannot be mapped, the spilled parts are read back into memory;
  // a part that cannot be read back is empty (its reader then fails to
  // decode it and names its rank), and readBackError() says why.
  void seal();
  // After seal(): why the first part that could not be read back could not
  // (the scratch file's folder and the system's reason); empty when every
  // part reads.
  const std::string& readBackError() const { return readBackError_; }
  // The part of `handle` (after seal() for a spilled part).
  std::string_view view(size_t handle) const;
  // A stage is done with `part` (a view()) for now; see the header comment.
  void release(std::string_view part) const;
  // Bytes of the parts in the scratch file.
  uint64_t spilledBytes() const { return spilled_; }

 private:
  struct Entry {
    std::string bytes;  // a part in memory
    size_t stream = 0;
    uint64_t offset = 0, size = 0;
    bool spilled = false;
  };
  struct Stream {
    std::optional<SpillFile> file;
    bool failed = false;  // the file could not be made or written
    SpillMapping mapping;
  };
  bool spill(Entry& e, std::string& bytes);
  void mapOrReadBack(size_t stream);

  std::string dir_;
  uint64_t memoryBytes_;
  const char* faultStage_;
  std::mutex mutex_;
  std::deque<Entry> entries_;  // by handle; stable addresses
  uint64_t held_ = 0;          // bytes of the parts in memory
  uint64_t spilled_ = 0;
  std::deque<Stream> streams_;  // by stream number
  bool sealed_ = false;
  std::string readBackError_;
};

}  // namespace xstack
