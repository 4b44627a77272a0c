// The Chrome-trace source: what each kind of event means (ChromeEventMapper:
// rows by category, steps, memory blocks from [memory] instants, NCCL args),
// how files are found and ranked (listing by content), and decoding through
// the Source interface (time base, partial files).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <fstream>
#include <optional>
#include <string>

#include "../../TempDirTest.h"
#include "ChromeTestUtil.h"
#include "xstack/source/SourceRegistry.h"
#include "xstack/source/chrome/ChromeEvents.h"
#include "xstack/source/chrome/ChromeSource.h"

namespace xstack::chrome {
namespace {

// The events of a document (traceEvents = `events`, plus `top` keys).
EventList mapped(const std::string& events, Warnings& w, int64_t baseNs = 0) {
  EventList out;
  ChromeEventMapper mapper(out, w, baseNs);
  std::string doc = "{\"traceEvents\":[" + events + "]}";
  ReadResult r = readTraceBytes(doc, "t.json", [&](const TraceEvent& e) { mapper.onEvent(e); });
  EXPECT_TRUE(r.ok()) << (r.error ? r.error->text() : "");
  mapper.finish();
  return out;
}

TEST(ChromeEventMapper, RowsComeFromTheCategoryNotThePid) {
  Warnings w;
  EventList l = mapped(
      R"j({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":4000,"tid":4001,"ts":10,"dur":5},)j"
      R"j({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":4000,"tid":4001,)j"
      R"j("ts":11.5,"dur":1,"args":{"correlation":77}},)j"
      R"j({"ph":"X","cat":"kernel","name":"gemm","pid":3,"tid":7,"ts":12.001,"dur":2.5,)j"
      R"j("args":{"device":1,"stream":9,"correlation":77}},)j"
      R"j({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":2,"tid":5,"ts":20,"dur":1,)j"
      R"j("args":{"bytes":4096,"correlation":78}},)j"
      R"j({"ph":"X","name":"no cat","pid":1,"tid":"123(C++)","ts":30})j",
      w);
  ASSERT_EQ(l.slices.size(), 5u);
  EXPECT_EQ(l.slices[0].row, (RowKey{RowKind::CpuBlock, 0}));
  EXPECT_EQ(l.slices[0].tid, 4001);
  EXPECT_EQ(l.slices[0].startNs, 10000u);
  EXPECT_EQ(l.slices[0].endNs, 15000u);
  EXPECT_EQ(l.slices[1].row, (RowKey{RowKind::CudaApi, -1}));
  EXPECT_EQ(l.slices[1].correlation, 77);
  EXPECT_EQ(l.slices[1].startNs, 11500u);
  // device from args.device (not pid 3), stream from args.stream (not tid 7)
  EXPECT_EQ(l.slices[2].row, (RowKey{RowKind::Gpu, 1}));
  EXPECT_EQ(l.slices[2].tid, 9);
  EXPECT_EQ(l.slices[2].startNs, 12001u);
  EXPECT_EQ(l.slices[2].endNs, 14501u);
  EXPECT_EQ(l.slices[2].correlation, 77);
  // no args.device/stream: pid and tid
  EXPECT_EQ(l.slices[3].row, (RowKey{RowKind::Gpu, 2}));
  EXPECT_EQ(l.slices[3].tid, 5);
  EXPECT_EQ(l.slices[3].bytes, 4096u);
  // no cat, no dur: host work of length 0; "123(C++)" is thread 123
  EXPECT_EQ(l.slices[4].row, (RowKey{RowKind::CpuBlock, 0}));
  EXPECT_EQ(l.slices[4].tid, 123);
  EXPECT_EQ(l.slices[4].endNs, l.slices[4].startNs);
  EXPECT_EQ(l.slices[4].correlation, -1);
  EXPECT_EQ(w.total(), 0u);
}

