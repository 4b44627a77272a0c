// Test/bench-only driver (not product code): reads an xstack Chrome JSON
// trace file and writes the same events through PerfettoSequenceEncoder, to
// measure the .pftrace size against the JSON and the encode time. Each run of
// consecutive events with one pid is a chunk (one packet sequence, id = the
// chunk's index + 1), as the renderer's chunks will be. JSON parsing is not
// timed; "encode" is the encoder's time alone.
//   json_to_pftrace trace.json out.pftrace
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "xstack/trace/perfetto/PerfettoSequenceEncoder.h"

using xstack::perfetto::CounterUnit;
using xstack::perfetto::DebugArg;
using xstack::perfetto::PerfettoSequenceEncoder;

namespace {

uint64_t ns(const nlohmann::json& us) {
  return us.is_number_integer() ? us.get<uint64_t>() * 1000
                                : static_cast<uint64_t>(std::llround(us.get<double>() * 1000.0));
}

// JSON args as debug annotations; the string storage lives in `texts`.
std::vector<DebugArg> toArgs(const nlohmann::json& args, std::vector<std::string>& texts) {
  std::vector<DebugArg> out;
  texts.clear();
  texts.reserve(2 * args.size());
  for (auto it = args.begin(); it != args.end(); ++it) {
    texts.push_back(it.key());
    std::string_view key = texts.back();
    const auto& v = it.value();
    if (v.is_string()) {
      texts.push_back(v.get<std::string>());
      out.push_back(DebugArg::ofString(key, texts.back(), key == "name"));
    } else if (v.is_number_unsigned()) {
      out.push_back(DebugArg::ofUint(key, v.get<uint64_t>()));
    } else if (v.is_number_integer()) {
      out.push_back(DebugArg::ofInt(key, v.get<int64_t>()));
    } else if (v.is_number_float()) {
      out.push_back(DebugArg::ofDouble(key, v.get<double>()));
    } else {
      texts.push_back(v.dump());
      out.push_back(DebugArg::ofString(key, texts.back()));
    }
  }
  return out;
}

void encodeEvent(PerfettoSequenceEncoder& enc, const nlohmann::json& e,
                 std::vector<std::string>& texts) {
  const std::string ph = e.value("ph", "");
  const int64_t pid = e.value("pid", int64_t{0});
  const int64_t tid = e.value("tid", int64_t{0});
  const std::string name = e.value("name", "");
  static const nlohmann::json kEmpty = nlohmann::json::object();
  const nlohmann::json& args = e.contains("args") ? e["args"] : kEmpty;
  if (ph == "M") {
    if (name == "process_name") enc.process(pid, args.value("name", ""), pid);
    if (name == "thread_name") enc.thread(pid, tid, args.value("name", ""), tid);
  } else if (ph == "X") {
    std::vector<DebugArg> a = toArgs(args, texts);
    enc.slice(pid, tid, name, e.value("cat", ""), ns(e["ts"]), ns(e["dur"]), a);
  } else if (ph == "C") {
    std::optional<int64_t> id;
    if (e.contains("id")) id = e["id"].get<int64_t>();
    const CounterUnit unit =
        name == "Memory" ? CounterUnit{CounterUnit::Builtin::SizeBytes, ""} : CounterUnit{};
    for (auto it = args.begin(); it != args.end(); ++it) {
      if (it.value().is_number_integer())
        enc.counter(pid, name, id, it.key(), ns(e["ts"]), it.value().get<int64_t>(), unit);
      else
        enc.counter(pid, name, id, it.key(), ns(e["ts"]), it.value().get<double>(), unit);
    }
  } else if (ph == "i" || ph == "I") {
    std::vector<DebugArg> a = toArgs(args, texts);
    enc.instant(pid, tid, name, e.value("cat", ""), ns(e["ts"]), a);
  }
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
  const auto& events = trace["traceEvents"];

  std::ofstream out(argv[2], std::ios::binary);
  size_t pfBytes = 0;
  auto sink = [&](std::string& piece) {
    out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    pfBytes += piece.size();
  };
  std::vector<std::string> texts;
  uint32_t chunk = 0;
  std::unique_ptr<PerfettoSequenceEncoder> enc;
  int64_t chunkPid = -1;
  auto t0 = std::chrono::steady_clock::now();
  {
    std::vector<DebugArg> meta;
    std::vector<std::string> keep;
    if (trace.contains("otherData")) meta = toArgs(trace["otherData"], keep);
    PerfettoSequenceEncoder m(++chunk, sink);
    m.metadata(meta);
    m.finish();
  }
  for (const auto& e : events) {
    const int64_t pid = e.value("pid", int64_t{0});
    if (!enc || pid != chunkPid) {
      if (enc) enc->finish();
      enc = std::make_unique<PerfettoSequenceEncoder>(++chunk, sink);
      chunkPid = pid;
    }
    encodeEvent(*enc, e, texts);
  }
  if (enc) enc->finish();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("events %zu chunks %u json_bytes %zu pftrace_bytes %zu ratio %.3f encode_s %.3f\n",
              events.size(), chunk, jsonBytes, pfBytes,
              static_cast<double>(pfBytes) / static_cast<double>(jsonBytes), secs);
  return 0;
}
