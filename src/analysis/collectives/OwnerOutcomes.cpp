// An owner's outcomes on their way back (OwnerOutcomes.h).
#include "xstack/analysis/collectives/OwnerOutcomes.h"

#include <utility>

namespace xstack {

std::string errorReply(const std::string& error) {
  wire::Writer w;
  w.str(error);
  w.u64(0);
  return w.take();
}

OwnerOutcomes::OwnerOutcomes(SpillOptions spill, std::vector<size_t> sentBy)
    : sorter_(std::move(spill)), sentBy_(std::move(sentBy)), replyBytes_(sentBy_.size(), 0) {}

void OwnerOutcomes::add(const std::vector<ArrivalOutcome>& outcomes,
                        const std::vector<OutcomeBase>& bases, const std::vector<Origin>& from) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < outcomes.size() && i < from.size() && i < bases.size(); ++i) {
    const ArrivalOutcome& o = outcomes[i];
    const Record r{static_cast<uint32_t>(from[i].first), o.matched ? 1U : 0U, from[i].second,
                   static_cast<uint64_t>(o.lastRank) - static_cast<uint64_t>(bases[i].rank),
                   o.lastArrivalNs - bases[i].startNs};
    sorter_.push(r);
    if (from[i].first < replyBytes_.size())
      replyBytes_[from[i].first] +=
          1 + (o.matched ? wire::i64Size(static_cast<int64_t>(r.rankDelta)) +
                               wire::i64Size(static_cast<int64_t>(r.arrivalDelta))
                         : 0);
  }
}

std::vector<std::string> OwnerOutcomes::replies(const std::string& ownerError) {
  std::vector<std::string> out;
  std::string error = ownerError;
  if (error.empty()) error = sortedReplies(out);
  if (!error.empty()) out.assign(sentBy_.size(), errorReply(error));
  return out;
}

// The replies from the sorted outcomes into `out`, or why not: each
// sender's places 0..n-1 exactly once.
std::string OwnerOutcomes::sortedReplies(std::vector<std::string>& out) {
  if (Status st = sorter_.finish(); !st) return st.error().message;
  auto reader = sorter_.read();
  Record rec;
  bool more = reader.next(rec);
  for (size_t sender = 0; sender < sentBy_.size(); ++sender) {
    wire::Writer w;
    w.reserve(16 + replyBytes_[sender]);  // exactly what follows, so no doubling
    w.str("");
    w.u64(sentBy_[sender]);
    for (size_t place = 0; place < sentBy_[sender]; ++place) {
      if (!more || rec.sender != sender || rec.place != place)
        return "collective outcomes missing or doubled for MPI rank " + std::to_string(sender);
      writeOutcomeDifferences(w, rec.matched != 0, rec.rankDelta, rec.arrivalDelta);
      more = reader.next(rec);
    }
    out.push_back(w.take());
  }
  if (Status st = reader.status(); !st) return st.error().message;
  return more ? "collective outcomes left over" : "";
}

}  // namespace xstack
