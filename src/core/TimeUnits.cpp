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

namespace {

// The digits of "[+]ddd[.ddd]" from t[i] on: all significant digits, integer
// part then fraction, and how many of them follow the dot. Advances i.
struct Mantissa {
  std::string digits;
  int fracDigits = 0;
  bool any = false;  // at least one digit
};

Mantissa parseMantissa(std::string_view t, size_t& i) {
  Mantissa m;
  if (i < t.size() && t[i] == '+') ++i;
  bool dot = false;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    m.any = true;
    if (dot) ++m.fracDigits;
    if (dot || !(m.digits.empty() && c == '0')) m.digits.push_back(c);
  }
  return m;
}

// "[eE][+-]ddd" from t[i] on (absent: 0); nullopt when "e" has no digits.
// Exponents beyond 100000 are capped (the result is out of range anyway).
std::optional<long> parseExponent(std::string_view t, size_t& i) {
  if (i >= t.size() || (t[i] != 'e' && t[i] != 'E')) return 0L;
  ++i;
  bool neg = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
  const size_t start = i;
  long exponent = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i)
    if (exponent < 100000) exponent = exponent * 10 + (t[i] - '0');
  if (i == start) return std::nullopt;
  return neg ? -exponent : exponent;
}

// digits x 10^shift, exactly, when it fits in int64 (digits dropped by a
// negative shift are truncated).
std::optional<uint64_t> scaleDigits(std::string digits, long shift) {
  size_t lead = 0;  // leading zeros kept from the fraction part
  while (lead < digits.size() && digits[lead] == '0') ++lead;
  digits.erase(0, lead);
  if (shift < 0) {
    const long drop = -shift;
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

}  // namespace

std::optional<uint64_t> parseScaledDecimal(std::string_view t, int scaleDigits) {
  size_t i = 0;
  Mantissa m = parseMantissa(t, i);
  if (!m.any) return std::nullopt;
  std::optional<long> exponent = parseExponent(t, i);
  if (!exponent || i != t.size()) return std::nullopt;
  // value = digits * 10^(exponent - fracDigits); result = value * 10^scale.
  return xstack::scaleDigits(std::move(m.digits), *exponent - m.fracDigits + scaleDigits);
}

}  // namespace xstack
