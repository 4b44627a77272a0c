// The critical path's job part (CriticalPathJob.h): outcomes back to the
// readers, step ends to rank 0, rank 0's walk over the readers.
#include "CriticalPathJob.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "xstack/transport/TypedMessages.h"

namespace xstack {

namespace {

// Per step: the latest end of its window over some ranks and that rank
// (ties: the lower rank); `error` = why a reader cannot walk.
struct StepEnd {
  int64_t step = 0;
  uint64_t endNs = 0;
  int64_t rank = 0;
};
struct StepEnds {
  std::string error;
  std::vector<StepEnd> ends;  // by step
};

void writeStepEnds(wire::Writer& w, const StepEnds& m) {
  w.str(m.error);
  w.list(m.ends, [](wire::Writer& x, const StepEnd& e) {
    x.i64(e.step);
    x.u64(e.endNs);
    x.i64(e.rank);
  });
}

StepEnds readStepEnds(wire::Reader& r) {
  StepEnds m;
  m.error = r.str();
  r.list(m.ends, [](wire::Reader& x) {
    StepEnd e;
    e.step = x.i64();
    e.endNs = x.u64();
    e.rank = x.i64();
    return e;
  });
  return m;
}

// Rank 0's request: walk `at` back in `step`, or `done` (no more requests).
struct WalkRequest {
  bool done = false;
  int64_t step = 0;
  WalkPoint at;
};

void writePoint(wire::Writer& w, const WalkPoint& p) {
  w.boolean(p.done);
  w.i64(p.rank);
  w.u64(p.timeNs);
  w.boolean(p.atStepEnd);
}

WalkPoint readPoint(wire::Reader& r) {
  WalkPoint p;
  p.done = r.boolean();
  p.rank = r.i64();
  p.timeNs = r.u64();
  p.atStepEnd = r.boolean();
  return p;
}

void writeRequest(wire::Writer& w, const WalkRequest& q) {
  w.boolean(q.done);
  w.i64(q.step);
  writePoint(w, q.at);
}

WalkRequest readRequest(wire::Reader& r) {
  WalkRequest q;
  q.done = r.boolean();
  q.step = r.i64();
  q.at = readPoint(r);
  return q;
}

// A reader's answer: the segments (latest first) and where the path goes, or
// why it cannot walk.
struct WalkReply {
  std::string error;
  std::vector<PathSegment> segments;
  WalkPoint next;
};

void writeReply(wire::Writer& w, const WalkReply& m) {
  w.str(m.error);
  w.list(m.segments, writeSegment);
  writePoint(w, m.next);
}

WalkReply readReply(wire::Reader& r) {
  WalkReply m;
  m.error = r.str();
  r.list(m.segments, readSegment);
  m.next = readPoint(r);
  return m;
}

// The owners' outcome messages to one reader, read in place: each owner's
// list of outcomes in the order the reader routed its arrivals to it.
class OutcomeLists {
 public:
  // `in[o]`: owner o's message, kept alive by the caller; `error` set when
  // one does not decode or carries an owner's error.
  OutcomeLists(const std::vector<std::string>& in, std::string& error) : in_(in) {
    for (size_t o = 0; o < in.size(); ++o) {
      readers_.emplace_back(in[o], "the collective outcomes from MPI rank " + std::to_string(o));
      wire::Reader& r = readers_.back();
      const std::string ownerError = r.str();
      left_.push_back(r.count());
      if (error.empty() && !r.ok()) error = r.status().error().message;
      if (error.empty() && !ownerError.empty()) error = ownerError;
    }
  }

  // Appends to `out` (as they are encoded) the next outcome from the owner
  // of each of the part's arrivals (`ownerRuns`: RoutedPart's); false when
  // an owner's list is short or bad.
  bool take(std::string_view ownerRuns, wire::Writer& out) {
    wire::Reader runs(ownerRuns, "the arrivals' owners");
    while (runs.left() > 0) {
      const uint64_t o = runs.u64();
      const uint64_t n = runs.u64();
      if (!runs.ok() || o >= readers_.size()) return false;
      for (uint64_t i = 0; i < n; ++i)
        if (!takeOne(static_cast<size_t>(o), out)) return false;
    }
    return runs.ok();
  }

  // Appends owner o's next outcome to `out`; false when there is none.
  bool takeOne(size_t o, wire::Writer& out) {
    if (left_[o] == 0) return false;
    --left_[o];
    wire::Reader& r = readers_[o];
    const size_t from = r.offset();
    skipOutcome(r);
    if (!r.ok()) return false;
    out.raw(std::string_view(in_[o]).substr(from, r.offset() - from));
    return true;
  }

  // Whether every owner's list was taken whole, to its message's end.
  bool allTaken() {
    for (size_t o = 0; o < readers_.size(); ++o)
      if (left_[o] != 0 || !readers_[o].finish()) return false;
    return true;
  }

