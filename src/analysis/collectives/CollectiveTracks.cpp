#include "xstack/analysis/collectives/CollectiveTracks.h"

#include <algorithm>
#include <stdexcept>

#include "xstack/core/TextWriting.h"
#include "xstack/transport/TypedMessages.h"
#include "xstack/wire/Wire.h"

namespace xstack {
namespace {

// "0-3,8,10-11": runs of consecutive ranks, at most `maxRuns`, then ",...".
std::string rankRuns(const std::vector<int64_t>& ranks, size_t maxRuns) {
  std::string out;
  size_t runs = 0;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (runs++ == maxRuns) return out + ",...";
    if (!out.empty()) out += ',';
    out += std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

// An instance's slice name into `out`: its collective; a point-to-point op "send 3 -> 5".
void sliceName(const InstanceSlice& s, std::string& out) {
  out = s.collective;
  if (s.src < 0) return;
  out += ' ';
  appendInt(out, s.src);
  out += " -> ";
  appendInt(out, s.dst);
}

double msOf(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

// `out` made slice `s` on thread `tid`, its vectors and strings reused.
void fillSlice(const InstanceSlice& s, int64_t tid, TraceSlice& out) {
  out.tid = tid;
  out.tsNs = s.firstArrivalNs;
  out.durNs = s.endNs - s.firstArrivalNs;
  sliceName(s, out.name);
  out.category = "collective";
  out.args.clear();
  out.args.push_back(TraceArg::ofString("collective", s.collective));
  out.args.push_back(TraceArg::ofUint("bytes", s.bytes));
  out.args.push_back(TraceArg::ofUint("members", s.members));
  out.args.push_back(TraceArg::ofInt("last_arriver", s.lastRank));
  out.args.push_back(TraceArg::ofDouble("wait_ms", msOf(s.waitNs)));
  out.args.push_back(TraceArg::ofDouble("transfer_ms", msOf(s.transferNs)));
  if (s.hasBusbw) out.args.push_back(TraceArg::ofDouble("busbw_gbps", s.busbwGbps));
  out.args.push_back(TraceArg::ofInt("instance", s.instance));
}

// Each slice's lane (the lowest whose last slice ended by its start), or
// kCollectiveTrackLanes when every lane is still busy.
std::vector<int64_t> lanesOf(const std::vector<InstanceSlice>& slices) {
  std::vector<uint64_t> laneEnd;
  std::vector<int64_t> out;
  out.reserve(slices.size());
  for (const InstanceSlice& s : slices) {
    size_t lane = 0;
    while (lane < laneEnd.size() && laneEnd[lane] > s.firstArrivalNs) ++lane;
    if (lane == static_cast<size_t>(kCollectiveTrackLanes)) {
      out.push_back(kCollectiveTrackLanes);
      continue;
    }
    if (lane == laneEnd.size()) laneEnd.push_back(0);
    laneEnd[lane] = s.endNs;
    out.push_back(static_cast<int64_t>(lane));
  }
  return out;
}

void writeTrackGroup(wire::Writer& w, const TraceTrackGroup& g) {
  w.str(g.name);
  w.list(g.ranks, [](wire::Writer& x, int64_t r) { x.i64(r); });
}

TraceTrackGroup readTrackGroup(wire::Reader& r) {
  TraceTrackGroup g;
  g.name = r.str();
  r.list(g.ranks, [](wire::Reader& x) { return x.i64(); });
  return g;
}

// One slice after `prevFirstNs` (the slice before's first arrival; 0 for the
// first), its collective as its place in `names` (a new name: the next
// number, then the name).
void writeSlice(wire::Writer& w, const InstanceSlice& s, uint64_t prevFirstNs,
                std::vector<std::string_view>& names) {
  w.u64(s.firstArrivalNs - prevFirstNs);  // mod 2^64: any order comes back
  w.u64(s.endNs - s.firstArrivalNs);
  const size_t name =
      static_cast<size_t>(std::find(names.begin(), names.end(), s.collective) - names.begin());
  w.u64(name);
  if (name == names.size()) {
    names.push_back(s.collective);
    w.str(s.collective);
  }
  w.u64(s.bytes);
  w.u64(s.members);
  w.i64(s.lastRank);
  w.u64(s.transferNs);
  w.u64(s.waitNs);
  w.boolean(s.hasBusbw);
  if (s.hasBusbw) w.f64(s.busbwGbps);
  w.i64(s.instance);
  w.i64(s.src);
  w.i64(s.dst);
}

InstanceSlice readSlice(wire::Reader& r, uint64_t prevFirstNs, std::vector<std::string>& names) {
  InstanceSlice s;
  s.firstArrivalNs = prevFirstNs + r.u64();
  s.endNs = s.firstArrivalNs + r.u64();
  const uint64_t name = r.u64();
  if (name == names.size()) names.push_back(r.str());
  if (name >= names.size()) r.fail("a slice's collective out of range");
  if (r.ok()) s.collective = names[name];
  s.bytes = r.u64();
  s.members = r.u64();
  s.lastRank = r.i64();
  s.transferNs = r.u64();
  s.waitNs = r.u64();
  s.hasBusbw = r.boolean();
  if (s.hasBusbw) s.busbwGbps = r.f64();
  s.instance = r.i64();
  s.src = r.i64();
  s.dst = r.i64();
  return s;
}

}  // namespace

std::string encodeSlices(const std::vector<InstanceSlice>& slices) {
  if (slices.empty()) return {};
  wire::Writer w;
  w.u64(slices.size());
  std::vector<std::string_view> names;
  uint64_t prev = 0;
  for (const InstanceSlice& s : slices) {
    writeSlice(w, s, prev, names);
    prev = s.firstArrivalNs;
  }
  return w.take();
}

std::vector<InstanceSlice> decodeSlices(std::string_view encoded) {
  std::vector<InstanceSlice> out;
  if (encoded.empty()) return out;
  wire::Reader r(encoded, "a group's slices");
  const uint64_t n = r.count();
  out.reserve(n);
  std::vector<std::string> names;
  uint64_t prev = 0;
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    out.push_back(readSlice(r, prev, names));
    prev = out.back().firstArrivalNs;
  }
  if (Status st = r.finish(); !st) throw std::runtime_error(st.error().message);
  return out;
}

GroupTrack groupTrack(std::string group, std::vector<int64_t> ranks,
                      const std::vector<InstanceSlice>& slices) {
  return {std::move(group), std::move(ranks), encodeSlices(slices)};
}

void writeOwnTrackGroups(wire::Writer& w, const OwnTrackGroups& m) {
  w.boolean(m.failed);
  w.list(m.groups, writeTrackGroup);
}

OwnTrackGroups readOwnTrackGroups(wire::Reader& r) {
  OwnTrackGroups m;
  m.failed = r.boolean();
  r.list(m.groups, readTrackGroup);
  return m;
}

std::string collectiveTrackName(const std::string& group, const std::vector<int64_t>& ranks) {
  const std::string head = group.empty() ? "default group" : "group \"" + group + "\"";
  return head + " (ranks " + rankRuns(ranks, 8) + ")";
}

TrackGroupRows collectiveTrackRows(const GroupTrack& track, size_t index, int64_t pid,
                                   uint64_t& dropped) {
  TrackRowsKept kept;
  collectiveTrackRows(track.group, track.ranks, track.slices, index, pid, dropped, kept);
  return std::move(kept.rows);
}

void collectiveTrackRows(const std::string& group, const std::vector<int64_t>& ranks,
                         std::string_view encoded, size_t index, int64_t pid, uint64_t& dropped,
                         TrackRowSink& out) {
  const std::vector<InstanceSlice> slices = decodeSlices(encoded);
  const std::vector<int64_t> lanes = lanesOf(slices);
  const int64_t base = pid + 1 + static_cast<int64_t>(index) * kCollectiveTrackLanes;
  const std::string name = collectiveTrackName(group, ranks);
  int64_t used = 0;
  for (int64_t lane : lanes) used = std::max(used, lane < kCollectiveTrackLanes ? lane + 1 : 0);
  for (int64_t lane = 0; lane < used; ++lane)
    out.track({base + lane, lane == 0 ? name : name + " (overlap " + std::to_string(lane) + ")",
               base + lane});
  TraceSlice slice;  // reused: its name, category and args keep their storage
  slice.args.reserve(8);
  for (int64_t lane = 0; lane < used; ++lane)
    for (size_t i = 0; i < slices.size(); ++i)
      if (lanes[i] == lane) {
        fillSlice(slices[i], base + lane, slice);
        out.slice(slice);
      }
  for (int64_t lane : lanes) dropped += lane == kCollectiveTrackLanes;
}

Expected<std::vector<TraceTrackGroup>> agreeTrackGroups(Comm& comm,
                                                        const std::vector<TraceTrackGroup>& mine,
                                                        bool failed) {
  OwnTrackGroups own{failed, {}};
  if (!failed) own.groups = mine;
  // collective: every rank learns every owner's groups.
  auto all = allgatherTyped(comm, own, "the collectives' track groups", writeOwnTrackGroups,
                            readOwnTrackGroups);
  if (!all) return all.error();
  std::vector<TraceTrackGroup> out;
  for (size_t r = 0; r < all->size(); ++r) {
    if ((*all)[r].failed) return std::vector<TraceTrackGroup>{};
    for (TraceTrackGroup& g : (*all)[r].groups) {
      g.owner = static_cast<int>(r);
      out.push_back(std::move(g));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const TraceTrackGroup& a, const TraceTrackGroup& b) { return a.name < b.name; });
  return out;
}

}  // namespace xstack
