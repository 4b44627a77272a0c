// Rank 0's side of writeOutputs (Rank0Writer.cpp): its render thread and its
// files. Point to point: rank 0 receives every other rank's chunks.
#pragma once

#include <vector>

#include "xstack/cmd/report/TraceWriting.h"
#include "xstack/core/BufferPool.h"
#include "xstack/render/TraceFileWriter.h"

namespace xstack {

// Rank 0 only: writes every output file to a temporary name (writers[i] for
// outputs[i]), chunk by chunk in file order, its own chunks rendered on a
// thread of their own (inline when the Comm allows no threads), every other
// chunk received from its owner. Adds what it wrote, the warnings and the
// render problems to `res`. Returns the first write error; after it, every
// piece is still received (no sender is left blocked) and none written.
Status writeAllFiles(Comm& comm, const std::vector<OutputFile>& outputs, WriteContext& ctx,
                     std::vector<TraceFileWriter>& writers, BufferPool& pool, WriteResult& res);

}  // namespace xstack
