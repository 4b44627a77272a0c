#include "xstack/core/TerminalText.h"

#include <algorithm>
#include <cstdint>

namespace xstack {
namespace {

// The length of the valid UTF-8 sequence of U+00A0 or above starting at text[i], or 0.
size_t printableUtf8Length(std::string_view text, size_t i) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(text[i + k]); };
  const uint8_t lead = b(0);
  size_t n = 0;
  uint32_t cp = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    n = 2, cp = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    n = 3, cp = lead & 0x0fu;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    n = 4, cp = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0u) != 0x80u) return 0;
    cp = cp << 6 | (b(k) & 0x3fu);
  }
  const uint32_t least[] = {0, 0, 0xa0, 0x800, 0x10000};  // no C1 control, no overlong form
  if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

}  // namespace

std::string terminalSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<uint8_t>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (const size_t n = c >= 0x80 ? printableUtf8Length(text, i) : 0; n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out.push_back('?');
      ++i;
    }
  }
  return out;
}

std::string terminalSafeLines(std::string_view text) {
  std::string out;
  for (size_t at = 0; at <= text.size();) {
    const size_t nl = std::min(text.find('\n', at), text.size());
    out += terminalSafe(text.substr(at, nl - at));
    if (nl < text.size()) out.push_back('\n');
    at = nl + 1;
  }
  return out;
}

std::string terminalExcerpt(std::string_view text, size_t maxBytes) {
  return "\"" + terminalSafe(text.substr(0, maxBytes)) + (text.size() > maxBytes ? "...\"" : "\"");
}

}  // namespace xstack
