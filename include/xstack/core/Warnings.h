// Recoverable problems, counted by kind (like Perfetto's stats) and merged
// across files and ranks. A kind is a Warn (core/WarningKinds.h, one table);
// its snake_case name appears in otherData.warnings and in the end-of-run
// summary, and entries() iterates in name order. A few examples of each
// kind are kept (a message starting with the file's basename, then line or
// timestamp: "profile_rank.3: ts 1200: ..."): the kMaxExamples smallest in
// natural order (digit runs compared as numbers), so the examples kept do not
// depend on the order of add and merge (which rank read which file first).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "xstack/core/WarningKinds.h"

namespace xstack {

class Warnings {
 public:
  static constexpr size_t kMaxExamples = 3;

  void add(Warn kind, uint64_t n = 1, const std::string& example = {}) {
    if (!n) return;
    auto& e = entries_[kind];
    e.count += n;
    if (!example.empty()) keepExample(e.examples, example);
  }
  // Adds `example` to `kind` without counting (a count is carried apart).
  void addExample(Warn kind, const std::string& example) {
    keepExample(entries_[kind].examples, example);
  }
  void merge(const Warnings& other) {
    for (const auto& [k, o] : other.entries_) {
      auto& e = entries_[k];
      e.count += o.count;
      for (const auto& x : o.examples) keepExample(e.examples, x);
    }
  }
  // Natural order: digit runs compare as numbers ("f:9" < "f:10"), then bytes.
  static bool naturalLess(const std::string& a, const std::string& b);
  uint64_t count(Warn kind) const {
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
  const std::map<Warn, Entry>& entries() const { return entries_; }

 private:
  // Keeps `examples` the sorted kMaxExamples smallest (naturalLess), no
  // duplicates; an example is cut after 300 bytes.
  static void keepExample(std::vector<std::string>& examples, const std::string& x);
  std::map<Warn, Entry> entries_;  // in name order (Warn's order): deterministic output
};

}  // namespace xstack
