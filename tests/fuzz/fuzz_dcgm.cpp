// libFuzzer target: arbitrary bytes as a DCGM log. Must never crash; every
// line the splitter yields must respect its contract, and every kept value
// must be finite and non-negative.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "xstack/io/LineReader.h"
#include "xstack/source/paddle/DcgmParser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xstack;
  LineReaderOptions options;
  options.maxLineBytes = 512;  // small, so that overlong lines are reached too
  DcgmParser parser("fuzz.0");
  uint64_t expectNumber = 1;
  splitLines(
      std::string_view(reinterpret_cast<const char*>(data), size),
      [&](std::string_view line, const LineInfo& info) {
        if (info.number != expectNumber++ || line.size() > options.maxLineBytes ||
            line.find('\n') != std::string_view::npos)
          std::abort();
        parser.feedLine(line, info);
      },
      [&](const LineInfo& info, uint64_t length) {
        if (info.number != expectNumber++ || length <= options.maxLineBytes) std::abort();
        parser.overlongLine(info, length);
      },
      options);
  for (const GpuTelemetrySample& s : parser.samples()) {
    if (s.gpu < 0 || s.present >> kDcgmSeriesCount) std::abort();
    for (int k = 0; k < kDcgmSeriesCount; ++k)
      if (s.has(k) && !(std::isfinite(s.values[k]) && s.values[k] >= 0)) std::abort();
  }
  return 0;
}
