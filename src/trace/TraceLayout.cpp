#include "xstack/trace/TraceLayout.h"

#include "xstack/input/DcgmParser.h"

namespace xstack {

const char* fixedProcessName(int64_t pid) {
  static const char* kNames[] = {"00_pipeline",  "01_gpuUtility", "02_smUtility", "03_memUtility",
                                 "04_txUtility", "05_calUtility", "06_net_tx",    "07_net_rx"};
  return pid >= 0 && pid < kFirstRankPid ? kNames[pid] : nullptr;
}

SeriesRange dcgmSeriesOfPid(int64_t pid) {
  switch (pid) {
    case kFirstDcgmPid:
      return {kGPUTL, 2};
    case kFirstDcgmPid + 1:
      return {kSMACT, 2};
    case kFirstDcgmPid + 2:
      return {kFB_USED_RATIO, 2};
    case kFirstDcgmPid + 3:
      return {kNVLTX, 4};
    case kFirstDcgmPid + 4:
      return {kFP32A, 3};
  }
  return {0, 0};
}

}  // namespace xstack
