// The commit protocol of one run's output files into an output folder (rank 0
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
//     trace and analysis files not in this run's set); renames; removes the
//     stale files; removes the journal. Killed at any point, the folder holds
//     the old set (no journal) or, with the journal, what is needed to finish
//     the new set: the next run rolls it forward. Other files are never touched.
//     A stale file that cannot be removed (another user's in a sticky folder)
//     stays and is reported in Result::staleKept: the caller's run is partial
//     (rc 3), since not every output file in the folder is its own.
//  Every operation after lock() (the run's files, listing, journal, renames,
//  removals) is relative to the folder's descriptor (folder()): one folder
//  for the whole run even if its path is renamed or replaced meanwhile; the
//  journal names that folder (device, inode).
//  Which names are a run's outputs (and so stale when this run did not write
//  them) is not known here: the caller passes the predicate (the trace
//  formats' and the analyses' registries answer it), so this layer names no
//  output file.
//  While locked, SIGTERM/SIGINT/SIGHUP remove this process's temporaries
//  (unless the journal is being written or applied) before dying.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/Status.h"
#include "xstack/io/AtomicFile.h"

namespace xstack {

// True for the names of the files a run commits (traces, analysis files):
// those of an earlier run that this run did not write are stale and removed
// on commit, and a journal's "stale" lines name only such files.
using OutputNamePredicate = std::function<bool(std::string_view name)>;

class OutputCommit {
 public:
  // `isOutputName`: which names in the folder are this tool's outputs (none
  // when empty: nothing is ever stale).
  explicit OutputCommit(OutputNamePredicate isOutputName = {});
  ~OutputCommit();
  OutputCommit(const OutputCommit&) = delete;
  OutputCommit& operator=(const OutputCommit&) = delete;

  // `notes` gets one line per leftover cleaned up.
  Status lock(const std::string& outDir, std::vector<std::string>& notes);
  struct Result {
    size_t committed = 0;
    size_t staleRemoved = 0;
    // Stale files that exist and could not be removed, one per file:
    // "<dir>/<name>: <reason>". Empty after every stale file was removed
    // (or had vanished).
    std::vector<std::string> staleKept;
    // Not empty when the path --out no longer names the locked folder
    // (renamed or replaced during the run): says where the files went.
    std::string folderMoved;
    // Where the committed files are: the path given to lock(), or after a
    // rename the locked folder's path now.
    std::string folderPath;
  };
  // `files`: the run's finished files, all in the locked folder; after a
  // failed rename the ones not renamed are abandoned.
  Status commit(const std::vector<AtomicFile*>& files, Result& result);
  // The locked folder, for every file of the run (after lock(); fd -1
  // before): the run's one folder, whatever happens to its path.
  Folder folder() const { return Folder{dirFd_, dir_}; }

 private:
  Status checkTargets(const std::vector<AtomicFile*>& files) const;
  // Unlinks each of `stale` (names in the folder), counting what went and
  // naming what stayed in `result`.
  void removeStale(const std::vector<std::string>& stale, Result& result) const;
  // Empty while the path given to lock() names the locked folder; else what
  // happened and where the folder is now.
  std::string movedAway() const;
  bool isOutputName(std::string_view name) const { return isOutputName_ && isOutputName_(name); }
  OutputNamePredicate isOutputName_;
  std::string dir_;
  int dirFd_ = -1;
};

// Applies a journal left by an interrupted commit in `dir` (renames the
// temporaries still there, removes the stale files) and removes it. A journal
// naming another folder (device, inode: copied here with its files) is
// removed without being applied. Returns what it did, empty if there was no
// journal of this tool. Only stale files `isOutputName` accepts are removed.
std::string rollForwardJournal(const Folder& dir, const OutputNamePredicate& isOutputName);

}  // namespace xstack
