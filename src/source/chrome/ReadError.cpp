#include "xstack/source/chrome/ReadError.h"

namespace xstack::chrome {

const char* readErrorKindName(ReadErrorKind kind) {
  switch (kind) {
    case ReadErrorKind::Io:
      return "io";
    case ReadErrorKind::BadGzip:
      return "bad-gzip";
    case ReadErrorKind::Truncated:
      return "truncated";
    case ReadErrorKind::NotJson:
      return "not-json";
    case ReadErrorKind::NotTraceObject:
      return "not-trace-object";
    case ReadErrorKind::NoTraceEvents:
      return "no-trace-events";
    case ReadErrorKind::TraceEventsNotArray:
      return "trace-events-not-array";
    case ReadErrorKind::EventNotObject:
      return "event-not-object";
    case ReadErrorKind::EventTooLarge:
      return "event-too-large";
  }
  return "unknown";
}

std::string ReadError::text() const {
  return file + ": byte " + std::to_string(offset) + ": " + message;
}

}  // namespace xstack::chrome
