#include "xstack/io/PartShelf.h"

#include <utility>

#include "xstack/core/FaultInjection.h"

namespace xstack {

// Appends `bytes` to the scratch file of e.stream as `e`; false (nothing
// kept there) when the file cannot be made or written.
bool PartShelf::spill(Entry& e, std::string& bytes) {
  Stream& s = streams_[e.stream];
  if (s.failed) return false;
  if (!s.file) {
    Expected<SpillFile> f = SpillFile::create(dir_);
    if (!f) {
      s.failed = true;
      return false;
    }
    s.file.emplace(std::move(*f));
  }
  const uint64_t at = s.file->size();
  if (Status st = s.file->append(bytes); !st) {
    s.failed = true;  // what it buffered before may be lost: seal() reads back what it can
    return false;
  }
  e.offset = at;
  e.size = bytes.size();
  e.spilled = true;
  spilled_ += bytes.size();
  return true;
}

size_t PartShelf::put(size_t stream, std::string bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  while (streams_.size() <= stream) streams_.emplace_back();
  Entry e;
  e.stream = stream;
  const bool inMemory = sealed_ || held_ + bytes.size() <= memoryBytes_ || !spill(e, bytes);
  if (inMemory) {
    held_ += bytes.size();
    // Held as many bytes as it has: a string grown by appends can take up to
    // twice its size, which the budget would not see.
    if (bytes.capacity() - bytes.size() > bytes.size() / 8) bytes.shrink_to_fit();
    e.bytes = std::move(bytes);
  }
  entries_.push_back(std::move(e));
  return entries_.size() - 1;
}

void PartShelf::seal() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (sealed_) return;
  sealed_ = true;
  for (size_t s = 0; s < streams_.size(); ++s) mapOrReadBack(s);
}

// Maps the file of `stream`; when it cannot, reads its spilled parts back
// into memory (pread); one that cannot be read is empty. The test hook
// (faultStage_: "shelf-read" unless the shelf names its own) makes both
// fail, as for a file no longer readable.
void PartShelf::mapOrReadBack(size_t stream) {
  Stream& s = streams_[stream];
  if (!s.file) return;
  const bool unreadable = faultArmed(faultStage_);
  if (!s.failed && !unreadable) {
    Expected<SpillMapping> m = s.file->map();
    if (m) {
      s.mapping = std::move(*m);
      s.file.reset();  // the mapping keeps the bytes
      return;
    }
  }
  (void)s.file->flush();
  for (Entry& e : entries_) {
    if (!e.spilled || e.stream != stream) continue;
    std::string bytes(e.size, '\0');
    const Status st = unreadable ? Status(Error("cannot read back a scratch file in " + dir_ +
                                                ": injected fault " + faultStage_))
                                 : s.file->readAt(e.offset, bytes.data(), bytes.size());
    if (!st) {
      bytes.clear();
      if (readBackError_.empty()) readBackError_ = st.error().message;
    }
    spilled_ -= e.size;
    e = Entry{std::move(bytes), stream, 0, 0, false};
  }
  s.file.reset();
}

std::string_view PartShelf::view(size_t handle) const {
  if (handle >= entries_.size()) return {};
  const Entry& e = entries_[handle];
  if (!e.spilled) return e.bytes;
  const std::string_view all = streams_[e.stream].mapping.bytes();
  if (e.offset + e.size > all.size()) return {};  // not sealed yet
  return all.substr(e.offset, e.size);
}

void PartShelf::release(std::string_view part) const {
  for (const Stream& s : streams_) s.mapping.release(part);
}

}  // namespace xstack
