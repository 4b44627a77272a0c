#include "xstack/core/TimeUnits.h"

#include <charconv>

namespace xstack {

void appendMicros(std::string& out, uint64_t ns) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, ns / 1000);
  out.append(buf, r.ptr);
  unsigned frac = static_cast<unsigned>(ns % 1000);
  if (frac == 0) return;
  char f[4] = {'.', char('0' + frac / 100), char('0' + frac / 10 % 10), char('0' + frac % 10)};
  size_t len = 4;
  while (f[len - 1] == '0') --len;
  out.append(f, len);
}

std::string formatMicros(uint64_t ns) {
  std::string s;
  appendMicros(s, ns);
  return s;
}

std::optional<uint64_t> parseScaledDecimal(std::string_view t, int scaleDigits) {
  size_t i = 0;
  if (i < t.size() && t[i] == '+') ++i;
  std::string digits;  // all significant digits, integer part then fraction
  int fracDigits = 0;
  bool any = false, dot = false;
  for (; i < t.size(); ++i) {
    char c = t[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (dot) ++fracDigits;
      if (!(digits.empty() && c == '0'))
        digits.push_back(c);
      else if (dot)
        digits.push_back(c);
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!any) return std::nullopt;
  long exponent = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
    size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      if (exponent < 100000) exponent = exponent * 10 + (t[i] - '0');
      ++i;
    }
    if (i == start) return std::nullopt;
    if (neg) exponent = -exponent;
  }
  if (i != t.size()) return std::nullopt;
  // value = digits * 10^(exponent - fracDigits); result = value * 10^scale.
  long shift = exponent - fracDigits + scaleDigits;
  // Strip leading zeros kept from the fraction part.
  size_t lead = 0;
  while (lead < digits.size() && digits[lead] == '0') ++lead;
  digits.erase(0, lead);
  if (shift < 0) {
    long drop = -shift;
    if (drop >= static_cast<long>(digits.size())) return uint64_t{0};
    digits.resize(digits.size() - static_cast<size_t>(drop));
    shift = 0;
  }
  if (digits.empty()) return uint64_t{0};
  if (static_cast<long>(digits.size()) + shift > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : digits) v = v * 10 + static_cast<uint64_t>(c - '0');
  for (long k = 0; k < shift; ++k) v *= 10;
  if (v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return v;
}

}  // namespace xstack
