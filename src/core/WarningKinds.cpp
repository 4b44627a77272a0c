#include "xstack/core/WarningKinds.h"

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

const WarningKind* findWarningKind(std::string_view name) {
  for (const WarningKind& k : kWarningKinds)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace xstack
