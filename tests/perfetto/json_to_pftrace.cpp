// Test/bench-only driver (not product code): reads an xstack Chrome JSON
// trace file and writes the same events through PerfettoSequenceEncoder, to
// measure the .pftrace size against the JSON and the encode time. Each run of
// consecutive events with one pid is a chunk (one packet sequence, id = the
// chunk's index + 1), as the renderer's chunks will be. The JSON is parsed
// and converted to plain structs first (not timed); "encode_s" is the
// encoder's time alone, best of 5 runs into memory.
//   json_to_pftrace trace.json out.pftrace
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "xstack/render/perfetto/PerfettoSequenceEncoder.h"

using xstack::perfetto::CounterUnit;
using xstack::perfetto::DebugArg;
using xstack::perfetto::PerfettoSequenceEncoder;

namespace {

uint64_t ns(const nlohmann::json& us) {
  return us.is_number_integer() ? us.get<uint64_t>() * 1000
                                : static_cast<uint64_t>(std::llround(us.get<double>() * 1000.0));
}

// One JSON event as plain data, so that the timed loop is the encoder's.
struct Arg {
  std::string key, text;
  enum Kind { Str, Int, Uint, Dbl } kind = Str;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
};
struct Ev {
  char ph = 0;
  int64_t pid = 0, tid = 0;
  std::string name, cat;
  uint64_t ts = 0, dur = 0;
  std::optional<int64_t> id;
  std::vector<Arg> args;
  int64_t sortIndex = 0;  // process/thread names: the JSON's sort index (else the pid / tid)
};

Ev toEv(const nlohmann::json& e) {
  Ev ev;
  const std::string ph = e.value("ph", "");
  ev.ph = ph.empty() ? '?' : ph[0];
  ev.pid = e.value("pid", int64_t{0});
  ev.tid = e.value("tid", int64_t{0});
  ev.name = e.value("name", "");
  ev.cat = e.value("cat", "");
  if (e.contains("ts")) ev.ts = ns(e["ts"]);
  if (e.contains("dur")) ev.dur = ns(e["dur"]);
  if (e.contains("id"))  // counters' ids are strings (xstack), numbers elsewhere
    ev.id = e["id"].is_string() ? std::stoll(e["id"].get<std::string>()) : e["id"].get<int64_t>();
  if (!e.contains("args")) return ev;
  for (auto it = e["args"].begin(); it != e["args"].end(); ++it) {
    Arg a;
    a.key = it.key();
    const auto& v = it.value();
    if (v.is_string()) {
      a.text = v.get<std::string>();
    } else if (v.is_number_unsigned()) {
      a.kind = Arg::Uint, a.u = v.get<uint64_t>();
    } else if (v.is_number_integer()) {
      a.kind = Arg::Int, a.i = v.get<int64_t>();
    } else if (v.is_number_float()) {
      a.kind = Arg::Dbl, a.d = v.get<double>();
    } else {
      a.text = v.dump();
    }
    ev.args.push_back(std::move(a));
  }
  return ev;
}

void debugArgs(const Ev& ev, std::vector<DebugArg>& out) {
  out.clear();
  for (const Arg& a : ev.args) {
    switch (a.kind) {
      case Arg::Str:
        out.push_back(DebugArg::ofString(a.key, a.text, a.key == "name"));
        break;
      case Arg::Int:
        out.push_back(DebugArg::ofInt(a.key, a.i));
        break;
      case Arg::Uint:
        out.push_back(DebugArg::ofUint(a.key, a.u));
        break;
      case Arg::Dbl:
        out.push_back(DebugArg::ofDouble(a.key, a.d));
        break;
    }
  }
}

void encodeEvent(PerfettoSequenceEncoder& enc, const Ev& e, std::vector<DebugArg>& args) {
  if (e.ph == 'M') {
    const std::string& n = e.args.empty() ? e.name : e.args[0].text;
    if (e.name == "process_name") enc.process(e.pid, n, e.sortIndex);
    if (e.name == "thread_name") enc.thread(e.pid, e.tid, n, e.sortIndex);
  } else if (e.ph == 'X') {
    debugArgs(e, args);
    enc.slice(e.pid, e.tid, e.name, e.cat, e.ts, e.dur, args);
  } else if (e.ph == 'C') {
    const CounterUnit unit =
        e.name == "Memory" ? CounterUnit{CounterUnit::Builtin::SizeBytes, ""} : CounterUnit{};
    for (const Arg& a : e.args) {
      if (a.kind == Arg::Dbl)
        enc.counter(e.pid, e.name, e.id, a.key, e.ts, a.d, unit);
      else
        enc.counter(e.pid, e.name, e.id, a.key, e.ts,
                    a.kind == Arg::Uint ? static_cast<int64_t>(a.u) : a.i, unit);
    }
  } else if (e.ph == 'i' || e.ph == 'I') {
    debugArgs(e, args);
    enc.instant(e.pid, e.tid, e.name, e.cat, e.ts, args);
  }
}

// The whole file: a metadata chunk, then one chunk per run of one pid.
void encodeAll(const Ev& meta, const std::vector<Ev>& events,
               const PerfettoSequenceEncoder::Sink& sink) {
  std::vector<DebugArg> args;
  uint32_t chunk = 0;
  std::string buffer;  // recycled from chunk to chunk
  {
    PerfettoSequenceEncoder m(++chunk, sink);
    debugArgs(meta, args);
    m.metadata(args);
    m.finish();
    buffer = m.takeBuffer();
  }
  std::optional<PerfettoSequenceEncoder> enc;
  int64_t chunkPid = -1;
  for (const Ev& e : events) {
    if (!enc || e.pid != chunkPid) {
      if (enc) {
        enc->finish();
        buffer = enc->takeBuffer();
      }
      enc.emplace(++chunk, sink, size_t{4} << 20, std::move(buffer));
      chunkPid = e.pid;
    }
    encodeEvent(*enc, e, args);
  }
  if (enc) enc->finish();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: json_to_pftrace trace.json out.pftrace\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const size_t jsonBytes = text.str().size();
  nlohmann::json trace = nlohmann::json::parse(text.str());
  std::vector<Ev> events;
  for (const auto& e : trace["traceEvents"]) events.push_back(toEv(e));
  // A name's sort index comes in an M event of its own (after the name in xstack's files).
  std::map<std::pair<int64_t, int64_t>, int64_t> sortIndexes;
  for (const Ev& e : events)
    if (e.ph == 'M' && (e.name == "process_sort_index" || e.name == "thread_sort_index") &&
        !e.args.empty())
      sortIndexes[{e.pid, e.name == "thread_sort_index" ? e.tid : -1}] =
          e.args[0].kind == Arg::Uint ? static_cast<int64_t>(e.args[0].u) : e.args[0].i;
  for (Ev& e : events) {
    if (e.ph != 'M' || (e.name != "process_name" && e.name != "thread_name")) continue;
    const bool thread = e.name == "thread_name";
    auto it = sortIndexes.find({e.pid, thread ? e.tid : -1});
    e.sortIndex = it != sortIndexes.end() ? it->second : thread ? e.tid : e.pid;
  }
  Ev meta;
  if (trace.contains("otherData")) {
    nlohmann::json m;
    m["args"] = trace["otherData"];
    meta = toEv(m);
  }
  std::string file;
  double best = 1e9;
  for (int run = 0; run < 5; ++run) {
    file.clear();
    auto t0 = std::chrono::steady_clock::now();
    encodeAll(meta, events, [&](std::string& piece) { file += piece; });
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::ofstream(argv[2], std::ios::binary)
      .write(file.data(), static_cast<std::streamsize>(file.size()));
  std::printf(
      "events %zu json_bytes %zu pftrace_bytes %zu ratio %.3f encode_s %.3f (%.0f ns/event)\n",
      events.size(), jsonBytes, file.size(),
      static_cast<double>(file.size()) / static_cast<double>(jsonBytes), best,
      best * 1e9 / static_cast<double>(events.size()));
  return 0;
}