// docs/FORMAT.md section 8's table, row by row: every category it lists goes to its
// row; the event kinds that are read and not drawn are not counted, the others are.
TEST(ChromeEventMapper, EveryCategoryOfTheTableAndEveryEventKind) {
  const std::pair<const char*, RowKind> kTable[] = {{"kernel", RowKind::Gpu},
                                                    {"gpu_memcpy", RowKind::Gpu},
                                                    {"gpu_memset", RowKind::Gpu},
                                                    {"cuda_sync", RowKind::Gpu},
                                                    {"mtia_ccp_events", RowKind::Gpu},
                                                    {"Kernel", RowKind::Gpu},
                                                    {"Memcpy", RowKind::Gpu},
                                                    {"Memset", RowKind::Gpu},
                                                    {"cuda_runtime", RowKind::CudaApi},
                                                    {"cuda_driver", RowKind::CudaApi},
                                                    {"Runtime", RowKind::CudaApi},
                                                    {"CudaRuntime", RowKind::CudaApi},
                                                    {"mtia_runtime", RowKind::CudaApi},
                                                    {"xpu_runtime", RowKind::CudaApi},
                                                    {"xpu_driver", RowKind::CudaApi},
                                                    {"privateuse1_runtime", RowKind::CudaApi},
                                                    {"privateuse1_driver", RowKind::CudaApi},
                                                    {"cpu_op", RowKind::CpuBlock},
                                                    {"user_annotation", RowKind::CpuBlock},
                                                    {"python_function", RowKind::CpuBlock},
                                                    {"Operator", RowKind::CpuBlock},
                                                    {"Dataloader", RowKind::CpuBlock},
                                                    {"some_new_category", RowKind::CpuBlock}};
  std::string events;
  for (const auto& [cat, kind] : kTable)
    events += std::string(R"j({"ph":"X","cat":")j") + cat +
              R"j(","name":"e","pid":3,"tid":4,"ts":1,"dur":1,"args":{"device":3,"stream":4}},)j";
  events +=
      R"j({"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":"Spans","tid":"","ts":0},)j"
      R"j({"ph":"X","cat":"gpu_user_annotation","name":"a","pid":3,"tid":4,"ts":1,"dur":1},)j"
      R"j({"ph":"M","name":"process_name","pid":3,"args":{"name":"x"}},)j"
      R"j({"ph":"s","id":1,"pid":3,"tid":4,"ts":1,"cat":"ac2g","name":"ac2g"},)j"
      R"j({"ph":"f","id":1,"pid":3,"tid":4,"ts":1,"cat":"ac2g","name":"ac2g","bp":"e"},)j"
      R"j({"ph":"t","id":1,"pid":3,"tid":4,"ts":1,"cat":"ac2g","name":"ac2g"},)j"
      R"j({"ph":"i","name":"Iteration Start: PyTorch Profiler","pid":3,"tid":4,"ts":1,"s":"g"},)j"
      R"j({"ph":"i","name":"Record Window End","pid":3,"tid":4,"ts":1,"s":"g"},)j"
      R"j({"ph":"B","name":"b","pid":3,"tid":4,"ts":1},)j"
      R"j({"ph":"E","name":"b","pid":3,"tid":4,"ts":2},)j"
      R"j({"ph":"C","name":"c","pid":3,"tid":4,"ts":2,"args":{"v":1}},)j"
      R"j({"ph":"X","cat":"cpu_op","name":"hex","pid":3,"tid":"0x1f","ts":1})j";
  Warnings w;
  EventList l = mapped(events, w);
  ASSERT_EQ(l.slices.size(), std::size(kTable) + 1);
  for (size_t i = 0; i < std::size(kTable); ++i) {
    EXPECT_EQ(l.slices[i].row.kind, kTable[i].second) << kTable[i].first;
    if (kTable[i].second == RowKind::Gpu) {
      EXPECT_EQ(l.slices[i].row.device, 3) << kTable[i].first;
      EXPECT_EQ(l.slices[i].tid, 4) << kTable[i].first;
    }
  }
  EXPECT_EQ(l.slices.back().tid, 31);              // "0x1f"
  EXPECT_EQ(w.count(Warn::JsonIgnoredEvent), 4u);  // gpu_user_annotation, B, E, C
  EXPECT_EQ(w.total(), 4u);
}

TEST(ChromeEventMapper, PaddleCategoriesAndNames) {
  Warnings w;
  EventList l = mapped(
      R"j({"name":"ProfileStep#3[20.5 ms]","ph":"X","cat":"ProfileStep","pid":9,)j"
      R"j("tid":"9(Python)","ts":100,"dur":20500.000},)j"
      R"j({"name":"matmul[1.2 ms]","ph":"X","cat":"Operator","pid":9,"tid":"10(C++)","ts":101,)j"
      R"j("dur":1200.125},)j"
      R"j({"name":"cudaLaunchKernel[3 us]","ph":"X","cat":"CudaRuntime","pid":9,"tid":"10(C++)",)j"
      R"j("ts":102,"dur":3.000,"args":{"correlation id":5}},)j"
      R"j({"name":"gemm_kernel[4 us]","ph":"X","cat":"Kernel","pid":0,"tid":7,"ts":103,)j"
      R"j("dur":4.000,"args":{"device":0,"stream":7,"correlation id":5}},)j"
      R"j({"name":"launch","ph":"s","cat":"async","pid":9,"tid":"10(C++)","ts":102,"id":5},)j"
      R"j({})j",
      w);
  ASSERT_EQ(l.slices.size(), 4u);
  EXPECT_EQ(l.slices[0].name, "ProfileStep#3");
  EXPECT_EQ(l.slices[1].name, "matmul");
  EXPECT_EQ(l.slices[1].tid, 10);
  EXPECT_EQ(l.slices[1].endNs - l.slices[1].startNs, 1200125u);
  EXPECT_EQ(l.slices[2].row.kind, RowKind::CudaApi);
  EXPECT_EQ(l.slices[2].correlation, 5);
  EXPECT_EQ(l.slices[3].row, (RowKey{RowKind::Gpu, 0}));
  EXPECT_EQ(l.slices[3].correlation, 5);
  ASSERT_EQ(l.marks.size(), 2u);  // ProfileStep -> one step window
  EXPECT_EQ(l.marks[0].ts, 100000u);
  EXPECT_TRUE(l.marks[0].begin);
  EXPECT_EQ(l.marks[1].ts, 100000u + 20500000u);
  EXPECT_FALSE(l.marks[1].begin);
}

