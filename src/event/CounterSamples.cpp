#include "xstack/event/CounterSamples.h"

namespace xstack {

const char* dcgmSeriesName(int series) {
  static constexpr const char* kSeriesNames[kDcgmSeriesCount] = {
      "GPUTL", "GRACT", "SMACT", "SMOCC", "FB_USED_RATIO", "DRAMA", "NVLTX",
      "NVLRX", "PCITX", "PCIRX", "FP32A", "FP16A",         "TENSO"};
  return series >= 0 && series < kDcgmSeriesCount ? kSeriesNames[series] : "";
}

}  // namespace xstack
