// Running memory sums of docs/FORMAT.md section 3, one track per (place, device).
// Each memory event adds +bytes at start_ns and -bytes at end_ns; all
// changes at the same ns give one sample. A block never freed (end_ns 0 or
// end_ns < start_ns) stays allocated (warning memory_never_freed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xstack/core/Warnings.h"
#include "xstack/input/ProfileDecoder.h"

namespace xstack {

// Track order in a rank's rows: gpu, cpu, cudapinnedplace; then device.
enum class MemPlace : int { Gpu = 0, Cpu = 1, Pinned = 2 };
const char* memPlaceName(MemPlace p);  // "gpu", "cpu", "cudapinnedplace"
// Wire enum (0 CUDAPlace, 1 CPUPlace, 2 CUDAPinnedPlace) -> MemPlace.
bool memPlaceFromWire(int64_t place, MemPlace& out);

struct MemorySample {
  uint64_t ns = 0;
  int64_t allocatedBytes = 0;
};

struct MemoryTrack {
  MemPlace place = MemPlace::Gpu;
  uint64_t device = 0;
  std::vector<MemorySample> samples;  // strictly increasing ns
};

// All tracks of one profile, ordered by (place, device). Events with an
// unknown place are skipped (warning memory_unknown_place).
// The warnings buildMemoryTracks counts (memory_unknown_place,
// memory_never_freed), without building the tracks.
void countMemoryWarnings(const std::vector<ProfileMemEvent>& events, Warnings& warnings);

// The same count, one memory event at a time (streaming decode).
class MemoryWarningCounter {
 public:
  void add(const ProfileMemEvent& e);
  // The counts; with `where` (e.g. "profile_rank.3 (training rank 3)") also
  // examples of the earliest events of each kind: "<where>: ts <start_ns> ns:
  // <bytes> bytes, place <p>, device <d>, end_ns <e>".
  void addTo(Warnings& warnings, const std::string& where = {}) const;

 private:
  uint64_t unknown_ = 0, neverFreed_ = 0;
  // The Warnings::kMaxExamples earliest events of each kind (by start_ns,
  // then file order): cheap per event, formatted in addTo only.
  std::vector<ProfileMemEvent> firstUnknown_, firstNeverFreed_;
};

std::vector<MemoryTrack> buildMemoryTracks(const std::vector<ProfileMemEvent>& events,
                                           Warnings& warnings);

}  // namespace xstack
