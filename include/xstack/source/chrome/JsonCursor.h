// Tokenizer over one complete JSON value held contiguously in memory (one
// event object, distributedInfo): strings, numbers, literals and nested
// values, validated by the JSON grammar (RFC 8259; control characters inside
// strings are accepted). No meaning: the caller asks for the token it expects.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace xstack::chrome {

enum class JsonKind : uint8_t { String, Number, Object, Array, True, False, Null };

// Of parsing a value at the start of a text that may stop inside it.
enum class ParseOutcome : uint8_t {
  Parsed,    // the value parsed; its length is known
  NeedMore,  // the text ends inside the value: try again with more of it
  Malformed  // not JSON (the parser says what and where)
};

class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text) : text_(text) {}

  // Next non-whitespace byte (not consumed), '\0' at the end.
  char peek();
  // Consumes `c` if it is the next non-whitespace byte.
  bool consume(char c);
  // A string token: raw = the bytes between the quotes, escapes intact;
  // escaped = raw holds a backslash (decode with decodeJsonString).
  bool readString(std::string_view& raw, bool& escaped);
  // Any value: raw = its whole text (strings with their quotes).
  bool readValue(std::string_view& raw, JsonKind& kind);
  // Object members: call beginObject once, then nextMember until it returns
  // false with ok() still true (the closing '}' consumed).
  bool beginObject();
  bool nextMember(std::string_view& rawKey, bool& escapedKey);
  bool ok() const { return ok_; }
  // The text ended where more was needed: a failure may only mean the value
  // continues in text not given yet.
  bool hitEnd() const { return hitEnd_; }
  bool atEnd();
  uint64_t position() const { return pos_; }
  const char* failure() const { return failure_; }

 private:
  void skipWs();
  bool fail(const char* what);
  bool readNumber();
  bool readLiteral(std::string_view word);
  bool readNested(int depth);
  bool readAny(JsonKind& kind, int depth);

  std::string_view text_;
  uint64_t pos_ = 0;
  bool ok_ = true;
  bool firstMember_ = true;
  bool hitEnd_ = false;
  const char* failure_ = "";
};

// Appends the decoded UTF-8 of a raw string body (as JsonCursor::readString
// gives it) to out. A lone surrogate becomes U+FFFD. false: a bad escape.
bool decodeJsonString(std::string_view raw, std::string& out);

// Most nesting JsonCursor accepts (deeper: an error, never a stack overflow).
constexpr int kMaxJsonDepth = 512;

}  // namespace xstack::chrome
