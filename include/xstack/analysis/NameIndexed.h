// Per-name state of one profile's slices (kernel totals, a name's kind),
// found by the slice's nameId when the walk gave one (a vector index: the
// read stage hashes a name once for every per-rank part), else by the name
// (a hash lookup: slices made outside the walk, e.g. in tests). Either way
// one entry per distinct name, in order of first sight.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xstack/core/TextHash.h"
#include "xstack/event/Events.h"

namespace xstack {

template <class V>
class NameIndexed {
 public:
  // The index of `e.name`'s entry; on first sight an entry (name, make(name))
  // is added. Indexes are 0, 1, ... in order of first sight.
  template <class Make>
  uint32_t indexOf(const SliceEvent& e, Make&& make) {
    if (e.nameId < byId_.size() && byId_[e.nameId] != 0) return byId_[e.nameId] - 1;
    uint32_t index = 0;
    if (auto it = byName_.find(e.name); it != byName_.end()) {
      index = it->second;
    } else {
      index = static_cast<uint32_t>(entries_.size());
      entries_.emplace_back(std::string(e.name), make(e.name));
      byName_.emplace(std::string(e.name), index);
    }
    if (e.nameId != SliceEvent::kNoNameId) {
      if (e.nameId >= byId_.size()) byId_.resize(static_cast<size_t>(e.nameId) + 1, 0);
      byId_[e.nameId] = index + 1;
    }
    return index;
  }
  template <class Make>
  V& at(const SliceEvent& e, Make&& make) {
    return entries_[indexOf(e, std::forward<Make>(make))].second;
  }
  V& operator[](uint32_t index) { return entries_[index].second; }
  const std::string& name(uint32_t index) const { return entries_[index].first; }
  size_t size() const { return entries_.size(); }
  std::vector<std::pair<std::string, V>>& entries() { return entries_; }
  const std::vector<std::pair<std::string, V>>& entries() const { return entries_; }
  // Forgets every entry.
  void clear() {
    entries_.clear();
    byId_.clear();
    byName_.clear();
  }

 private:
  std::vector<std::pair<std::string, V>> entries_;
  std::vector<uint32_t> byId_;  // by nameId: entry index + 1, 0 = not seen by id
  TextMap<uint32_t> byName_;    // entry index by name
};

}  // namespace xstack