 private:
  const std::vector<std::string>& in_;
  std::vector<wire::Reader> readers_;
  std::vector<uint64_t> left_;
};

// This reader's latest step ends (ties: the lower rank).
StepEnds localEnds(const LocalWalk& local) {
  std::map<int64_t, StepEnd> best;
  for (const auto& [rank, p] : local.profiles.held())
    for (const auto& [step, endNs] : p.stepEnds) {
      auto [it, added] = best.emplace(step, StepEnd{step, endNs, rank});
      if (!added && endNs > it->second.endNs) it->second = {step, endNs, rank};
    }
  StepEnds out{local.error, {}};
  for (auto& [step, e] : best) out.ends.push_back(e);
  return out;
}

void mergeEnds(std::map<int64_t, StepEnd>& into, const StepEnds& from) {
  for (const StepEnd& e : from.ends) {
    auto [it, added] = into.emplace(e.step, e);
    const StepEnd& b = it->second;
    if (!added && (e.endNs > b.endNs || (e.endNs == b.endNs && e.rank < b.rank))) it->second = e;
  }
}

// collective: every reader's step ends, merged on rank 0 one message at a time.
Expected<std::map<int64_t, StepEnd>> gatherStepEnds(Comm& comm, const LocalWalk& local) {
  const StepEnds mine = localEnds(local);
  if (comm.rank() != 0) {
    sendTyped(comm, 0, MessageTag::CriticalStepEnds, mine, writeStepEnds);
    return std::map<int64_t, StepEnd>();
  }
  std::map<int64_t, StepEnd> ends;
  std::string error = mine.error;
  mergeEnds(ends, mine);
  for (int r = 1; r < comm.size(); ++r) {
    auto m = receiveTyped<StepEnds>(comm, r, MessageTag::CriticalStepEnds, "the step ends",
                                    readStepEnds);
    if (!m || !m->error.empty()) {
      if (error.empty()) error = m ? m->error : m.error().message;
      continue;
    }
    mergeEnds(ends, *m);
  }
  if (!error.empty()) return Error{"analysis: " + error};
  return ends;
}

// A reader's answer to `q` from its own profiles.
WalkReply answer(const LocalWalk& local, const WalkRequest& q) {
  WalkReply rep;
  if (!local.error.empty()) {
    rep.error = local.error;
  } else if (local.profiles.held().count(q.at.rank) == 0) {
    rep.error = "the critical path reached rank " + std::to_string(q.at.rank) +
                ", which this MPI rank did not read";
  } else {
    try {
      rep.next = walkLocal([&local](int64_t rank) { return local.profiles.decoded(rank); }, q.step,
                           q.at, rep.segments);
    } catch (const std::exception& e) {
      rep = WalkReply{e.what(), {}, {}};
    }
  }
  return rep;
}

// A request that does not decode is answered with an error (rank 0 then
// fails the analysis and still releases this rank).
void serveWalks(Comm& comm, const LocalWalk& local) {
  for (;;) {
    auto q = receiveTyped<WalkRequest>(comm, 0, MessageTag::CriticalWalkRequest,
                                       "a critical path request", readRequest);
    if (q && q->done) return;
    WalkReply rep = q ? answer(local, *q) : WalkReply{q.error().message, {}, {}};
    sendTyped(comm, 0, MessageTag::CriticalWalkSegments, rep, writeReply);
  }
}

void releaseWalkServers(Comm& comm) {
  for (int r = 1; r < comm.size(); ++r)
    sendTyped(comm, r, MessageTag::CriticalWalkRequest, WalkRequest{true, 0, {}}, writeRequest);
}

// Rank 0: one walk step from `at` by the reader of its rank; appends the
// segments (latest first) and returns where the path goes next.
Expected<WalkPoint> walkAt(Comm& comm, const LocalWalk& local, int reader, int64_t step,
                           const WalkPoint& at, std::vector<PathSegment>& segments) {
  WalkReply rep;
  if (reader == 0) {
    rep = answer(local, {false, step, at});
  } else {
    sendTyped(comm, reader, MessageTag::CriticalWalkRequest, WalkRequest{false, step, at},
              writeRequest);
    auto m = receiveTyped<WalkReply>(comm, reader, MessageTag::CriticalWalkSegments,
                                     "a critical path answer", readReply);
    if (!m) return m.error();
    rep = std::move(*m);
  }
  if (!rep.error.empty()) return Error{"analysis: " + rep.error};
  for (PathSegment& s : rep.segments) segments.push_back(std::move(s));
  // Every point is earlier than the one before: the walk ends.
  if (!rep.next.done && rep.next.timeNs >= at.timeNs)
    return Error{"analysis: the critical path of step " + std::to_string(step) +
                 " did not go back in time"};
  return rep.next;
}

// Rank 0: the critical path of `step`, from the end of its latest window.
Expected<StepPath> walkStep(Comm& comm, const LocalWalk& local,
                            const std::map<int64_t, int>& readers, const StepEnd& end) {
  StepPath path{end.step, {}};
  WalkPoint at{false, end.rank, end.endNs, true};
  while (!at.done) {
    auto reader = readers.find(at.rank);
    if (reader == readers.end())
      return Error{"analysis: the critical path reached rank " + std::to_string(at.rank) +
                   ", which no MPI rank read"};
    Expected<WalkPoint> next = walkAt(comm, local, reader->second, end.step, at, path.segments);
    if (!next) return next.error();
    at = *next;
  }
  std::reverse(path.segments.begin(), path.segments.end());
  return path;
}

Expected<std::vector<StepPath>> driveWalks(Comm& comm, const LocalWalk& local,
                                           const std::map<int64_t, int>& readers,
                                           const std::map<int64_t, StepEnd>& ends) {
  std::vector<StepPath> paths;
  for (const auto& [step, end] : ends) {
    Expected<StepPath> p = walkStep(comm, local, readers, end);
    if (!p) return p.error();
    paths.push_back(std::move(*p));
  }
  return paths;
}

// Each part's outcomes from the owners' replies `in` (`routed[i]`: what
// routing learnt of mine[i]) onto a new shelf in `local` (within `spill`);
// returns their handles, by part. Sets local.error when a reply does not
// decode, carries an error, or its outcomes do not pair one to one.
std::vector<size_t> pairOutcomes(const std::vector<std::string>& in,
                                 const std::vector<RankPart>& mine, std::vector<RoutedPart>& routed,
                                 const PartRelease& release, const SpillOptions& spill,
                                 LocalWalk& local) {
  std::vector<size_t> kept;
  OutcomeLists owners(in, local.error);
  if (!local.error.empty()) return kept;
  if (routed.size() != mine.size()) local.error = "collective parts and their routes differ";
  local.outcomes = std::make_unique<PartShelf>(spill.dir, spill.memoryBytes);
  for (size_t i = 0; i < mine.size() && local.error.empty(); ++i) {
    RoutedPart& part = routed[i];
    if (!part.error.empty()) {  // it also travels with the owners' (it was routed)
      local.error = part.error;
      continue;
    }
    wire::Writer outcomes;
    if (!owners.take(part.ownerRuns, outcomes)) local.error = "collective outcomes missing";
    std::string().swap(part.ownerRuns);
    if (release) release(mine[i].bytes);
    kept.push_back(local.outcomes->put(0, outcomes.take()));
  }
  if (local.error.empty() && !owners.allTaken()) local.error = "collective outcomes left over";
  return kept;
}

}  // namespace

std::vector<std::string> exchangeAll(Comm& comm, std::vector<std::string> outgoing,
                                     MessageTag tag) {
  const int me = comm.rank();
  std::vector<std::string> in(static_cast<size_t>(comm.size()));
  for (int o = 0; o < comm.size(); ++o) {
    if (o != me) {
      comm.post(o, tagValue(tag), 0, std::move(outgoing[o]));
      continue;
    }
    for (int r = 0; r < comm.size(); ++r)
      in[r] = r == me ? std::move(outgoing[me]) : receiveMessage(comm, r, tag);
  }
  comm.waitPosted(0);
  return in;
}

LocalWalk returnOutcomes(Comm& comm, const std::vector<RankPart>& mine,
                         std::vector<RoutedPart> routed, std::vector<std::string> replies,
                         const PartRelease& release, const SpillOptions& spill) {
  LocalWalk local;
  replies.resize(static_cast<size_t>(comm.size()), errorReply("collective outcomes missing"));
  std::vector<std::string> in =
      exchangeAll(comm, std::move(replies), MessageTag::CollectiveOutcomes);
  std::vector<size_t> kept = pairOutcomes(in, mine, routed, release, spill, local);
  std::vector<std::string>().swap(in);
  if (!local.error.empty()) return local;
  local.outcomes->seal();
  for (size_t i = 0; i < mine.size(); ++i)
    local.profiles.hold(routed[i].rank, HeldProfile{mine[i].bytes, local.outcomes->view(kept[i]),
                                                    std::move(routed[i].stepEnds)});
  PartShelf* shelf = local.outcomes.get();
  local.profiles.setRelease([release, shelf](std::string_view bytes) {
    if (release) release(bytes);
    shelf->release(bytes);
  });
  return local;
}

Expected<std::vector<StepPath>> walkCriticalPaths(Comm& comm, const LocalWalk& local,
                                                  const std::map<int64_t, int>& readers,
                                                  bool drive) {
  Expected<std::map<int64_t, StepEnd>> ends = gatherStepEnds(comm, local);
  if (comm.rank() != 0) {
    serveWalks(comm, local);
    return std::vector<StepPath>();
  }
  Expected<std::vector<StepPath>> paths = std::vector<StepPath>();
  if (drive && !ends) paths = ends.error();
  if (drive && ends) paths = driveWalks(comm, local, readers, *ends);
  releaseWalkServers(comm);
  return paths;
}

}  // namespace xstack
