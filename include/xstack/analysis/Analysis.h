// One analysis of `xstack report` behind one interface, in the style of the
// sources (source/Source.h): a per-rank part that consumes a profile's events
// on the read stage's one walk and finishes into bytes, and a job part that
// merges every rank's bytes (with the communicator) into findings, output
// tables (files it declares by name) and trace annotations. The read stage
// and the report driver name no analysis: they iterate the registry
// (AnalysisRegistry.h). Adding one = a folder src/analysis/<name>/ (with
// include/xstack/analysis/<name>/) plus one line in AnalysisRegistry.cpp.
//
// Lifetime in a run (cmd/report/stages/ReportStages.h):
//   read stage   Analysis::rankPart per profile, fed every event, then finish()
//                (bytes kept in LocalInput::analyses, indexed like the registry);
//   analyse      Analysis::jobPart, then AnalysisJob::merge (collective); then
//                on rank 0 every job's publish, then every job's conclude (JobBoard.h);
//   show         AnalysisJob::ranksToShow (rank 0): ranks displayed in detail;
//   traces       AnalysisJob::annotations (rank 0): instants in a trace file;
//                AnalysisJob::trackGroups / trackRows (the groups' owners):
//                a process of tracks in the trace files of the groups' ranks;
//   write        AnalysisJob::write (collective): rank 0's files and summary lines.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xstack/analysis/PartRelease.h"
#include "xstack/comm/Comm.h"
#include "xstack/core/Status.h"
#include "xstack/core/Topology.h"
#include "xstack/core/Warnings.h"
#include "xstack/event/Events.h"
#include "xstack/io/AtomicFile.h"
#include "xstack/io/SpillFile.h"
#include "xstack/model/MarkerPairer.h"
#include "xstack/model/TrackGroup.h"
#include "xstack/render/TraceEvents.h"

