// Stage 1 (discover): what a source found in the input folders one node
// sees. The types are shared by every source; how a folder is laid out and
// how a file name gives its rank is the source's (e.g. source/paddle/FolderLayout.h).
#pragma once

#include <string>
#include <vector>

#include "xstack/event/InputFile.h"

namespace xstack {

// One folder per kind of input; empty = not given.
struct InputDirs {
  std::string profile, dcgm, net, time;
};

struct InputListing {
  std::vector<InputFile> files;  // sorted by (kind, id, gpu, path)
  // Entries whose names carry no id, or folders that cannot be listed:
  // one line each, naming the path. Reported as warnings, not errors.
  std::vector<std::string> skipped;
  bool profileDirFound = false;
  // A dcgm, net or time path that exists but is not a folder: a bad input
  // (rc 3), one line each naming the path.
  std::vector<std::string> notFolders;
};

}  // namespace xstack
