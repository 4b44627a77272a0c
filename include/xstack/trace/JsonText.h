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

void appendInt(std::string& out, int64_t v);
void appendUint(std::string& out, uint64_t v);
// Shortest text that reads back as the same double ("0.57", "1e-05"); a
// non-finite value is written as 0 (JSON has no NaN).
void appendDouble(std::string& out, double v);

}  // namespace xstack
