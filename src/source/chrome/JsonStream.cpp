#include "xstack/source/chrome/JsonStream.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace xstack::chrome {
namespace {

constexpr uint64_t kNoKeep = UINT64_MAX;
constexpr uint64_t kMaxSkipDepth = 1 << 16;  // bounds nest_ for hostile input

bool isWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

bool isScalarByte(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
         c == '+' || c == '.';
}

}  // namespace

JsonStream::JsonStream(ByteStream& source, uint64_t maxValueBytes, uint64_t readBytes)
    : source_(source), maxValue_(maxValueBytes), readBytes_(std::max<uint64_t>(readBytes, 1)) {
  buf_.resize(2 * readBytes_ + 64);
}

bool JsonStream::fail(ReadErrorKind kind, uint64_t offset, std::string message) {
  if (!error_) error_ = ReadError{kind, source_.name(), offset, std::move(message)};
  return false;
}

bool JsonStream::truncated(const char* inside) {
  if (error_) return false;
  return fail(ReadErrorKind::Truncated, base_ + end_, std::string("the text ends ") + inside);
}

// Drops the bytes nobody needs (before pos_ and keepFrom_) and grows the
// buffer when what is kept fills more than half of it, so each byte is moved
// O(1) times on average.
void JsonStream::makeRoom() {
  uint64_t from = std::min(keepFrom_, pos_);
  if (from > 0) {
    std::memmove(buf_.data(), buf_.data() + from, end_ - from);
    end_ -= from;
    pos_ -= from;
    if (keepFrom_ != kNoKeep) keepFrom_ -= from;
    base_ += from;
  }
  if (end_ + readBytes_ > buf_.size() || end_ * 2 > buf_.size()) {
    buf_.resize(std::max<uint64_t>(buf_.size() * 2, end_ + readBytes_));
  }
}

bool JsonStream::fill() {
  if (eof_ || error_) return false;
  if (end_ + readBytes_ > buf_.size()) makeRoom();
  uint64_t got = source_.read(buf_.data() + end_, readBytes_);
  if (got == 0) {
    eof_ = true;
    if (source_.error()) error_ = source_.error();
    return false;
  }
  end_ += got;
  return true;
}

