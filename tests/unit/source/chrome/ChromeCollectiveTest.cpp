// The Chrome reader's collectives (ChromeEventMapper, collectiveFromArgs):
// NCCL kernels and record_param_comms ops with Kineto's collective args,
// mixed int/string types, missing and malformed args (json_bad_collective_arg),
// kernels told only by their name; and the real traces of ../shared (skipped
// when absent).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "xstack/source/chrome/ChromeEvents.h"
#include "xstack/source/chrome/TraceReader.h"

namespace xstack::chrome {
namespace {

EventList mapped(const std::string& events, Warnings& w) {
  EventList out;
  ChromeEventMapper mapper(out, w, 0, "t.json: ");
  std::string doc = "{\"traceEvents\":[" + events + "]}";
  ReadResult r = readTraceBytes(doc, "t.json", [&](const TraceEvent& e) { mapper.onEvent(e); });
  EXPECT_TRUE(r.ok()) << (r.error ? r.error->text() : "");
  mapper.finish();
  return out;
}

std::string kernel(const std::string& name, const std::string& args, int ts = 10) {
  return R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":7,"ts":)" +
         std::to_string(ts) + R"(,"dur":5,"args":{"device":0,"stream":7)" +
         (args.empty() ? "" : "," + args) + "}}";
}

// Kineto's args as PyTorch 2.3 writes them (nccl_data), plus the newest ones.
const std::string kAllReduceArgs =
    R"("Collective name":"allreduce","In msg nelems":6637568,"Out msg nelems":6637568,)"
    R"("Group size":2,"dtype":"Float","In split size":"[]","Out split size":"[]",)"
    R"("Process Group Name":"0","Process Group Description":"default_pg",)"
    R"("Process Group Ranks":"[0, 1]","Seq":41)";

TEST(ChromeCollective, KernelArgsAreRead) {
  Warnings w;
  EventList l =
      mapped(kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", kAllReduceArgs), w);
  ASSERT_EQ(l.slices.size(), 1u);
  ASSERT_NE(l.slices[0].collective, nullptr);
  const CollectiveInfo& c = *l.slices[0].collective;
  EXPECT_EQ(c.collective, "allreduce");
  EXPECT_EQ(c.group, "0");
  EXPECT_EQ(c.groupDesc, "default_pg");
  EXPECT_EQ(c.groupRanks, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(c.groupSize, 2);
  EXPECT_EQ(c.seq, 41);
  EXPECT_EQ(c.inNelems, 6637568);
  EXPECT_EQ(c.outNelems, 6637568);
  EXPECT_EQ(c.dtype, "Float");
  EXPECT_EQ(c.bytes, 6637568u * 4);
  EXPECT_EQ(c.peer, -1);
  EXPECT_FALSE(c.fromKernelName);
  EXPECT_TRUE(w.empty());
}

// A reader keeps one CollectiveArgsMemo for all its events: the same
// CollectiveInfo and bad-arg text as a fresh parse, whatever the texts before
// (the same, changed, bad, empty, absent).
TEST(ChromeCollective, TheArgsMemoGivesWhatAFreshParseGives) {
  const std::vector<std::string> args = {
      kAllReduceArgs,
      kAllReduceArgs,
      R"("Collective name":"_allgather_base","Process Group Ranks":"[0, 2]","dtype":"BFloat16","In msg nelems":8)",
      R"("Collective name":"_allgather_base","Process Group Ranks":"[0, x]","dtype":"Bogus","In msg nelems":8)",
      R"("Collective name":"_allgather_base","Process Group Ranks":"[0, x]","dtype":"Bogus","In msg nelems":8)",
      R"("Collective name":"","Process Group Ranks":"","dtype":"")",
      R"("Collective name":"","Process Group Ranks":"","dtype":"")",
      R"("Collective name":"send","Dst Rank":3,"Process Group Ranks":"[]","dtype":"Float","In msg nelems":2)",
      R"("Collective name":"recv","Src Rank":3,"dtype":"Float","In msg nelems":2)",
      kAllReduceArgs};
  std::string doc = "{\"traceEvents\":[";
  for (size_t i = 0; i < args.size(); ++i)
    doc += (i ? "," : "") + kernel("ncclDevKernel_Generic", args[i], static_cast<int>(10 * i));
  doc += "]}";
  CollectiveArgsMemo memo;
  size_t events = 0;
  ReadResult r = readTraceBytes(doc, "t.json", [&](const TraceEvent& e) {
    CollectiveInfo fresh, kept;
    std::string freshBad, keptBad;
    const bool a = collectiveFromArgs(e, fresh, freshBad);
    const bool b = collectiveFromArgs(e, kept, keptBad, memo);
    EXPECT_EQ(a, b);
    EXPECT_EQ(fresh.collective, kept.collective) << events;
    EXPECT_EQ(fresh.groupRanks, kept.groupRanks) << events;
    EXPECT_EQ(fresh.dtype, kept.dtype) << events;
    EXPECT_EQ(fresh.bytes, kept.bytes) << events;
    EXPECT_EQ(fresh.peer, kept.peer) << events;
    EXPECT_EQ(freshBad, keptBad) << events;
    ++events;
  });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(events, args.size());
}

TEST(ChromeCollective, HostOpGetsTheArgsTooOtherHostWorkNothing) {
  Warnings w;
  EventList l = mapped(
      R"({"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":9,"tid":9,"ts":1,"dur":2,)"
      R"("args":{"External id":2099,)" +
          kAllReduceArgs +
          R"(}},)"
          R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":9,"tid":9,"ts":4,"dur":2},)"
          R"({"ph":"X","cat":"cuda_runtime","name":"ncclKernel_AllReduce","pid":9,"tid":9,)"
          R"("ts":5,"dur":1})",
      w);
  ASSERT_EQ(l.slices.size(), 3u);
  ASSERT_NE(l.slices[0].collective, nullptr);
  EXPECT_EQ(l.slices[0].row.kind, RowKind::CpuBlock);
  EXPECT_EQ(l.slices[0].collective->collective, "allreduce");
  EXPECT_EQ(l.slices[0].collective->group, "0");
  EXPECT_EQ(l.slices[1].collective, nullptr);
  EXPECT_EQ(l.slices[2].collective, nullptr);  // the name rule is for GPU kernels only
}

TEST(ChromeCollective, MixedTypesSurvive) {
  Warnings w;
  EventList l = mapped(
      kernel("ncclDevKernel_SendRecv(ncclDevComm*)",
             R"("Collective name":"send","Group size":"2","In msg nelems":"1024",)"
             R"("Out msg nelems":1024.0,"Process Group Name":3,"Process Group Ranks":[2, 3],)"
             R"("dtype":"BFloat16","Seq":"7","Dst Rank":"3","Src Rank":2)"),
      w);
  ASSERT_NE(l.slices[0].collective, nullptr);
  const CollectiveInfo& c = *l.slices[0].collective;
  EXPECT_EQ(c.collective, "send");
  EXPECT_EQ(c.groupSize, 2);
  EXPECT_EQ(c.inNelems, 1024);
  EXPECT_EQ(c.outNelems, 1024);
  EXPECT_EQ(c.group, "3");                                // an int group name as its text
  EXPECT_EQ(c.groupRanks, (std::vector<int64_t>{2, 3}));  // an array instead of a string
  EXPECT_EQ(c.seq, 7);
  EXPECT_EQ(c.peer, 3);  // a send's peer is its Dst Rank
  EXPECT_EQ(c.bytes, 2048u);
  EXPECT_TRUE(w.empty());
}

TEST(ChromeCollective, RecvPeerIsTheSourceNegativeIsNone) {
  Warnings w;
  EventList l = mapped(
      kernel("ncclKernel_SendRecv", R"("Collective name":"recv","Src Rank":5,"Dst Rank":1)") + "," +
          kernel("ncclKernel_SendRecv", R"("Collective name":"recv","Src Rank":-1)") + "," +
          kernel("ncclKernel_AllReduce", R"("Collective name":"allreduce","Dst Rank":4)"),
      w);
  ASSERT_EQ(l.slices.size(), 3u);
  EXPECT_EQ(l.slices[0].collective->peer, 5);
  EXPECT_EQ(l.slices[1].collective->peer, -1);
  EXPECT_EQ(l.slices[2].collective->peer, -1);  // not point-to-point
  EXPECT_TRUE(w.empty());
}

// PyTorch's all_to_all_single with splits records "all_to_allv" on NCCL's
// SendRecv kernel (MoE token routing, DLRM embeddings): an alltoallv of the
// whole group, no peer, whatever rank args the kernel has.
TEST(ChromeCollective, AllToAllvIsAnAllToAllOfTheGroup) {
  Warnings w;
  EventList l =
      mapped(kernel("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
                    R"("Collective name":"all_to_allv","In msg nelems":6144,"Out msg nelems":4096,)"
                    R"("Group size":4,"dtype":"BFloat16","Process Group Name":"5",)"
                    R"("Process Group Ranks":"[0, 2, 4, 6]","Src Rank":-1,"Dst Rank":-1)"),
             w);
  ASSERT_NE(l.slices[0].collective, nullptr);
  const CollectiveInfo& c = *l.slices[0].collective;
  EXPECT_EQ(c.collective, "alltoallv");
  EXPECT_EQ(c.peer, -1);
  EXPECT_EQ(c.bytes, 6144u * 2);  // the larger of in and out
  EXPECT_TRUE(w.empty());
}

TEST(ChromeCollective, MissingArgsStayUnknown) {
  Warnings w;
  EventList l = mapped(
      kernel("ncclKernel_Broadcast_RING_LL_Sum_int8_t", R"("Collective name":"broadcast")"), w);
  const CollectiveInfo& c = *l.slices[0].collective;
  EXPECT_EQ(c.collective, "broadcast");
  EXPECT_EQ(c.group, "");
  EXPECT_EQ(c.groupDesc, "");
  EXPECT_TRUE(c.groupRanks.empty());
  EXPECT_EQ(c.groupSize, 0);
  EXPECT_EQ(c.seq, -1);
  EXPECT_EQ(c.inNelems, -1);
  EXPECT_EQ(c.outNelems, -1);
  EXPECT_EQ(c.dtype, "");
  EXPECT_EQ(c.bytes, 0u);
  EXPECT_FALSE(c.fromKernelName);
  EXPECT_TRUE(w.empty());
}

TEST(ChromeCollective, KernelWithoutArgsGetsItFromItsName) {
  Warnings w;
  EventList l = mapped(
      kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
             "") +
          "," + kernel("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevComm*)", "") + "," +
          kernel("ampere_sgemm_128x64_nn", "") + "," +
          R"({"ph":"X","cat":"Kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float",)"
          R"("pid":0,"tid":7,"ts":30,"dur":5,"args":{"device":0}})",  // Paddle's category
      w);
  ASSERT_EQ(l.slices.size(), 4u);
  ASSERT_NE(l.slices[0].collective, nullptr);
  EXPECT_EQ(l.slices[0].collective->collective, "sendrecv");
  EXPECT_TRUE(l.slices[0].collective->fromKernelName);
  EXPECT_EQ(l.slices[0].collective->group, "");
  EXPECT_EQ(l.slices[1].collective->collective, "reduce_scatter");
  EXPECT_EQ(l.slices[2].collective, nullptr);
  ASSERT_NE(l.slices[3].collective, nullptr);
  EXPECT_EQ(l.slices[3].collective->collective, "allreduce");
}

TEST(ChromeCollective, MalformedArgsAreCountedAndTheEventFlows) {
  Warnings w;
  EventList l =
      mapped(kernel("ncclKernel_AllReduce",
                    R"("Collective name":"allreduce","Process Group Ranks":"[0, x]",)"
                    R"("In msg nelems":-4,"Out msg nelems":8,"dtype":"Quaternion","Group size":2,)"
                    R"("Process Group Name":"0")",
                    10) +
                 "," +
                 kernel("ncclKernel_AllReduce",
                        R"("Collective name":"allreduce","Group size":"two","dtype":"Half")", 20) +
                 "," + kernel("ncclKernel_AllReduce", kAllReduceArgs, 30),
             w);
  ASSERT_EQ(l.slices.size(), 3u);
  const CollectiveInfo& c = *l.slices[0].collective;
  EXPECT_EQ(c.collective, "allreduce");
  EXPECT_EQ(c.group, "0");
  EXPECT_TRUE(c.groupRanks.empty());
  EXPECT_EQ(c.inNelems, -1);
  EXPECT_EQ(c.outNelems, 8);
  EXPECT_EQ(c.dtype, "Quaternion");
  EXPECT_EQ(c.bytes, 0u);
  EXPECT_EQ(c.groupSize, 2);
  EXPECT_EQ(l.slices[1].collective->groupSize, 0);
  EXPECT_EQ(l.slices[1].collective->dtype, "Half");
  // one count per event, the first examples naming the args
  EXPECT_EQ(w.count(Warn::JsonBadCollectiveArg), 2u);
  EXPECT_EQ(w.total(), 2u);
  const auto& examples = w.entries().at(Warn::JsonBadCollectiveArg).examples;
  ASSERT_EQ(examples.size(), 2u);
  EXPECT_EQ(examples[0],
            "t.json: ts 10000 ns: Process Group Ranks \"[0, x]\", In msg nelems -4, "
            "dtype \"Quaternion\"");
  EXPECT_EQ(examples[1], "t.json: ts 20000 ns: Group size \"two\"");
}

// Issue 31: nelems x the dtype's size past 2^63 - 1 bytes is no size: 0 bytes (no
// bandwidth), named like a bad arg; 2^63 - 8 bytes fit.
TEST(ChromeCollective, BytesPastTwoToThe63AreNamedNotWrapped) {
  Warnings w;
  EventList l = mapped(
      kernel("ncclKernel_AllReduce",
             R"("Collective name":"allreduce","In msg nelems":2305843009213693952,"dtype":"Float")",
             10) +
          "," +
          kernel("ncclKernel_AllReduce",
                 R"("Collective name":"allreduce","Out msg nelems":1152921504606846975,)"
                 R"("dtype":"Double")",
                 20),
      w);
  ASSERT_EQ(l.slices.size(), 2u);
  EXPECT_EQ(l.slices[0].collective->bytes, 0u);  // 2^61 x 4 = 2^63
  EXPECT_EQ(l.slices[1].collective->bytes, (uint64_t{1} << 63) - 8);
  EXPECT_EQ(w.count(Warn::JsonBadCollectiveArg), 1u);
  EXPECT_EQ(w.entries().at(Warn::JsonBadCollectiveArg).examples.at(0),
            "t.json: ts 10000 ns: In msg nelems 2305843009213693952");
}

// ---- the real traces (never copied into the repository) ----

std::filesystem::path sharedTraces() {
  if (const char* env = std::getenv("XSTACK_SHARED_DIR"))
    return std::filesystem::path(env) / "traces";
#ifdef XSTACK_SHARED_DIR
  return std::filesystem::path(XSTACK_SHARED_DIR) / "traces";
#else
  return "../shared/traces";
#endif
}

struct Mapped {
  EventList events;
  Warnings warnings;
};

Mapped mapFile(const std::filesystem::path& path) {
  Mapped m;
  ChromeEventMapper mapper(m.events, m.warnings, 0);
  ReadResult r = readTrace(path.string(), [&](const TraceEvent& e) { mapper.onEvent(e); });
  EXPECT_TRUE(r.ok()) << (r.error ? r.error->text() : "");
  mapper.finish();
  return m;
}

// Counted independently with python3:
//   d = json.load(gzip.open("nccl_data.json.gz")); for e in d["traceEvents"]: a = e.get("args", {})
//   kernels (cat kernel) with "Collective name": 21 = 15 allreduce
//     (ncclKernel_AllReduce_RING_LL_Sum_float, dtype Float) + 6 broadcast
//     (ncclKernel_Broadcast_RING_LL_Sum_int8_t, 3 Float + 3 Long); all "Process Group Name" "0",
//     "Process Group Description" "default_pg", "Process Group Ranks" "[0, 1]", "Group size" 2;
//     no other NCCL kernel in the file.
//   cpu_op record_param_comms: 27, all with "Collective name": 15 allreduce, 6 broadcast (group
//     "0", ranks "[0, 1]"), 6 wait (no Process Group Name, ranks "[]", dtype Byte).
TEST(ChromeCollectiveSharedTraces, NcclDataArgs) {
  const auto path = sharedTraces() / "kineto/nccl_data/nccl_data.json.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent (../shared not here)";
  Mapped m = mapFile(path);
  std::map<std::string, int> gpu, host;
  int gpuFloat = 0, hostWait = 0;
  for (const SliceEvent& e : m.events.slices) {
    if (!e.collective) continue;
    const CollectiveInfo& c = *e.collective;
    if (e.row.kind != RowKind::Gpu) {
      EXPECT_EQ(e.name, "record_param_comms");
      host[c.collective]++;
      if (c.collective == "wait") {
        ++hostWait;
        EXPECT_EQ(c.group, "");
        EXPECT_TRUE(c.groupRanks.empty());
        continue;
      }
    }
    EXPECT_FALSE(c.fromKernelName) << e.name;
    EXPECT_EQ(c.group, "0");
    EXPECT_EQ(c.groupDesc, "default_pg");
    EXPECT_EQ(c.groupRanks, (std::vector<int64_t>{0, 1}));
    EXPECT_EQ(c.groupSize, 2);
    EXPECT_GT(c.inNelems, 0);
    EXPECT_EQ(c.bytes, static_cast<uint64_t>(c.inNelems * dtypeBytes(c.dtype)));
    if (e.row.kind == RowKind::Gpu) {
      gpu[c.collective]++;
      gpuFloat += c.dtype == "Float";
      EXPECT_EQ(collectiveOfKernelName(e.name), c.collective) << e.name;
    }
  }
  EXPECT_EQ(gpu, (std::map<std::string, int>{{"allreduce", 15}, {"broadcast", 6}}));
  EXPECT_EQ(gpuFloat, 18);
  EXPECT_EQ(host, (std::map<std::string, int>{{"allreduce", 15}, {"broadcast", 6}, {"wait", 6}}));
  EXPECT_EQ(hostWait, 6);
  EXPECT_EQ(m.warnings.count(Warn::JsonBadCollectiveArg), 0u);
}

// Counted independently with python3: each of sampled_rank-0/1 holds 10 kernels
// ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t, without collective args, and no other NCCL kernel.
TEST(ChromeCollectiveSharedTraces, TraceFilterKernelsFromTheirNames) {
  for (const char* file : {"sampled_rank-0.json.gz", "sampled_rank-1.json.gz"}) {
    const auto path = sharedTraces() / "kineto/trace_filter" / file;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent (../shared not here)";
    Mapped m = mapFile(path);
    int nccl = 0, withCollective = 0;
    for (const SliceEvent& e : m.events.slices) {
      if (e.row.kind != RowKind::Gpu) {
        EXPECT_EQ(e.collective, nullptr) << e.name;
        continue;
      }
      const bool isNccl = e.name.find("nccl") != std::string_view::npos;
      nccl += isNccl;
      if (!e.collective) {
        EXPECT_FALSE(isNccl) << e.name;
        continue;
      }
      ++withCollective;
      EXPECT_EQ(e.collective->collective, "sendrecv");
      EXPECT_TRUE(e.collective->fromKernelName);
      EXPECT_EQ(e.collective->group, "");
    }
    EXPECT_EQ(nccl, 10) << file;
    EXPECT_EQ(withCollective, 10) << file;
  }
}

}  // namespace
}  // namespace xstack::chrome
