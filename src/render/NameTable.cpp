#include "xstack/render/NameTable.h"

#include <algorithm>
#include <cstring>

namespace xstack {
namespace {

uint64_t load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// A fast hash of the length and up to 24 bytes (start, middle, end); a
// collision only costs a full comparison.
uint64_t quickHash(std::string_view s) {
  const uint64_t n = s.size();
  uint64_t a = 0, b = 0, c = 0;
  if (n >= 8) {
    a = load64(s.data());
    b = load64(s.data() + (n - 8) / 2);
    c = load64(s.data() + n - 8);
  } else {
    std::memcpy(&a, s.data(), n);
  }
  uint64_t h = (n + 0x9E3779B97F4A7C15ull) ^ (a * 0xBF58476D1CE4E5B9ull);
  h = (h ^ (h >> 31)) * 0x94D049BB133111EBull ^ b;
  h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull ^ c;
  return h ^ (h >> 32);
}

}  // namespace

uint32_t NameTable::intern(std::string_view s) {
  if (slots_.empty() || (entries_.size() + 1) * 2 > slots_.size()) grow();
  const uint64_t h = quickHash(s);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    uint32_t slot = slots_[i];
    if (slot == 0) {
      Entry e;
      e.key = keep(s);
      e.hash = h;
      entries_.push_back(e);
      slots_[i] = static_cast<uint32_t>(entries_.size());
      return slots_[i] - 1;
    }
    const Entry& e = entries_[slot - 1];
    if (e.hash == h && e.key == s) return slot - 1;
  }
}

std::string_view NameTable::keep(std::string_view s) {
  constexpr size_t kChunkBytes = 64 << 10;
  while (rawChunk_ < rawChunks_.size() &&
         rawChunks_[rawChunk_].capacity() - rawChunks_[rawChunk_].size() < s.size())
    ++rawChunk_;
  if (rawChunk_ == rawChunks_.size())
    rawChunks_.emplace_back().reserve(std::max(kChunkBytes, s.size()));
  std::string& chunk = rawChunks_[rawChunk_];
  const size_t at = chunk.size();
  chunk.append(s);  // within the reserved capacity: no reallocation
  return std::string_view(chunk).substr(at, s.size());
}

void NameTable::grow() {
  size_t n = slots_.empty() ? 1024 : slots_.size() * 2;
  slots_.assign(n, 0);
  for (uint32_t k = 0; k < entries_.size(); ++k)
    for (size_t i = entries_[k].hash & (n - 1);; i = (i + 1) & (n - 1))
      if (slots_[i] == 0) {
        slots_[i] = k + 1;
        break;
      }
}

void NameTable::clear() {
  entries_.clear();
  std::fill(slots_.begin(), slots_.end(), 0);
  for (std::string& chunk : rawChunks_) chunk.clear();
  rawChunk_ = 0;
}

}  // namespace xstack
