#include "xstack/source/chrome/ExactDecimal.h"

#include <limits>

namespace xstack::chrome {
namespace {

// The parts of a decimal number text: [-] intDigits [. fracDigits] [e|E [+-] exp].
struct DecimalText {
  bool negative = false;
  std::string_view intDigits;
  std::string_view fracDigits;
  int64_t exponent = 0;
};

bool isDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view takeDigits(std::string_view& text) {
  size_t n = 0;
  while (n < text.size() && isDigit(text[n])) ++n;
  std::string_view digits = text.substr(0, n);
  text.remove_prefix(n);
  return digits;
}

// Exponent digits; values beyond +-1e6 are clamped (no int64 holds them anyway).
bool takeExponent(std::string_view& text, int64_t& exponent) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::string_view digits = takeDigits(text);
  if (digits.empty()) return false;
  int64_t e = 0;
  for (char c : digits) e = e > 1000000 ? e : e * 10 + (c - '0');
  exponent = negative ? -e : e;
  return true;
}

bool splitDecimal(std::string_view text, DecimalText& out) {
  if (!text.empty() && text[0] == '-') {
    out.negative = true;
    text.remove_prefix(1);
  }
  out.intDigits = takeDigits(text);
  if (!text.empty() && text[0] == '.') {
    text.remove_prefix(1);
    out.fracDigits = takeDigits(text);
    if (out.fracDigits.empty()) return false;
  }
  if (out.intDigits.empty()) return false;
  if (!text.empty() && (text[0] == 'e' || text[0] == 'E')) {
    text.remove_prefix(1);
    if (!takeExponent(text, out.exponent)) return false;
  }
  return text.empty();
}

// The digit at index i of intDigits followed by fracDigits.
int digitAt(const DecimalText& d, uint64_t i) {
  uint64_t n = d.intDigits.size();
  return (i < n ? d.intDigits[i] : d.fracDigits[i - n]) - '0';
}

struct Scaled {
  uint64_t magnitude = 0;
  bool exact = true;  // no nonzero digit dropped
  bool fits = true;
};

// The digits with the decimal point moved to `point` (digits before it form
// the integer), truncated.
Scaled scaleDigits(const DecimalText& d, int64_t point) {
  Scaled out;
  const int64_t count = static_cast<int64_t>(d.intDigits.size() + d.fracDigits.size());
  for (int64_t i = 0; i < count; ++i) {
    int digit = digitAt(d, static_cast<uint64_t>(i));
    if (i >= point) {
      out.exact = out.exact && digit == 0;
      continue;
    }
    if (out.magnitude == 0 && digit == 0) continue;
    if (__builtin_mul_overflow(out.magnitude, 10u, &out.magnitude) ||
        __builtin_add_overflow(out.magnitude, static_cast<unsigned>(digit), &out.magnitude)) {
      out.fits = false;
      return out;
    }
  }
  for (int64_t i = count; i < point && out.magnitude != 0; ++i) {
    if (__builtin_mul_overflow(out.magnitude, 10u, &out.magnitude)) {
      out.fits = false;
      return out;
    }
  }
  return out;
}

std::optional<int64_t> toSigned(const Scaled& s, bool negative) {
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (!s.fits || s.magnitude > kMax + (negative ? 1 : 0)) return std::nullopt;
  if (negative) return static_cast<int64_t>(0 - s.magnitude);
  return static_cast<int64_t>(s.magnitude);
}

// The usual ts/dur text: [-]d{1,15}[.d+], no exponent, scale 0..3. Exact
// arithmetic within uint64 (10^15 x 10^3 < 2^63). nullopt: take the general path.
std::optional<int64_t> scaledFast(std::string_view text, int scale, bool requireExact) {
  const bool negative = !text.empty() && text[0] == '-';
  uint64_t i = negative ? 1 : 0;
  const uint64_t intStart = i;
  uint64_t v = 0;
  while (i < text.size() && isDigit(text[i]) && i - intStart < 15) v = v * 10 + (text[i++] - '0');
  if (i == intStart || scale > 3) return std::nullopt;
  int fracTaken = 0;
  if (i < text.size() && text[i] == '.') {
    const uint64_t fracStart = ++i;
    for (; i < text.size() && isDigit(text[i]); ++i) {
      if (fracTaken < scale) {
        v = v * 10 + (text[i] - '0');
        ++fracTaken;
      } else if (text[i] != '0' && requireExact) {
        return std::nullopt;
      }
    }
    if (i == fracStart) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;  // an exponent, 16+ digits or junk
  for (; fracTaken < scale; ++fracTaken) v *= 10;
  return negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

std::optional<int64_t> scaled(std::string_view text, int scale, bool requireExact) {
  if (std::optional<int64_t> fast = scaledFast(text, scale, requireExact)) return fast;
  DecimalText d;
  if (!splitDecimal(text, d)) return std::nullopt;
  int64_t point = static_cast<int64_t>(d.intDigits.size()) + d.exponent + scale;
  Scaled s = scaleDigits(d, point);
  if (requireExact && !s.exact) return std::nullopt;
  return toSigned(s, d.negative);
}

}  // namespace

std::optional<int64_t> parseScaledDecimal(std::string_view text, int scaleDigits) {
  return scaled(text, scaleDigits, false);
}

std::optional<int64_t> parseExactInteger(std::string_view text) { return scaled(text, 0, true); }

std::optional<int64_t> parseLeadingInteger(std::string_view text) {
  bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  std::string_view digits = takeDigits(text);
  if (digits.empty()) return std::nullopt;
  DecimalText d;
  d.negative = negative;
  d.intDigits = digits;
  return toSigned(scaleDigits(d, static_cast<int64_t>(digits.size())), negative);
}

}  // namespace xstack::chrome
