// Streaming tokenizer over the JSON text of a ByteStream, through one bounded
// buffer: it finds where each value ends (a string-aware bracket scan) and
// either drops it (skipValue: any size, nothing kept) or hands it out whole
// and contiguous (captureValue: at most maxValueBytes). Memory: about
// 2 x (maxValueBytes + readBytes), whatever the document size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/source/chrome/ByteStream.h"
#include "xstack/source/chrome/JsonCursor.h"

namespace xstack::chrome {

// Parses one value in place for JsonStream::parseInPlace.
class InPlaceParser {
 public:
  virtual ~InPlaceParser() = default;
  // Parses the value at the start of `text` (text offset `offset`); Parsed
  // sets `used` to its length.
  virtual ParseOutcome parse(std::string_view text, uint64_t offset, uint64_t& used) = 0;
};

class JsonStream {
 public:
  JsonStream(ByteStream& source, uint64_t maxValueBytes, uint64_t readBytes);

  // Next non-whitespace byte, not consumed; -1 at the end of the text or on a
  // failure (error() set then). A UTF-8 BOM at the very start is skipped.
  int peek();
  void consume() { ++pos_; }
  // Consumes `c` as the next token, else records a NotJson/Truncated error.
  bool expect(char c, const char* where);
  // The next value's whole text (strings with quotes); valid until the next
  // call on this stream. offset = its first byte's offset.
  bool captureValue(std::string_view& text, uint64_t& offset);
  bool skipValue();
  // Hands the buffered text from the next value on to `parser`; NeedMore
  // reads more (keeping the value's start) and asks again, up to
  // maxValueBytes. One pass over the bytes in the usual case (the value is
  // in the buffer); a value across a refill is parsed again from its start.
  // false: Malformed (the parser's to report), truncated or too large.
  bool parseInPlace(InPlaceParser& parser);
  uint64_t offset() const { return base_ + pos_; }
  uint64_t bufferBytes() const { return buf_.size(); }  // it never shrinks: the peak
  const std::optional<ReadError>& error() const { return error_; }
  bool fail(ReadErrorKind kind, uint64_t offset, std::string message);

 private:
  bool fill();
  void makeRoom();
  bool scanValue(bool keep, uint64_t start);
  bool scanNested(uint64_t start, bool keep);
  bool scanString(uint64_t start, bool keep);
  bool bracket(char c, uint64_t at);
  bool scanScalar(uint64_t start, bool keep);
  uint64_t scanLimit(bool keep) const;
  bool overCap(uint64_t start, uint64_t i, bool keep);
  bool tooLarge(uint64_t start);
  bool truncated(const char* inside);

  ByteStream& source_;
  uint64_t maxValue_;
  uint64_t readBytes_;
  std::vector<char> buf_;
  uint64_t pos_ = 0;                // next unread byte in buf_
  uint64_t end_ = 0;                // bytes valid in buf_
  uint64_t base_ = 0;               // text offset of buf_[0]
  uint64_t keepFrom_ = UINT64_MAX;  // buf_ index kept across refills
  bool eof_ = false;
  bool bomChecked_ = false;
  std::string nest_;  // open brackets of the value being scanned
  std::optional<ReadError> error_;
};

}  // namespace xstack::chrome
