// The format-neutral collective description (event/Collective.h): the
// kernel-name table, dtype sizes, rank lists, name normalization, and how
// EventList keeps a slice's CollectiveInfo beyond the callback.
#include <gtest/gtest.h>

#include "xstack/analysis/StepTable.h"
#include "xstack/event/Collective.h"
#include "xstack/event/Events.h"

namespace xstack {
namespace {

TEST(CollectiveKernelName, TheNcclKernelTable) {
  struct Case {
    const char* name;
    const char* collective;
  };
  const Case cases[] = {
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
       "allreduce"},
      {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
       "allreduce"},
      {"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", "sendrecv"},
      {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
       "sendrecv"},
      {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
       "reduce_scatter"},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "allgather"},
      {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
       "broadcast"},
      {"ncclKernel_Reduce_RING_LL_Sum_half", "reduce"},
      {"ncclKernel_Send", "send"},
      {"ncclDevKernel_Recv", "recv"},
      {"ncclKernel_AllReduce", "allreduce"},  // the name may end after the word
      // Not an NCCL collective kernel: nothing.
      {"ncclDevKernel_Generic_4(ncclDevComm*, unsigned long, ncclWork*)", ""},
      {"ncclAllReduceRingLL", ""},
      {"nccl:all_reduce", ""},
      {"ampere_sgemm_128x64_nn", ""},
      {"my_ncclKernel_AllReduce", ""},
      {"", ""},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(collectiveOfKernelName(c.name), c.collective) << c.name;
    // A kernel the name rule gives a collective is communication for the
    // analyses' kernel categories too (theirs is wider: any "nccl", "rccl"...).
    if (*c.collective) {
      EXPECT_EQ(kernelCategoryOf(c.name, 0), KernelCategory::Comm) << c.name;
    }
  }
}

TEST(CollectiveKernelName, FillsOnlyTheCollectiveAndTheDefaultGroup) {
  CollectiveInfo info;
  info.group = "stale";
  info.seq = 9;
  ASSERT_TRUE(collectiveFromKernelName("ncclKernel_AllGather_RING_LL_Sum_float", info));
  EXPECT_EQ(info.collective, "allgather");
  EXPECT_TRUE(info.fromKernelName);
  EXPECT_EQ(info.group, "");
  EXPECT_TRUE(info.groupRanks.empty());
  EXPECT_EQ(info.groupSize, 0);
  EXPECT_EQ(info.seq, -1);
  EXPECT_EQ(info.inNelems, -1);
  EXPECT_EQ(info.bytes, 0u);
  EXPECT_EQ(info.peer, -1);
  // a name that names none leaves the info as it was
  EXPECT_FALSE(collectiveFromKernelName("gemm", info));
  EXPECT_EQ(info.collective, "allgather");
}

TEST(CollectiveDtype, SizesOfPyTorchNames) {
  EXPECT_EQ(dtypeBytes("Float"), 4);
  EXPECT_EQ(dtypeBytes("Half"), 2);
  EXPECT_EQ(dtypeBytes("BFloat16"), 2);
  EXPECT_EQ(dtypeBytes("Double"), 8);
  EXPECT_EQ(dtypeBytes("Long"), 8);
  EXPECT_EQ(dtypeBytes("Int"), 4);
  EXPECT_EQ(dtypeBytes("Byte"), 1);
  EXPECT_EQ(dtypeBytes("Char"), 1);
  EXPECT_EQ(dtypeBytes("Bool"), 1);
  EXPECT_EQ(dtypeBytes("ComplexDouble"), 16);
  EXPECT_EQ(dtypeBytes("Float8_e4m3fn"), 1);
  EXPECT_EQ(dtypeBytes("float32"), 4);
  EXPECT_EQ(dtypeBytes("bf16"), 2);
  EXPECT_EQ(dtypeBytes("Quaternion"), 0);
  EXPECT_EQ(dtypeBytes(""), 0);
  EXPECT_EQ(dtypeBytes("FLOAT"), 0);  // names are matched as written
}

TEST(CollectiveBytes, LargerMessageTimesElementSize) {
  CollectiveInfo c;
  c.dtype = "Float";
  c.inNelems = 1000;
  c.outNelems = 2000;  // an allgather of 2 ranks
  c.deriveBytes();
  EXPECT_EQ(c.bytes, 8000u);
  c.outNelems = -1;
  c.deriveBytes();
  EXPECT_EQ(c.bytes, 4000u);
  c.dtype = "Mystery";
  c.deriveBytes();
  EXPECT_EQ(c.bytes, 0u);
  c.dtype = "Double";
  c.inNelems = INT64_MAX;  // overflows int64: unknown
  c.deriveBytes();
  EXPECT_EQ(c.bytes, 0u);
  c.inNelems = -1;
  c.deriveBytes();
  EXPECT_EQ(c.bytes, 0u);
}

