// Streaming JSON text: the pieces the trace writer appends to its buffers.
// Strings are escaped so that any input bytes give valid JSON: '"' and '\\'
// are escaped, control characters become \n, \t, ... or \u00XX, and every
// byte sequence that is not valid UTF-8 (overlong forms, surrogates, code
// points past U+10FFFF, cut sequences) becomes U+FFFD, one per maximal
// invalid subpart (the Unicode "substitution of maximal subparts" rule).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace xstack {

struct JsonTextStats {
  uint64_t invalidUtf8 = 0;   // U+FFFD substitutions
  uint64_t controlChars = 0;  // control characters escaped
};

// Appends "<escaped s>" including the quotes.
void appendJsonString(std::string& out, std::string_view s, JsonTextStats& stats);
void appendJsonString(std::string& out, std::string_view s);
// True when s is ASCII from 0x20 to 0x7f without '"' or '\\': then
// appendJsonString writes it as it is between its quotes (so it does valid
// UTF-8 beyond ASCII, for which this is false).
bool jsonPlain(std::string_view s);

// Appends s as valid UTF-8, the same text appendJsonString's output decodes
// to: each maximal invalid subpart becomes U+FFFD (counted in
// stats.invalidUtf8); every other byte, control characters included, is
// copied as it is. Used for protobuf strings (Perfetto output).
void appendValidUtf8(std::string& out, std::string_view s, JsonTextStats& stats);

// The one rule for names in xstack's text outputs (every CSV, report.html,
// diff.html): appends s as valid UTF-8 without control characters. Each
// maximal invalid subpart becomes U+FFFD (stats.invalidUtf8, as
// appendValidUtf8); every control character but TAB, LF and CR (C0 0x00-0x1f,
// DEL 0x7f, C1 U+0080-U+009F) becomes the six characters \u00XX (lower-case
// hex: ESC -> "\u001b"; stats.controlChars). TAB, LF and CR stay (a CSV
// field holding them is quoted). Everything else is copied as it is.
void appendVisibleText(std::string& out, std::string_view s, JsonTextStats& stats);
void appendVisibleText(std::string& out, std::string_view s);
std::string visibleText(std::string_view s);
// visibleText, then '<', '>', '&' and '"' as HTML character references.
std::string htmlText(std::string_view s);

void appendInt(std::string& out, int64_t v);
void appendUint(std::string& out, uint64_t v);
// `v` with 3 decimals ("12.346"): printf's "%.3f" (the exact value rounded,
// ties to even); a value that is not finite as "0.000".
std::string threeDecimalsText(double v);
void appendThreeDecimals(std::string& out, double v);
// Pointer-based writers for hot loops: each writes at p and returns the end.
// The caller guarantees room: 20 bytes for writeUint, 21 for writeInt, 24 for
// writeMicros. Same text as appendUint / appendInt / appendMicros.
char* writeUint(char* p, uint64_t v);
inline char* writeInt(char* p, int64_t v) {
  if (v < 0) {
    *p++ = '-';
    return writeUint(p, ~static_cast<uint64_t>(v) + 1);
  }
  return writeUint(p, static_cast<uint64_t>(v));
}
// appendThreeDecimals' text of `v` at p when it is finite and |v| < 2^53
// (room: 25 bytes), returning its end; nullptr (nothing written) otherwise:
// appendThreeDecimals prints those.
char* writeThreeDecimals(char* p, double v);
// Nanoseconds as exact microseconds: "12", "12.5", "12.345".
inline char* writeMicros(char* p, uint64_t ns) {
  p = writeUint(p, ns / 1000);
  unsigned frac = static_cast<unsigned>(ns % 1000);
  if (frac == 0) return p;
  p[0] = '.';
  p[1] = static_cast<char>('0' + frac / 100);
  p[2] = static_cast<char>('0' + frac / 10 % 10);
  p[3] = static_cast<char>('0' + frac % 10);
  size_t len = 4;
  while (p[len - 1] == '0') --len;
  return p + len;
}

// Shortest text that reads back as the same double ("0.57", "1e-05"); a
// non-finite value is written as 0 (JSON has no NaN).
void appendDouble(std::string& out, double v);

}  // namespace xstack
