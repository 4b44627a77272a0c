// Clock offsets between nodes, estimated from the collectives' ends
// (docs/FORMAT.md "Clock offsets"). Ranks on one node share a clock; the
// members of one collective finish within microseconds of each other, so the
// difference of two nodes' members' ends at one instance samples the
// difference of their clocks. Owners sample (addInstanceClockSamples on each
// instance of their walk, GroupInstances.h; addClockSamples for a decoded
// group, in CollectiveMatch.cpp, matches as summarizeGroup does), rank 0 sums the
// samples of every owner and solves; the owners then move every arrival to
// the reference clock before they summarize. All times ns.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "xstack/analysis/collectives/CollectiveMatch.h"
#include "xstack/wire/Wire.h"

namespace xstack {

// The samples of one pair of nodes (a < b): end on b - end on a, per
// instance. Integer sums, so that any split of the instances over owners
// adds up to the same bytes.
struct ClockPair {
  int64_t a = 0, b = 0;  // nodes (the topology's trainers), a < b
  uint64_t count = 0;
  __int128 sumNs = 0;    // sum of the samples
  __int128 sumSqNs = 0;  // sum of their squares (ns^2)
};

using ClockPairs = std::map<std::pair<int64_t, int64_t>, ClockPair>;

// Adds one group's matched instances to `pairs`: every instance that is not
// point to point (an eager send ends before its recv: on a synthetic
// pipeline, sends and recvs ended 0.76 ms apart, standard deviation, and
// biased the offset by 0.25 ms), with members on two nodes or more (node = rank /
// ranksPerNode; nothing when ranksPerNode <= 0). A node's end at the
// instance is its members' lower-median end; each node is paired with the
// instance's lowest node.
void addClockSamples(const std::vector<Arrival>& arrivals, const std::vector<int64_t>& groupRanks,
                     int64_t ranksPerNode, ClockPairs& pairs);
// The same for one instance (nothing when it is not matched or is point to point).
void addInstanceClockSamples(const InstanceMembers& instance, int64_t ranksPerNode,
                             ClockPairs& pairs);

// Adds `from` into `into` (sums per pair).
void mergeClockPairs(ClockPairs& into, const std::vector<ClockPair>& from);

void writeClockPairs(wire::Writer& w, const std::vector<ClockPair>& pairs);
std::vector<ClockPair> readClockPairs(wire::Reader& r);

// One node's clock against its reference: offsetNs = its clock - the
// reference node's (the lowest node it is connected to through samples: 0
// for that node itself). A time t on this node is t - offsetNs on the
// reference clock. spreadNs: the pooled standard deviation of the samples of
// the pairs it is in (how well the collectives' ends agree). samples: those
// pairs' samples.
struct NodeClock {
  int64_t node = 0;
  int64_t reference = 0;  // its reference node (itself for a reference)
  int64_t offsetNs = 0;
  uint64_t spreadNs = 0;
  uint64_t samples = 0;
};

// The offsets that fit the pairs best (least squares weighted by sample
// count, Gauss-Seidel from 0, rounded to ns), for every node of a pair, by
// node. Deterministic for the same pairs.
std::vector<NodeClock> solveClockOffsets(const ClockPairs& pairs);

void writeNodeClocks(wire::Writer& w, const std::vector<NodeClock>& clocks);
std::vector<NodeClock> readNodeClocks(wire::Reader& r);

// ns as µs with 3 decimals, exact: "-1.500", "248.000" (waits.csv's clock
// columns and the terminal line).
std::string usText(int64_t ns);

// The terminal line: "clocks: N nodes compared by their collectives' ends;
// largest offset X us (node K), spread up to Y us; ..."; ""
// without a node other than its reference.
std::string clockSummaryLine(const std::vector<NodeClock>& clocks);

// The offset of `node` in `clocks` (sorted by node); 0 when not there.
int64_t clockOffsetOf(const std::vector<NodeClock>& clocks, int64_t node);

// `t` on a clock `offsetNs` ahead of the reference, on the reference clock
// (saturating at 0 and at UINT64_MAX); 0 (unknown) stays 0.
uint64_t toReferenceClock(uint64_t t, int64_t offsetNs);

}  // namespace xstack
