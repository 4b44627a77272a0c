// What goes into each trace file, and in which order (docs/FORMAT.md sections 3-4),
// computed identically on every rank from the gathered summaries. A trace
// file is a sequence of chunks; each chunk is rendered by one rank (its
// owner) and written by rank 0 in sequence (pids: trace/TracePids.h):
//   pid 0: process metadata; per rank R ascending: thread metadata (rank 0),
//          then R's spans (owner of R's profile)
//   pids 1..5, 6, 7: process metadata, then per displayed trainer i
//          ascending its counters (owner of the DCGM / net file)
//   pids 8..: per displayed rank ascending, all its rows (owner of R's
//          profile), numbered consecutively from kFirstRankPid
//   after the rows: per analysis track set with a group that has a displayed
//          rank of the file, its process metadata (rank 0), then per such group its
//          tracks (the group's owner; AnalysisTrack, subject: the group's
//          index in its set)
// Processes 1..7 and rows exist only when they have events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xstack/core/Topology.h"
#include "xstack/model/InputSummary.h"
#include "xstack/model/TraceFormat.h"
#include "xstack/model/TrackGroup.h"

namespace xstack {

enum class ChunkKind : int {
  ProcessMeta,
  ThreadMeta,
  Spans,
  Dcgm,
  Net,
  RankRows,
  AnalysisProcess,  // an analysis' track process (its name: the set's)
  AnalysisTrack,    // one group of an analysis' tracks
};

struct Chunk {
  ChunkKind kind = ChunkKind::ProcessMeta;
  int owner = 0;  // rank that renders it
  int64_t pid = 0;
  int64_t subject = 0;  // rank (ThreadMeta, Spans, RankRows) or trainer T (Dcgm, Net)
  int64_t gpu = 0;      // Dcgm: which GPU's rows
  size_t input = 0;     // index into the gathered summaries (Spans, Dcgm, Net, RankRows)
  size_t trackSet = 0;  // AnalysisProcess, AnalysisTrack: the set (TrackSet)
};

// The format of one output file (render/OutputFormats.h): Chrome JSON
// (traceFile_<k>_<g>.json) or Perfetto protobuf (traceFile_<k>_<g>.pftrace,
// docs/FORMAT.md section 7).

struct OutputFile {
  int64_t group = 0;
  int64_t gpu = 0;
  std::vector<int64_t> ranks;     // every rank of the group with this local GPU
  std::vector<int64_t> trainers;  // their trainers
  std::vector<size_t> inputs;     // summaries whose warnings and problems belong here
  std::vector<Chunk> chunks;
  int64_t trainersInGroup = 0;        // < groupSize for a partial last group
  std::vector<int64_t> missingRanks;  // ranks of this group and GPU without a profile
  TraceFormat format = TraceFormat::Json;
  // False for the second format's copy of a (k, g): its rendering warnings
  // are not counted again in the run's totals.
  bool countsWarnings = true;
  std::string fileName() const;  // traceFile_<k>_<g>.json or .pftrace
};

// One file per (k, g) and format, formats in the given order for each (k, g):
// the same chunks and owners, rendered once per format.
std::vector<OutputFile> withFormats(const std::vector<OutputFile>& outputs,
                                    const std::vector<TraceFormat>& formats);

// The most missing ranks listed (a profile named rank.999999999999 must not
// make a list of 10^12 ranks); a longer list is said to be cut, never silently.
constexpr size_t kMaxMissingRanks = 100000;

struct JobShape {
  int64_t trainers = 0;  // highest rank present / P + 1
  int64_t groups = 0;
  int64_t ranks = 0;                  // profiles present
  std::vector<int64_t> missingRanks;  // ranks below the highest one without a profile
};

JobShape jobShape(const std::vector<InputSummary>& all, const Topology& topo);
std::vector<OutputFile> planOutputs(const std::vector<InputSummary>& all, const Topology& topo);

// The last process of file `o` (TracePids.h): a rows chunk spans its rank's rows.
int64_t lastPidOf(const OutputFile& o, const std::vector<InputSummary>& all);

// The track groups of one analysis (AnalysisJob::trackGroups), in one process
// named `process` in each file that has a rank of one of them.
struct TrackSet {
  std::string process;
  std::vector<TraceTrackGroup> groups;
};

// Appends every set's chunks to each output (the same to each format's copy),
// set after set, each on the next free pid: the groups with a displayed rank
// of the file (the tracks are the displayed ranks' detail, as their rows).
void addTrackChunks(std::vector<OutputFile>& outputs, const std::vector<TrackSet>& sets,
                    const std::vector<InputSummary>& all, const Topology& topo);

}  // namespace xstack