TEST(ChromeEventMapper, StepsOnlyFromCpuAnnotations) {
  Warnings w;
  EventList l = mapped(
      R"j({"ph":"X","cat":"user_annotation","name":"ProfilerStep#7","pid":1,"tid":1,"ts":0,"dur":10},)j"
      R"j({"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#7","pid":0,"tid":7,"ts":1,"dur":9},)j"
      R"j({"ph":"X","cat":"cpu_op","name":"ProfilerStep#8","pid":1,"tid":1,"ts":20,"dur":10})j",
      w);
  EXPECT_EQ(l.marks.size(), 2u);   // the CPU annotation only
  EXPECT_EQ(l.slices.size(), 2u);  // the GPU annotation is not drawn
  EXPECT_EQ(w.count(Warn::JsonIgnoredEvent), 1u);
}

TEST(ChromeEventMapper, TimeBaseAndBadTimes) {
  Warnings w;
  EventList l =
      mapped(R"j({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1.5,"dur":0.001},)j"
             R"j({"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":"soon","dur":1},)j"
             R"j({"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":1,"ts":1e400,"dur":1},)j"
             R"j({"ph":"X","cat":"cpu_op","name":"d","pid":1,"tid":1,"ts":-5000,"dur":1},)j"
             R"j({"ph":"B","name":"e","pid":1,"tid":1,"ts":1})j",
             w, 1'000'000'000);
  ASSERT_EQ(l.slices.size(), 2u);
  EXPECT_EQ(l.slices[0].startNs, 1'000'001'500u);
  EXPECT_EQ(l.slices[0].endNs, 1'000'001'501u);
  EXPECT_EQ(l.slices[1].startNs, 1'000'000'000u - 5'000'000u);  // relative ts may be negative
  EXPECT_EQ(w.count(Warn::JsonBadTime), 2u);
  EXPECT_EQ(w.count(Warn::JsonIgnoredEvent), 1u);
}

// Issue 31: an end (base + ts + dur) past 2^63 - 1 ns is no time: dropped and counted like a
// bad start; an end of exactly 2^63 - 1 is kept. A free of INT64_MIN bytes is no UB.
TEST(ChromeEventMapper, AnEndPastTwoToThe63IsDropped) {
  Warnings w;
  const int64_t base = INT64_MAX - 775'807;
  EventList l = mapped(
      R"j({"ph":"X","cat":"kernel","name":"fits","pid":0,"tid":7,"ts":0.001,"dur":775.806,)j"
      R"j("args":{"device":0}},)j"
      R"j({"ph":"X","cat":"kernel","name":"past","pid":0,"tid":7,"ts":0.001,"dur":775.807,)j"
      R"j("args":{"device":0}},)j"
      R"j({"ph":"X","cat":"cpu_op","name":"far","pid":1,"tid":1,"ts":1,"dur":9e15},)j"
      R"j({"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":2,)j"
      R"j("args":{"Addr":1,"Bytes":-9223372036854775808,"Device Type":1,"Device Id":0}})j",
      w, base);
  ASSERT_EQ(l.slices.size(), 1u);
  EXPECT_EQ(l.slices[0].name, "fits");
  EXPECT_EQ(l.slices[0].endNs, static_cast<uint64_t>(INT64_MAX));
  EXPECT_EQ(w.count(Warn::JsonBadTime), 2u);
  ASSERT_EQ(l.memory.size(), 1u);  // a free of a block from before the trace: 2^63 bytes
  EXPECT_EQ(l.memory[0].bytes, uint64_t{1} << 63);
}

// Kineto writes a time before its base as relative ts 0: in a file with a base the event's
// real time is unknown, so it is dropped and counted, never moving the time origin. Without
// a base, ts 0 is an absolute time and stays.
TEST(ChromeEventMapper, KinetosClampedZeroIsDropped) {
  const std::string events =
      R"j({"ph":"X","cat":"cpu_op","name":"clamped","pid":1,"tid":1,"ts":0.000,"dur":5},)j"
      R"j({"ph":"X","cat":"kernel","name":"k0","pid":0,"tid":7,"ts":0,"dur":5,"args":{"device":0}},)j"
      R"j({"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":0.0,)j"
      R"j("args":{"Addr":1,"Bytes":64,"Total Allocated":64,"Device Type":0}},)j"
      R"j({"ph":"X","cat":"cpu_op","name":"real","pid":1,"tid":1,"ts":2000.5,"dur":1})j";
  Warnings w;
  EventList l;
  ChromeEventMapper mapper(l, w, 1'000'000'000, "t.json: ", true);
  std::string doc = "{\"traceEvents\":[" + events + "]}";
  ASSERT_TRUE(readTraceBytes(doc, "t.json", [&](const TraceEvent& e) { mapper.onEvent(e); }).ok());
  mapper.finish();
  ASSERT_EQ(l.slices.size(), 1u);
  EXPECT_EQ(l.slices[0].name, "real");
  EXPECT_EQ(l.slices[0].startNs, 1'002'000'500u);
  EXPECT_TRUE(l.memory.empty());
  EXPECT_EQ(w.count(Warn::JsonClampedTime), 3u);
  EXPECT_EQ(mapper.used(), 1u);
  EXPECT_EQ(mapper.droppedForTime(), 3u);
  // No base: ts 0 is absolute and kept.
  Warnings w0;
  EventList absolute = mapped(events, w0);
  EXPECT_EQ(absolute.slices.size(), 3u);
  EXPECT_EQ(w0.count(Warn::JsonClampedTime), 0u);
}

// A negative dur ends the event at its start: drawn as 0 and counted, and its
// end never comes before its start (it would pull the time origin back).
TEST(ChromeEventMapper, ANegativeDurEndsTheEventAtItsStart) {
  Warnings w;
  EventList l =
      mapped(R"j({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":100,"dur":-40},)j"
             R"j({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,)j"
             R"j("ts":200,"dur":-1000})j",
             w);
  ASSERT_EQ(l.slices.size(), 2u);
  for (const SliceEvent& s : l.slices) EXPECT_EQ(s.endNs, s.startNs) << s.name;
  EXPECT_EQ(l.slices[0].startNs, 100'000u);
  ASSERT_EQ(l.marks.size(), 2u);
  EXPECT_EQ(l.marks[1].ts, 200'000u);
  EXPECT_EQ(w.count(Warn::EventEndBeforeStart), 2u);
}

TEST(ChromeEventMapper, GpuEventWithoutDeviceIsUnplaced) {
  Warnings w;
  EventList l = mapped(
      R"j({"ph":"X","cat":"kernel","name":"k","pid":"GPU","tid":1,"ts":1,"dur":1},)j"
      R"j({"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":"Spans","tid":"","ts":0,"dur":9})j",
      w);
  EXPECT_TRUE(l.slices.empty());
  EXPECT_EQ(l.unplaced.size(), 1u);
  EXPECT_EQ(w.count(Warn::JsonBadDevice), 1u);
  EXPECT_EQ(w.total(), 1u);  // the profiler's own span is skipped silently
}

TEST(ChromeEventMapper, NcclArgsAreKeptAsDetail) {
  Warnings w;
  EventList l = mapped(
      R"j({"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce","pid":0,"tid":7,"ts":1,"dur":1,)j"
      R"j("args":{"device":0,"stream":7,"Collective name":"allreduce","In msg nelems":1024,)j"
      R"j("Out msg nelems":1024,"Group size":2,"dtype":"Float","Process Group Ranks":"[0, 1]"}})j",
      w);
  ASSERT_EQ(l.slices.size(), 1u);
  EXPECT_EQ(l.slices[0].detail,
            "collective allreduce; in_nelems 1024; out_nelems 1024; group_size 2; dtype Float; "
            "ranks [0, 1]");
}

// Kineto's [memory] instants: Bytes (+alloc, -free), Total Allocated after it.
std::string kinetoMem(int ts, int64_t addr, int64_t bytes, int64_t total, int type = 1,
                      int device = 0) {
  return R"j({"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":2,"ts":)j" +
         std::to_string(ts) + R"j(,"args":{"Addr":)j" + std::to_string(addr) + R"j(,"Bytes":)j" +
         std::to_string(bytes) + R"j(,"Total Allocated":)j" + std::to_string(total) +
         R"j(,"Device Type":)j" + std::to_string(type) + R"j(,"Device Id":)j" +
         std::to_string(device) + "}}";
}

// The running sum of the blocks at ns `t` (start <= t < end; end 0 = held).
int64_t heldAt(const EventList& l, MemPlace place, uint64_t t) {
  int64_t sum = 0;
  for (const MemoryEvent& m : l.memory)
    if (m.place == place && m.startNs <= t && (m.endNs == 0 || t < m.endNs))
      sum += static_cast<int64_t>(m.bytes);
  return sum;
}

TEST(ChromeEventMapper, MemoryBlocksFollowTheRunningTotals) {
  Warnings w;
  // 1000 bytes held before the trace (the first event: +100 -> total 1100),
  // of which 300 are freed at ts 5 (an address never allocated in the trace).
  EventList l = mapped(kinetoMem(1, 0xa, 100, 1100) + "," + kinetoMem(2, 0xb, 50, 1150) + "," +
                           kinetoMem(3, 0xa, -100, 1050) + "," + kinetoMem(5, 0xc, -300, 750) +
                           "," + kinetoMem(6, 0xd, 8, 8, 0, -1),
                       w);
  EXPECT_EQ(heldAt(l, MemPlace::Gpu, 1000), 1100);
  EXPECT_EQ(heldAt(l, MemPlace::Gpu, 2000), 1150);
  EXPECT_EQ(heldAt(l, MemPlace::Gpu, 3000), 1050);
  EXPECT_EQ(heldAt(l, MemPlace::Gpu, 5000), 750);
  EXPECT_EQ(heldAt(l, MemPlace::Cpu, 6000), 8);
  EXPECT_EQ(w.count(Warn::JsonMemoryMismatch), 0u);
}

TEST(ChromeEventMapper, PaddleMemoryPlaces) {
  Warnings w;
  auto ev = [](const char* cat, int ts, const char* place, int64_t delta, int64_t cur) {
    return std::string(R"j({"name":"[memory]","ph":"i","cat":")j") + cat +
           R"j(","pid":1,"tid":"2(C++)","ts":)j" + std::to_string(ts) + R"j(,"args":{"place":")j" +
           place + R"j(","addr":"77","increase_bytes":)j" + std::to_string(delta) +
           R"j(,"current_allocated":)j" + std::to_string(cur) + "}}";
  };
  EventList l = mapped(ev("Allocate", 1, "Place(gpu:2)", 64, 64) + "," +
                           ev("ReservedAllocate", 1, "Place(gpu:2)", 1024, 1024) + "," +
                           ev("Free", 4, "Place(gpu:2)", -64, 0) + "," +
                           ev("Allocate", 5, "Place(weird)", 1, 1),
                       w);
  ASSERT_EQ(l.memory.size(), 1u);
  EXPECT_EQ(l.memory[0].device, 2u);
  EXPECT_EQ(l.memory[0].startNs, 1000u);
  EXPECT_EQ(l.memory[0].endNs, 4000u);
  EXPECT_EQ(l.memory[0].bytes, 64u);
  EXPECT_EQ(w.count(Warn::MemoryUnknownPlace), 1u);
}

TEST(ChromeSourceNames, RankFromFileName) {
  EXPECT_EQ(rankFromFileName("sampled_rank-3.json.gz"), 3);
  EXPECT_EQ(rankFromFileName("worker_rank_12.pt.trace.json"), 12);
  EXPECT_EQ(rankFromFileName("Rank7.json"), 7);
  EXPECT_EQ(rankFromFileName("frank3.json"), std::nullopt);
  EXPECT_EQ(rankFromFileName("rank.json"), std::nullopt);
  EXPECT_EQ(rankFromFileName("host_pid_1.paddle_trace.json"), std::nullopt);
}

class ChromeSourceTest : public TempDirTest {
 protected:
  const Source& source() const { return *findSource("chrome"); }
};

TEST_F(ChromeSourceTest, ListsTracesByContent) {
  std::filesystem::create_directory(dir_ / "profile");
  const std::string ev = R"j({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":1})j";
  write("profile/a.json",
        R"j({"distributedInfo": {"rank": 4, "world_size": 16}, "traceEvents":[)j" + ev + "]}");
  write("profile/noext", test::gzipBytes(R"j({"traceEvents":[]})j"));  // rank from nowhere
  write("profile/rank_2.trace", R"j({"schemaVersion":"1.0.1","traceEvents":[{}]})j");
  write("profile/.hidden.json", R"j({"traceEvents":[]})j");
  write("profile/gen_info.json", R"j({"model":"x"})j");
  write("profile/notes.txt", "hello");
  InputDirs dirs = source().resolveDirs(dir_.string(), {});
  EXPECT_EQ(dirs.profile, (dir_ / "profile").string());
  InputListing l = source().list(dirs);
  EXPECT_TRUE(l.profileDirFound);
  ASSERT_EQ(l.files.size(), 2u);
  EXPECT_EQ(l.files[0].id, 2);
  EXPECT_EQ(l.files[1].id, 4);
  EXPECT_EQ(l.declaredWorldSize, 16);
  EXPECT_EQ(l.ignored.size(), 2u);  // gen_info.json, notes.txt
  EXPECT_EQ(l.hidden, 1u);          // .hidden.json: not looked at, counted
  // A trace whose rank nothing tells: listed apart (the listing stage gives the job's only
  // trace rank 0), with the line that names it otherwise.
  EXPECT_TRUE(l.fatal.empty());
  ASSERT_EQ(l.unranked.size(), 1u);
  EXPECT_EQ(l.unranked[0].file.path, (dir_ / "profile" / "noext").string());
  EXPECT_EQ(l.unranked[0].file.id, 0);
  const std::string& fix = l.unranked[0].fix;
  EXPECT_NE(fix.find("noext: a trace without a rank"), std::string::npos) << fix;
  // The suggested name is built from the file's own name, with a rank placeholder.
  EXPECT_NE(fix.find("e.g. noext_rank<N>,"), std::string::npos) << fix;
  EXPECT_EQ(fix.find("rank3"), std::string::npos) << fix;
}

// A file named like a trace whose text is no JSON (zeros of a preallocated file, cut-off
// gzip) is a damaged trace: with a rank in its name, that rank's trace (its read fails
// later, naming it); with a profiler's ending and no rank, a bad input. Valid JSON of
// something else, or a plain .json without a rank, stays ignored.
TEST_F(ChromeSourceTest, DamagedTracesAreNotIgnored) {
  write("sampled_rank-2.json", std::string(4096, '\0'));
  write("host_7.1700.pt.trace.json", std::string(10, '\0'));
  write("rank5.pt.trace.json.gz", test::gzipBytes(R"j({"traceEvents":[]})j").substr(0, 12));
  write("empty_rank6.json", "");
  write("rank3.json", R"j({"model":"x"})j");     // valid JSON, not a trace: ignored
  write("noise.json", std::string(64, '\x01'));  // no rank, no profiler ending: ignored
  InputListing l = source().list(source().resolveDirs(dir_.string(), {}));
  ASSERT_EQ(l.files.size(), 3u);
  EXPECT_EQ(l.files[0].id, 2);
  EXPECT_EQ(l.files[1].id, 5);
  EXPECT_EQ(l.files[2].id, 6);
  ASSERT_EQ(l.badInputs.size(), 1u);
  EXPECT_NE(l.badInputs[0].find("host_7.1700.pt.trace.json: byte 0: "), std::string::npos)
      << l.badInputs[0];
  EXPECT_EQ(l.ignored.size(), 2u);
}

TEST(ChromeSourceNames, TheSuggestedNameCarriesTheRank) {
  EXPECT_EQ(nameWithRank("worker.json", "<N>"), "worker_rank<N>.json");
  EXPECT_EQ(nameWithRank("host.1234.pt.trace.json.gz", "3"), "host.1234_rank3.pt.trace.json.gz");
  EXPECT_EQ(nameWithRank("host_pid_1_time_2024.paddle_trace.json", "3"),
            "host_pid_1_time_2024_rank3.paddle_trace.json");
  EXPECT_EQ(nameWithRank("noext", "3"), "noext_rank3");
  for (const char* name : {"worker.json", "noext", "frank.json", "rank-x.json", "a.pt.trace.json",
                           "x.json.gz", "ranking_rank.trace", ".json"})
    EXPECT_EQ(rankFromFileName(nameWithRank(name, "17")), 17) << name;
}

TEST(ChromeSourceNames, TheWriterFromTheKeysBeforeTheEvents) {
  auto writerOf = [](const std::string& doc) {
    ReadResult r = readTraceBytes(doc, "t.json", [](const TraceEvent&) {});
    return traceWriterOf(r.info);
  };
  EXPECT_EQ(writerOf(R"j({"schemaVersion":1,"traceEvents":[]})j"), TraceWriter::Kineto);
  EXPECT_EQ(writerOf(R"j({"schemaVersion":"1.0.1","traceEvents":[{}]})j"), TraceWriter::Paddle);
  EXPECT_EQ(writerOf(R"j({"span_indx":"0","traceEvents":[]})j"), TraceWriter::Paddle);
  EXPECT_EQ(writerOf(R"j({"distributedInfo":{"rank":1},"traceEvents":[]})j"), TraceWriter::Kineto);
  EXPECT_EQ(writerOf(R"j({"traceEvents":[]})j"), TraceWriter::Unknown);
}

// Traces directly in D and in D/profile are both read; hidden files
// of both are counted; the programs that wrote them are told apart.
TEST_F(ChromeSourceTest, TracesInTheDataDirAndItsProfileFolder) {
  std::filesystem::create_directory(dir_ / "profile");
  write("rank0.pt.trace.json", R"j({"schemaVersion":1,"traceEvents":[]})j");
  write(".rank0.json.swp", "x");
  write("profile/rank1.pt.trace.json", R"j({"schemaVersion":1,"traceEvents":[]})j");
  write("profile/rank2.paddle_trace.json", R"j({"schemaVersion":"1.0.1","traceEvents":[{}]})j");
  write("profile/.DS_Store", "x");
  InputDirs dirs = source().resolveDirs(dir_.string(), {});
  EXPECT_EQ(dirs.profile, (dir_ / "profile").string());
  EXPECT_EQ(dirs.profileAlso, dir_.string());
  InputListing l = source().list(dirs);
  ASSERT_EQ(l.files.size(), 3u);
  EXPECT_EQ(l.files[0].path, (dir_ / "rank0.pt.trace.json").string());
  EXPECT_EQ(l.files[1].path, (dir_ / "profile" / "rank1.pt.trace.json").string());
  EXPECT_EQ(l.hidden, 2u);
  ASSERT_EQ(l.writers.size(), 2u);
  EXPECT_EQ(l.writers[0].first, "PyTorch profiler (Kineto)");
  EXPECT_EQ(l.writers[0].second, (dir_ / "profile" / "rank1.pt.trace.json").string());
  EXPECT_EQ(l.writers[1].first, "Paddle profiler");
  // --profile-dir names one folder: D is not listed with it.
  InputDirs named;
  named.profile = (dir_ / "profile").string();
  InputDirs given = source().resolveDirs(dir_.string(), named);
  EXPECT_TRUE(given.profileAlso.empty());
  EXPECT_EQ(source().list(given).files.size(), 2u);
}

// A rank's two files, one in D and one in D/profile, are both listed: the
// plan names both as a conflict.
TEST_F(ChromeSourceTest, OneRankInBothFoldersIsListedTwice) {
  std::filesystem::create_directory(dir_ / "profile");
  write("rank0.json", R"j({"traceEvents":[]})j");
  write("profile/rank0.json", R"j({"traceEvents":[]})j");
  InputListing l = source().list(source().resolveDirs(dir_.string(), {}));
  ASSERT_EQ(l.files.size(), 2u);
  EXPECT_EQ(l.files[0].id, 0);
  EXPECT_EQ(l.files[1].id, 0);
}

// A rank or world size no real job has is not used; the file is named.
TEST_F(ChromeSourceTest, ImplausibleRanksAreSkippedAndNamed) {
  std::filesystem::create_directory(dir_ / "profile");
  write(
      "profile/a.json",
      R"j({"distributedInfo": {"rank": 9223372036854775807, "world_size": 2}, "traceEvents":[]})j");
  write("profile/rank_999999999999999999.json", R"j({"traceEvents":[]})j");
  write(
      "profile/b.json",
      R"j({"distributedInfo": {"rank": 1, "world_size": 9223372036854775807}, "traceEvents":[]})j");
  InputListing l = source().list(source().resolveDirs(dir_.string(), {}));
  ASSERT_EQ(l.files.size(), 1u);
  EXPECT_EQ(l.files[0].id, 1);
  EXPECT_EQ(l.declaredWorldSize, 0);  // the implausible world size is not used
  ASSERT_EQ(l.skipped.size(), 2u);
  EXPECT_EQ(l.skipped[0],
            (dir_ / "profile" / "a.json").string() +
                ": implausible rank 9223372036854775807 (above 1073742847): not used");
  EXPECT_NE(l.skipped[1].find("rank_999999999999999999.json: implausible rank"), std::string::npos)
      << l.skipped[1];
}

TEST_F(ChromeSourceTest, TracesDirectlyInTheDataDir) {
  write("rank0.json", R"j({"traceEvents":[]})j");
  InputDirs dirs = source().resolveDirs(dir_.string(), {});
  EXPECT_EQ(dirs.profile, dir_.string());
  EXPECT_EQ(source().list(dirs).files.size(), 1u);
}

TEST_F(ChromeSourceTest, RankAndBaseAfterTheEvents) {
  const std::string path = write(
      "x.json",
      R"j({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":2,"dur":1}],)j"
      R"j("distributedInfo":{"rank":5},"baseTimeNanoseconds":1000000})j");
  InputListing l = source().list({dir_.string(), "", "", ""});
  ASSERT_EQ(l.files.size(), 1u);
  EXPECT_EQ(l.files[0].id, 5);
  EventList events;
  std::unique_ptr<FileBuffer> buffer;
  auto info = source().decodeTrace(path, buffer, events, {});
  ASSERT_TRUE(info.ok());
  ASSERT_EQ(events.slices.size(), 1u);
  EXPECT_EQ(events.slices[0].startNs, 1'000'000u + 2'000u);
}

// A file cut after some events is partial when its time base is known (before the events,
// or a Paddle trace's: none); one whose base is unknown fails (ABaseThatCannotBeFoundFailsTheFile).
TEST_F(ChromeSourceTest, ACutFileIsPartialAndGarbageFails) {
  const std::string cut = write(
      "cut.json",
      R"j({"baseTimeNanoseconds":1000,"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":2,"dur":1},{"ph":)j");
  EventList events;
  std::unique_ptr<FileBuffer> buffer;
  auto info = source().decodeTrace(cut, buffer, events, {});
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->partial.empty());
  EXPECT_EQ(events.slices.size(), 1u);
  const std::string bad = write("bad.json", "\x01\x02 not json");
  EXPECT_FALSE(source().decodeTrace(bad, buffer, events, {}).ok());
}


// The error of decoding `path` ("" when it decodes).
std::string decodeError(const Source& source, const std::string& path,
                        std::optional<int64_t> listedRank = std::nullopt) {
  EventList events;
  std::unique_ptr<FileBuffer> buffer;
  TraceDecodeOptions options;
  options.listedRank = listedRank;
  auto info = source.decodeTrace(path, buffer, events, options);
  return info ? std::string() : info.error().message;
}

const char* const kOneEvent =
    R"j({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":2,"dur":1})j";

