// Recoverable problems, counted by kind (like Perfetto's stats) and merged
// across files and ranks. Kinds are short snake_case names that appear in
// otherData.warnings and in the end-of-run summary. The first few examples
// of each kind (a message naming file and line or offset) are kept for
// stderr; only the counts go into trace files, so traces stay identical
// whatever the paths were.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace xstack {

class Warnings {
 public:
  static constexpr size_t kMaxExamples = 3;

  void add(const std::string& kind, uint64_t n = 1, const std::string& example = {}) {
    if (!n) return;
    auto& e = entries_[kind];
    e.count += n;
    if (!example.empty() && e.examples.size() < kMaxExamples) e.examples.push_back(example);
  }
  void merge(const Warnings& other) {
    for (const auto& [k, o] : other.entries_) {
      auto& e = entries_[k];
      e.count += o.count;
      for (const auto& x : o.examples)
        if (e.examples.size() < kMaxExamples) e.examples.push_back(x);
    }
  }
  uint64_t count(const std::string& kind) const {
    auto it = entries_.find(kind);
    return it == entries_.end() ? 0 : it->second.count;
  }
  uint64_t total() const {
    uint64_t t = 0;
    for (const auto& kv : entries_) t += kv.second.count;
    return t;
  }
  bool empty() const { return entries_.empty(); }

  struct Entry {
    uint64_t count = 0;
    std::vector<std::string> examples;
  };
  const std::map<std::string, Entry>& entries() const { return entries_; }

 private:
  std::map<std::string, Entry> entries_;  // ordered: deterministic output
};

}  // namespace xstack
