// Distinct strings, each escaped for JSON once (appendJsonString, quotes
// included). The renderer interns every event name of a profile in file
// order, where reading the names is a sequential pass over the file's bytes,
// and then copies the escaped text for events in their output order (by
// thread and time): a small, cache-resident table instead of a random walk
// over the whole file, and no escaping work repeated for names that recur
// (op and kernel names recur thousands of times per profile).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/sink/json/JsonText.h"

namespace xstack {

class EscapedNameTable {
 public:
  // The id of `s` (0, 1, ... in order of first appearance). The table keeps
  // a copy of each distinct string: `s` need only live for the call.
  uint32_t intern(std::string_view s);
  // "<escaped s>", quotes included.
  std::string_view escaped(uint32_t id) const {
    return std::string_view(text_).substr(entries_[id].textAt, entries_[id].textLen);
  }
  // What escaping one occurrence of the string fixed (per use, not per id).
  const JsonTextStats& stats(uint32_t id) const { return entries_[id].stats; }
  // The string as interned (raw bytes, not escaped).
  std::string_view raw(uint32_t id) const { return entries_[id].key; }
  size_t size() const { return entries_.size(); }
  // Forgets every string; keeps the memory for the next profile.
  void clear();

 private:
  struct Entry {
    std::string_view key;
    uint64_t hash = 0;
    size_t textAt = 0, textLen = 0;
    JsonTextStats stats;
  };
  void grow();
  std::string_view keep(std::string_view s);

  std::vector<Entry> entries_;
  std::vector<uint32_t> slots_;  // open addressing: entry index + 1, 0 = empty
  std::string text_;             // all escaped strings, back to back
  // The raw copies, in chunks that never reallocate (their views are the
  // keys); kept for the next profile.
  std::vector<std::string> rawChunks_;
  size_t rawChunk_ = 0;
};

}  // namespace xstack
