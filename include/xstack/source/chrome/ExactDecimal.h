// Decimal number text to exact integers, without floating point: JSON
// numbers (optional '-', digits, optional fraction, optional exponent) and
// the same text inside a JSON string ("108", "607312.0").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace xstack::chrome {

// value x 10^scaleDigits, truncated toward zero (digits below the scale are
// dropped). nullopt: not a decimal number, or outside int64.
std::optional<int64_t> parseScaledDecimal(std::string_view text, int scaleDigits);

// Microseconds text ("607312", "607312.0", "1711964646000.123", "1.5e3") to
// int64 nanoseconds; fractions below 1 ns are truncated.
inline std::optional<int64_t> parseMicrosToNanos(std::string_view text) {
  return parseScaledDecimal(text, 3);
}

// An integer value: "108", "108.0", "1e3"; nullopt for "1.5" (not integral),
// non-numbers and values outside int64.
std::optional<int64_t> parseExactInteger(std::string_view text);

// A leading integer: "123(C++)" -> 123 (rest = "(C++)"), "-1" -> -1;
// nullopt when the text does not start with '-'? digit.
std::optional<int64_t> parseLeadingInteger(std::string_view text);

}  // namespace xstack::chrome