// An unusable base fails the file naming the value, before or after the events; never base 0.
TEST_F(ChromeSourceTest, AnUnusableBaseFailsTheFile) {
  for (const char* base : {"1e30", "\"abc\"", "12.5"}) {
    for (bool after : {false, true}) {
      const std::string key = std::string("\"baseTimeNanoseconds\":") + base;
      const std::string doc =
          after ? std::string("{\"traceEvents\":[") + kOneEvent + "]," + key + "}"
                : "{" + key + ",\"traceEvents\":[" + kOneEvent + "]}";
      const std::string path = write("rank1.json", doc);
      const std::string e = decodeError(source(), path);
      EXPECT_NE(e.find(path + ": baseTimeNanoseconds " + base + " is not an integer count of ns"),
                std::string::npos)
          << base << " after " << after << ": " << e;
    }
  }
  const std::string two = write("two.json", std::string("{\"baseTimeNanoseconds\":5,\"traceEvents\":[") +
                                                kOneEvent + "],\"baseTimeNanoseconds\":6}");
  EXPECT_NE(decodeError(source(), two).find("two different baseTimeNanoseconds, 5 and 6"),
            std::string::npos);
}

// A base after the events of a file cut short (still being written) cannot be found: the
// file fails, never read as partial with base 0. A cut Paddle trace has no base: partial.
TEST_F(ChromeSourceTest, ABaseThatCannotBeFoundFailsTheFile) {
  const std::string cut = write("rank1.json", std::string("{\"schemaVersion\":1,\"traceEvents\":[") +
                                                  kOneEvent + "," + kOneEvent + ",{\"ph\":");
  const std::string e = decodeError(source(), cut);
  EXPECT_NE(e.find(cut + ": its time base is unknown: no baseTimeNanoseconds before its events"),
            std::string::npos)
      << e;
  const std::string paddle =
      write("rank2.json", std::string("{\"schemaVersion\":\"1.0.1\",\"traceEvents\":[") +
                              kOneEvent + ",{\"ph\":");
  EventList events;
  std::unique_ptr<FileBuffer> buffer;
  auto info = source().decodeTrace(paddle, buffer, events, {});
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_FALSE(info->partial.empty());
  EXPECT_EQ(events.slices.size(), 1u);
}

