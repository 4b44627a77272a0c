// Stages 3-4 (read, compute): each rank reads the files the plan gave it,
// parses them, pairs markers, finds rows and counts, and keeps what the
// write stage will render. Purely local: no communication.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "xstack/core/Topology.h"
#include "xstack/event/CounterSamples.h"
#include "xstack/event/Events.h"
#include "xstack/io/PartShelf.h"
#include "xstack/io/SpillFile.h"
#include "xstack/model/InputSummary.h"
#include "xstack/model/MarkerPairer.h"
#include "xstack/plan/Plan.h"
#include "xstack/render/RowBuckets.h"
#include "xstack/source/Source.h"

namespace xstack {

struct LocalInput {
  InputSummary summary;
  std::vector<Span> spans;  // profile
  std::vector<GpuTelemetrySample> dcgm;
  std::vector<NetCounterSample> net;
  // profile: every registered analysis' finished per-rank part (wire bytes),
  // indexed like registeredAnalyses() (analysis/AnalysisRegistry.h), as
  // handles on `parts`; empty with --no-analysis and when the profile failed.
  std::vector<size_t> analyses;
  std::shared_ptr<PartShelf> parts;
  // The part of analysis `index` (empty when there is none).
  std::string_view analysisPart(size_t index) const {
    return index < analyses.size() && parts ? parts->view(analyses[index]) : std::string_view();
  }
  // A displayed profile's rows kept from the read for its rendering on this
  // rank (Source::keepRowsForRendering), else null: rendering decodes the
  // file again. Taken (and freed) by the rendering.
  std::unique_ptr<RowBuckets> keptRows;
};

struct ReadOptions {
  Topology topology;
  // (A displayed profile is decoded again by its renderer, into reused
  // memory, unless its source says its rows are worth keeping: measured for
  // protobuf, decoding again was faster with 2 ranks and a rank holds one
  // profile at a time; for gzip JSON a decode costs more; docs/PERFORMANCE.md.)
  bool analysis = true;            // run every registered analysis' per-rank part
  const Source* source = nullptr;  // the format of the run's inputs (listInputsStage)
  // What a rank may hold per input (--memory-mb): the analyses' sorters
  // (Analysis::rankPart) spill past their share of it, and the rows kept in
  // LocalInput::keptRows over all of this rank's files stay within it (a file
  // whose rows pass what is left is decoded again when it is rendered).
  SpillOptions spill;
  // Where the analyses' parts go (readAssigned makes one when null: a
  // 32nd of --memory-mb in memory, the rest in --spill-dir); a profile
  // read without one keeps its parts in memory.
  std::shared_ptr<PartShelf> parts;
  // Files read at once (--threads), each on one thread; the budget above is
  // the rank's, split between the files in flight. The results do not depend on it.
  unsigned threads = 1;
};

// What a thread decoding a trace file of `fileBytes` bytes may hold for its
// sorters and rows: `spill` (the thread's share of --memory-mb) less what the
// decode itself holds (Source::decodeHeldBytes); at least 1 MiB, or all of
// `spill` when it is smaller (spilling below that only costs time).
SpillOptions decodeShare(const SpillOptions& spill, const Source& source, uint64_t fileBytes);

// Of `threads` threads, how many may decode at once trace files of at most
// `largestFile` bytes within `budget` bytes (--memory-mb): all of them for a
// streaming source, else as many as the files' held bytes
// (Source::decodeHeldBytes) fit in the budget, at least 1.
unsigned decodersWithin(unsigned threads, uint64_t budget, const Source& source,
                        uint64_t largestFile);

// Reads every file of `plan` whose reader is `myRank`; the result is in plan
// order, whatever options.threads. `onFile` is called after each file, in the
// order they end, never by two threads at once (for progress).
std::vector<LocalInput> readAssigned(const Plan& plan, int myRank, const ReadOptions& options,
                                     const std::function<void(const LocalInput&)>& onFile = {});

// Reads again the profiles of `local` (readAssigned's result for `myRank`,
// read under the topology `before`) that did not fail and whose rank is
// displayed under options.topology but not under `before`, or the other way
// round: their rows, row warnings and kept rows follow the new display. A
// profile displayed or hidden by another --gpus-per-trainer fails when the
// second read throws; one shown only because options.topology.shownRanks
// names it is read again only if its first reading was Ok, and keeps that
// reading unless the second is Ok too. A profile that changed between the
// reads fails.
void readWhereDisplayChanged(const Plan& plan, int myRank, const ReadOptions& options,
                             const Topology& before, std::vector<LocalInput>& local);

// Decodes the profile `s.file.path` with `source` and fills the profile part
// of `s` (counts, earliest timestamp, spans; also used by `xstack inspect`).
// `displayed` adds rows and the row and memory warnings. `buffer`: memory
// reused from one file to the next. `tee` (optional) and each of `analyses`
// (the analyses' per-rank parts) receive every event. An Error when
// nothing could be read (`s` is then left to the caller to mark failed).
struct ProfileSummaryTargets {
  EventSink* tee = nullptr;
  std::vector<EventSink*> analyses;
};
Expected<TraceDecodeInfo> summarizeProfile(const Source& source, bool displayed, InputSummary& s,
                                           std::vector<Span>& spans,
                                           std::unique_ptr<FileBuffer>& buffer,
                                           ProfileSummaryTargets targets = {});

// "path: what" -> "what" (problems in traces must not depend on paths).
std::string withoutPath(const std::string& message, const std::string& path);

}  // namespace xstack
