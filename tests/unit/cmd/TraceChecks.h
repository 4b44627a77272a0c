// Helpers shared by the end-to-end tests: files in and out, and the checks
// every trace file must pass (docs/FORMAT.md sections 3 and 4).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace xstack::testing_support {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

inline std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline void spit(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Every file in `dir` (names -> bytes).
inline std::map<std::string, std::string> filesIn(const fs::path& dir) {
  std::map<std::string, std::string> m;
  for (const auto& e : fs::directory_iterator(dir))
    m[e.path().filename().string()] = slurp(e.path());
  return m;
}

// Only the traces (traceFile_*), without the analysis files (steps.csv,
// findings.json, report.html) that sit next to them.
inline std::map<std::string, std::string> traceFilesIn(const fs::path& dir) {
  auto m = filesIn(dir);
  std::erase_if(m, [](const auto& kv) { return kv.first.rfind("traceFile_", 0) != 0; });
  return m;
}

// Checks that hold for every trace file; `j` gets the parsed file.
inline void checkTraceInto(const fs::path& p, ojson& j) {
  SCOPED_TRACE(p.string());
  std::string text = slurp(p);
  ASSERT_NO_THROW(j = ojson::parse(text));
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"traceEvents", "displayTimeUnit", "otherData"}));
  EXPECT_EQ(j["displayTimeUnit"], "ns");
  const ojson& od = j["otherData"];
  for (const char* k : {"tool", "version", "group", "gpu", "time_origin_ns", "ranks", "trainers",
                        "options", "warnings"})
    EXPECT_TRUE(od.contains(k)) << k;
  EXPECT_EQ(od["tool"], "xstack");
  EXPECT_TRUE(od["warnings"].is_object());
  // Events: ts and dur never negative; order: pid ascending, each (pid, lane) in one run
  // of events in ts order (threads come in the order of their source ids, which a
  // remapped tid, docs/FORMAT.md, does not keep); every pid named once.
  int64_t lastPid = -1;
  std::tuple<int64_t, int64_t, double> last{-1, INT64_MIN, -1};
  std::set<std::pair<int64_t, int64_t>> lanesDone;
  std::map<int64_t, int> named;
  std::set<int64_t> pidsWithEvents;
  std::map<std::pair<int64_t, std::string>, int64_t> counterLane;
  for (const auto& e : j["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid"));
    const std::string ph = e["ph"];
    // "i": the analysis' findings, on a process after the last row.
    EXPECT_TRUE(ph == "M" || ph == "X" || ph == "C" || ph == "i") << ph;
    if (ph == "i") {
      EXPECT_TRUE(e["s"] == "t" && e["name"] == "straggler" && e["pid"] >= 8) << e.dump();
    }
    int64_t pid = e["pid"];
    EXPECT_GE(pid, 0);
    EXPECT_GE(pid, lastPid) << e.dump();
    lastPid = pid;
    if (ph == "M") {
      if (e["name"] == "process_name") named[pid]++;
      continue;
    }
    pidsWithEvents.insert(pid);
    ASSERT_TRUE(e["ts"].is_number());
    EXPECT_GE(e["ts"].get<double>(), 0) << e.dump();
    if (ph == "X") {
      ASSERT_TRUE(e["dur"].is_number());
      EXPECT_GE(e["dur"].get<double>(), 0) << e.dump();
    }
    // A counter's lane: its name's place among the pid's counter names (each counter's samples
    // come together, in ts order).
    if (ph == "C" && !counterLane.count({pid, e["name"]}))
      counterLane[{pid, e["name"]}] = static_cast<int64_t>(counterLane.size());
    int64_t lane = e.contains("tid") ? e["tid"].get<int64_t>()
                   : ph == "C"       ? counterLane[{pid, e["name"]}]
                                     : 0;
    std::tuple<int64_t, int64_t, double> key{pid, lane, e["ts"].get<double>()};
    const bool sameLane = std::get<0>(last) == pid && std::get<1>(last) == lane;
    if (sameLane) {
      EXPECT_LE(std::get<2>(last), std::get<2>(key)) << e.dump();
    } else {
      lanesDone.insert({std::get<0>(last), std::get<1>(last)});
      EXPECT_FALSE(lanesDone.count({pid, lane})) << "lane split in two runs: " << e.dump();
    }
    last = key;
  }
  for (int64_t pid : pidsWithEvents) EXPECT_EQ(named[pid], 1) << "pid " << pid;
  for (const auto& [pid, n] : named) EXPECT_EQ(n, 1) << "pid " << pid;
}

inline ojson checkTrace(const fs::path& p) {
  ojson j;
  checkTraceInto(p, j);
  return j;
}

inline std::vector<ojson> eventsOf(const ojson& j, const std::function<bool(const ojson&)>& pred) {
  std::vector<ojson> v;
  for (const auto& e : j["traceEvents"])
    if (pred(e)) v.push_back(e);
  return v;
}

inline std::map<int64_t, std::string> processNames(const ojson& j) {
  std::map<int64_t, std::string> m;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name") m[e["pid"]] = e["args"]["name"];
  return m;
}

// Same file names and bytes; on a difference, names the first differing
// line instead of printing whole files.
inline void expectSameFiles(const std::map<std::string, std::string>& got,
                            const std::map<std::string, std::string>& want) {
  std::vector<std::string> gotNames, wantNames;
  for (const auto& kv : got) gotNames.push_back(kv.first);
  for (const auto& kv : want) wantNames.push_back(kv.first);
  ASSERT_EQ(gotNames, wantNames);
  for (const auto& [name, text] : want) {
    const std::string& other = got.at(name);
    if (other == text) continue;
    std::istringstream a(text), b(other);
    std::string la, lb;
    int line = 0;
    while (true) {
      ++line;
      bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
      if (ea && eb) break;
      if (ea || eb || la != lb) {
        ADD_FAILURE() << name << " differs at line " << line << ":\n  want: " << la
                      << "\n  got:  " << lb;
        break;
      }
    }
  }
}

}  // namespace xstack::testing_support
