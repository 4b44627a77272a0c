#include "xstack/event/InputFile.h"

namespace xstack {

const char* kindName(InputKind k) {
  switch (k) {
    case InputKind::Profile:
      return "profile";
    case InputKind::Dcgm:
      return "dcgm";
    case InputKind::Net:
      return "net";
    case InputKind::Time:
      return "time";
  }
  return "?";
}

std::optional<InputKind> kindFromName(std::string_view n) {
  if (n == "profile") return InputKind::Profile;
  if (n == "dcgm") return InputKind::Dcgm;
  if (n == "net") return InputKind::Net;
  if (n == "time") return InputKind::Time;
  return std::nullopt;
}
}  // namespace xstack
