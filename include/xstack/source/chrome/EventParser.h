// Field meaning of one event object: the JSON text of one traceEvents
// element (found by the stream tokenizer) to a TraceEvent.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/source/chrome/TraceEvent.h"

namespace xstack::chrome {

class EventParser {
 public:
  explicit EventParser(bool stripDurationSuffix = true) : stripSuffix_(stripDurationSuffix) {}

  // Parses the JSON object at the start of `text` (more may follow it). The
  // event's views point into text and this parser's arena: valid until the
  // next parse. empty(): the object was `{}`.
  ParseOutcome parsePrefix(std::string_view text, TraceEvent& event, uint64_t& used);
  // The same for a text holding exactly one object (whitespace around it).
  bool parse(std::string_view objectText, TraceEvent& event);
  bool empty() const { return members_ == 0; }
  const char* failure() const { return failure_; }
  uint64_t failureOffset() const { return failureOffset_; }

 private:
  bool member(std::string_view key, JsonCursor& in, TraceEvent& event);
  bool readText(JsonCursor& in, std::string_view& out);
  bool readId(JsonCursor& in, IdField& out);
  bool readTime(JsonCursor& in, TimeField& out);
  bool readArgs(JsonCursor& in, TraceEvent& event);
  bool readArg(JsonCursor& in, TraceEvent& event);
  std::string_view decoded(std::string_view raw, bool escaped);
  bool failAt(const JsonCursor& in, const char* what);

  bool stripSuffix_;
  // Decoded strings of the current event, one slot each: a deque never moves
  // its elements, and slots keep their capacity from event to event.
  std::deque<std::string> arena_;
  size_t arenaUsed_ = 0;
  uint64_t members_ = 0;
  std::vector<Arg> args_;
  bool badEscape_ = false;
  const char* failure_ = "";
  uint64_t failureOffset_ = 0;
};

// "Conv2d[1.234 ms]" -> "Conv2d" (also "[12 us]"); other names unchanged.
std::string_view stripDurationSuffix(std::string_view name);

}  // namespace xstack::chrome
