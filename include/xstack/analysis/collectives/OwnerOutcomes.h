// An owner's outcomes on their way back to the readers (docs/DESIGN.md
// "The owner's arrivals"): added group by group as the owner matches them,
// sorted back into each sender's routed order, encoded as one reply per
// sender. Sizes are bytes, 64-bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "xstack/analysis/collectives/CriticalPath.h"
#include "xstack/analysis/collectives/OwnedGroups.h"
#include "xstack/io/ExternalSorter.h"

namespace xstack {

// An owner's outcomes as its groups are matched, in any order and from any
// thread, sorted back into each sender's routed order for the replies: held
// up to a budget, the rest in a scratch file (io/ExternalSorter.h), so that
// the owner does not hold an outcome per arrival.
class OwnerOutcomes {
 public:
  // `sentBy[r]`: how many arrivals MPI rank r sent this owner.
  OwnerOutcomes(SpillOptions spill, std::vector<size_t> sentBy);
  // One group's outcomes (any thread); `from[i]`: the origin of outcomes[i],
  // `bases[i]` its own arrival's (writeOutcome's).
  void add(const std::vector<ArrivalOutcome>& outcomes, const std::vector<OutcomeBase>& bases,
           const std::vector<Origin>& from);
  // The reply to each sender: the owner's error (`ownerError` when not empty,
  // else the sorter's, else that an outcome is missing or doubled), or its
  // outcomes in its order: wire str(error), then a list of writeOutcome's.
  std::vector<std::string> replies(const std::string& ownerError);

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
  std::string sortedReplies(std::vector<std::string>& out);

  std::mutex mutex_;
  ExternalSorter<Record, ReplyOrder> sorter_;
  std::vector<size_t> sentBy_;
  std::vector<uint64_t> replyBytes_;  // per sender: its outcomes' encodings, in all
};

// A reply that carries `error` and no outcome.
std::string errorReply(const std::string& error);

}  // namespace xstack
