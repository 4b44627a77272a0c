// Stage 1 (discover): what a source found in the input folders one node
// sees. The types are shared by every source; how a folder is laid out and
// how a file name gives its rank is the source's (e.g. source/paddle/FolderLayout.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "xstack/event/InputFile.h"

namespace xstack {

// A trace whose rank nothing tells, and the line that names it when it cannot be read
// as rank 0 (InputListing::unranked).
struct UnrankedTrace {
  InputFile file;
  std::string fix;
};

// One folder per kind of input; empty = not given.
struct InputDirs {
  std::string profile, dcgm, net, time;
  // A second folder of profiles, listed with `profile` (empty: none): the
  // data folder itself when a source reads traces from both D and D/profile.
  std::string profileAlso = {};
};

struct InputListing {
  std::vector<InputFile> files;  // sorted by (kind, id, gpu, path)
  // Entries whose names carry no id, or folders that cannot be listed:
  // one line each, naming the path. Reported as warnings, not errors.
  std::vector<std::string> skipped;
  bool profileDirFound = false;
  // Inputs that exist but cannot be used (rc 3), one line each naming the path: a dcgm,
  // net or time path that is not a folder; a file named like a trace that is no JSON.
  std::vector<std::string> badInputs;
  // Files in an input folder that are not inputs of the source (e.g. not a
  // trace): a note counts them, naming the first.
  std::vector<std::string> ignored;
  // Hidden files (names starting with '.') in the input folders: not looked
  // at, counted in the same note.
  uint64_t hidden = 0;
  // The programs that wrote the files, when the source tells them apart
  // (e.g. PyTorch's and Paddle's profilers): each with its first file. One
  // job's files come from one program: two is an error naming both.
  std::vector<std::pair<std::string, std::string>> writers;
  // Inputs the user must fix before a run can start (rc 2), one line each
  // naming the file and what to do (e.g. two sources' files in one folder).
  std::vector<std::string> fatal;
  // Traces whose rank neither their name nor their contents tell (`file.id` 0), each
  // with the fatal line naming it and how to give it a rank. The listing stage
  // decides on the listings of every rank: the job's only trace is rank 0 (a note);
  // else each line is fatal (rc 2).
  std::vector<UnrankedTrace> unranked;
  // The largest number of ranks the files say their job has (0: they do not say).
  int64_t declaredWorldSize = 0;
  // The most GPUs a trace's process saw (Chrome JSON's deviceProperties,
  // before its events; 0: no file says).
  int64_t declaredVisibleGpus = 0;
};

}  // namespace xstack
