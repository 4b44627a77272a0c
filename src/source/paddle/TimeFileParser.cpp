#include "xstack/source/paddle/TimeFileParser.h"

#include "xstack/core/TimeUnits.h"

namespace xstack {
namespace {

constexpr std::string_view kSpace = " \t\r\v\f";

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

}  // namespace

void TimeFileParser::feedLine(std::string_view line, const LineInfo& info) {
  const std::string_view text = trim(line);
  if (text.empty()) return;  // blank lines carry nothing
  auto where = [&] { return path_ + ":" + std::to_string(info.number) + ": "; };
  constexpr std::string_view kStart = "start time:", kEnd = "end time:";
  const bool isStart = text.substr(0, kStart.size()) == kStart;
  const bool isEnd = !isStart && text.substr(0, kEnd.size()) == kEnd;
  if (!isStart && !isEnd) {
    warnings_.add(Warn::TimeNoiseLine, 1, where() + "not a \"start time:\" or \"end time:\" line");
    return;
  }
  const std::string_view value = trim(text.substr(isStart ? kStart.size() : kEnd.size()));
  const std::optional<uint64_t> ns = parseSecondsToNs(value);
  const char* what = isStart ? "start time" : "end time";
  if (!ns) {
    warnings_.add(Warn::TimeNoiseLine, 1,
                  where() + what + " is not a non-negative number of seconds");
    return;
  }
  std::optional<uint64_t>& slot = isStart ? startNs : endNs;
  if (slot) {
    warnings_.add(Warn::TimeRepeatedLine, 1, where() + "repeated " + what + ", first one kept");
    return;
  }
  slot = ns;
}

void TimeFileParser::overlongLine(const LineInfo& info, uint64_t length) {
  warnings_.add(Warn::TimeNoiseLine, 1,
                path_ + ":" + std::to_string(info.number) + ": line of " + std::to_string(length) +
                    " bytes skipped");
}

}  // namespace xstack
