// Distinct strings of a rank's rows (the per-rank store's names), raw bytes,
// one id each. The store interns every event name of a profile in file
// order, where reading the names is a sequential pass over the file's bytes;
// the sinks then look names up for events in their output order (by thread
// and time): a small, cache-resident table instead of a random walk over the
// whole file. Format-neutral: each sink encodes a name as its format needs
// (the JSON sink escapes each once, JsonNameCache).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xstack {

class NameTable {
 public:
  // The id of `s` (0, 1, ... in order of first appearance). The table keeps
  // a copy of each distinct string: `s` need only live for the call.
  uint32_t intern(std::string_view s);
  // The string as interned (raw bytes, not escaped).
  std::string_view raw(uint32_t id) const { return entries_[id].key; }
  size_t size() const { return entries_.size(); }
  // Forgets every string; keeps the memory for the next profile.
  void clear();

 private:
  struct Entry {
    std::string_view key;
    uint64_t hash = 0;
  };
  void grow();
  std::string_view keep(std::string_view s);

  std::vector<Entry> entries_;
  std::vector<uint32_t> slots_;  // open addressing: entry index + 1, 0 = empty
  // The raw copies, in chunks that never reallocate (their views are the
  // keys); kept for the next profile.
  std::vector<std::string> rawChunks_;
  size_t rawChunk_ = 0;
};

}  // namespace xstack