// The read of the events sees the base again: a file rewritten after the pass that found its
// base (here under the same size, inode and mtime, so that the pass's result is reused) fails.
TEST_F(ChromeSourceTest, AFileChangedBetweenItsPassesFails) {
  auto doc = [](char digit) {
    return std::string("{\"traceEvents\":[") + kOneEvent + "],\"baseTimeNanoseconds\":100" +
           digit + "}";
  };
  const std::string path = write("rank1.json", doc('1'));
  EXPECT_EQ(decodeError(source(), path), "");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    const std::string again = doc('2');
    f.write(again.data(), static_cast<std::streamsize>(again.size()));
  }
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  const std::string e = decodeError(source(), path);
  EXPECT_NE(e.find("it changed between the pass that found its time base (1001) and the read of "
                   "its events, which found 1002"),
            std::string::npos)
      << e;
}

// A rank's trace without a usable event is a failure naming the file, not a row of zeros.
TEST_F(ChromeSourceTest, ARankWithoutAUsableEventFails) {
  const std::string empty = write("rank1.json", R"j({"traceEvents":[]})j");
  EXPECT_NE(decodeError(source(), empty).find(empty + ": no event: its traceEvents is empty"),
            std::string::npos);
  const std::string dropped = write(
      "rank2.json",
      R"j({"baseTimeNanoseconds":1700000000000000000,"traceEvents":[)j"
      R"j({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":-2e15,"dur":1},)j"
      R"j({"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":1e16,"dur":1},)j"
      R"j({"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":1,"ts":0,"dur":1},)j"
      R"j({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}}]})j");
  const std::string e = decodeError(source(), dropped);
  EXPECT_NE(e.find(dropped + ": no usable event: none of its 4 events could be placed in time or "
                             "on a row (3 dropped for their time"),
            std::string::npos)
      << e;
}