int JsonStream::peek() {
  if (!bomChecked_) {
    while (end_ < 3 && fill()) {
    }
    bomChecked_ = true;
    if (end_ >= 3 && std::memcmp(buf_.data(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
  }
  for (;;) {
    while (pos_ < end_) {
      char c = buf_[pos_];
      if (!isWs(c)) return static_cast<unsigned char>(c);
      ++pos_;
    }
    if (!fill()) return -1;
  }
}

bool JsonStream::expect(char c, const char* where) {
  int next = peek();
  if (next == c) {
    consume();
    return true;
  }
  if (next < 0) return truncated(where);
  return fail(
      ReadErrorKind::NotJson, offset(),
      std::string("expected '") + c + "' " + where + ", found '" + static_cast<char>(next) + "'");
}

// Where a scan of the current buffer must stop: a kept value may hold at
// most maxValue_ bytes, so a too-large value fails at the same byte whatever
// the read pieces are.
uint64_t JsonStream::scanLimit(bool keep) const {
  return keep ? std::min(end_, keepFrom_ + maxValue_) : end_;
}

bool JsonStream::tooLarge(uint64_t start) {
  return fail(ReadErrorKind::EventTooLarge, start,
              "a value longer than the " + std::to_string(maxValue_) +
                  "-byte limit (ReadOptions::maxEventBytes) starts here");
}

bool JsonStream::overCap(uint64_t start, uint64_t i, bool keep) {
  if (!keep || i < keepFrom_ + maxValue_) return false;
  tooLarge(start);
  return true;
}

namespace {

// Where a string body that starts at b[i] ends, within [i, limit): the index
// after its closing quote (closed set), or limit (escape set when the last
// byte was a backslash). memchr finds the quotes and backslashes.
uint64_t stringEnd(const char* b, uint64_t i, uint64_t limit, bool& escape, bool& closed) {
  if (escape) {
    if (i == limit) return i;
    escape = false;
    ++i;
  }
  const char* quote = nullptr;
  for (;;) {
    if (!quote || quote < b + i)
      quote = static_cast<const char*>(std::memchr(b + i, '"', limit - i));
    const uint64_t q = quote ? static_cast<uint64_t>(quote - b) : limit;
    const void* slash = std::memchr(b + i, '\\', q - i);
    if (!slash) {
      closed = quote != nullptr;
      return quote ? q + 1 : limit;
    }
    i = static_cast<uint64_t>(static_cast<const char*>(slash) - b) + 1;  // the escaped byte
    if (i == limit) {
      escape = true;
      return limit;
    }
    ++i;
  }
}

// The bytes that matter to a bracket scan outside strings.
constexpr std::array<bool, 256> kStructural = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("\"{}[]")) t[c] = true;
  return t;
}();

}  // namespace

// One bracket (at b[i]) of a nested value: false on a mismatch.
bool JsonStream::bracket(char c, uint64_t at) {
  if (c == '{' || c == '[') {
    nest_.push_back(c == '{' ? '}' : ']');
    return nest_.size() <= kMaxSkipDepth || fail(ReadErrorKind::NotJson, at, "nesting too deep");
  }
  if (nest_.back() != c) return fail(ReadErrorKind::NotJson, at, "mismatched bracket");
  nest_.pop_back();
  return true;
}

// pos_ at '{' or '['; ends after the matching bracket.
bool JsonStream::scanNested(uint64_t start, bool keep) {
  nest_.clear();
  bool inString = false;
  bool escape = false;
  uint64_t i = pos_;
  for (;;) {
    const char* b = buf_.data();
    const uint64_t limit = scanLimit(keep);
    while (i < limit) {
      if (inString) {
        bool closed = false;
        i = stringEnd(b, i, limit, escape, closed);
        inString = !closed;
        continue;
      }
      while (i < limit && !kStructural[static_cast<unsigned char>(b[i])]) ++i;
      if (i == limit) break;
      const char c = b[i++];
      if (c == '"') {
        inString = true;
      } else if (!bracket(c, base_ + i - 1)) {
        return false;
      } else if (nest_.empty()) {
        pos_ = i;
        return true;
      }
    }
    pos_ = i;
    if (overCap(start, i, keep)) return false;
    if (!fill()) return truncated(inString ? "inside a string" : "inside an object or array");
    i = pos_;
  }
}

// pos_ at '"'; ends after the closing quote.
bool JsonStream::scanString(uint64_t start, bool keep) {
  bool escape = false;
  uint64_t i = pos_ + 1;
  for (;;) {
    bool closed = false;
    i = stringEnd(buf_.data(), i, scanLimit(keep), escape, closed);
    pos_ = i;
    if (closed) return true;
    if (overCap(start, i, keep)) return false;
    if (!fill()) return truncated("inside a string");
    i = pos_;
  }
}

// A number or literal: ends before the first byte that cannot be in one.
bool JsonStream::scanScalar(uint64_t start, bool keep) {
  for (;;) {
    const uint64_t limit = scanLimit(keep);
    while (pos_ < limit && isScalarByte(buf_[pos_])) ++pos_;
    if (pos_ < limit) return true;
    if (overCap(start, pos_, keep)) return false;
    if (!fill()) return truncated("inside a value");
  }
}

bool JsonStream::scanValue(bool keep, uint64_t start) {
  const char c = buf_[pos_];
  if (c == '{' || c == '[') return scanNested(start, keep);
  if (c == '"') return scanString(start, keep);
  if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
    return scanScalar(start, keep);
  }
  return fail(ReadErrorKind::NotJson, start,
              std::string("unexpected byte '") + c + "' where a value should start");
}

bool JsonStream::captureValue(std::string_view& text, uint64_t& offset) {
  if (peek() < 0) return truncated("where a value should start");
  offset = this->offset();
  keepFrom_ = pos_;
  bool ok = scanValue(true, offset);
  if (ok) text = std::string_view(buf_.data() + keepFrom_, pos_ - keepFrom_);
  keepFrom_ = kNoKeep;
  return ok;
}

bool JsonStream::parseInPlace(InPlaceParser& parser) {
  if (peek() < 0) return truncated("where a value should start");
  const uint64_t start = offset();
  keepFrom_ = pos_;
  for (;;) {
    const uint64_t avail = std::min(end_ - keepFrom_, maxValue_);
    uint64_t used = 0;
    ParseOutcome outcome =
        parser.parse(std::string_view(buf_.data() + keepFrom_, avail), start, used);
    if (outcome != ParseOutcome::NeedMore) {
      pos_ = outcome == ParseOutcome::Parsed ? keepFrom_ + used : pos_;
      keepFrom_ = kNoKeep;
      return outcome == ParseOutcome::Parsed;
    }
    pos_ = end_;
    if (avail >= maxValue_) {
      keepFrom_ = kNoKeep;
      return tooLarge(start);
    }
    if (!fill()) {
      keepFrom_ = kNoKeep;
      return truncated("inside a value");
    }
  }
}

bool JsonStream::skipValue() {
  if (peek() < 0) return truncated("where a value should start");
  return scanValue(false, offset());
}

}  // namespace xstack::chrome
