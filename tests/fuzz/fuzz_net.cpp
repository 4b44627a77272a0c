// libFuzzer target: arbitrary bytes as a net log. Must never crash, and every
// arg text the parser keeps (re-emitted verbatim into traces) must parse back
// as a JSON number.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "xstack/io/LineReader.h"
#include "xstack/source/paddle/NetParser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xstack;
  LineReaderOptions options;
  options.maxLineBytes = 4096;
  NetParser parser("fuzz.0");
  splitLines(
      std::string_view(reinterpret_cast<const char*>(data), size),
      [&](std::string_view line, const LineInfo& info) { parser.feedLine(line, info); },
      [&](const LineInfo& info, uint64_t length) { parser.overlongLine(info, length); }, options);
  for (const NetCounterSample& s : parser.samples()) {
    if (s.tsNs > static_cast<uint64_t>(INT64_MAX)) std::abort();
    for (const auto& [name, text] : s.args) {
      auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (!j.is_number()) std::abort();
    }
  }
  return 0;
}
