#include "xstack/source/chrome/JsonCursor.h"

#include <cstring>

namespace xstack::chrome {
namespace {

bool isWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool readHex4(std::string_view raw, size_t at, uint32_t& out) {
  if (at + 4 > raw.size()) return false;
  out = 0;
  for (size_t i = 0; i < 4; ++i) {
    int h = hexValue(raw[at + i]);
    if (h < 0) return false;
    out = out * 16 + static_cast<uint32_t>(h);
  }
  return true;
}

void appendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// \uXXXX at raw[i] (i at the 'u'), with a following low surrogate when
// XXXX is a high one. Advances i past what it used.
bool decodeUnicode(std::string_view raw, size_t& i, std::string& out) {
  uint32_t cp = 0;
  if (!readHex4(raw, i + 1, cp)) return false;
  i += 5;
  if (cp >= 0xD800 && cp < 0xDC00) {
    uint32_t low = 0;
    if (i + 1 < raw.size() && raw[i] == '\\' && raw[i + 1] == 'u' && readHex4(raw, i + 2, low) &&
        low >= 0xDC00 && low < 0xE000) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      i += 6;
    } else {
      cp = 0xFFFD;
    }
  } else if (cp >= 0xDC00 && cp < 0xE000) {
    cp = 0xFFFD;
  }
  appendUtf8(cp, out);
  return true;
}

char simpleEscape(char c) {
  switch (c) {
    case '"':
      return '"';
    case '\\':
      return '\\';
    case '/':
      return '/';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    default:
      return '\0';
  }
}

// Every backslash of a string body starts a JSON escape.
bool validEscapes(std::string_view raw) {
  for (size_t i = raw.find('\\'); i != std::string_view::npos; i = raw.find('\\', i)) {
    if (i + 1 >= raw.size()) return false;
    uint32_t cp = 0;
    if (raw[i + 1] == 'u') {
      if (!readHex4(raw, i + 2, cp)) return false;
      i += 6;
    } else {
      if (simpleEscape(raw[i + 1]) == '\0') return false;
      i += 2;
    }
  }
  return true;
}

}  // namespace

bool decodeJsonString(std::string_view raw, std::string& out) {
  size_t i = 0;
  while (i < raw.size()) {
    const void* bs = std::memchr(raw.data() + i, '\\', raw.size() - i);
    size_t stop = bs ? static_cast<size_t>(static_cast<const char*>(bs) - raw.data()) : raw.size();
    out.append(raw.data() + i, stop - i);
    i = stop;
    if (i == raw.size()) break;
    if (i + 1 >= raw.size()) return false;
    if (raw[i + 1] == 'u') {
      ++i;
      if (!decodeUnicode(raw, i, out)) return false;
      continue;
    }
    char c = simpleEscape(raw[i + 1]);
    if (c == '\0') return false;
    out += c;
    i += 2;
  }
  return true;
}

void JsonCursor::skipWs() {
  if (pos_ < text_.size() && !isWs(text_[pos_])) return;
  // Kineto indents every key: runs of 8 spaces at a time.
  constexpr uint64_t kSpaces = 0x2020202020202020ull;
  while (pos_ < text_.size() && isWs(text_[pos_])) {
    ++pos_;
    uint64_t word = 0;
    while (pos_ + 8 <= text_.size() &&
           (std::memcpy(&word, text_.data() + pos_, 8), word == kSpaces)) {
      pos_ += 8;
    }
  }
}

bool JsonCursor::fail(const char* what) {
  if (ok_) failure_ = what;
  ok_ = false;
  return false;
}

char JsonCursor::peek() {
  skipWs();
  if (pos_ < text_.size()) return text_[pos_];
  hitEnd_ = true;
  return '\0';
}

bool JsonCursor::consume(char c) {
  if (peek() != c || pos_ >= text_.size()) return false;
  ++pos_;
  return true;
}

bool JsonCursor::atEnd() {
  skipWs();
  return pos_ == text_.size();
}

