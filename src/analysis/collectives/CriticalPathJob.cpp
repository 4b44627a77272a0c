// The critical path's job part (CriticalPathJob.h): outcomes back to the
// readers, step ends to rank 0, rank 0's walk over the readers.
#include "CriticalPathJob.h"

#include <algorithm>
#include <deque>
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

// The owners' reply chunks to one reader, as they come, read in place: each
// owner's list of outcomes in the order the reader routed its arrivals to it.
class OutcomeLists {
 public:
  explicit OutcomeLists(size_t owners) : queues_(owners), available_(owners, 0), need_(owners, 0) {}

  // One chunk from owner `o` (OwnerOutcomes::replyChunks'); `error` set when
  // it does not decode or carries the owner's error.
  void add(size_t o, std::string chunk, std::string& error) {
    Chunk& c = queues_[o].emplace_back(std::move(chunk), o);
    const std::string ownerError = c.reader.str();
    c.left = c.reader.count();
    available_[o] += c.left;
    if (error.empty() && !c.reader.ok()) error = c.reader.status().error().message;
    if (error.empty() && !ownerError.empty()) error = ownerError;
  }

  // Whether every outcome a part needs (`ownerRuns`: RoutedPart's) has come;
  // false too when the runs do not decode (take() then fails).
  bool has(std::string_view ownerRuns) {
    wire::Reader runs(ownerRuns, "the arrivals' owners");
    std::vector<size_t> touched;
    bool enough = true;
    while (runs.left() > 0 && runs.ok()) {
      const uint64_t o = runs.u64(), n = runs.u64();
      if (!runs.ok() || o >= need_.size()) return true;  // take() says so
      if (need_[o] == 0) touched.push_back(o);
      need_[o] += n;
      enough = enough && need_[o] <= available_[o];
    }
    for (size_t o : touched) need_[o] = 0;
    return enough || !runs.ok();
  }

  // Appends to `out` (as they are encoded) the next outcome from the owner
  // of each of the part's arrivals; false when an owner's list is short or bad.
  bool take(std::string_view ownerRuns, wire::Writer& out) {
    wire::Reader runs(ownerRuns, "the arrivals' owners");
    while (runs.left() > 0) {
      const uint64_t o = runs.u64();
      const uint64_t n = runs.u64();
      if (!runs.ok() || o >= queues_.size()) return false;
      for (uint64_t i = 0; i < n; ++i)
        if (!takeOne(static_cast<size_t>(o), out)) return false;
    }
    return runs.ok();
  }

  // Whether every chunk that came was taken whole, to its end.
  bool allTaken() {
    for (std::deque<Chunk>& q : queues_)
      for (Chunk& c : q)
        if (c.left != 0 || !c.reader.finish()) return false;
    return true;
  }

 private:
  struct Chunk {
    Chunk(std::string b, size_t owner)
        : bytes(std::move(b)),
          reader(bytes, "the collective outcomes from MPI rank " + std::to_string(owner)) {}
    std::string bytes;  // a deque's element never moves: `reader` views it
    wire::Reader reader;
    uint64_t left = 0;
  };

  // Appends owner o's next outcome to `out`; false when there is none.
  bool takeOne(size_t o, wire::Writer& out) {
    std::deque<Chunk>& q = queues_[o];
    while (!q.empty() && q.front().left == 0) {
      if (!q.front().reader.finish()) return false;
      q.pop_front();
    }
    if (q.empty()) return false;
    Chunk& c = q.front();
    --c.left;
    --available_[o];
    const size_t from = c.reader.offset();
    skipOutcome(c.reader);
    if (!c.reader.ok()) return false;
    out.raw(std::string_view(c.bytes).substr(from, c.reader.offset() - from));
    return true;
  }

