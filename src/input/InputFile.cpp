#include "xstack/input/InputFile.h"

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

static std::optional<int64_t> parseId(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::optional<int64_t> trailingId(std::string_view name) {
  auto dot = name.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  return parseId(name.substr(dot + 1));
}

std::optional<std::pair<int64_t, int64_t>> timeFileIds(std::string_view name) {
  auto dot2 = name.rfind('.');
  if (dot2 == std::string_view::npos || dot2 == 0) return std::nullopt;
  auto dot1 = name.rfind('.', dot2 - 1);
  if (dot1 == std::string_view::npos) return std::nullopt;
  auto g = parseId(name.substr(dot1 + 1, dot2 - dot1 - 1));
  auto t = parseId(name.substr(dot2 + 1));
  if (!g || !t) return std::nullopt;
  return std::make_pair(*g, *t);
}

}  // namespace xstack
