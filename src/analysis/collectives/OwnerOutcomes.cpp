// An owner's outcomes on their way back (OwnerOutcomes.h).
#include "xstack/analysis/collectives/OwnerOutcomes.h"

#include <algorithm>
#include <utility>

namespace xstack {

std::string errorReply(const std::string& error) {
  wire::Writer w;
  w.str(error);
  w.u64(0);
  return w.take();
}

OwnerOutcomes::OwnerOutcomes(SpillOptions spill, std::vector<size_t> sentBy)
    : sorter_(std::move(spill)), sentBy_(std::move(sentBy)) {}

void OwnerOutcomes::add(const ArrivalOutcome& o, const std::vector<MemberOrigin>& members) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const MemberOrigin& m : members)
    sorter_.push({static_cast<uint32_t>(m.origin.first), o.matched ? 1U : 0U, m.origin.second,
                  static_cast<uint64_t>(o.lastRank) - static_cast<uint64_t>(m.base.rank),
                  o.lastArrivalNs - m.base.startNs});
}

std::vector<std::vector<size_t>> OwnerOutcomes::replyChunks(const std::string& ownerError,
                                                            uint64_t chunkOutcomes,
                                                            PartShelf& shelf) {
  std::vector<std::vector<size_t>> out(sentBy_.size());
  std::string error = ownerError;
  if (error.empty()) error = sortedChunks(std::max<uint64_t>(1, chunkOutcomes), shelf, out);
  if (!error.empty())
    for (std::vector<size_t>& chunks : out) chunks.assign(1, shelf.put(0, errorReply(error)));
  shelf.seal();
  return out;
}

// The chunks from the sorted outcomes into `out`, or why not: each sender's
// places 0..n-1 exactly once.
std::string OwnerOutcomes::sortedChunks(uint64_t chunkOutcomes, PartShelf& shelf,
                                        std::vector<std::vector<size_t>>& out) {
  if (Status st = sorter_.finish(); !st) return st.error().message;
  auto reader = sorter_.read();
  Record rec;
  bool more = reader.next(rec);
  for (size_t sender = 0; sender < sentBy_.size(); ++sender)
    for (size_t place = 0; place < sentBy_[sender];) {
      const size_t n = std::min<uint64_t>(chunkOutcomes, sentBy_[sender] - place);
      wire::Writer w;
      w.str("");
      w.u64(n);
      for (const size_t end = place + n; place < end; ++place) {
        if (!more || rec.sender != sender || rec.place != place)
          return "collective outcomes missing or doubled for MPI rank " + std::to_string(sender);
        writeOutcomeDifferences(w, rec.matched != 0, rec.rankDelta, rec.arrivalDelta);
        more = reader.next(rec);
      }
      out[sender].push_back(shelf.put(0, w.take()));
    }
  if (Status st = reader.status(); !st) return st.error().message;
  return more ? "collective outcomes left over" : "";
}

}  // namespace xstack
