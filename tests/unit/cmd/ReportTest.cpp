// The whole pipeline on one rank (SerialComm, no MPI), on data sets built
// here: a synthetic job and hand-made odd cases.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "../TempDirTest.h"
#include "TraceChecks.h"
#include "profiler.pb.h"
#include "xstack/cmd/cli/Cli.h"
#include "xstack/cmd/report/Report.h"
#include "xstack/cmd/synth/Synth.h"
#include "xstack/core/TimeUnits.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;
namespace pb = paddle::platform::proto;
using ojson = nlohmann::ordered_json;
using namespace testing_support;

constexpr uint64_t kT0 = 1700000000ull * 1000000000ull;  // Unix 1700000000 s in ns
constexpr uint64_t kMs = 1000000;

class ReportTest : public TempDirTest {
 protected:
  ReportOptions options(const fs::path& data, const fs::path& out, Topology topo) {
    ReportOptions o;
    o.dataDir = data.string();
    o.outDir = out.string();
    o.topology = topo;
    o.progress = false;
    return o;
  }
  int run(const ReportOptions& o) {
    SerialComm comm;
    return runReport(comm, o);
  }

  const fs::path& root_ = dir_;
};

// ---------------------------------------------------------------- synthetic

TEST_F(ReportTest, SynthJobGivesValidDeterministicTraces) {
  SynthOptions so;
  so.outDir = (root_ / "data").string();
  so.trainers = 3;
  so.gpusPerTrainer = 2;
  so.steps = 2;
  so.opsPerStep = 12;
  so.seed = 5;
  so.skewNs = 3 * kMs;
  ASSERT_EQ(runSynth(so), kExitOk);

  Topology topo{2, 2, 1};  // 3 trainers in groups of 2: the last group is partial
  auto o = options(root_ / "data", root_ / "out1", topo);
  ASSERT_EQ(run(o), kExitOk);
  auto files = filesIn(root_ / "out1");
  std::vector<std::string> names;
  for (const auto& kv : traceFilesIn(root_ / "out1")) names.push_back(kv.first);
  EXPECT_EQ(names, (std::vector<std::string>{"traceFile_0_0.json", "traceFile_0_1.json",
                                             "traceFile_1_0.json", "traceFile_1_1.json"}));

  // The origin is the earliest time-file start (time files start before everything else).
  uint64_t earliest = UINT64_MAX;
  for (const auto& e : fs::directory_iterator(root_ / "data" / "time")) {
    std::istringstream in(slurp(e.path()));
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("start time: ", 0) == 0)
        earliest = std::min(earliest, *parseSecondsToNs(line.substr(12)));
  }
  for (const auto& [name, text] : traceFilesIn(root_ / "out1")) {
    ojson j = checkTrace(root_ / "out1" / name);
    const ojson& od = j["otherData"];
    EXPECT_EQ(od["time_origin_ns"].get<uint64_t>(), earliest);
    EXPECT_EQ(od["options"]["gpus_per_trainer"], 2);
    EXPECT_EQ(od["options"]["group_size"], 2);
    EXPECT_EQ(od["options"]["display_size"], 1);
    auto pn = processNames(j);
    EXPECT_EQ(pn[1], "00_pipeline");
    for (int64_t pid = 1; pid <= 7; ++pid) EXPECT_TRUE(pn.count(pid)) << name << " pid " << pid;
    EXPECT_TRUE(pn.count(8)) << name;
    // Synth profiles have spans for every rank and never-freed blocks.
    EXPECT_FALSE(eventsOf(j, [](const ojson& e) {
                   return e["ph"] == "X" && e["cat"] == "pipeline";
                 }).empty());
    EXPECT_GT(od["warnings"].value("memory_never_freed", 0), 0);
  }
  ojson last = ojson::parse(files["traceFile_1_0.json"]);
  EXPECT_EQ(last["otherData"]["trainers_in_group"], 1);
  EXPECT_EQ(last["otherData"]["partial_group"], true);
  EXPECT_EQ(last["otherData"]["ranks"], ojson::array({4}));
  ojson first = ojson::parse(files["traceFile_0_1.json"]);
  EXPECT_EQ(first["otherData"]["ranks"], ojson::array({1, 3}));
  EXPECT_EQ(first["otherData"]["trainers"], ojson::array({0, 1}));
  EXPECT_EQ(first["otherData"]["partial_group"], false);

  // Same inputs, same bytes: a second run, a run that re-reads every profile
  // (no cache) in tiny pieces, and a run on a copy of the data elsewhere.
  ASSERT_EQ(run(options(root_ / "data", root_ / "out2", topo)), kExitOk);
  expectSameFiles(filesIn(root_ / "out2"), files);
  auto tiny = options(root_ / "data", root_ / "out3", topo);
  tiny.pieceBytes = 1;
  ASSERT_EQ(run(tiny), kExitOk);
  expectSameFiles(filesIn(root_ / "out3"), files);
  fs::create_directories(root_ / "elsewhere");
  fs::copy(root_ / "data", root_ / "elsewhere" / "copy", fs::copy_options::recursive);
  ASSERT_EQ(run(options(root_ / "elsewhere" / "copy", root_ / "out4", topo)), kExitOk);
  expectSameFiles(filesIn(root_ / "out4"), files);
  // Re-running into the same folder replaces the files, leaving nothing else.
  ASSERT_EQ(run(options(root_ / "data", root_ / "out1", topo)), kExitOk);
  expectSameFiles(filesIn(root_ / "out1"), files);
}

