// The critical path across ranks (docs/FORMAT.md "critical_path.csv"): per
// step, the chain of segments (rank, kind) that decides when the step ends,
// followed backwards through the matched collectives. Data and computations
// without any Comm: each profile's own-work windows (built by its reader's
// ArrivalRecorder), each arrival's outcome (from its group's owner) and the
// backward walk on one rank. All times are Unix ns (uint64).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xstack/analysis/Intervals.h"
#include "xstack/analysis/PartRelease.h"
#include "xstack/analysis/collectives/CollectiveMatch.h"
#include "xstack/core/Status.h"
#include "xstack/wire/Wire.h"

namespace xstack {

// A window of a rank's own work split by what its GPU did: compute (GPU
// compute kernels, union), memcpy (memcpy/memset kernels not under a compute
// kernel), comm (communication kernels under neither: collectives the walk
// did not follow), host (no GPU kernel: the GPU waits for the host). The four
// add up to the window's length.
struct GapTimes {
  uint64_t computeNs = 0, memcpyNs = 0, commNs = 0, hostNs = 0;
};

// The own work before time T on a rank in one step: [fromNs, T), where fromNs
// is the end of `prev` or the step's start when prev < 0. prev = among the
// step's arrivals (Arrival::step, starting inside the window) that start
// before T and end at or before T, the one with the latest end (ties: the
// later in start order).
struct OwnWork {
  int64_t prev = -1;  // index into RankArrivals::arrivals; -1 = none
  uint64_t fromNs = 0;
  GapTimes times;
};

// One step window of a rank ([startNs, endNs), ArrivalRecorder's) and its
// own work before its end.
struct StepWork {
  int64_t step = 0;
  uint64_t startNs = 0, endNs = 0;
  OwnWork tail;  // T = endNs
};

// What the walk needs of one profile besides its arrivals: its step windows
// (by start, one per step number) and, per arrival (RankArrivals' order), its
// own work before its start (T = its start; prev -1 and zero times for an
// arrival outside every step).
struct RankWalk {
  std::vector<StepWork> steps;
  std::vector<OwnWork> before;
};

void writeRankWalk(wire::Writer& w, const RankWalk& r);
RankWalk readRankWalk(wire::Reader& r);

// A profile's finished per-rank part: its arrivals, then its walk data.
struct CollectivesPart {
  RankArrivals arrivals;
  RankWalk walk;
};
void writeCollectivesPart(wire::Writer& w, const CollectivesPart& p);
CollectivesPart readCollectivesPart(wire::Reader& r);

// A CollectivesPart message as routing needs it, without its arrivals
// decoded: each arrival's group (an index into `groupNames`), its times and
// where its encoding lies in the message (byte offsets, Reader::offset()),
// so that it can be copied as it is (Writer::raw) into another
// writeRankArrivals list.
struct ArrivalBytes {
  uint32_t group = 0;               // index into PartIndex::groupNames
  size_t begin = 0, end = 0;        // [begin, end) in the message
  uint64_t startNs = 0, endNs = 0;  // as the arrival has them
};
struct PartIndex {
  int64_t rank = 0;
  uint64_t steps = 0;
  uint64_t role = 0;                    // roleOf the part's arrivals
  std::vector<std::string> groupNames;  // distinct, in order of first arrival
  std::vector<ArrivalBytes> arrivals;   // the part's order
  std::vector<GroupRanks> groups;
  std::vector<std::pair<int64_t, uint64_t>> stepEnds;  // its walk's windows: (step, end ns)
};
// Reads what readCollectivesPart reads, with the same checks (so it fails
// exactly where readCollectivesPart fails), into a PartIndex.
PartIndex indexCollectivesPart(wire::Reader& r);

// The windows to measure for one profile: `walk` with each OwnWork's prev and
// fromNs set (times zero). `steps`: windows by start (duplicated step numbers
// keep the first); `arrivals` by start, with their steps.
RankWalk planOwnWork(const std::vector<Arrival>& arrivals, std::vector<StepWork> steps);

// The measure of a union of sorted, disjoint intervals below each of a set of
// query points: at(t) = |union ∩ (-inf, t)|. Intervals come in order (a
// UnionStream's output); at() is valid after finish().
class PrefixMeasure {
 public:
  explicit PrefixMeasure(std::vector<uint64_t> points);  // any order
  void add(const Interval& iv);
  void finish();
  uint64_t at(uint64_t t) const;  // t must be one of the points
  // at() in two halves, for measures made from the same points: the place
  // of point t (one search for them all), then a measure's value there.
  size_t placeOf(uint64_t t) const;  // points' size when t is not a point
  uint64_t atPlace(size_t place) const { return place < values_.size() ? values_[place] : 0; }

