#include "xstack/core/WarningKinds.h"

#include <algorithm>

namespace xstack {

const char* severityName(Severity s) {
  switch (s) {
    case Severity::Note:
      return "note";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
  }
  return "unknown";
}

Expected<Warn> warnByName(std::string_view name) {
  const auto* end = std::end(kWarningKinds);
  const auto* at = std::lower_bound(
      std::begin(kWarningKinds), end, name,
      [](const WarningKind& k, std::string_view n) { return k.name < n; });  // sorted by name
  if (at == end || at->name != name)
    return Failure::read("unknown warning kind \"" + std::string(name) + "\"");
  return static_cast<Warn>(at - std::begin(kWarningKinds));
}

std::string warningKindsMarkdown() {
  std::string md = "| kind | severity | meaning | what you can do |\n|---|---|---|---|\n";
  for (const WarningKind& k : kWarningKinds) {
    md += "| `" + std::string(k.name) + "` | " + severityName(k.severity) + " | ";
    md += std::string(k.meaning) + " | " + std::string(k.action) + " |\n";
  }
  return md;
}

}  // namespace xstack