TEST_F(ReportTest, SynthIsTheSameBytesForTheSameSeed) {
  SynthOptions so;
  so.trainers = 2;
  so.gpusPerTrainer = 2;
  so.steps = 1;
  so.opsPerStep = 6;
  so.seed = 42;
  so.outDir = (root_ / "a").string();
  ASSERT_EQ(runSynth(so), kExitOk);
  so.outDir = (root_ / "b").string();
  ASSERT_EQ(runSynth(so), kExitOk);
  so.seed = 43;
  so.outDir = (root_ / "c").string();
  ASSERT_EQ(runSynth(so), kExitOk);
  for (const char* sub : {"profile", "dcgm", "net", "time"}) {
    auto a = filesIn(root_ / "a" / sub);
    EXPECT_FALSE(a.empty()) << sub;
    expectSameFiles(filesIn(root_ / "b" / sub), a);
  }
  EXPECT_NE(filesIn(root_ / "c" / "profile"), filesIn(root_ / "a" / "profile"));
  EXPECT_EQ(filesIn(root_ / "a" / "profile").size(), 4u);
  EXPECT_EQ(filesIn(root_ / "a" / "time").size(), 4u);
}

// ---------------------------------------------------------------- hand-made

pb::Event* addEvent(pb::Profile& p, pb::Event::EventType type, const std::string& name,
                    uint64_t start, uint64_t end, int64_t device, int64_t sub) {
  pb::Event* e = p.add_events();
  e->set_type(type);
  e->set_name(name);
  e->set_start_ns(start);
  e->set_end_ns(end);
  e->set_device_id(device);
  e->set_sub_device_id(sub);
  return e;
}
void marker(pb::Profile& p, const char* detail, uint64_t at) {
  addEvent(p, pb::Event::CPU, "marker/compute/MarkerCUDA", at, at + 100, 0, 1)
      ->set_detail_info(detail);
}
void addMem(pb::Profile& p, pb::MemEvent::Place place, uint32_t dev, uint64_t s, uint64_t e,
            uint64_t bytes) {
  pb::MemEvent* m = p.add_mem_events();
  m->set_place(place);
  m->set_device_id(dev);
  m->set_start_ns(s);
  m->set_end_ns(e);
  m->set_bytes(bytes);
}
std::string bytesOf(const pb::Profile& p) {
  std::string s;
  EXPECT_TRUE(p.SerializeToString(&s));
  return s;
}

// A plain profile: one forward/backward step and a CPU op, `skew` later.
pb::Profile plain(uint64_t skew) {
  pb::Profile p;
  uint64_t t = kT0 + skew + 10 * kMs;
  marker(p, "marker_forward_B", t);
  addEvent(p, pb::Event::CPU, "relu", t + 100000, t + 200000, 0, 5);
  addEvent(p, pb::Event::GPUKernel, "relu_kernel", t + 150000, t + 250000, 0, 7);
  marker(p, "marker_forward_E", t + 1 * kMs);
  marker(p, "marker_backward_B", t + 2 * kMs);
  marker(p, "marker_backward_E", t + 4 * kMs);
  p.set_start_ns(t);
  p.set_end_ns(t + 5 * kMs);
  return p;
}