TEST(CollectiveRanks, ParsesTheListString) {
  std::vector<int64_t> r;
  EXPECT_TRUE(parseRankList("[0, 1]", r));
  EXPECT_EQ(r, (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(parseRankList("[0,1,2,3]", r));
  EXPECT_EQ(r, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_TRUE(parseRankList(" [ 7 ] ", r));
  EXPECT_EQ(r, (std::vector<int64_t>{7}));
  EXPECT_TRUE(parseRankList("[]", r));
  EXPECT_TRUE(r.empty());
  for (const char* bad : {"", "0, 1", "[0, 1", "[0, x]", "[-1, 0]", "[0, ]", "[,]", "[1.5]",
                          "[0,, 1]", "[99999999999999999999]"}) {
    r = {5};
    EXPECT_FALSE(parseRankList(bad, r)) << bad;
    EXPECT_TRUE(r.empty()) << bad;
  }
}

TEST(CollectiveName, Normalized) {
  EXPECT_EQ(normalizeCollectiveName("allreduce"), "allreduce");
  EXPECT_EQ(normalizeCollectiveName("AllReduce"), "allreduce");
  EXPECT_EQ(normalizeCollectiveName("all_reduce"), "allreduce");
  EXPECT_EQ(normalizeCollectiveName("_allgather_base"), "allgather");
  EXPECT_EQ(normalizeCollectiveName("all_gather_into_tensor"), "allgather");
  EXPECT_EQ(normalizeCollectiveName("_reduce_scatter_base"), "reduce_scatter");
  EXPECT_EQ(normalizeCollectiveName("alltoall_base"), "alltoall");
  EXPECT_EQ(normalizeCollectiveName("all_to_all"), "alltoall");
  EXPECT_EQ(normalizeCollectiveName("all_to_allv"), "alltoallv");
  // Several tensors in one call: the collective's name, then "_coalesced".
  EXPECT_EQ(normalizeCollectiveName("all_gather_into_tensor_coalesced"), "allgather_coalesced");
  EXPECT_EQ(normalizeCollectiveName("reduce_scatter_tensor_coalesced"), "reduce_scatter_coalesced");
  EXPECT_EQ(normalizeCollectiveName("allreduce_coalesced"), "allreduce_coalesced");
  EXPECT_EQ(normalizeCollectiveName("_coalesced"), "coalesced");
  EXPECT_EQ(normalizeCollectiveName("broadcast"), "broadcast");
  EXPECT_EQ(normalizeCollectiveName("send"), "send");
  EXPECT_EQ(normalizeCollectiveName("wait"), "wait");        // as written
  EXPECT_EQ(normalizeCollectiveName("Barrier"), "barrier");  // lower-cased
  EXPECT_EQ(normalizeCollectiveName(""), "");
}

TEST(EventCollective, EventListKeepsACopyBeyondTheCallback) {
  EventList list;
  {
    CollectiveInfo scratch;  // a source's reused memory
    scratch.collective = "allreduce";
    scratch.group = "0";
    scratch.groupRanks = {0, 1};
    SliceEvent e;
    e.name = "ncclKernel_AllReduce";
    e.collective = &scratch;
    list.onSlice(e);
    scratch.collective = "broadcast";
    list.onSlice(e);
    e.collective = nullptr;
    list.onSlice(e);
    scratch.clear();
  }
  EventList moved = std::move(list);
  ASSERT_EQ(moved.slices.size(), 3u);
  ASSERT_NE(moved.slices[0].collective, nullptr);
  EXPECT_EQ(moved.slices[0].collective->collective, "allreduce");
  EXPECT_EQ(moved.slices[0].collective->group, "0");
  EXPECT_EQ(moved.slices[0].collective->groupRanks, (std::vector<int64_t>{0, 1}));
  ASSERT_NE(moved.slices[1].collective, nullptr);
  EXPECT_EQ(moved.slices[1].collective->collective, "broadcast");
  EXPECT_EQ(moved.slices[2].collective, nullptr);
}

}  // namespace
}  // namespace xstack
