#include "xstack/model/MemoryTrack.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

namespace xstack {

namespace {
bool neverFreed(const MemoryEvent& e) { return e.endNs == 0 || e.endNs < e.startNs; }

// Keeps `first` the earliest events by start_ns (ties: the earlier added).
void keepEarliest(std::vector<MemoryEvent>& first, const MemoryEvent& e) {
  if (first.size() >= Warnings::kMaxExamples && e.startNs >= first.back().startNs) return;
  auto at = std::upper_bound(
      first.begin(), first.end(), e,
      [](const MemoryEvent& a, const MemoryEvent& b) { return a.startNs < b.startNs; });
  first.insert(at, e);
  if (first.size() > Warnings::kMaxExamples) first.pop_back();
}

std::string memExample(const std::string& where, const MemoryEvent& e) {
  return where + ": ts " + std::to_string(e.startNs) + " ns: " + std::to_string(e.bytes) +
         " bytes, place " + std::to_string(static_cast<int>(e.place)) + ", device " +
         std::to_string(e.device) + ", end_ns " + std::to_string(e.endNs);
}
}  // namespace

void MemoryWarningCounter::add(const MemoryEvent& e) {
  if (!neverFreed(e)) return;
  ++neverFreed_;
  keepEarliest(firstNeverFreed_, e);
}

void MemoryWarningCounter::addTo(Warnings& warnings, const std::string& where) const {
  warnings.add(Warn::MemoryNeverFreed, neverFreed_);
  if (where.empty()) return;
  for (const MemoryEvent& e : firstNeverFreed_)
    warnings.addExample(Warn::MemoryNeverFreed, memExample(where, e));
}

void countMemoryWarnings(const std::vector<MemoryEvent>& events, Warnings& warnings) {
  MemoryWarningCounter c;
  for (const MemoryEvent& e : events) c.add(e);
  c.addTo(warnings);
}

std::vector<MemoryTrack> buildMemoryTracks(const std::vector<MemoryEvent>& events,
                                           Warnings& warnings) {
  countMemoryWarnings(events, warnings);
  struct Change {
    uint64_t ns;
    int64_t delta;
  };
  std::map<std::pair<int, uint64_t>, std::vector<Change>> changes;
  for (const MemoryEvent& e : events) {
    auto& c = changes[{static_cast<int>(e.place), e.device}];
    const int64_t bytes = memoryChangeBytes(e.bytes);
    c.push_back({e.startNs, bytes});
    if (!neverFreed(e)) c.push_back({e.endNs, -bytes});
  }
  std::vector<MemoryTrack> tracks;
  tracks.reserve(changes.size());
  for (auto& [key, c] : changes) {
    std::stable_sort(c.begin(), c.end(),
                     [](const Change& a, const Change& b) { return a.ns < b.ns; });
    MemoryTrack t;
    t.place = static_cast<MemPlace>(key.first);
    t.device = key.second;
    MemoryInUse sum;
    for (size_t i = 0; i < c.size();) {
      uint64_t ns = c[i].ns;
      for (; i < c.size() && c[i].ns == ns; ++i) {
        if (sum.add(c[i].delta)) warnings.add(Warn::MemorySumOverflow);
      }
      t.samples.push_back({ns, sum.bytes()});
    }
    tracks.push_back(std::move(t));
  }
  return tracks;
}

}  // namespace xstack
