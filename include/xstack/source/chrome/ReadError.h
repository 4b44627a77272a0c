// Typed failures of the Chrome-trace JSON reader: what went wrong, in which
// file, at which byte offset of the JSON text (after gunzip for .json.gz).
#pragma once

#include <cstdint>
#include <string>

#include "xstack/core/Status.h"

namespace xstack::chrome {

enum class ReadErrorKind : uint8_t {
  Io,                   // open/read failed, or not a regular file
  BadGzip,              // gzip magic but a corrupt deflate stream
  Truncated,            // the text (or the gzip stream) ends inside the document
  NotJson,              // a byte that no JSON grammar allows here
  NotTraceObject,       // valid start, but the document is not a JSON object
  NoTraceEvents,        // an object without a "traceEvents" key
  TraceEventsNotArray,  // "traceEvents" holds something other than an array
  EventNotObject,       // an element of traceEvents is not an object
  EventTooLarge,        // one event (or kept top-level value) exceeds ReadOptions::maxEventBytes
};

const char* readErrorKindName(ReadErrorKind kind);

struct ReadError {
  ReadErrorKind kind = ReadErrorKind::NotJson;
  std::string file;
  uint64_t offset = 0;  // bytes of JSON text before the failure
  std::string message;

  // "<file>: byte <offset>: <message>"
  std::string text() const;
  // The one error value (core/Failure.h): text() as its message, with the file and offset.
  Error toError() const { return Error{text()}.atFile(file).atOffset(offset); }
};

}  // namespace xstack::chrome