// P = 2, S = 2, D = 1; trainers 0, 1, 2 (ranks 0..4; rank 5 missing).
// Trainer 1's clock runs 500 ms late. The earliest timestamp of the job is
// rank 0's time file start, T0 + 1 µs.
void writeOddJob(const fs::path& d) {
  pb::Profile r0;
  const uint64_t t = kT0 + 10 * kMs;
  marker(r0, "marker_backward_E", t - 1 * kMs);  // no backward open: dropped
  marker(r0, "marker_forward_B", t);
  marker(r0, "marker_forward_E", t + 1 * kMs);
  marker(r0, "marker_backward_B", t + 2 * kMs);
  marker(r0, "marker_backward_E", t + 3 * kMs);
  marker(r0, "marker_forward_B", t + 4 * kMs);  // never closed
  addEvent(r0, pb::Event::CPU, "say \"hi\" \\ now", t + 10000, t + 20000, 0, 100)
      ->set_detail_info("d\"q");
  addEvent(r0, pb::Event::CPU, std::string("ctl\x01\ttab\n", 9), t + 30000, t + 40000, 1, 100);
  addEvent(r0, pb::Event::CPU, "bad\xC3\x28utf8\xFF", t + 50000, t + 60000, 0, 101);
  addEvent(r0, pb::Event::CPU, "cudaLaunchKernel", t + 11000, t + 12000, -1, 100);
  addEvent(r0, pb::Event::CPU, "bad device", t + 13000, t + 14000, -5, 100);
  addEvent(r0, pb::Event::CPU, "backwards", t + 16000, t + 15000, 0, 102);
  addEvent(r0, pb::Event::GPUKernel, "kernel_here", t + 20000, t + 30000, 0, 7);
  addEvent(r0, pb::Event::GPUKernel, "kernel_on_peer", t + 21000, t + 31000, 1, 13);
  addEvent(r0, pb::Event::GPUKernel, "GpuMemcpyAsync:CPU->GPU", t + 40000, t + 41000, 0, 7)
      ->mutable_memcopy()
      ->set_bytes(4096);
  // type 7: no such EventType (written as an unknown field; the decoder reads the number)
  addEvent(r0, pb::Event::CPU, "odd type", t + 42000, t + 43000, 0, 100)
      ->mutable_unknown_fields()
      ->AddVarint(8, 7);
  addMem(r0, pb::MemEvent::CUDAPlace, 0, t + 1000, 0, 1 << 20);      // never freed
  addMem(r0, pb::MemEvent::CUDAPlace, 0, t + 2000, t + 3000, 4096);  // freed
  addMem(r0, pb::MemEvent::CPUPlace, 0, t + 5000, t + 4000, 64);  // end before start: never freed
  addMem(r0, pb::MemEvent::CUDAPinnedPlace, 0, t + 6000, t + 7000, 128);  // freed
  r0.set_start_ns(t - 2 * kMs);
  r0.set_end_ns(t + 10 * kMs);
  spit(d / "profile" / "profile.0", bytesOf(r0));
  spit(d / "profile" / "profile.1", bytesOf(plain(0)));
  spit(d / "profile" / "profile.2", bytesOf(plain(500 * kMs)));
  spit(d / "profile" / "profile.3", bytesOf(plain(500 * kMs)));
  spit(d / "profile" / "profile.4", bytesOf(plain(7 * kMs)));
  // Time files: rank 0's starts first of everything.
  spit(d / "time" / "time.txt.0.0", "start time: 1700000000.000001000\nend time: 1700000001\n");
  spit(d / "time" / "time.txt.1.0", "start time: 1700000000.002\nend time: 1700000001\n");
  spit(d / "time" / "time.txt.0.1", "start time: 1700000000.502\nend time: 1700000001.5\n");
  // DCGM: trainers 0 and 1, GPUs 0 and 1, N/A values; a noise line.
  std::string dcgm =
      "# Entity GPUTL GRACT SMACT FBTTL FBUSD TIMESTAMP\n"
      "ID\n"
      "GPU 0 57 0.5 N/A 100 25 1700000000.010\n"
      "GPU 1 N/A N/A 0.25 N/A 10 1700000000.010\n"
      "GPU 0 100 0.75 0.125 100 50 1700000000.060\n";
  spit(d / "dcgm" / "dcgm.0", dcgm);
  spit(d / "dcgm" / "dcgm.1", dcgm);
  spit(d / "net" / "net.0",
       "{\"name\":\"tx\",\"ts\":1700000000011.5,\"args\":{\"eth0\":1.50,\"ib0\":2e3}}\n"
       "{\"name\":\"rx\",\"ts\":1700000000012,\"args\":{\"eth0\":7}}\n");
}

