// Stages 5-6 (render, gather + write). Every chunk is rendered by the rank
// that read its input; rank 0 receives the chunks of one trace file after
// another, in order, and appends them to that file, so it holds at most one
// piece (pieceBytes) of rendered text at a time, whatever the job's size.
// Senders use synchronous sends: a rank renders its next piece while rank 0
// writes the previous one, and never runs further ahead.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "xstack/app/ReadStage.h"
#include "xstack/core/TimeUnits.h"
#include "xstack/dist/Comm.h"
#include "xstack/trace/OutputPlan.h"

namespace xstack {

struct WriteContext {
  const std::vector<InputSummary>* all = nullptr;  // gathered, global order
  std::vector<LocalInput>* local = nullptr;        // this rank's inputs
  size_t firstLocal = 0;                           // global index of local[0]
  TimeOrigin origin;
  bool originFromOption = false;
  Topology topology;
  JobShape shape;
  size_t pieceBytes = 4 << 20;
  std::string outDir;
  bool compress = false;
  bool fsync = false;
  // Rank 0: called after each chunk with (chunks done, chunks total).
  std::function<void(uint64_t, uint64_t)> onProgress;
};

struct WriteResult {
  bool ok = true;  // false: a fatal write error (rank 0)
  std::string error;
  uint64_t bytesWritten = 0;
  uint64_t filesWritten = 0;
  Warnings warnings;  // warnings found while rendering, all files (rank 0)
  // Chunks that failed to render (e.g. a profile gone before it was read
  // again): "path (rank r on host): what", one per chunk.
  std::vector<std::string> renderProblems;
};

// collective (point to point with rank 0): renders this rank's chunks and,
// on rank 0, writes every output file to a temporary name. Files are
// committed (renamed) by commitOutputs only after all ranks agreed.
WriteResult writeOutputs(Comm& comm, const std::vector<OutputFile>& outputs, WriteContext& ctx,
                         std::vector<class TraceFileWriter>& writers);

// The otherData object of one trace file, as compact JSON text.
// `renderProblems`: (summary index, message) of chunks that failed to render.
std::string otherDataJson(const OutputFile& o, const WriteContext& ctx, const Warnings& warnings,
                          const std::vector<std::pair<size_t, std::string>>& renderProblems);

}  // namespace xstack