// traceEvents that is no array (null, an object, a string), or missing beside
// distributedInfo.rank: a trace without events, listed under its rank so that its read
// fails naming it, or a bad input without one; never an ignored file.
TEST_F(ChromeSourceTest, TraceEventsThatAreNoArrayAreARanksFailure) {
  write("a.json", R"j({"distributedInfo":{"rank":1},"traceEvents":null})j");
  write("b.json", R"j({"distributedInfo":{"rank":2},"traceEvents":{}})j");
  write("c.json", R"j({"distributedInfo":{"rank":3},"traceEvents":"x"})j");
  write("d.json", R"j({"distributedInfo":{"rank":4}})j");
  write("rank5.json", R"j({"traceEvents":7})j");
  write("e.json", R"j({"schemaVersion":1,"traceEvents":null})j");
  write("gen_info.json", R"j({"model":"x"})j");
  InputListing l = source().list(source().resolveDirs(dir_.string(), {}));
  ASSERT_EQ(l.files.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(l.files[i].id, static_cast<int64_t>(i + 1));
    EXPECT_NE(decodeError(source(), l.files[i].path, l.files[i].id), "") << l.files[i].path;
  }
  EXPECT_NE(decodeError(source(), l.files[0].path).find("traceEvents is not an array"),
            std::string::npos);
  EXPECT_NE(decodeError(source(), l.files[3].path).find("without a traceEvents key"),
            std::string::npos);
  ASSERT_EQ(l.badInputs.size(), 1u);
  EXPECT_NE(l.badInputs[0].find("e.json: byte "), std::string::npos) << l.badInputs[0];
  EXPECT_NE(l.badInputs[0].find("a trace without events, not used"), std::string::npos);
  ASSERT_EQ(l.ignored.size(), 1u);  // gen_info.json only
}