TEST_F(ReportTest, OddJob) {
  writeOddJob(root_ / "data");
  Topology topo{2, 2, 1};
  ASSERT_EQ(run(options(root_ / "data", root_ / "out", topo)), kExitOk);
  auto files = filesIn(root_ / "out");
  std::vector<std::string> names;
  for (const auto& kv : traceFilesIn(root_ / "out")) names.push_back(kv.first);
  // Group 1 has only rank 4 (GPU 0): no traceFile_1_1.
  EXPECT_EQ(names, (std::vector<std::string>{"traceFile_0_0.json", "traceFile_0_1.json",
                                             "traceFile_1_0.json"}));

  const uint64_t origin = kT0 + 1000;
  ojson f00 = checkTrace(root_ / "out" / "traceFile_0_0.json");
  const ojson& od = f00["otherData"];
  EXPECT_EQ(od["time_origin_ns"].get<uint64_t>(), origin);
  EXPECT_EQ(od["group"], 0);
  EXPECT_EQ(od["gpu"], 0);
  EXPECT_EQ(od["ranks"], ojson::array({0, 2}));
  EXPECT_EQ(od["trainers"], ojson::array({0, 1}));
  const ojson& w = od["warnings"];
  EXPECT_EQ(w.value("marker_unmatched_end", 0), 1);
  EXPECT_EQ(w.value("marker_unmatched_begin", 0), 1);
  EXPECT_EQ(w.value("memory_never_freed", 0), 2);
  EXPECT_EQ(w.value("event_bad_device", 0), 1);
  EXPECT_EQ(w.value("event_unknown_type", 0), 1);
  EXPECT_EQ(w.value("event_end_before_start", 0), 1);
  EXPECT_GT(w.value("string_invalid_utf8", 0), 0);
  EXPECT_GT(w.value("string_control_char", 0), 0);

  // pid 1: a thread for rank 0 and for rank 2 (not displayed), with their spans.
  auto threads =
      eventsOf(f00, [](const ojson& e) { return e["name"] == "thread_name" && e["pid"] == 1; });
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0]["args"]["name"], "rank 0");
  EXPECT_EQ(threads[1]["args"]["name"], "rank 2");
  auto spans = eventsOf(f00, [](const ojson& e) { return e["ph"] == "X" && e["pid"] == 1; });
  ASSERT_EQ(spans.size(), 4u);
  // Rank 0's forward starts at T0 + 10 ms: 9999 µs after the origin, exactly.
  EXPECT_EQ(
      spans[0].dump(),
      R"({"ph":"X","cat":"pipeline","name":"forward","cname":"bad","pid":1,"tid":1,"ts":9999,"dur":1000,)"
      R"("args":{"rank":0,"step":0}})");
  EXPECT_EQ(spans[1]["name"], "backward");
  EXPECT_EQ(spans[1]["cname"], "good");
  EXPECT_EQ(spans[1]["args"]["step"], 0);
  // Rank 2: its clock runs 500 ms late, and that shows (no correction).
  EXPECT_EQ(spans[2]["tid"], 3);  // rank 2's thread: tid rank + 1 (never tid 0)
  EXPECT_EQ(spans[2]["ts"].get<double>(), 509999);

  // DCGM of trainer 0 only (D = 1), GPU 0 only; N/A series left out.
  auto gpuUtil = eventsOf(f00, [](const ojson& e) { return e["ph"] == "C" && e["pid"] == 2; });
  ASSERT_EQ(gpuUtil.size(), 2u);
  EXPECT_EQ(
      gpuUtil[0].dump(),
      R"({"ph":"C","name":"trainer 0 GPU 0","pid":2,"ts":9999,"args":{"GPUTL":0.57,"GRACT":0.5}})");
  auto sm = eventsOf(f00, [](const ojson& e) { return e["ph"] == "C" && e["pid"] == 3; });
  ASSERT_EQ(sm.size(), 1u);  // the first row's SMACT was N/A
  EXPECT_EQ(sm[0]["args"].dump(), R"({"SMACT":0.125})");
  auto mem = eventsOf(f00, [](const ojson& e) { return e["ph"] == "C" && e["pid"] == 4; });
  ASSERT_EQ(mem.size(), 2u);
  EXPECT_EQ(mem[0]["args"]["FB_USED_RATIO"].get<double>(), 0.25);
  // Net of trainer 0, numbers as written.
  std::string text = files["traceFile_0_0.json"];
  EXPECT_NE(
      text.find(
          R"({"ph":"C","name":"trainer 0 tx","pid":7,"ts":11499,"args":{"eth0":1.50,"ib0":2e3}})"),
      std::string::npos)
      << text.substr(text.find("\"pid\":7,"), 300);

  // Rows of rank 0 from pid 9 (named from 08_), in the spec's order.
  auto pn = processNames(f00);
  std::vector<std::string> rows;
  for (const auto& [pid, name] : pn)
    if (pid >= 9) rows.push_back(name);
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "08_trainerRank.000:cpu:block:0", "09_trainerRank.000:cpu:block:1",
                      "10_trainerRank.000:cuda_api", "11_trainerRank.000:gpu:0",
                      "12_trainerRank.000:gpu:1", "13_memory usage on trainerRank.000:gpu:0",
                      "14_memory usage on trainerRank.000:cpu:0",
                      "15_memory usage on trainerRank.000:cudapinnedplace:0"}));
  EXPECT_EQ(pn[2], "01_gpuUtility");
  EXPECT_EQ(pn[8], "07_net_rx");

  // Odd names survive as valid JSON text.
  std::set<std::string> opNames;
  for (const auto& e :
       eventsOf(f00, [](const ojson& e) { return e["ph"] == "X" && e["cat"] == "Op"; }))
    opNames.insert(e["name"].get<std::string>());
  EXPECT_TRUE(opNames.count("say \"hi\" \\ now"));
  EXPECT_TRUE(opNames.count(std::string("ctl\x01\ttab\n", 9)));
  EXPECT_TRUE(opNames.count("bad\xEF\xBF\xBD(utf8\xEF\xBF\xBD"));
  EXPECT_TRUE(opNames.count("kernel_on_peer"));
  EXPECT_FALSE(opNames.count("bad device"));
  EXPECT_FALSE(opNames.count("odd type"));
  EXPECT_TRUE(opNames.count("marker/compute/MarkerCUDA"));  // markers are ops too
  auto memcpy =
      eventsOf(f00, [](const ojson& e) { return e["name"] == "GpuMemcpyAsync:CPU->GPU"; });
  ASSERT_EQ(memcpy.size(), 1u);
  EXPECT_EQ(memcpy[0]["args"]["mem_bytes"], 4096);
  EXPECT_EQ(memcpy[0]["pid"], 12);
  auto backwards = eventsOf(f00, [](const ojson& e) { return e["name"] == "backwards"; });
  ASSERT_EQ(backwards.size(), 1u);
  EXPECT_EQ(backwards[0]["dur"], 0);
  // Memory: the never-freed MiB stays allocated.
  auto gpuMem = eventsOf(f00, [](const ojson& e) { return e["ph"] == "C" && e["pid"] == 14; });
  ASSERT_EQ(gpuMem.size(), 3u);
  EXPECT_EQ(gpuMem.back()["args"]["allocated_bytes"], 1 << 20);

  // The partial last group.
  ojson f10 = checkTrace(root_ / "out" / "traceFile_1_0.json");
  EXPECT_EQ(f10["otherData"]["ranks"], ojson::array({4}));
  EXPECT_EQ(f10["otherData"]["trainers_in_group"], 1);
  EXPECT_EQ(f10["otherData"]["partial_group"], true);
  EXPECT_EQ(processNames(f10)[9], "08_trainerRank.004:cpu:block:0");
  ojson f01 = checkTrace(root_ / "out" / "traceFile_0_1.json");
  EXPECT_EQ(f01["otherData"]["ranks"], ojson::array({1, 3}));
  // DCGM GPU 1 of trainer 0: GPUTL and GRACT were N/A, so no 01_gpuUtility (pid 2) at all.
  EXPECT_FALSE(processNames(f01).count(2));
  EXPECT_TRUE(processNames(f01).count(3));

  // Same inputs, same bytes.
  ASSERT_EQ(run(options(root_ / "data", root_ / "again", topo)), kExitOk);
  expectSameFiles(filesIn(root_ / "again"), files);
}

