// HTA's kernel types by name and the per-rank breakdown (span, idle, compute,
// non-compute, comm/comp overlap) on hand-built activities.
#include <gtest/gtest.h>

#include "xstack/analysis/RankBreakdown.h"

namespace xstack {
namespace {

TEST(RankBreakdownTest, KernelTypesFollowHtaRulesInOrder) {
  using T = HtaKernelType;
  EXPECT_EQ(htaKernelTypeOf("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)"),
            T::Communication);
  EXPECT_EQ(htaKernelTypeOf("ncclDevKernel_AllGather_RING_LL"), T::Communication);
  EXPECT_EQ(htaKernelTypeOf("void at::ncclKernel_x"), T::Communication);  // contains ncclKernel
  EXPECT_EQ(htaKernelTypeOf("hipMemcpyAsync"), T::Communication);         // ^hip wins over memory
  EXPECT_EQ(htaKernelTypeOf("hcclAllReduce"), T::Communication);
  EXPECT_EQ(htaKernelTypeOf("Memcpy HtoD (Pageable -> Device)"), T::Memory);
  EXPECT_EQ(htaKernelTypeOf("Memset (Device)"), T::Memory);
  EXPECT_EQ(htaKernelTypeOf("dma_copy"), T::Memory);
  EXPECT_EQ(htaKernelTypeOf("Stream Sync"), T::Other);
  EXPECT_EQ(htaKernelTypeOf("Event Sync"), T::Other);
  EXPECT_EQ(htaKernelTypeOf("Stream Wait Event"), T::Other);
  EXPECT_EQ(htaKernelTypeOf("cudaLaunchKernel"), T::Other);
  EXPECT_EQ(htaKernelTypeOf("cudaLaunchKernelExC_v11060"), T::Other);
  EXPECT_EQ(htaKernelTypeOf("LaunchKernel"), T::Computation);  // not after "cuda"
  EXPECT_EQ(htaKernelTypeOf("my_Memcpy_kernel"), T::Other);    // contains Memcpy, not ^Memcpy
  EXPECT_EQ(htaKernelTypeOf("void at::native::vectorized_elementwise_kernel<4>"), T::Computation);
  EXPECT_EQ(htaKernelTypeOf("sm80_xmma_gemm_f16f16"), T::Computation);
  EXPECT_EQ(htaKernelTypeOf(""), T::Computation);
  EXPECT_STREQ(htaKernelTypeName(T::Communication), "COMMUNICATION");
}

TEST(RankBreakdownTest, SpanIdleComputeNonComputeOverlap) {
  using T = HtaKernelType;
  // compute [100,200) and [150,300); comm [250,400); memcpy [500,520); gap 400..500.
  std::vector<GpuActivity> a{{100, 200, T::Computation},
                             {150, 300, T::Computation},
                             {250, 400, T::Communication},
                             {500, 520, T::Memory}};
  RankBreakdown b = rankBreakdown(a);
  EXPECT_EQ(b.spanNs, 420u);                 // 520 - 100, not clipped
  EXPECT_EQ(b.idleNs, 420u - (300u + 20u));  // union of all = [100,400) + [500,520)
  EXPECT_EQ(b.computeNs, 200u);              // [100,300)
  EXPECT_EQ(b.nonComputeNs, 420u - 100u - 200u);
  EXPECT_TRUE(b.hasComm);
  EXPECT_EQ(b.commNs, 150u);
  EXPECT_EQ(b.overlapNs, 50u);  // [250,300)
  EXPECT_EQ(percentText(b.overlapNs, b.commNs), "33.33");
}

TEST(RankBreakdownTest, NoCommunicationHasNoOverlapAndEmptyIsZero) {
  RankBreakdown b = rankBreakdown({{10, 20, HtaKernelType::Computation}});
  EXPECT_FALSE(b.hasComm);
  EXPECT_EQ(b.spanNs, 10u);
  EXPECT_EQ(b.idleNs, 0u);
  RankBreakdown none = rankBreakdown({});
  EXPECT_EQ(none.spanNs, 0u);
  EXPECT_FALSE(none.hasComm);
}

TEST(RankBreakdownTest, ZeroLengthActivitiesCountForTheSpanOnly) {
  RankBreakdown b =
      rankBreakdown({{10, 10, HtaKernelType::Computation}, {30, 40, HtaKernelType::Computation}});
  EXPECT_EQ(b.spanNs, 30u);
  EXPECT_EQ(b.idleNs, 20u);
  EXPECT_EQ(b.computeNs, 10u);
}

// Communication means a communication interval of positive length (zero-length
// kernels drop out of the unions, as they always did): a rank whose only
// communication kernel has length 0 has no overlap value.
TEST(RankBreakdownTest, AZeroLengthCommunicationKernelIsNoCommunication) {
  RankBreakdown b =
      rankBreakdown({{10, 30, HtaKernelType::Computation}, {20, 20, HtaKernelType::Communication}});
  EXPECT_FALSE(b.hasComm);
  EXPECT_EQ(b.commNs, 0u);
  EXPECT_EQ(b.overlapNs, 0u);
}

TEST(RankBreakdownTest, PercentTextRoundsHalfUpExactly) {
  EXPECT_EQ(percentText(0, 0), "0.00");
  EXPECT_EQ(percentText(1, 3), "33.33");
  EXPECT_EQ(percentText(2, 3), "66.67");
  EXPECT_EQ(percentText(1, 8), "12.50");
  EXPECT_EQ(percentText(1, 20000), "0.01");  // 0.005 rounds up
  EXPECT_EQ(percentText(1, 20001), "0.00");
  EXPECT_EQ(percentText(5, 5), "100.00");
  EXPECT_EQ(percentText(UINT64_MAX, UINT64_MAX), "100.00");  // no overflow
  EXPECT_EQ(percentText(UINT64_MAX / 2, UINT64_MAX), "50.00");
}

}  // namespace
}  // namespace xstack
