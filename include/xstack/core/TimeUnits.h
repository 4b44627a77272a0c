// Time is integer nanoseconds everywhere inside xstack. Text inputs carry
// decimal seconds or milliseconds; traces carry decimal microseconds.
// Both conversions are exact decimal arithmetic, never binary floating point.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace xstack {

// Appends ns / 1000 as the shortest exact decimal: 1234567 -> "1234.567",
// 1234500 -> "1234.5", 1234000 -> "1234", 7 -> "0.007".
void appendMicros(std::string& out, uint64_t ns);
std::string formatMicros(uint64_t ns);

// Parses an unsigned decimal number ("1700000000.002464134", "12", "1.5e3")
// scaled by 10^scaleDigits into an integer: seconds -> ns uses 9, ms -> ns 6.
// Digits beyond the scale are truncated (sub-ns precision is dropped).
// Returns nullopt for anything that is not a finite non-negative decimal or
// whose result does not fit in 63 bits.
std::optional<uint64_t> parseScaledDecimal(std::string_view text, int scaleDigits);
inline std::optional<uint64_t> parseSecondsToNs(std::string_view t) {
  return parseScaledDecimal(t, 9);
}
inline std::optional<uint64_t> parseMillisToNs(std::string_view t) {
  return parseScaledDecimal(t, 6);
}

// The job's time origin and the clamping rule of docs/FORMAT.md section 3: a
// timestamp before the origin (or zero) renders as 0.
struct TimeOrigin {
  uint64_t ns = 0;
  // Nanoseconds after the origin, clamped at 0. `clamped` is set when the
  // value was before the origin.
  uint64_t since(uint64_t t, bool* clamped = nullptr) const {
    if (t < ns) {
      if (clamped) *clamped = true;
      return 0;
    }
    return t - ns;
  }
};

// Smallest non-zero timestamp accumulator; 0 means "none seen".
struct MinTimestamp {
  uint64_t value = 0;
  void add(uint64_t t) {
    if (t != 0 && (value == 0 || t < value)) value = t;
  }
  void merge(const MinTimestamp& o) { add(o.value); }
};

}  // namespace xstack