TEST_F(ReportTest, TimeOriginOptionLaterThanEventsNeverGivesNegativeTs) {
  writeOddJob(root_ / "data");
  auto o = options(root_ / "data", root_ / "out", Topology{2, 2, 1});
  o.timeOriginNs = kT0 + 12 * kMs;  // after rank 0's first forward span
  ASSERT_EQ(run(o), kExitOk);
  for (const auto& [name, text] : traceFilesIn(root_ / "out")) {
    ojson j = checkTrace(root_ / "out" / name);
    EXPECT_EQ(j["otherData"]["time_origin_ns"].get<uint64_t>(), kT0 + 12 * kMs);
    EXPECT_EQ(j["otherData"]["time_origin_source"], "option");
  }
  ojson f00 = ojson::parse(slurp(root_ / "out" / "traceFile_0_0.json"));
  EXPECT_GT(f00["otherData"]["warnings"].value("timestamp_before_origin", 0), 0);
  auto spans = eventsOf(f00, [](const ojson& e) { return e["ph"] == "X" && e["pid"] == 1; });
  ASSERT_FALSE(spans.empty());
  EXPECT_EQ(spans[0]["ts"], 0);
}

TEST_F(ReportTest, CutProfileIsPartialAndNamedInOtherData) {
  writeOddJob(root_ / "data");
  fs::path p1 = root_ / "data" / "profile" / "profile.1";
  std::string bytes = slurp(p1);
  spit(p1, bytes.substr(0, bytes.size() - 20));
  ASSERT_EQ(run(options(root_ / "data", root_ / "out", Topology{2, 2, 1})), kExitPartial);
  ojson f01 = checkTrace(root_ / "out" / "traceFile_0_1.json");
  const ojson& problems = f01["otherData"]["problems"];
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0]["kind"], "profile");
  EXPECT_EQ(problems[0]["id"], 1);
  EXPECT_EQ(problems[0]["file"], "profile.1");  // the name, never the path
  EXPECT_EQ(problems[0]["status"], "partial");
  EXPECT_EQ(problems[0]["message"].get<std::string>().find(root_.string()), std::string::npos);
  // The other files are not concerned.
  ojson f00 = checkTrace(root_ / "out" / "traceFile_0_0.json");
  EXPECT_TRUE(f00["otherData"]["problems"].empty());
}

TEST_F(ReportTest, UnreadableProfileStillGivesTheOthers) {
  writeOddJob(root_ / "data");
  spit(root_ / "data" / "profile" / "profile.3", "not a profile at all");
  ASSERT_EQ(run(options(root_ / "data", root_ / "out", Topology{2, 2, 1})), kExitPartial);
  ojson f01 = checkTrace(root_ / "out" / "traceFile_0_1.json");
  ASSERT_EQ(f01["otherData"]["problems"].size(), 1u);
  EXPECT_EQ(f01["otherData"]["problems"][0]["status"], "failed");
  EXPECT_EQ(f01["otherData"]["problems"][0]["file"], "profile.3");
  // The failed rank keeps its thread in 00_pipeline, without spans.
  auto threads =
      eventsOf(f01, [](const ojson& e) { return e["name"] == "thread_name" && e["pid"] == 1; });
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[1]["args"]["name"], "rank 3");
  EXPECT_TRUE(
      eventsOf(f01, [](const ojson& e) { return e["ph"] == "X" && e["tid"] == 3; }).empty());
}

TEST_F(ReportTest, ConflictingProfilesWriteNothing) {
  writeOddJob(root_ / "data");
  spit(root_ / "data" / "profile" / "other_name.2", bytesOf(plain(0)));
  EXPECT_EQ(run(options(root_ / "data", root_ / "out", Topology{2, 2, 1})), kExitFatal);
  EXPECT_TRUE(!fs::exists(root_ / "out") || filesIn(root_ / "out").empty());
}

TEST_F(ReportTest, MissingProfileFolderIsAUsageError) {
  fs::create_directories(root_ / "data" / "dcgm");
  EXPECT_EQ(run(options(root_ / "data", root_ / "out", Topology{})), kExitUsage);
}

// No input at all is a usage error: nothing to read is no job.
TEST_F(ReportTest, EmptyProfileFolderIsAUsageError) {
  fs::create_directories(root_ / "data" / "profile");
  testing::internal::CaptureStderr();
  EXPECT_EQ(run(options(root_ / "data", root_ / "out", Topology{})), kExitUsage);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("no trace or profile on any rank"), std::string::npos) << log;
  EXPECT_NE(log.find("the folders hold no file"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(root_ / "out"));
}

// A folder of files none of which is a trace or profile, in D or in
// D/profile: rc 2 naming the files (a few, and the count) and saying what was looked for.
TEST_F(ReportTest, AFolderWithoutATraceNamesItsFiles) {
  for (const std::string sub : {"", "profile"}) {
    const fs::path data = root_ / ("data" + sub);
    fs::create_directories(data / sub);
    spit(data / sub / "gen_info.json", R"({"model": "x"})");
    spit(data / sub / "noise.json", "\x01\x02 random");
    for (int i = 0; i < 6; ++i) spit(data / sub / ("log" + std::to_string(i) + ".txt"), "x");
    spit(data / sub / ".hidden", "x");
    testing::internal::CaptureStderr();
    EXPECT_EQ(run(options(data, root_ / "out", Topology{})), kExitUsage) << sub;
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_NE(log.find("error: no trace or profile on any rank in "), std::string::npos) << log;
    EXPECT_NE(log.find("Chrome-trace JSON"), std::string::npos) << log;
    EXPECT_NE(log.find("profile/<name>.<rank>"), std::string::npos) << log;
    EXPECT_NE(log.find("hold 8 files that are neither ("), std::string::npos) << log;
    EXPECT_NE(log.find((data / sub / "gen_info.json").string()), std::string::npos) << log;
    EXPECT_NE(log.find(", +3 more)"), std::string::npos) << log;
    EXPECT_NE(log.find("and 1 hidden files"), std::string::npos) << log;
    EXPECT_EQ(log.find("no integer suffix"), std::string::npos) << log;  // no legacy skip lines
    EXPECT_EQ(log.find("note:"), std::string::npos) << log;
    EXPECT_FALSE(fs::exists(root_ / "out")) << sub;
  }
}

