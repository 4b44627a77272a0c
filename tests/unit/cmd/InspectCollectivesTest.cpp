// `xstack inspect FILE` counts the collectives per process group and
// collective (text line and --json "collectives"), on a small Kineto trace
// written here and on the real nccl_data trace of ../shared (skipped when
// absent).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "../TempDirTest.h"
#include "xstack/cmd/inspect/Inspect.h"

namespace xstack {
namespace {

std::string inspectOut(const std::string& file, bool json) {
  InspectOptions o;
  o.file = file;
  o.json = json;
  testing::internal::CaptureStdout();
  runInspect(o);
  std::fflush(stdout);
  return testing::internal::GetCapturedStdout();
}

std::string kernelEvent(const std::string& name, const std::string& args, int ts) {
  return R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":7,"ts":)" +
         std::to_string(ts) + R"(,"dur":5,"args":{"device":0,"stream":7)" + args + "}}";
}

class InspectCollectives : public TempDirTest {};

TEST_F(InspectCollectives, CountsPerGroupAndCollective) {
  const std::string group1 =
      R"(,"Collective name":"allreduce","Process Group Name":"1","Process Group Description":)"
      R"("tp","Process Group Ranks":"[0, 2]","Group size":2,"dtype":"Float","In msg nelems":4)";
  std::string events = kernelEvent("ncclKernel_AllReduce_RING_LL_Sum_float", group1, 10) + "," +
                       kernelEvent("ncclKernel_AllReduce_RING_LL_Sum_float", group1, 20) + "," +
                       kernelEvent("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", "", 30) + "," +
                       kernelEvent("gemm", "", 40);
  const std::string path =
      write("rank0.pt.trace.json", R"({"schemaVersion":1,"distributedInfo":{"rank":0},)"
                                   R"("traceEvents":[)" +
                                       events + "]}");
  const std::string text = inspectOut(path, false);
  EXPECT_NE(text.find("  collectives: group 1 (tp, 2 ranks): allreduce 2\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  collectives: group default (from kernel names): sendrecv 1\n"),
            std::string::npos)
      << text;
  const auto j = nlohmann::json::parse(inspectOut(path, true));
  ASSERT_TRUE(j.contains("collectives")) << j.dump();
  EXPECT_EQ(j["collectives"]["1"]["kernels"]["allreduce"], 2);
  EXPECT_EQ(j["collectives"]["1"]["description"], "tp");
  EXPECT_EQ(j["collectives"]["1"]["ranks"], nlohmann::json::array({0, 2}));
  EXPECT_EQ(j["collectives"]["default"]["kernels"]["sendrecv"], 1);
  EXPECT_EQ(j["collectives"]["default"]["from_kernel_names"], true);
}

TEST_F(InspectCollectives, RealNcclData) {
  std::filesystem::path shared = XSTACK_SHARED_DIR;
  if (const char* env = std::getenv("XSTACK_SHARED_DIR")) shared = env;
  const auto path = shared / "traces/kineto/nccl_data/nccl_data.json.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent (../shared not here)";
  const std::string text = inspectOut(path.string(), false);
  // 15 + 6 kernels with args, 27 record_param_comms (6 of them "wait" without a group name)
  EXPECT_NE(text.find("  collectives: group 0 (default_pg, 2 ranks): allreduce 15, broadcast 6; "
                      "host ops: allreduce 15, broadcast 6\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  collectives: group default (1 rank): no kernels; host ops: wait 6\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace xstack
