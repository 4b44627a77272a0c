#include "xstack/cmd/inspect/Inspect.h"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "xstack/cmd/report/ProfileReading.h"
#include "xstack/cmd/report/Report.h"
#include "xstack/core/TerminalText.h"
#include "xstack/core/TimeUnits.h"
#include "xstack/model/MemoryTrack.h"
#include "xstack/model/RankRows.h"
#include "xstack/source/SourceRegistry.h"

namespace xstack {

namespace {

using nlohmann::json;

// Rows, GPU streams and CPU threads of a profile's events.
struct EventCensus {
  uint64_t maxEnd = 0;
  std::map<std::string, uint64_t> byRow;
  std::map<int64_t, std::set<int64_t>> streams;  // GPU device -> streams
  std::set<int64_t> threads;
};

EventCensus censusOf(const EventList& d) {
  EventCensus c;
  for (const UnplacedEvent& u : d.unplaced)
    if (!u.memory) c.maxEnd = std::max({c.maxEnd, u.endNs, u.startNs});
  for (const SliceEvent& e : d.slices) {
    c.maxEnd = std::max({c.maxEnd, e.endNs, e.startNs});
    const RowKey& row = e.row;
    std::string name = rowProcessName(0, 0, row).substr(3 + rankLabel(0).size());  // ":gpu:0" ...
    c.byRow[name.substr(1)]++;
    if (row.kind == RowKind::Gpu)
      c.streams[row.device].insert(e.tid);
    else
      c.threads.insert(e.tid);
  }
  return c;
}

json memoryTracksJson(const EventList& d) {
  json tracks = json::array();
  Warnings w2;
  for (const MemoryTrack& t : buildMemoryTracks(d.memory, w2)) {
    int64_t peak = 0;
    for (const auto& smp : t.samples) peak = std::max(peak, smp.allocatedBytes);
    tracks.push_back({{"place", memPlaceName(t.place)},
                      {"device", t.device},
                      {"samples", t.samples.size()},
                      {"peak_bytes", peak},
                      {"final_bytes", t.samples.empty() ? 0 : t.samples.back().allocatedBytes}});
  }
  return tracks;
}

// The collectives of one process group, counted by collective name.
struct GroupCollectives {
  std::string description;                  // Process Group Description of the first one seen
  std::vector<int64_t> ranks;               // likewise; empty = unknown
  int64_t size = 0;                         // Group size, else the ranks' count; 0 = unknown
  bool fromKernelNames = true;              // every kernel counted was told by its name only
  std::map<std::string, uint64_t> kernels;  // GPU kernels
  std::map<std::string, uint64_t> hostOps;  // host ops (record_param_comms)
};

// Process group ("" = the default group) -> its collectives.
std::map<std::string, GroupCollectives> collectivesOf(const EventList& d) {
  std::map<std::string, GroupCollectives> groups;
  for (const SliceEvent& e : d.slices) {
    if (!e.collective) continue;
    const CollectiveInfo& c = *e.collective;
    GroupCollectives& g = groups[c.group];
    if (g.description.empty()) g.description = c.groupDesc;
    if (g.ranks.empty()) g.ranks = c.groupRanks;
    if (!g.size) g.size = c.groupSize ? c.groupSize : static_cast<int64_t>(c.groupRanks.size());
    if (e.row.kind != RowKind::Gpu) {
      g.hostOps[c.collective]++;
      continue;
    }
    g.kernels[c.collective]++;
    g.fromKernelNames = g.fromKernelNames && c.fromKernelName;
  }
  return groups;
}

json collectivesJson(const std::map<std::string, GroupCollectives>& groups) {
  json out = json::object();
  for (const auto& [name, g] : groups)
    out[name.empty() ? "default" : name] = {
        {"description", g.description},
        {"ranks", g.ranks},
        {"size", g.size},
        {"from_kernel_names", !g.kernels.empty() && g.fromKernelNames},
        {"kernels", g.kernels},
        {"host_ops", g.hostOps}};
  return out;
}

// "allreduce 20, broadcast 1"
std::string countsText(const std::map<std::string, uint64_t>& counts) {
  std::string text;
  for (const auto& [name, n] : counts)
    text += (text.empty() ? "" : ", ") + name + " " + std::to_string(n);
  return text;
}

// One line per group with collectives: "collectives: group 0 (default_pg,
// 2 ranks): allreduce 20, broadcast 1", the GPU kernels; then the host ops.
void printCollectives(const std::map<std::string, GroupCollectives>& groups) {
  for (const auto& [name, g] : groups) {
    std::string about = g.description;
    if (g.size)
      about +=
          (about.empty() ? "" : ", ") + std::to_string(g.size) + (g.size == 1 ? " rank" : " ranks");
    if (!g.kernels.empty() && g.fromKernelNames)
      about += std::string(about.empty() ? "" : ", ") + "from kernel names";
    std::printf("  collectives: group %s%s%s%s: %s",
                terminalSafe(name.empty() ? "default" : name).c_str(), about.empty() ? "" : " (",
                terminalSafe(about).c_str(), about.empty() ? "" : ")",
                g.kernels.empty() ? "no kernels" : terminalSafe(countsText(g.kernels)).c_str());
    if (!g.hostOps.empty())
      std::printf("; host ops: %s", terminalSafe(countsText(g.hostOps)).c_str());
    std::printf("\n");
  }
}

// A profile decoded for inspection: every event kept.
struct InspectedProfile {
  EventList events;
  uint64_t fileBytes = 0;
};

json inspectJson(const InspectOptions& o, const InspectedProfile& loaded, const InputSummary& s,
                 const EventCensus& c, uint64_t fwd, uint64_t bwd) {
  const EventList& d = loaded.events;
  json j;
  j["file"] = o.file;
  j["bytes"] = loaded.fileBytes;
  j["status"] = statusName(s.status);
  if (!s.problem.empty()) j["problem"] = s.problem;
  j["events"] = s.events;
  j["memory_events"] = s.memEvents;
  j["profile_start_ns"] = d.traceStartNs;
  j["profile_end_ns"] = d.traceEndNs;
  j["first_ns"] = s.minTs;
  j["last_ns"] = c.maxEnd;
  j["events_by_row"] = c.byRow;
  json st = json::object();
  for (const auto& [dev, set] : c.streams) st[std::to_string(dev)] = set;
  j["gpu_streams"] = st;
  j["cpu_threads"] = c.threads;
  j["marker_pairs"] = {{"forward", fwd}, {"backward", bwd}};
  j["memory_tracks"] = memoryTracksJson(d);
  j["collectives"] = collectivesJson(collectivesOf(d));
  json w = json::object();
  for (const auto& [k, e] : s.warnings.entries()) w[std::string(warnName(k))] = e.count;
  j["warnings"] = w;
  return j;
}

void printText(const InspectOptions& o, const InspectedProfile& loaded, const InputSummary& s,
               const EventCensus& c, const json& j, uint64_t fwd, uint64_t bwd) {
  std::printf("%s: %llu bytes, %s%s%s\n", terminalSafe(o.file).c_str(),
              static_cast<unsigned long long>(loaded.fileBytes), statusName(s.status),
              s.problem.empty() ? "" : ": ", terminalSafe(s.problem).c_str());
  std::printf("  events %llu, memory events %llu\n", static_cast<unsigned long long>(s.events),
              static_cast<unsigned long long>(s.memEvents));
  std::printf("  time range %llu .. %llu ns (%s ms)\n", static_cast<unsigned long long>(s.minTs),
              static_cast<unsigned long long>(c.maxEnd),
              formatMicros(c.maxEnd > s.minTs ? (c.maxEnd - s.minTs) / 1000 : 0).c_str());
  for (const auto& [name, n] : c.byRow)
    std::printf("  %-22s %llu events\n", terminalSafe(name).c_str(),
                static_cast<unsigned long long>(n));
  for (const auto& [dev, set] : c.streams) {
    std::printf("  gpu %lld streams:", static_cast<long long>(dev));
    for (int64_t x : set) std::printf(" %lld", static_cast<long long>(x));
    std::printf("\n");
  }
  std::printf("  cpu threads: %zu\n", c.threads.size());
  std::printf("  marker pairs: %llu forward, %llu backward\n", static_cast<unsigned long long>(fwd),
              static_cast<unsigned long long>(bwd));
  for (const auto& t : j["memory_tracks"])
    std::printf("  memory %s:%llu: %llu samples, peak %lld bytes\n",
                terminalSafe(t["place"].get<std::string>()).c_str(),
                static_cast<unsigned long long>(t["device"].get<uint64_t>()),
                static_cast<unsigned long long>(t["samples"].get<uint64_t>()),
                static_cast<long long>(t["peak_bytes"].get<int64_t>()));
  printCollectives(collectivesOf(loaded.events));
  for (const auto& [k, e] : s.warnings.entries())
    std::printf("  warning %s: %llu\n", warningKind(k).name.data(),
                static_cast<unsigned long long>(e.count));
}

}  // namespace

int runInspect(const InspectOptions& o) {
  InputSummary s;
  s.file.path = o.file;
  std::vector<Span> spans;
  InspectedProfile loaded;
  std::unique_ptr<FileBuffer> buffer;  // the events' views point here
  auto info = summarizeProfile(sourceForFile(o.file), true, s, spans, buffer, {&loaded.events, {}});
  if (!info) {
    std::fprintf(stderr, "xstack: inspect: %s\n", terminalSafe(info.error().message).c_str());
    return kExitFatal;
  }
  loaded.fileBytes = info->fileBytes;
  const EventCensus census = censusOf(loaded.events);
  uint64_t fwd = 0, bwd = 0;
  for (const Span& sp : spans) (sp.phase == Phase::Forward ? fwd : bwd)++;
  const json j = inspectJson(o, loaded, s, census, fwd, bwd);
  if (o.json)
    std::puts(j.dump(2, ' ', false, json::error_handler_t::replace).c_str());
  else
    printText(o, loaded, s, census, j, fwd, bwd);
  return s.status == InputStatus::Ok ? kExitOk : kExitPartial;
}

}  // namespace xstack
