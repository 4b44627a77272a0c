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
  StepTables = 91,   // a rank's encoded step tables, to rank 0 (app/AnalysisStage.cpp)
  // kernels.csv (app/AnalysisStage.cpp): rank 0 asks a reader for one training
  // rank's kernel table (the rank as decimal text; empty = no more requests) ...
  KernelTableRequest = 92,
  KernelTable = 93,  // ... and the reader answers with it (encoded, analysis/GpuActivity.h)
  // To "n <rank> <digest>" on KernelTableRequest, the reader answers with that
  // kernel's name (the report's kernel-spread table, app/AnalysisStage.cpp).
  KernelName = 94,
};

constexpr int tagValue(MessageTag tag) { return static_cast<int>(tag); }

// Point to point: `data` to rank `dest` on `tag` (synchronous, Comm::send).
void sendMessage(Comm& comm, int dest, MessageTag tag, std::string_view data);
// Point to point: the next message from rank `source` on `tag`.
std::string receiveMessage(Comm& comm, int source, MessageTag tag);

}  // namespace xstack