// distributedInfo.rank -1 or 1.5 is a bad input naming the file, never a trace without a
// rank (the job's only trace would be read as rank 0).
TEST_F(ChromeSourceTest, ARankThatIsNoRankIsABadInput) {
  write("rank7.json", std::string(R"j({"distributedInfo":{"rank":-1},"traceEvents":[)j") +
                          kOneEvent + "]}");
  write("b.json", std::string(R"j({"traceEvents":[)j") + kOneEvent +
                      R"j(],"distributedInfo":{"rank":1.5}})j");
  InputListing l = source().list(source().resolveDirs(dir_.string(), {}));
  EXPECT_TRUE(l.files.empty());
  EXPECT_TRUE(l.unranked.empty());
  ASSERT_EQ(l.badInputs.size(), 2u);
  EXPECT_EQ(l.badInputs[0], (dir_ / "b.json").string() +
                                ": distributedInfo.rank 1.5 is not a rank: not used");
  EXPECT_EQ(l.badInputs[1], (dir_ / "rank7.json").string() +
                                ": distributedInfo.rank -1 is not a rank: not used");
}

// The read finds the rank again and fails the file when it is not the listed one.
TEST_F(ChromeSourceTest, TheReadChecksTheListedRank) {
  const std::string path = write(
      "x.json", std::string(R"j({"distributedInfo":{"rank":2},"traceEvents":[)j") + kOneEvent + "]}");
  EXPECT_EQ(decodeError(source(), path, 2), "");
  EXPECT_EQ(decodeError(source(), path), "");  // a second read: not checked
  EXPECT_EQ(decodeError(source(), path, 1),
            path + ": listed as rank 1, but read as rank 2 (distributedInfo.rank): the file "
                   "changed between the listing and the read; not used");
  const std::string named = write("rank3.json", std::string(R"j({"traceEvents":[)j") + kOneEvent + "]}");
  EXPECT_EQ(decodeError(source(), named, 3), "");
  EXPECT_NE(decodeError(source(), named, 4).find("but read as rank 3 (its name)"), std::string::npos);
  const std::string bad = write(
      "rank5.json", std::string(R"j({"traceEvents":[)j") + kOneEvent + R"j(],"distributedInfo":{"rank":-1}})j");
  EXPECT_NE(decodeError(source(), bad, 5).find("distributedInfo.rank -1 is not a rank (listed as rank 5)"),
            std::string::npos);
}

}  // namespace
}  // namespace xstack::chrome
