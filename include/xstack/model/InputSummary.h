// What the reading rank learned about one input file in the read stage, in
// a form small enough to gather on every rank: status, the earliest
// timestamp, counts, warnings, and for profiles the rows and span count.
// Everything the write stage needs to order the chunks of every trace file
// is here; the events themselves stay on the reading rank.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "xstack/core/FileIdentity.h"
#include "xstack/core/Status.h"
#include "xstack/core/Warnings.h"
#include "xstack/event/InputFile.h"
#include "xstack/model/CounterGroup.h"
#include "xstack/model/RankRows.h"

namespace xstack {

constexpr size_t kMaxGpuDevicesKept = 64;

enum class InputStatus : int { Ok = 0, Partial = 1, Failed = 2 };
const char* statusName(InputStatus s);

struct InputSummary {
  InputFile file;
  int reader = 0;
  std::string readerHost;
  InputStatus status = InputStatus::Ok;
  std::string problem;  // without the path: "byte 120 of 300: event cut short"
  uint64_t minTs = 0;   // smallest non-zero timestamp, 0 = none
  uint64_t events = 0;
  uint64_t memEvents = 0;
  Warnings warnings;
  // profiles
  std::vector<RowKey> rows;  // displayed ranks only
  uint64_t spanCount = 0;
  // The reader kept this displayed profile's rows from its read for the
  // rendering (LocalInput::keptRows): rendering them there needs no decode.
  bool rowsKept = false;
  // Topology evidence of a profile (every rank, displayed or not): the
  // device ids of its GPU activities, ascending, distinct, at most
  // kMaxGpuDevicesKept; and the GPUs its process saw (0 = not said).
  std::vector<int64_t> gpuDevices;
  int64_t visibleGpus = 0;
  // A profile as the read stage read it (core/FileIdentity.h): the rendering's
  // second read of a displayed profile must find the same file.
  FileIdentity identity;
  // dcgm: (group, gpu) -> counter events; net: (NetTx or NetRx, 0) -> counter events
  std::map<std::pair<CounterGroup, int64_t>, uint64_t> counterEvents;

  uint64_t counters(CounterGroup group, int64_t gpu = 0) const {
    auto it = counterEvents.find({group, gpu});
    return it == counterEvents.end() ? 0 : it->second;
  }
};

// The gather's message (wire/Wire.h); warnings keep counts and examples.
// Decoding bytes that are not such a message (short, garbled, of another
// wire version) or that name a warning kind not in core/WarningKinds.h gives
// an Error, never a throw and never a partial vector.
std::string encodeSummaries(const std::vector<InputSummary>& s);
Expected<std::vector<InputSummary>> decodeSummaries(const std::string& bytes);

}  // namespace xstack
