// Test-only: checks a .pftrace against the rules (PftraceDecoder.h) and,
// given the JSON trace of the same run, that it holds exactly the JSON's
// slices (pid, tid, name, ts, dur) and counter samples (pid, series track
// name, ts, value), ts_json_us x 1000 = ts_ns; the same instants (pid, tid,
// name, ts); the same process and thread names; the JSON's order (a process's
// sibling_order_rank its process_sort_index, a thread's its thread_sort_index,
// where the JSON has them). Always: every thread track has a name, every
// "Memory" counter track is in UNIT_SIZE_BYTES, every named process track
// orders its children EXPLICIT and ranks as its legacy sort index, every named
// thread track ranks as its legacy sort index (docs/FORMAT.md section 7).
//   pftrace_check trace.pftrace [trace.json]     exit 0 ok, 1 mismatch
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "PftraceDecoder.h"
#include "xstack/render/perfetto/PerfettoSequenceEncoder.h"

namespace {

using Slice = std::tuple<int64_t, int64_t, std::string, uint64_t, uint64_t>;
using Sample = std::tuple<int64_t, std::string, uint64_t, double>;
using Instant = std::tuple<int64_t, int64_t, std::string, uint64_t>;
using Name = std::tuple<int64_t, int64_t, std::string>;  // (pid, tid or -1, name)

// Rules on the tracks themselves: named threads, memory in bytes.
bool checkTracks(const xstack::perfetto::test::Decoded& d, std::set<Name>& names) {
  bool ok = true;
  for (const auto& [uuid, t] : d.tracks) {
    if (t.has_thread() && t.thread().thread_name().empty()) {
      std::cerr << "thread without a name: pid " << t.thread().pid() << " tid " << t.thread().tid()
                << "\n";
      ok = false;
    }
    if (t.has_counter() && t.name().rfind("Memory ", 0) == 0 &&
        t.counter().unit() != xstack::perfetto::test::pb::CounterDescriptor::UNIT_SIZE_BYTES) {
      std::cerr << "memory counter not in bytes: " << t.name() << "\n";
      ok = false;
    }
    if (t.has_thread()) names.emplace(t.thread().pid(), t.thread().tid(), t.thread().thread_name());
    if (t.has_process() && t.process().has_process_name())
      names.emplace(t.process().pid(), -1, t.process().process_name());
  }
  return ok;
}

// The JSON's sort indexes: (pid, -1) for a process, (pid, tid) for a thread.
using SortIndexes = std::map<std::pair<int64_t, int64_t>, int64_t>;

// Today's ordering fields of the named process and thread tracks: present, equal to the legacy
// sort index and, where `json` has one, to the JSON's sort index.
bool checkOrdering(const xstack::perfetto::test::Decoded& d, const SortIndexes& json) {
  using Track = xstack::perfetto::test::pb::TrackDescriptor;
  bool ok = true;
  auto expectRank = [&](const Track& t, int64_t pid, int64_t tid, int64_t legacy) {
    auto it = json.find({pid, tid});
    const bool fits = t.has_sibling_order_rank() && t.sibling_order_rank() == legacy &&
                      (it == json.end() || it->second == legacy);
    if (!fits) {
      std::cerr << "ordering: pid " << pid << " tid " << tid << " sibling_order_rank "
                << (t.has_sibling_order_rank() ? std::to_string(t.sibling_order_rank()) : "none")
                << ", legacy_sort_index " << legacy << ", JSON sort index "
                << (it == json.end() ? std::string("none") : std::to_string(it->second)) << "\n";
      ok = false;
    }
  };
  for (const auto& [uuid, t] : d.tracks) {
    if (t.has_process() && t.process().has_process_name()) {
      if (t.child_ordering() != Track::EXPLICIT) {
        std::cerr << "ordering: process " << t.process().pid() << " children not EXPLICIT\n";
        ok = false;
      }
      expectRank(t, t.process().pid(), -1, t.process().legacy_sort_index());
    }
    if (t.has_thread() && t.thread().has_thread_name())
      expectRank(t, t.thread().pid(), t.thread().tid(), t.thread().legacy_sort_index());
  }
  return ok;
}

std::string readFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

uint64_t ns(const nlohmann::json& us) {
  return us.is_number_integer() ? us.get<uint64_t>() * 1000
                                : static_cast<uint64_t>(std::llround(us.get<double>() * 1000.0));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace xstack::perfetto;
  if (argc < 2) {
    std::cerr << "usage: pftrace_check trace.pftrace [trace.json]\n";
    return 2;
  }
  test::Decoded d = test::decode(readFile(argv[1]));
  for (size_t i = 0; i < d.errors.size() && i < 20; ++i)
    std::cerr << "rule: " << d.errors[i] << "\n";
  std::multiset<Slice> gotSlices, wantSlices;
  std::multiset<Sample> gotSamples, wantSamples;
  std::multiset<Instant> gotInstants, wantInstants;
  std::set<Name> gotNames, wantNames;
  bool tracksOk = checkTracks(d, gotNames);
  for (const auto& s : d.instants) {
    const auto& t = d.tracks.at(s.track);
    if (t.has_thread()) gotInstants.emplace(t.thread().pid(), t.thread().tid(), s.name, s.ts);
  }
  for (const auto& s : d.slices) {
    const auto* t = &d.tracks.at(s.track);
    if (!t->has_thread()) t = &d.tracks.at(t->parent_uuid());  // overlap lane
    gotSlices.emplace(t->thread().pid(), t->thread().tid(), s.name, s.ts, s.dur);
  }
  for (const auto& c : d.counters) {
    const auto& t = d.tracks.at(c.track);
    gotSamples.emplace(d.tracks.at(t.parent_uuid()).process().pid(), t.name(), c.ts, c.value);
  }
  std::cout << "packets ok: slices " << gotSlices.size() << " counter samples " << gotSamples.size()
            << " tracks " << d.tracks.size() << " rule errors " << d.errors.size() << "\n";
  bool ok = d.errors.empty() && tracksOk;
  SortIndexes sortIndexes;
  if (argc > 2) {
    nlohmann::json j = nlohmann::json::parse(readFile(argv[2]));
    for (const auto& e : j["traceEvents"]) {
      const std::string ph = e.value("ph", "");
      if (ph == "M" && (e["name"] == "process_sort_index" || e["name"] == "thread_sort_index"))
        sortIndexes[{e["pid"].get<int64_t>(), e.value("tid", int64_t{-1})}] =
            e["args"]["sort_index"].get<int64_t>();
      if (ph == "X")
        wantSlices.emplace(e["pid"].get<int64_t>(), e["tid"].get<int64_t>(),
                           e["name"].get<std::string>(), ns(e["ts"]), ns(e["dur"]));
      if (ph == "i")
        wantInstants.emplace(e["pid"].get<int64_t>(), e["tid"].get<int64_t>(),
                             e["name"].get<std::string>(), ns(e["ts"]));
      if (ph == "M" && (e["name"] == "process_name" || e["name"] == "thread_name"))
        wantNames.emplace(e["pid"].get<int64_t>(), e.value("tid", int64_t{-1}),
                          e["args"]["name"].get<std::string>());
      if (ph != "C") continue;
      std::optional<int64_t> id;
      if (e.contains("id"))  // counters' ids are strings (xstack), numbers elsewhere
        id = e["id"].is_string() ? std::stoll(e["id"].get<std::string>()) : e["id"].get<int64_t>();
      for (auto it = e["args"].begin(); it != e["args"].end(); ++it)
        wantSamples.emplace(e["pid"].get<int64_t>(),
                            counterTrackName(e["name"].get<std::string>(), id, it.key()),
                            ns(e["ts"]), it.value().get<double>());
    }
    const bool slicesEqual = gotSlices == wantSlices, samplesEqual = gotSamples == wantSamples;
    std::cout << "json: slices " << wantSlices.size() << (slicesEqual ? " equal" : " DIFFER")
              << ", counter samples " << wantSamples.size() << (samplesEqual ? " equal" : " DIFFER")
              << "\n";
    const bool instantsEqual = gotInstants == wantInstants, namesEqual = gotNames == wantNames;
    std::cout << "json: instants " << wantInstants.size() << (instantsEqual ? " equal" : " DIFFER")
              << ", process/thread names " << wantNames.size()
              << (namesEqual ? " equal" : " DIFFER") << "\n";
    ok = ok && slicesEqual && samplesEqual && instantsEqual && namesEqual;
  }
  const bool orderOk = checkOrdering(d, sortIndexes);
  std::cout << "ordering: " << (orderOk ? "explicit, the JSON's" : "DIFFERS") << "\n";
  return ok && orderOk ? 0 : 1;
}
