// An owner's outcomes on their way back to the readers (docs/DESIGN.md
// "collectives: the owner within a budget"): added group by group as the
// owner matches them, sorted back into each sender's routed order, encoded
// as each sender's reply in chunks. Sizes are bytes, 64-bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "xstack/analysis/collectives/CriticalPath.h"
#include "xstack/analysis/collectives/GroupInstances.h"
#include "xstack/analysis/collectives/OwnedGroups.h"
#include "xstack/io/ExternalSorter.h"
#include "xstack/io/PartShelf.h"

namespace xstack {

// An owner's outcomes as its groups are matched, in any order and from any
// thread, sorted back into each sender's routed order for the replies: held
// up to a budget, the rest in a scratch file (io/ExternalSorter.h), so that
// the owner does not hold an outcome per arrival.
class OwnerOutcomes {
 public:
  // `sentBy[r]`: how many arrivals MPI rank r sent this owner.
  OwnerOutcomes(SpillOptions spill, std::vector<size_t> sentBy);
  // One instance's outcome for each of its members (any thread): member i's
  // origin and its base (its own arrival's, writeOutcome's) are `members[i]`'s
  // (GroupInstances.h).
  void add(const ArrivalOutcome& outcome, const std::vector<MemberOrigin>& members);
  // After the last add: each sender's reply as chunks of at most
  // `chunkOutcomes` outcomes, each a whole message (wire str(error), then a
  // list of writeOutcome's), put on `shelf`, which is then sealed. `[s]`:
  // sender s's handles in order (none when it sent nothing). On an error
  // (`ownerError` when not empty, else the sorter's, else that an outcome is
  // missing or doubled) every sender gets one chunk that carries it.
  std::vector<std::vector<size_t>> replyChunks(const std::string& ownerError,
                                               uint64_t chunkOutcomes, PartShelf& shelf);

 private:
  struct Record {  // one outcome as it travels (writeOutcomeDifferences'), where it goes
    uint32_t sender = 0;
    uint32_t matched = 0;
    uint64_t place = 0;
    uint64_t rankDelta = 0;
    uint64_t arrivalDelta = 0;
  };
  struct ReplyOrder {
    bool operator()(const Record& a, const Record& b) const {
      return a.sender != b.sender ? a.sender < b.sender : a.place < b.place;
    }
  };
  std::string sortedChunks(uint64_t chunkOutcomes, PartShelf& shelf,
                           std::vector<std::vector<size_t>>& out);

  std::mutex mutex_;
  ExternalSorter<Record, ReplyOrder> sorter_;
  std::vector<size_t> sentBy_;
};

// A reply that carries `error` and no outcome.
std::string errorReply(const std::string& error);

}  // namespace xstack
