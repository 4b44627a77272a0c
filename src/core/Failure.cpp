#include "xstack/core/Failure.h"

namespace xstack {

const char* failureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::Usage:
      return "usage";
    case FailureKind::Conflict:
      return "conflict";
    case FailureKind::OutputDir:
      return "output_dir";
    case FailureKind::NoProfiles:
      return "no_profiles";
    case FailureKind::Read:
      return "read";
    case FailureKind::Write:
      return "write";
    case FailureKind::Commit:
      return "commit";
  }
  return "unknown";
}

int exitCodeFor(FailureKind kind) { return kind == FailureKind::Usage ? 2 : 1; }

}  // namespace xstack