  std::vector<std::deque<Chunk>> queues_;  // by owner
  std::vector<uint64_t> available_;        // by owner: outcomes come and not taken
  std::vector<uint64_t> need_;             // by owner: has()'s scratch, all 0 between calls
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

// Outcomes per reply chunk: what an owner sends all its readers in one round
// comes to about half of `storeBytes` (a store's budget, storeHeldBytes; at 8
// bytes an outcome, the most a matched one takes but a few), at least one a
// reader.
uint64_t replyChunkOutcomes(uint64_t storeBytes, int readers) {
  return std::max<uint64_t>(1, storeBytes / 2 / 8 / static_cast<uint64_t>(std::max(1, readers)));
}

// What returnOutcomes pairs: this reader's parts in the order routed, the
// next to pair, each one's outcomes' handle on the walk's shelf.
struct Pairing {
  const std::vector<RankPart>& mine;
  std::vector<RoutedPart>& routed;
  const PartRelease& release;
  size_t next = 0;
  std::vector<size_t> kept;
};

// Pairs the next parts, in order, whose outcomes have all come (onto
// local.outcomes); sets local.error on a part that did not index or whose
// outcomes do not decode.
void pairReady(OutcomeLists& lists, Pairing& p, LocalWalk& local) {
  for (; p.next < p.mine.size() && local.error.empty(); ++p.next) {
    RoutedPart& part = p.routed[p.next];
    if (!part.error.empty()) {  // it also travels with the owners' (it was routed)
      local.error = part.error;
      return;
    }
    if (!lists.has(part.ownerRuns)) return;  // a later round brings the rest
    wire::Writer outcomes;
    if (!lists.take(part.ownerRuns, outcomes)) local.error = "collective outcomes missing";
    std::string().swap(part.ownerRuns);
    if (p.release) p.release(p.mine[p.next].bytes);
    p.kept.push_back(local.outcomes->put(0, outcomes.take()));
  }
}

// The reply chunk `handle` of `shelf` as sent: its bytes, or an error reply
// when the shelf could not read them back from its scratch file (a chunk is
// never empty: it has its version byte).
std::string chunkToSend(const PartShelf& shelf, size_t handle) {
  const std::string_view bytes = shelf.view(handle);
  if (bytes.empty())
    return errorReply("the collective outcomes could not be read back from --spill-dir");
  return std::string(bytes);
}

// collective: the owner's reply chunks (`chunks[r]`: for MPI rank r, on
// `shelf`) out in rounds, one chunk per reader a round (an empty list when
// none is left), each round's chunks in pairing parts; until every owner
// has sent its last.
void exchangeChunks(Comm& comm, const PartShelf& shelf,
                    const std::vector<std::vector<size_t>>& chunks, OutcomeLists& lists,
                    Pairing& pairing, LocalWalk& local) {
  const std::string none = errorReply("");
  for (size_t round = 0;; ++round) {
    std::vector<std::string> out;
    bool last = true;
    for (const std::vector<size_t>& c : chunks) {
      out.push_back(round < c.size() ? chunkToSend(shelf, c[round]) : none);
      if (round < c.size()) shelf.release(shelf.view(c[round]));
      last = last && round + 1 >= c.size();
    }
    std::vector<std::string> in = exchangeAll(comm, std::move(out), MessageTag::CollectiveOutcomes);
    for (size_t o = 0; o < in.size(); ++o)
      if (in[o] != none) lists.add(o, std::move(in[o]), local.error);
    pairReady(lists, pairing, local);
    if (comm.allTrue(last)) return;
  }
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
                         std::vector<RoutedPart> routed, OwnerOutcomes& outcomes,
                         const std::string& ownerError, const PartRelease& release,
                         const SpillOptions& spill) {
  LocalWalk local;
  if (routed.size() != mine.size()) local.error = "collective parts and their routes differ";
  local.outcomes = std::make_unique<PartShelf>(spill.dir, spill.memoryBytes, "outcomes-read");
  {
    PartShelf shelf(spill.dir, spill.memoryBytes);
    const std::vector<std::vector<size_t>> chunks =
        outcomes.replyChunks(ownerError, replyChunkOutcomes(spill.memoryBytes, comm.size()), shelf);
    OutcomeLists lists(static_cast<size_t>(comm.size()));
    Pairing pairing{mine, routed, release, 0, {}};
    exchangeChunks(comm, shelf, chunks, lists, pairing, local);
    if (local.error.empty() && (pairing.next != mine.size() || !lists.allTaken()))
      local.error = pairing.next != mine.size() ? "collective outcomes missing"
                                                : "collective outcomes left over";
    if (!local.error.empty()) return local;
    local.outcomes->seal();
    if (const std::string& why = local.outcomes->readBackError(); !why.empty()) {
      local.error = "the collective outcomes kept for the critical path: " + why;
      return local;
    }
    for (size_t i = 0; i < mine.size(); ++i)
      local.profiles.hold(routed[i].rank,
                          HeldProfile{mine[i].bytes, local.outcomes->view(pairing.kept[i]),
                                      std::move(routed[i].stepEnds)});
  }
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
