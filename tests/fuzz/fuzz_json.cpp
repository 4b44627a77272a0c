// libFuzzer target: the JSON string writer. Whatever bytes go in, the
// output parses as a JSON string; valid UTF-8 without control characters
// comes back unchanged.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "xstack/core/TextWriting.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string out;
  xstack::JsonTextStats stats;
  xstack::appendJsonString(out, in, stats);
  auto parsed = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_string()) std::abort();
  if (stats.invalidUtf8 == 0 && parsed.get<std::string>() != in) std::abort();
  return 0;
}
