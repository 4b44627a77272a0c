// Stage 2 (plan): which rank reads which file. Every rank lists what its node
// sees; the listings are gathered (collective) and every rank computes the
// same plan from them: each distinct file is read by exactly one rank that
// can see it, balanced by bytes (largest files first, each to the candidate
// with the least bytes so far, ties to the lower rank). A file seen by several
// ranks (ranks on one node, or a shared file system) is one file: same
// subject, same path and same size. Two different files claiming the same
// rank (profile, time) or trainer (dcgm, net) are a conflict naming both.
#pragma once

#include <string>
#include <vector>

#include "xstack/comm/Comm.h"
#include "xstack/source/InputListing.h"

namespace xstack {

struct RankListing {
  int rank = 0;
  std::string host;
  InputListing listing;
};

struct PlannedFile {
  InputFile file;
  int reader = 0;
  std::string readerHost;
  std::vector<int> seers;  // every rank that sees this file (ascending), reader included
};

struct Plan {
  std::vector<PlannedFile> files;      // sorted by (kind, id, gpu)
  std::vector<std::string> conflicts;  // "two files claim profile rank 3: A (on h1), B (on h2)"
  std::vector<std::string> skipped;    // names without ids, from every host, deduplicated
  std::vector<std::string> badPaths;   // dcgm/net/time paths that are not folders (rc 3)
  bool anyProfileDir = false;
  std::vector<std::string> hosts;  // host of each rank
};

// Pure: the plan from all ranks' listings (indexed by rank).
Plan makePlan(const std::vector<RankListing>& listings);

// collective: gathers every rank's listing and returns the same plan on all.
Plan gatherPlan(Comm& comm, const InputListing& mine);

}  // namespace xstack
