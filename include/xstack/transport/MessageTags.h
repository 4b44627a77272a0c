// Every tag of the program's point-to-point messages (Comm::send, post,
// recv), in one enum: messages between two ranks on one tag arrive in the
// order they were sent, and a receiver takes only the tag it asks for, so
// two protocols never share a tag.
#pragma once

#include <string>
#include <string_view>

#include "xstack/comm/Comm.h"

namespace xstack {

enum class MessageTag : int {
  ChunkPieces = 77,  // a chunk's rendered pieces and its end, to rank 0 (ChunkPieces.h)
  // A rank's step tables without kernel names, to rank 0 (the "steps" analysis,
  // analysis/steps/; analysis/StepTable.h's wire form).
  StepTables = 91,
  // Rank 0 asks a reader (a typed request; `done` = no more requests) for a
  // training rank's kernel table (the "kernels" analysis, analysis/kernels/)
  // or, in the "steps" analysis' write, for one kernel's name ...
  KernelTableRequest = 92,
  KernelTable = 93,  // ... and the reader answers with the table (analysis/GpuActivity.h) ...
  // ... or with the name (the report's kernel-spread table).
  KernelName = 94,
  // A rank's collective arrivals of an owner's process groups, to the owner, and
  // the owner's summary, to rank 0 (the "collectives" analysis, analysis/collectives/).
  CollectiveArrivals = 95,
  CollectiveSummary = 96,
  // The critical path (analysis/collectives/CriticalPath.h): each owner's
  // outcomes of a reader's arrivals, back to the reader; each rank's latest
  // step ends, to rank 0; rank 0's walk requests to a reader (`done` = no
  // more requests) and the reader's segments with where the path goes next.
  CollectiveOutcomes = 97,
  CriticalStepEnds = 98,
  CriticalWalkRequest = 99,
  CriticalWalkSegments = 100,
  // Each owner's clock samples (analysis/collectives/ClockOffsets.h), to rank 0.
  ClockSamples = 101,
};

constexpr int tagValue(MessageTag tag) { return static_cast<int>(tag); }

// Point to point: `data` to rank `dest` on `tag` (synchronous, Comm::send).
void sendMessage(Comm& comm, int dest, MessageTag tag, std::string_view data);
// Point to point: the next message from rank `source` on `tag`.
std::string receiveMessage(Comm& comm, int source, MessageTag tag);

}  // namespace xstack
