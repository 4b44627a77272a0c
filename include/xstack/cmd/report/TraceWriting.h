// Stages 5-6 (render, gather + write). Every chunk is rendered by its owner
// (RenderAssignment: the reader, or for a displayed rank's rows any rank
// that sees the profile file, which reads it again); rank 0 receives the chunks of one trace file
// after another, in order, and appends them to that file, so it holds at most one piece
// (pieces.bytes) of rendered text at a time, whatever the job's size. Senders post their pieces
// (transport/ChunkPieces.h) and keep rendering while rank 0 is busy elsewhere (writing, rendering
// its own chunks on a thread of its own, receiving from another rank), with at most pieces.ahead
// pieces in flight: a sender holds at most (pieces.ahead + 1) x pieces.bytes of rendered text.
// Files (src/cmd/report/): TraceWriting.cpp the driver (writeOutputs), ChunkRendering.cpp the
// chunk walk on a chunk's owner, TraceMetadata.cpp otherData, Rank0Writer.cpp rank 0's render
// thread and files.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "xstack/cmd/report/ProfileReading.h"
#include "xstack/comm/Comm.h"
#include "xstack/core/TimeUnits.h"
#include "xstack/io/AtomicFile.h"
#include "xstack/plan/OutputPlan.h"
#include "xstack/render/TraceEvents.h"

namespace xstack {

class BufferPool;
class RenderedTracks;

// What writeOutputs needs, grouped by the part that uses it.
struct WriteContext {
  // Every part.
  const std::vector<InputSummary>* all = nullptr;  // gathered, global order
  std::vector<std::string> hosts;                  // host of each rank (messages)
  TimeOrigin origin;
  // Every rank: the rendering of the chunks it owns (ChunkRendering.cpp).
  struct Render {
    const Source* source = nullptr;            // the format of the run's inputs
    std::vector<LocalInput>* local = nullptr;  // this rank's inputs
    size_t firstLocal = 0;                     // global index of local[0]
    // A displayed rank whose rows pass spill.memoryBytes is rendered from
    // SpilledRows (sorted on disk in spill.dir), not held (RowBuckets).
    SpillOptions spill;
    // Threads that render this rank's chunks (--threads; ChunkRendering.h,
    // OrderedRenderer): spill is each one's share of the rank's budget.
    unsigned threads = 1;
    // The analyses' track sets (AnalysisProcess, AnalysisTrack chunks): each
    // set's process name, and on a group's owner the rows of group `index` of
    // set `set` on process `pid`, to a sink (`dropped`: its slices not drawn).
    std::vector<std::string> trackProcesses;
    std::function<void(size_t set, size_t index, int64_t pid, uint64_t& dropped, TrackRowSink&)>
        trackRows;
    // The track groups this rank draws in several files, rendered once
    // (src/cmd/report/RenderedTracks.h; set by writeOutputs); nullptr: each
    // is rendered where drawn.
    RenderedTracks* renderedTracks = nullptr;
  } render;
  // The rendered text on its way to rank 0 (transport/ChunkPieces.h).
  struct Pieces {
    size_t bytes = 4 << 20;      // the most text one piece holds
    size_t ahead = 4;            // pieces a sender may have in flight to rank 0
    BufferPool* pool = nullptr;  // piece buffers (set by writeOutputs)
  } pieces;
  // Rank 0: its files (Rank0Writer.cpp).
  struct Files {
    Folder outDir;  // the locked --out (OutputCommit::folder()), where the files go
    bool compress = false;
    bool fsync = false;
    // Called after each chunk with (chunks done, chunks total).
    std::function<void(uint64_t, uint64_t)> onProgress;
    // Rows appended after a file's last chunk, given the file and the first
    // free pid (the analysis' findings, cmd/report/AnalysisGather.h),
    // rendered in the file's format.
    std::function<TraceExtraRows(const OutputFile&, int64_t)> extraEvents;
  } files;
  // The job as otherData tells it (TraceMetadata.cpp).
  struct Job {
    bool originFromOption = false;  // origin: --time-origin-ns, else the inputs' earliest
    Topology topology;
    JobShape shape;
  } job;
};

// What a write stage that did not fail produced (its fatal error travels as the
// Failure of Expected<WriteResult>); every problem here is non-fatal.
struct WriteResult {
  uint64_t bytesWritten = 0;
  uint64_t filesWritten = 0;
  Warnings warnings;  // warnings found while rendering, all files (rank 0)
  // Chunks that failed to render (e.g. a profile gone before it was read
  // again): "path (rank r on host): what", one per chunk.
  std::vector<std::string> renderProblems;
  // Profiles this rank decoded for rendering: once per displayed profile it
  // renders, whatever the number of formats (--timings: render_decodes).
  uint64_t renderDecodes = 0;
  // Track-group chunks this rank copied from their first rendering
  // (RenderedTracks; --timings: track_copies).
  uint64_t trackCopies = 0;
  // Rank 0, after the commit: what makes --out not exactly this run's set,
  // each a message (an earlier output file that could not be removed, --out
  // renamed during the run); each makes the run partial.
  std::vector<std::string> commitProblems;
  // Rank 0: where the committed files are (OutputCommit::Result::folderPath).
  std::string outPath;
};

// collective (every rank calls it; point to point with rank 0 only): renders this
// rank's chunks and, on rank 0, writes every output file to a temporary name.
// The files are committed (renamed, io/OutputCommit.h) by writeTracesStage
// only after all ranks agreed that every write succeeded. Fails only on rank 0
// (the rank that writes): a Failure of kind Write with the first write error's
// message, the file it concerns and rank 0's host. After that error rank 0 still
// receives every piece (no sender is left blocked) and writes none.
Expected<WriteResult> writeOutputs(Comm& comm, const std::vector<OutputFile>& outputs,
                                   WriteContext& ctx, std::vector<class TraceFileWriter>& writers);

// The otherData object of one trace file, as compact JSON text.
// `renderProblems`: (summary index, message) of chunks that failed to render.
std::string otherDataJson(const OutputFile& o, const WriteContext& ctx, const Warnings& warnings,
                          const std::vector<std::pair<size_t, std::string>>& renderProblems);

}  // namespace xstack