// A folder whose only trace cannot be read is no job either: rc 2
// naming it, nothing written.
TEST_F(ReportTest, AFolderWithoutAReadableTraceIsAUsageError) {
  spit(root_ / "data" / "rank0.trunc.json", R"({"traceEvents": [ {"ph":"X", )");
  spit(root_ / "data" / "rank1.pt.trace.json", "{\"traceEvents\": [ ");
  testing::internal::CaptureStderr();
  EXPECT_EQ(run(options(root_ / "data", root_ / "out", Topology{})), kExitUsage);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("error: no readable trace: none of the 2 trace files could be read: " +
                     (root_ / "data" / "rank0.trunc.json").string() + " ("),
            std::string::npos)
      << log;
  EXPECT_NE(log.find((root_ / "data" / "rank1.pt.trace.json").string()), std::string::npos) << log;
  EXPECT_TRUE(!fs::exists(root_ / "out") || filesIn(root_ / "out").empty());
  // One readable trace beside it: the run goes on, the bad one is a problem (rc 3).
  spit(root_ / "data" / "rank2.json",
       R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":5,"dur":1}]})");
  testing::internal::CaptureStderr();
  EXPECT_EQ(run(options(root_ / "data", root_ / "out", Topology{})), kExitPartial);
  testing::internal::GetCapturedStderr();
}

TEST_F(ReportTest, OutIsAFileIsFatal) {
  writeOddJob(root_ / "data");
  spit(root_ / "out", "x");
  EXPECT_EQ(run(options(root_ / "data", root_ / "out", Topology{2, 2, 1})), kExitFatal);
}

TEST_F(ReportTest, OnlyProfilesIsEnough) {
  spit(root_ / "p" / "rank.0", bytesOf(plain(0)));
  ReportOptions o;
  o.dirs.profile = (root_ / "p").string();
  o.outDir = (root_ / "out").string();
  o.topology = Topology{1, 1, 1};
  o.progress = false;
  ASSERT_EQ(run(o), kExitOk);
  ojson j = checkTrace(root_ / "out" / "traceFile_0_0.json");
  // Origin: the profile's own earliest timestamp (its start_ns).
  EXPECT_EQ(j["otherData"]["time_origin_ns"].get<uint64_t>(), kT0 + 10 * kMs);
  auto pn = processNames(j);
  EXPECT_EQ(pn.size(), 3u);  // 00_pipeline, cpu:block:0, gpu:0 (no memory, no counters)
  EXPECT_EQ(pn[1], "00_pipeline");
  EXPECT_EQ(pn[9], "08_trainerRank.000:cpu:block:0");
  EXPECT_EQ(pn[10], "09_trainerRank.000:gpu:0");
}

// Regression (fixed): src/cmd/synth/Synth.cpp Rng::range(lo, hi) computes next() % (hi - lo + 1),
// which is a division by zero (SIGFPE) for the full range 0..UINT64_MAX: any
// --skew-ns of 18446744073709551615 (or "-1", see the Cli bug) crashes
// `xstack synth` with 2+ trainers. Fix: in range(), return next() when
// hi - lo + 1 == 0; and cap --skew-ns in Cli (e.g. at 10^12 ns).
TEST_F(ReportTest, SynthFullRangeSkewDoesNotCrash) {
  SynthOptions so;
  so.outDir = (root_ / "data").string();
  so.trainers = 2;
  so.gpusPerTrainer = 1;
  so.steps = 1;
  so.opsPerStep = 2;
  so.skewNs = UINT64_MAX;
  EXPECT_EQ(runSynth(so), kExitOk);
}

TEST_F(ReportTest, MissingRanksAreNamedInTheirFile) {
  // P = 2: ranks 0 and 3 only; ranks 1 and 2 are missing.
  spit(root_ / "data" / "profile" / "p.0", bytesOf(plain(0)));
  spit(root_ / "data" / "profile" / "p.3", bytesOf(plain(0)));
  ASSERT_EQ(run(options(root_ / "data", root_ / "out", Topology{2, 2, 2})), kExitOk);
  ojson f0 = checkTrace(root_ / "out" / "traceFile_0_0.json");
  ojson f1 = checkTrace(root_ / "out" / "traceFile_0_1.json");
  EXPECT_EQ(f0["otherData"]["ranks"], ojson::array({0}));
  EXPECT_EQ(f0["otherData"]["missing_ranks"], ojson::array({2}));
  EXPECT_EQ(f1["otherData"]["ranks"], ojson::array({3}));
  EXPECT_EQ(f1["otherData"]["missing_ranks"], ojson::array({1}));
  EXPECT_EQ(f1["otherData"]["trainers"], ojson::array({1}));
  // Rank 3 is the only displayed rank of its file: its rows start at pid 9.
  EXPECT_EQ(processNames(f1)[9], "08_trainerRank.003:cpu:block:0");
}