namespace xstack {

struct JobBoard;

// The per-rank part of an analysis: one per profile, an EventSink on the read
// stage's walk of it (it sees every event the source delivers, in input order).
class RankAnalysis : public EventSink {
 public:
  void onSlice(const SliceEvent& /*e*/) override {}
  void onMemory(const MemoryEvent& /*m*/) override {}
  // After the profile's last event: this profile's result for the job part,
  // encoded with wire::Writer. `rank`: the profile's training rank; `spans`:
  // its paired forward/backward spans. An Error (e.g. a sorter could not
  // spill; it names why) fails the profile: never a result from part of it.
  virtual Expected<std::string> finish(int64_t rank, const std::vector<Span>& spans) = 0;
  // After finish: adds what this part counted (e.g. sum_saturated) to the
  // profile's warnings (otherData.warnings, the end-of-run line).
  virtual void addWarnings(Warnings& /*warnings*/) const {}
};

// One profile's finished per-rank part on this MPI rank.
struct RankPart {
  int64_t rank = 0;        // training rank
  std::string_view bytes;  // RankAnalysis::finish's result
};

// What every job part is made with (the same on every MPI rank).
struct AnalysisJobOptions {
  Topology topology;
  // Of the trace files findings name: the first --format's suffix, e.g.
  // ".json", ".pftrace", ".json.gz".
  std::string traceSuffix = ".json";
  // --memory-mb in bytes: what a job part may hold of the parts it moves at
  // once (the collectives route their arrivals in rounds of a sixteenth of it).
  uint64_t memoryBytes = uint64_t{64} << 20;
  // --spill-dir: where a job part's scratch files go (io/SpillFile.h).
  std::string spillDir = SpillOptions().dir;
  // Null: nothing to do (analysis/PartRelease.h).
  PartRelease releasePart;
  // --threads: a job part may run its rank-local work (never an MPI call) on
  // this many threads (core/ParallelWork.h), with the same results as on one.
  unsigned threads = 1;
};

// Where a job part's files go (rank 0) and what it says on the terminal.
struct AnalysisOutput {
  uint64_t originNs = 0;  // the traces' time origin (Unix ns)
  Folder dir;             // rank 0's locked --out (OutputCommit::folder())
  bool fsync = false;
  // "xstack 0.1.0, git ..." for the reports (no MPI library: byte-identical
  // for the serial and MPI builds).
  std::string toolVersion;
  std::vector<AtomicFile>* files = nullptr;   // rank 0: the finished temporaries
  std::vector<std::string>* lines = nullptr;  // rank 0: terminal summary lines
};

// The job part of an analysis: made on every MPI rank after the read stage.
class AnalysisJob {
 public:
  virtual ~AnalysisJob() = default;
  // collective: merges every rank's parts; `local` holds this MPI rank's. A
  // failure is kept (status()), never thrown: no files, no annotations.
  virtual void merge(Comm& comm, const std::vector<RankPart>& local) = 0;
  // Rank 0 after every merge: what this job offers the others (JobBoard.h).
  virtual void publish(JobBoard& /*board*/) const {}
  // Rank 0 after every publish: this job's conclusions with the others' products.
  virtual void conclude(const JobBoard& /*board*/) {}
  // Rank 0 after merge: ok, or why the analysis failed.
  virtual Status status() const = 0;
  // Rank 0 after merge: the training ranks worth showing in detail in the
  // traces whatever --display-size says (e.g. those findings name), sorted.
  virtual std::vector<int64_t> ranksToShow() const { return {}; }
  // Rank 0 after merge: instant events for trace file (group, gpu) on process
  // `pid` (after the file's last row); empty when there are none.
  // `originNs`: the traces' time origin.
  virtual TraceExtraRows annotations(int64_t /*group*/, int64_t /*gpu*/, int64_t /*pid*/,
                                     uint64_t /*originNs*/) const {
    return {};
  }
  // Every rank after merge: the track groups this analysis draws in the
  // traces, the same list on every MPI rank (sorted by name), in one
  // process named `trackProcess()` (e.g. "collectives").
  virtual std::vector<TraceTrackGroup> trackGroups() const { return {}; }
  // This MPI rank's counts of its part of the merge, as (name, value), for
  // --timings (e.g. how many groups' walks were split over threads).
  virtual std::vector<std::pair<std::string, uint64_t>> counts() const { return {}; }
  virtual std::string trackProcess() const { return {}; }
  // On the owner of group `index` of trackGroups(): its rows on process
  // `pid`, to `out` as they are made; `dropped` counts its slices not drawn.
  // Called from render threads at once (no state changes).
  virtual void trackRows(size_t /*index*/, int64_t /*pid*/, uint64_t& /*dropped*/,
                         TrackRowSink& /*out*/) const {}
  // collective (every rank, after merge): rank 0 writes the analysis' files
  // (Analysis::outputFiles) to temporaries in out.dir and appends them,
  // finished, to *out.files (all of them, or none and an Error), and its
  // summary lines to *out.lines. The other ranks answer rank 0's requests
  // (e.g. a table fetched one at a time) until it releases them, whatever
  // happened on rank 0. `local`: this MPI rank's parts, as given to merge.
  virtual Status write(Comm& comm, const std::vector<RankPart>& local,
                       const AnalysisOutput& out) = 0;
  // After every analysis wrote: lets go of what only the files needed, so
  // that the traces' rendering does not hold it; what annotations() and
  // trackRows() give must not change.
  virtual void releaseAfterWrite() {}
};

// A registered analysis: its name, the files it writes and its two parts.
class Analysis {
 public:
  virtual ~Analysis() = default;
  virtual std::string_view name() const = 0;
  // The names of the files its job part writes in --out (e.g. "steps.csv").
  virtual std::vector<std::string> outputFiles() const = 0;
  // A per-rank part for one profile. `input`: the memory and spill folder one
  // input may hold (--memory-mb, --spill-dir); the part's sorters take a
  // share of it (kAnalysisBudgetDivisor) and spill past it.
  virtual std::unique_ptr<RankAnalysis> rankPart(const SpillOptions& input) const = 0;
  virtual std::unique_ptr<AnalysisJob> jobPart(const AnalysisJobOptions& options) const = 0;
};

// Writes `text` to the temporary of dir/name (an AtomicFile, O_EXCL, so a
// later run recognises it) and appends the finished file to `files`: it is
// renamed into place with the traces by OutputCommit, never alone.
Status writeForCommit(const Folder& dir, const std::string& name, const std::string& text,
                      bool fsync, std::vector<AtomicFile>& files);

}  // namespace xstack