bool JsonCursor::readString(std::string_view& raw, bool& escaped) {
  if (!consume('"')) return fail("expected a string");
  const uint64_t start = pos_;
  escaped = false;
  for (;;) {
    const void* q = std::memchr(text_.data() + pos_, '"', text_.size() - pos_);
    if (!q) {
      hitEnd_ = true;
      return fail("unterminated string");
    }
    uint64_t quote = static_cast<uint64_t>(static_cast<const char*>(q) - text_.data());
    uint64_t slashes = 0;
    while (quote - slashes > start && text_[quote - slashes - 1] == '\\') ++slashes;
    if (!escaped) escaped = std::memchr(text_.data() + pos_, '\\', quote - pos_) != nullptr;
    pos_ = quote + 1;
    if (slashes % 2 == 0) break;
  }
  raw = text_.substr(start, pos_ - 1 - start);
  return !escaped || validEscapes(raw) || fail("bad string escape");
}

bool JsonCursor::readNumber() {
  uint64_t p = pos_;
  auto digits = [&] {
    uint64_t from = p;
    while (p < text_.size() && isDigit(text_[p])) ++p;
    if (p == text_.size()) hitEnd_ = true;
    return p > from;
  };
  if (p < text_.size() && text_[p] == '-') ++p;
  if (p < text_.size() && text_[p] == '0') {
    ++p;
  } else if (!digits()) {
    return fail("bad number");
  }
  if (p < text_.size() && text_[p] == '.' && (++p, !digits())) return fail("bad number fraction");
  if (p < text_.size() && (text_[p] == 'e' || text_[p] == 'E')) {
    ++p;
    if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
    if (!digits()) return fail("bad number exponent");
  }
  if (p == text_.size()) hitEnd_ = true;  // more digits may follow in more text
  pos_ = p;
  return true;
}

bool JsonCursor::readLiteral(std::string_view word) {
  std::string_view have = text_.substr(pos_, word.size());
  if (have != word) {
    if (have.size() < word.size() && word.substr(0, have.size()) == have) hitEnd_ = true;
    return fail("bad literal");
  }
  pos_ += word.size();
  return true;
}

// An object or an array at pos_, validated member by member.
bool JsonCursor::readNested(int depth) {
  if (depth >= kMaxJsonDepth) return fail("nesting too deep");
  const char close = text_[pos_] == '{' ? '}' : ']';
  ++pos_;
  if (consume(close)) return true;
  JsonKind kind;
  for (;;) {
    if (close == '}') {
      std::string_view key;
      bool escaped;
      if (!readString(key, escaped)) return false;
      if (!consume(':')) return fail("expected ':'");
    }
    if (!readAny(kind, depth + 1)) return false;
    if (consume(close)) return true;
    if (!consume(',')) return fail(close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

bool JsonCursor::readAny(JsonKind& kind, int depth) {
  char c = peek();
  switch (c) {
    case '"': {
      kind = JsonKind::String;
      std::string_view raw;
      bool escaped;
      return readString(raw, escaped);
    }
    case '{':
      kind = JsonKind::Object;
      return readNested(depth);
    case '[':
      kind = JsonKind::Array;
      return readNested(depth);
    case 't':
      kind = JsonKind::True;
      return readLiteral("true");
    case 'f':
      kind = JsonKind::False;
      return readLiteral("false");
    case 'n':
      kind = JsonKind::Null;
      return readLiteral("null");
    default:
      break;
  }
  kind = JsonKind::Number;
  if (c == '-' || isDigit(c)) return readNumber();
  return fail(c == '\0' ? "unexpected end of value" : "unexpected byte");
}

bool JsonCursor::readValue(std::string_view& raw, JsonKind& kind) {
  skipWs();
  uint64_t start = pos_;
  if (!readAny(kind, 0)) return false;
  raw = text_.substr(start, pos_ - start);
  return true;
}

bool JsonCursor::beginObject() {
  firstMember_ = true;
  return consume('{') || fail("expected an object");
}

bool JsonCursor::nextMember(std::string_view& rawKey, bool& escapedKey) {
  if (consume('}')) {
    firstMember_ = false;  // an enclosing object, if any, is inside a member
    return false;
  }
  if (!firstMember_ && !consume(',')) return fail("expected ',' or '}'");
  firstMember_ = false;
  if (!readString(rawKey, escapedKey)) return false;
  return consume(':') || fail("expected ':'");
}

}  // namespace xstack::chrome
