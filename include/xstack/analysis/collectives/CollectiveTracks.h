// The traces' `collectives` process (docs/FORMAT.md section 3): one track
// group per process group, a thread per overlap lane, one slice per matched
// instance from its first arrival to its last member's end (the reference
// clock: ClockOffsets.h), with its collective, bytes, last arriver, waits and
// bus bandwidth as args. Owners keep their groups' slices after the match;
// every MPI rank learns the list of groups (one allgather) for the plan.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/analysis/collectives/CollectiveMatch.h"
#include "xstack/comm/Comm.h"
#include "xstack/core/Status.h"
#include "xstack/model/TrackGroup.h"
#include "xstack/render/TraceEvents.h"
#include "xstack/wire/Wire.h"

namespace xstack {

// The most lanes (threads) one group's track takes in a file: an instance
// that would need one more is not drawn (counted: collective_slice_dropped).
inline constexpr int64_t kCollectiveTrackLanes = 32;

// One owned group's slices, kept for the traces until the render: encoded
// (encodeSlices: about 35 bytes a slice, against about 200 held as
// InstanceSlices), decoded one group at a time when its rows are made.
struct GroupTrack {
  std::string group;
  std::vector<int64_t> ranks;  // sorted
  std::string slices;          // encodeSlices'; empty: none
};
GroupTrack groupTrack(std::string group, std::vector<int64_t> ranks,
                      const std::vector<InstanceSlice>& slices);

// `slices` in a compact form (each slice's first arrival as the difference
// from the one before, its end from its first arrival, its collective as a
// number in a list of the names seen); "" for none. decodeSlices gives back
// exactly what was encoded; it throws std::runtime_error on bytes that are
// not an encoding (they never leave the process that made them).
std::string encodeSlices(const std::vector<InstanceSlice>& slices);
std::vector<InstanceSlice> decodeSlices(std::string_view encoded);

// A group's name in the traces: `group "NAME" (ranks 0-3,8)`, the default
// group `default group (ranks ...)`; at most 8 runs of ranks, then "...".
std::string collectiveTrackName(const std::string& group, const std::vector<int64_t>& ranks);

// The rows of group `index` (its place in the job's list) on process `pid`:
// tids pid + 1 + index x kCollectiveTrackLanes + lane (lane 0 named by
// collectiveTrackName, lane k "... (overlap k)"); each instance on the
// lowest lane whose last slice ended by its start. `dropped`: instances past
// the last lane.
TrackGroupRows collectiveTrackRows(const GroupTrack& track, size_t index, int64_t pid,
                                   uint64_t& dropped);
// The same from a group's name, ranks and encoded slices (GroupTrack's), to
// `out` as they are made: one TraceSlice reused, never the group's rows.
void collectiveTrackRows(const std::string& group, const std::vector<int64_t>& ranks,
                         std::string_view slices, size_t index, int64_t pid, uint64_t& dropped,
                         TrackRowSink& out);

// One MPI rank's part of the job's list of track groups: its groups with a
// slice, or that it failed (agreeTrackGroups' message).
struct OwnTrackGroups {
  bool failed = false;
  std::vector<TraceTrackGroup> groups;  // owner not encoded: the sender
};
void writeOwnTrackGroups(wire::Writer& w, const OwnTrackGroups& m);
OwnTrackGroups readOwnTrackGroups(wire::Reader& r);

// collective: every MPI rank's owned groups with a slice (`mine`: their
// names and ranks) into one list sorted by name, each with its owner; the
// same on every rank. Empty when any rank says it `failed` (its groups could
// not be matched).
Expected<std::vector<TraceTrackGroup>> agreeTrackGroups(Comm& comm,
                                                        const std::vector<TraceTrackGroup>& mine,
                                                        bool failed);

}  // namespace xstack