std::string gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out;
  char buf[1 << 14];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  } while (rc == Z_OK);
  EXPECT_EQ(rc, Z_STREAM_END);
  inflateEnd(&z);
  return out;
}

TEST_F(ReportTest, CompressedTracesHoldTheSameText) {
  writeOddJob(root_ / "data");
  ASSERT_EQ(run(options(root_ / "data", root_ / "plain", Topology{2, 2, 1})), kExitOk);
  auto o = options(root_ / "data", root_ / "gz", Topology{2, 2, 1});
  o.compress = true;
  o.pieceBytes = 100;
  ASSERT_EQ(run(o), kExitOk);
  auto plainFiles = traceFilesIn(root_ / "plain");  // the analysis files are never gzipped
  auto gzFiles = traceFilesIn(root_ / "gz");
  ASSERT_EQ(gzFiles.size(), plainFiles.size());
  for (const auto& [name, text] : plainFiles) {
    ASSERT_TRUE(gzFiles.count(name + ".gz")) << name;
    EXPECT_EQ(gunzip(gzFiles[name + ".gz"]), text) << name;
  }
}

// ---------------------------------------------------------------- command line

std::vector<std::string> report(std::initializer_list<std::string> extra) {
  std::vector<std::string> a = {"report", "--data-dir", "d", "--out", "o"};
  a.insert(a.end(), extra);
  return a;
}

TEST(Cli, ReportOptions) {
  Command c = parseCommandLine(
      report({"--gpus-per-trainer", "4", "--group-size", "3", "--display-size", "3",
              "--time-origin-ns", "1700000000000000000", "--no-progress", "--plan"}));
  ASSERT_TRUE(std::holds_alternative<ReportOptions>(c));
  const auto& o = std::get<ReportOptions>(c);
  EXPECT_EQ(o.dataDir, "d");
  EXPECT_EQ(o.outDir, "o");
  EXPECT_EQ(o.topology.gpusPerTrainer, 4);
  EXPECT_EQ(o.topology.groupSize, 3);
  EXPECT_EQ(o.topology.displaySize, 3);
  ASSERT_TRUE(o.timeOriginNs.has_value());
  EXPECT_EQ(*o.timeOriginNs, 1700000000000000000u);
  EXPECT_FALSE(o.progress);
  EXPECT_TRUE(o.showPlan);
}

TEST(Cli, ReportDefaults) {
  Command c = parseCommandLine(report({}));
  ASSERT_TRUE(std::holds_alternative<ReportOptions>(c));
  const auto& o = std::get<ReportOptions>(c);
  EXPECT_EQ(o.topology.gpusPerTrainer, 8);
  EXPECT_EQ(o.topology.groupSize, 8);
  EXPECT_EQ(o.topology.displaySize, 2);
  EXPECT_FALSE(o.timeOriginNs.has_value());
  EXPECT_TRUE(o.progress);
}

TEST(Cli, DisplaySizeZeroAndEqualToGroupSizeAreFine) {
  EXPECT_TRUE(
      std::holds_alternative<ReportOptions>(parseCommandLine(report({"--display-size", "0"}))));
  EXPECT_TRUE(std::holds_alternative<ReportOptions>(
      parseCommandLine(report({"--group-size", "3", "--display-size", "3"}))));
}

void expectUsageError(const std::vector<std::string>& args) {
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  Command c = parseCommandLine(args);
  ASSERT_TRUE(std::holds_alternative<Failure>(c)) << joined;
  EXPECT_EQ(std::get<Failure>(c).kind, FailureKind::Usage) << joined;
  EXPECT_FALSE(std::get<Failure>(c).message.empty());
}

TEST(Cli, UsageErrors) {
  expectUsageError(report({"--group-size", "0"}));
  expectUsageError(report({"--gpus-per-trainer", "0"}));
  expectUsageError(report({"--display-size", "9"}));  // > default group size 8
  expectUsageError(report({"--group-size", "2", "--display-size", "3"}));
  expectUsageError(report({"--group-size=-1"}));
  expectUsageError(report({"--gpus-per-trainer=-8"}));
  expectUsageError(report({"--display-size=-1"}));
  expectUsageError(report({"--group-size", "-1"}));
  expectUsageError(report({"--time-origin-ns=-5"}));
  expectUsageError(report({"--time-origin-ns", "12abc"}));
  expectUsageError(report({"--time-origin-ns", "99999999999999999999999"}));
  expectUsageError(report({"--group-size", "two"}));
  expectUsageError(report({"--piece-kb", "0"}));
  expectUsageError(report({"--mpi-chunk-bytes", "0"}));
  expectUsageError(report({"--no-such-option"}));
  expectUsageError({"report", "--data-dir", "d"});  // missing --out
  expectUsageError({"report", "--out", "o"});       // no input folder
  expectUsageError({"frobnicate"});
  expectUsageError({});
  expectUsageError({"synth"});  // missing --out
  expectUsageError({"synth", "--out", "x", "--trainers", "0"});
  expectUsageError({"synth", "--out", "x", "--steps=-1"});
  expectUsageError({"inspect"});
}