 private:
  std::vector<uint64_t> points_;  // sorted, unique
  std::vector<uint64_t> values_;
  size_t next_ = 0;  // first point not yet valued
  uint64_t sum_ = 0;
};

// The query points of every window of `walk` (from and to of each), sorted,
// each once.
std::vector<uint64_t> ownWorkPoints(const std::vector<Arrival>& arrivals, const RankWalk& walk);
// Sets every window's times from the three unions' measures: compute,
// compute or memcpy, any GPU kernel (all three made from ownWorkPoints).
void measureOwnWork(const std::vector<Arrival>& arrivals, RankWalk& walk,
                    const PrefixMeasure& compute, const PrefixMeasure& computeOrMemcpy,
                    const PrefixMeasure& busy);

// How one arrival's instance came out on its group's owner.
struct ArrivalOutcome {
  bool matched = false;
  int64_t lastRank = -1;       // the last arriver (ties: the lower rank)
  uint64_t lastArrivalNs = 0;  // its arrival (start)
};
// What an outcome travels as a difference from: its own arrival's training
// rank and start (on its own rank's clock), which its reader knows.
struct OutcomeBase {
  int64_t rank = 0;
  uint64_t startNs = 0;
};
inline OutcomeBase outcomeBase(const Arrival& own) { return {own.rank, own.startNs}; }
// An outcome on the wire: bool matched, then when matched its last arriver
// and arrival as differences from `base` (i64 zigzag varints, mod 2^64: any
// values back exactly; a few bytes, not 12). An unmatched outcome reads as
// ArrivalOutcome{} (its other fields mean nothing).
void writeOutcome(wire::Writer& w, const ArrivalOutcome& o, const OutcomeBase& base);
// The same from the differences themselves (mod 2^64).
void writeOutcomeDifferences(wire::Writer& w, bool matched, uint64_t rankDelta,
                             uint64_t arrivalDelta);
ArrivalOutcome readOutcome(wire::Reader& r, const OutcomeBase& base);
// Reads past one outcome (its base unknown).
void skipOutcome(wire::Reader& r);

// The outcomes of one group's arrivals (indexed like `arrivals`), matched as
// summarizeGroup matches them.
std::vector<ArrivalOutcome> groupOutcomes(const std::vector<Arrival>& arrivals,
                                          const std::vector<int64_t>& groupRanks);
std::vector<ArrivalOutcome> matchedOutcomes(const std::vector<Arrival>& arrivals,
                                            const GroupMatch& match);
// Every member's outcome of one instance: {true, the last arriver (ties: the
// lower rank), its arrival} when matched, else ArrivalOutcome{}.
ArrivalOutcome instanceOutcome(const InstanceMembers& instance);

enum class SegmentKind : uint8_t { Compute = 0, Host = 1, Memcpy = 2, Transfer = 3, Wait = 4 };
constexpr int kSegmentKinds = 5;
const char* segmentKindName(SegmentKind k);  // "compute", "host", ...

// One segment of a step's critical path: [startNs, startNs + durNs) on `rank`.
struct PathSegment {
  int64_t rank = 0;
  SegmentKind kind = SegmentKind::Compute;
  uint64_t startNs = 0, durNs = 0;
  std::string detail;
};
void writeSegment(wire::Writer& w, const PathSegment& s);
PathSegment readSegment(wire::Reader& r);

// Where the walk of one step is: on `rank` at time `timeNs` (the step's end
// when `atStepEnd`, else the start of one of the rank's arrivals), or done.
struct WalkPoint {
  bool done = false;
  int64_t rank = 0;
  uint64_t timeNs = 0;
  bool atStepEnd = false;
};

// One arrival as the walk reads it: its kernel's times, its step and what
// the path's segments say of it (an index into WalkProfile::labels).
struct WalkArrival {
  uint64_t startNs = 0, endNs = 0;
  int64_t step = -1;
  uint32_t label = 0;
};

// One profile as its reader walks it: arrivals with their outcomes. Under half
// of the decoded RankArrivals it comes from (no strings per arrival).
struct WalkProfile {
  int64_t rank = 0;                   // training rank
  std::vector<std::string> labels;    // "<collective> group <name>", distinct
  std::vector<WalkArrival> arrivals;  // RankArrivals::arrivals' order
  RankWalk walk;
  std::vector<ArrivalOutcome> outcomes;  // indexed like arrivals
};
// The walk's view of a decoded profile and its outcomes.
WalkProfile walkProfileOf(const RankArrivals& arrivals, RankWalk walk,
                          std::vector<ArrivalOutcome> outcomes);
// A CollectivesPart's message read straight into the walk's form (no
// RankArrivals in between), checked as readCollectivesPart checks; its
// outcomes (encodeOutcomes' bytes) decoded against its arrivals. Throws
// std::runtime_error naming `rank` when either does not decode.
WalkProfile decodeWalkProfile(int64_t rank, std::string_view part, std::string_view outcomes);

// Walks step `step` back from `at` on profile `p` (at.rank == p.rank)
// until the path leaves the rank (the returned point: the last arriver and
// its arrival) or ends (done: the rank's step start, an arrival outside the
// step, or no such step on the rank). Appends the segments, latest first.
WalkPoint walkRank(const WalkProfile& p, int64_t step, const WalkPoint& at,
                   std::vector<PathSegment>& out);

// Walks on from `at` while the path stays on the profiles `find` knows (by
// training rank; nullptr: not one of them): the point where it leaves them,
// or done. A pointer `find` returns need only live until its next call.
using WalkProfileLookup = std::function<const WalkProfile*(int64_t rank)>;
WalkPoint walkLocal(const WalkProfileLookup& find, int64_t step, WalkPoint at,
                    std::vector<PathSegment>& out);
// The same over a map of profiles (by training rank).
WalkPoint walkLocal(const std::map<int64_t, WalkProfile>& profiles, int64_t step, WalkPoint at,
                    std::vector<PathSegment>& out);

// One profile a reader holds for the walk: its CollectivesPart's encoding,
// its arrivals' outcomes (indexed like the part's arrivals) encoded
// (encodeOutcomes), both views of bytes the caller keeps while the profile is
// held, and its steps' window ends (step, ns).
struct HeldProfile {
  std::string_view part;
  std::string_view outcomes;
  std::vector<std::pair<int64_t, uint64_t>> stepEnds;
};
// A message of `outcomes`, back to back (no count): as HeldProfile keeps
// them; outcomes[i]'s base is arrivals[i]'s (past its end: OutcomeBase{}).
std::string encodeOutcomes(const std::vector<ArrivalOutcome>& outcomes,
                           const std::vector<Arrival>& arrivals);

// A reader's profiles for the walk, by training rank. They stay encoded (a
// decoded arrival takes 104 bytes with its own work and outcome, more than
// its encoding); a profile is decoded (decodeWalkProfile) when the walk
// reaches it, and only the last kKeptDecoded decoded are kept, so the walk's
// memory does not grow with the profiles read.
class HeldWalkProfiles {
 public:
  static constexpr size_t kKeptDecoded = 8;

