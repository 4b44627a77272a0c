// Stage 1 (discover): list the input files this node can see. Runs on every
// MPI rank, touches only directory entries and stat(), never opens a file.
#pragma once

#include <string>
#include <vector>

#include "xstack/input/InputFile.h"

namespace xstack {

struct InputDirs {
  std::string profile, dcgm, net, time;  // empty = not given
};

// --data-dir D gives D/profile, D/dcgm, D/net, D/time unless overridden.
InputDirs resolveInputDirs(const std::string& dataDir, const InputDirs& overrides);

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

// Lists the four folders. A folder that does not exist on this node is not
// an error (a dcgm/net/time path that exists as something else is) (node-local layouts differ);
// whether profiles exist at all is decided collectively later.
InputListing listInputs(const InputDirs& dirs);

}  // namespace xstack
