// Stage 2 (plan): which rank reads which file. Every rank lists what its node
// sees; the report's plan stage gathers the encoded listings (encodeListing on
// each rank, decodeListing of each gathered one) and every rank computes the
// same plan from them (makePlan): each distinct file is read by exactly one rank that
// can see it, balanced by bytes (largest files first, each to the candidate
// with the least bytes so far, ties to the lower rank). A file seen by several
// ranks (ranks on one node, or a shared file system) is one file: same
// subject, same path and same size. Two different files claiming the same
// rank (profile, time) or trainer (dcgm, net) are a conflict naming both.
#pragma once

#include <string>
#include <vector>

#include "xstack/core/Status.h"
#include "xstack/event/InputListing.h"

namespace xstack {

struct RankListing {
  int rank = 0;
  std::string host;
  InputListing listing;
  // >= 0: this rank's listing is the same as that lower rank's (a shared
  // folder), which holds it; `listing` is then empty. Not copied, so that on a
  // shared file system the gathered listings are one per distinct listing,
  // not one per MPI rank.
  int sameAs = -1;
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
  std::vector<std::string> badPaths;   // InputListing::badInputs of every host (rc 3)
  bool anyProfileDir = false;
  std::vector<std::string> hosts;  // host of each rank
};

// Pure: the plan from all ranks' listings (indexed by rank).
Plan makePlan(const std::vector<RankListing>& listings);

// Pure: this rank's listing and host as the gather's message (wire/Wire.h);
// with `sameAs` >= 0 only the host and that rank (RankListing::sameAs).
std::string encodeListing(const std::string& host, const InputListing& mine, int sameAs = -1);
// Pure: the listing of rank `rank` from the bytes encodeListing gave there; an
// Error naming the rank (never a throw) on bytes that are no such message or
// that name as `sameAs` a rank not below `rank`.
Expected<RankListing> decodeListing(int rank, const std::string& bytes);
// Pure: 16 bytes that differ, but for a chance of 2^-128, between two
// listings that differ (two 64-bit hashes of the encoded listing).
std::string listingDigest(const InputListing& mine);

}  // namespace xstack
