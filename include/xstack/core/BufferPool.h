// Text buffers handed around again and again (rendered pieces on their way to
// rank 0's file) instead of being allocated and freed: on the machines we
// measured, touching a fresh page costs more than rendering it
// (docs/PERFORMANCE.md). Thread-safe; keeps at most `keep` buffers.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace xstack {

class BufferPool {
 public:
  explicit BufferPool(size_t keep = 16) : keep_(keep) {}
  // An empty string, with the capacity of a returned buffer when there is one.
  std::string take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) return {};
    std::string s = std::move(free_.back());
    free_.pop_back();
    return s;
  }
  void give(std::string&& s) {
    s.clear();
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.size() < keep_ && s.capacity() > 0) free_.push_back(std::move(s));
  }

 private:
  const size_t keep_;
  std::mutex mu_;
  std::vector<std::string> free_;
};

}  // namespace xstack