  void hold(int64_t rank, HeldProfile p) { held_.insert_or_assign(rank, std::move(p)); }
  // Called with a part and its outcomes once decoded (e.g.
  // AnalysisJobOptions::releasePart: their pages may leave memory).
  void setRelease(PartRelease release) { release_ = std::move(release); }
  const std::map<int64_t, HeldProfile>& held() const { return held_; }
  void clear();
  // The profile of training rank `rank` decoded, or nullptr when not held.
  // The pointer lives until the next call. Throws std::runtime_error (naming
  // the rank) when its part does not decode.
  const WalkProfile* decoded(int64_t rank) const;
  // How many times a part was decoded (tests).
  uint64_t decodes() const { return decodes_; }

 private:
  std::map<int64_t, HeldProfile> held_;
  PartRelease release_;
  mutable std::deque<std::pair<int64_t, std::unique_ptr<WalkProfile>>> recent_;  // newest last
  mutable uint64_t decodes_ = 0;
};

// critical_path.csv: header, then each step's segments (steps ascending; each
// step's segments in time order, `order` 0, 1, ...). Times from `originNs`.
struct StepPath {
  int64_t step = 0;
  std::vector<PathSegment> segments;  // in time order
};
std::string criticalPathCsv(const std::vector<StepPath>& paths, uint64_t originNs);

}  // namespace xstack
