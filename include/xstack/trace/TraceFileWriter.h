// Writes one trace file so that no reader ever sees it half-written: the
// text goes to a hidden temporary file in the same folder
// (".<name>.xstack-<token>.tmp", created with O_EXCL; <token> is 64 random
// bits drawn once per process, so two runs never share a temporary file even
// with the same pid on another host or pid namespace), and commit() renames
// it over the final path only after everything was written and synced. Until
// then an older file at the final path stays untouched; abandon() (or the
// destructor) removes the temporary file. A run's set of files is committed
// by OutputCommit (below), not one by one.
//
// Layout written: {"traceEvents":[ <events> ],"displayTimeUnit":"ns","otherData":{...}}
//
// Options: `gzip` streams the text through zlib into a .gz file (Perfetto and
// chrome://tracing open it); `fsync` syncs the file before the rename, for
// crash durability (the rename alone already keeps readers from ever seeing
// a partial file).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/Status.h"

namespace xstack {

class TraceFileWriter {
 public:
  TraceFileWriter();
  ~TraceFileWriter();
  TraceFileWriter(const TraceFileWriter&) = delete;
  TraceFileWriter& operator=(const TraceFileWriter&) = delete;
  TraceFileWriter(TraceFileWriter&& o) noexcept;
  TraceFileWriter& operator=(TraceFileWriter&& o) noexcept;

  struct Options {
    bool gzip = false;
    int gzipLevel = 1;  // zlib level: 1 is fast and already shrinks traces ~8x
    bool fsync = false;
    // Raw bytes, no JSON framing: a .pftrace, or a plain file committed with
    // the traces (the analysis files). appendEvents/appendRaw write their bytes
    // unchanged, and finish writes the given bytes unchanged.
    bool raw = false;
  };
  // Creates the temporary file and writes the header.
  Status open(const std::string& finalPath, const Options& options);
  Status open(const std::string& finalPath) { return open(finalPath, Options{}); }
  // Appends rendered events (each starting with ",\n"; the comma of the
  // very first event is dropped).
  Status appendEvents(std::string_view text);
  // Appends bytes as given (Options::raw).
  Status appendRaw(std::string_view text) { return writeAll(text); }
  // Writes the closing part with otherData (a compact JSON object; raw mode:
  // the given bytes as they are), syncs and closes the temporary file.
  Status finish(std::string_view otherDataJson);
  // Renames the finished temporary file to the final path.
  Status commit();
  void abandon();

  // Bytes in the file (compressed size with gzip).
  uint64_t bytesWritten() const { return bytes_; }
  const std::string& finalPath() const { return final_; }
  const std::string& tempPath() const { return temp_; }
  bool finished() const { return finished_; }

 private:
  Status writeAll(std::string_view text);
  Status writeRaw(const char* p, size_t n);
  Status deflateSome(std::string_view text, int flush);

  std::string final_, temp_;
  int fd_ = -1;
  bool first_ = true;
  bool finished_ = false;
  uint64_t bytes_ = 0;
  Options options_;
  struct Gzip;
  std::unique_ptr<Gzip> gz_;
};

// The 16 hex digits of this process's random token (getrandom), as used in
// temporary names.
const std::string& processToken();
// True for a name this tool creates as a temporary in an output folder:
// ".<anything>.xstack-<16 hex>.tmp", and the older ".traceFile_*.tmp.<pid>".
bool isXstackTempName(const std::string& name);
// True for traceFile_<k>_<g>.json, .json.gz, .pftrace, .pftrace.gz.
bool isTraceFileName(const std::string& name);
// True for the analysis files a run commits with its traces: steps.csv,
// findings.json, report.html.
bool isAnalysisFileName(const std::string& name);
// The files of a run's commit set: trace or analysis files. Those of an
// earlier run that this run did not write are stale and removed on commit.
bool isCommittedOutputName(const std::string& name);

// The commit protocol of one run's trace files into an output folder (rank 0
// only; docs/RELIABILITY.md):
//  1. lock(): an exclusive flock on the folder itself, held until the object
//     dies. Another run into the same folder fails at once (rc 1) instead of
//     waiting: no two runs ever write or commit into one folder together.
//     Under the lock, leftovers of dead runs are cleaned: an interrupted
//     commit (journal .xstack-commit) is rolled forward, then every
//     temporary of this tool is removed.
//  2. commit(): checks every target first (a folder of that name, a target
//     the run may not replace, a lost temporary: nothing replaced, rc 1);
//     writes the journal listing the new files and the stale ones (earlier
//     traceFile_* and analysis files not in this run's set); renames; removes the stale files;
//     removes the journal. Killed at any point, the folder holds the old set
//     (no journal) or, with the journal, what is needed to finish the new set:
//     the next run rolls it forward. Other files are never touched.
//  While locked, SIGTERM/SIGINT/SIGHUP remove this process's temporaries
//  (unless the journal is being written or applied) before dying.
class OutputCommit {
 public:
  OutputCommit() = default;
  ~OutputCommit();
  OutputCommit(const OutputCommit&) = delete;
  OutputCommit& operator=(const OutputCommit&) = delete;

  // `notes` gets one line per leftover cleaned up.
  Status lock(const std::string& outDir, std::vector<std::string>& notes);
  struct Result {
    size_t committed = 0;
    size_t staleRemoved = 0;
    std::vector<std::string> notes;  // stale files that could not be removed
  };
  Status commit(std::vector<TraceFileWriter>& writers, Result& result);

 private:
  Status checkTargets(const std::vector<TraceFileWriter>& writers) const;
  std::string dir_;
  int dirFd_ = -1;
};

// Applies a journal left by an interrupted commit in `dir` (renames the
// temporaries still there, removes the stale files) and removes it. Returns
// what it did, empty if there was no journal.
std::string rollForwardJournal(const std::string& dir);

}  // namespace xstack