// Regression (fixed): src/cmd/cli/Cli.cpp parseReport/parseSynth: boost::program_options reads
// "-1" into a uint64_t as 18446744073709551615 (lexical_cast wraps), so
// --cache-mb=-1, --piece-kb=-1, --mpi-chunk-bytes, --seed=-1 and --skew-ns=-1
// are accepted; --piece-kb=-1 gives pieceBytes = UINT64_MAX << 10 and
// --skew-ns=-1 makes `xstack synth` divide by zero (see SynthFullRangeSkew).
// Fix: parse these options as std::string (or int64_t) and reject a leading
// '-' / values out of range, as --time-origin-ns already does.
TEST(Cli, NegativeValuesForUnsignedOptionsAreRejected) {
  // Unsigned options must not wrap a negative number around to a huge one.
  expectUsageError(report({"--piece-kb=-1"}));
  expectUsageError({"synth", "--out", "x", "--seed=-1"});
  expectUsageError({"synth", "--out", "x", "--skew-ns=-1"});
}

// Regression (fixed): src/cmd/cli/Cli.cpp parse(): po::notify() runs before the "help" check,
// so `xstack report --help` and `xstack synth --help` fail with "the option
// '--out' is required but missing" (exit 2) instead of printing the help.
// Fix: in parse(), po::store() only; in parseReport/parseSynth, return the
// HelpRequest when vm.count("help") and only then call po::notify(vm).
TEST(Cli, SubcommandHelpNeedsNoOtherOption) {
  EXPECT_TRUE(std::holds_alternative<HelpRequest>(parseCommandLine({"report", "--help"})));
  EXPECT_TRUE(std::holds_alternative<HelpRequest>(parseCommandLine({"synth", "--help"})));
  EXPECT_TRUE(std::holds_alternative<HelpRequest>(parseCommandLine({"inspect", "--help"})));
}

TEST(Cli, MemoryBudgetAndSpillFolder) {
  Command c = parseCommandLine(report({"--memory-mb", "3", "--spill-dir", "/scratch/x"}));
  ASSERT_TRUE(std::holds_alternative<ReportOptions>(c));
  EXPECT_EQ(std::get<ReportOptions>(c).spill.memoryBytes, uint64_t{3} << 20);
  EXPECT_EQ(std::get<ReportOptions>(c).spill.dir, "/scratch/x");
  Command d = parseCommandLine(report({}));
  ASSERT_TRUE(std::holds_alternative<ReportOptions>(d));
  EXPECT_EQ(std::get<ReportOptions>(d).spill.memoryBytes, uint64_t{64} << 20);
  EXPECT_EQ(std::get<ReportOptions>(d).spill.dir, defaultSpillDir());
}

TEST(Cli, ValuesOutOfRange) {
  expectUsageError(report({"--piece-kb", "1048577"}));
  expectUsageError(report({"--mpi-chunk-bytes", "1073741825"}));
  expectUsageError({"synth", "--out", "x", "--skew-ns", "3600000000001"});
  // Every accepted value finishes in reasonable time; the message
  // names the option and the allowed range.
  for (const char* v : {"1", "7", "4095"}) {
    auto c = parseCommandLine(report({"--mpi-chunk-bytes", v}));
    ASSERT_TRUE(std::holds_alternative<Failure>(c)) << v;
    EXPECT_NE(std::get<Failure>(c).message.find("--mpi-chunk-bytes must be in 4096..1073741824"),
              std::string::npos);
  }
  expectUsageError(report({"--piece-kb", "15"}));
  expectUsageError(report({"--memory-mb", "0"}));
  expectUsageError(report({"--memory-mb=-1"}));
  expectUsageError(report({"--memory-mb", "1048577"}));
  EXPECT_TRUE(std::holds_alternative<ReportOptions>(
      parseCommandLine(report({"--mpi-chunk-bytes", "4096", "--piece-kb", "16"}))));
  expectUsageError({"synth", "--out", "x", "--trainers", "2000000"});
  expectUsageError({"synth", "--out", "x", "--trainers", "1024", "--gpus-per-trainer", "2048"});
  expectUsageError({"synth", "--out", "x", "--steps", "100000", "--ops-per-step", "100000"});
  EXPECT_TRUE(std::holds_alternative<SynthOptions>(
      parseCommandLine({"synth", "--out", "x", "--skew-ns", "0"})));
}

TEST(Cli, HelpAndOtherCommands) {
  EXPECT_TRUE(std::holds_alternative<HelpRequest>(parseCommandLine({"--help"})));
  EXPECT_TRUE(std::holds_alternative<HelpRequest>(
      parseCommandLine({"report", "--data-dir", "d", "--out", "o", "--help"})));
  EXPECT_TRUE(std::holds_alternative<HelpRequest>(parseCommandLine({"--version"})));
  Command s = parseCommandLine({"synth", "--out", "x", "--trainers", "3", "--seed", "9"});
  ASSERT_TRUE(std::holds_alternative<SynthOptions>(s));
  EXPECT_EQ(std::get<SynthOptions>(s).trainers, 3);
  EXPECT_EQ(std::get<SynthOptions>(s).seed, 9u);
  Command i = parseCommandLine({"inspect", "file.0", "--json"});
  ASSERT_TRUE(std::holds_alternative<InspectOptions>(i));
  EXPECT_EQ(std::get<InspectOptions>(i).file, "file.0");
  EXPECT_TRUE(std::get<InspectOptions>(i).json);
}

TEST(Cli, ProfileDirAloneIsEnough) {
  Command c = parseCommandLine({"report", "--profile-dir", "p", "--out", "o", "--dcgm-dir", "g"});
  ASSERT_TRUE(std::holds_alternative<ReportOptions>(c));
  EXPECT_EQ(std::get<ReportOptions>(c).dirs.profile, "p");
  EXPECT_EQ(std::get<ReportOptions>(c).dirs.dcgm, "g");
}

}  // namespace
}  // namespace xstack
