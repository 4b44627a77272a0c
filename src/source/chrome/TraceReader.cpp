#include "xstack/source/chrome/TraceReader.h"

#include <algorithm>
#include <fstream>

#include "xstack/source/chrome/ByteStream.h"
#include "xstack/source/chrome/EventParser.h"
#include "xstack/source/chrome/ExactDecimal.h"
#include "xstack/source/chrome/JsonStream.h"

namespace xstack::chrome {

std::optional<int64_t> baseTimeFromText(std::string_view raw, JsonKind kind) {
  if (kind == JsonKind::String) {
    if (raw.size() < 3 || raw.size() > 21) return std::nullopt;  // "" or beyond int64
    raw = raw.substr(1, raw.size() - 2);
    if (!std::all_of(raw.begin(), raw.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
  } else if (kind != JsonKind::Number) {
    return std::nullopt;
  }
  std::optional<int64_t> ns = parseExactInteger(raw);
  if (!ns || *ns < 0) return std::nullopt;
  return ns;
}

namespace {

// A value's JSON text as a message quotes it: at most 40 bytes, printable ASCII.
std::string shortText(std::string_view raw) {
  std::string out;
  for (char c : raw.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (raw.size() > 40) out += "...";
  return out;
}

enum class WalkMode : uint8_t {
  Events,  // parse every event and hand it out
  Header,  // skip traceEvents' contents
  Sniff,   // stop where traceEvents' '[' is
};

// The top-level object of one document, walked key by key.
class Walker : public InPlaceParser {
 public:
  Walker(JsonStream& in, const ReadOptions& options, const EventCallback* onEvent, WalkMode mode)
      : in_(in), parser_(options.stripDurationSuffix), onEvent_(onEvent), mode_(mode) {}

  // false: an error (in the stream) or, in Sniff mode, traceEvents reached.
  bool run(TraceInfo& info);
  bool reachedEvents() const { return reachedEvents_; }
  // One event, parsed where it lies in the stream's buffer.
  ParseOutcome parse(std::string_view text, uint64_t offset, uint64_t& used) override;

 private:
  bool root();
  bool readKey(std::string& key);
  bool member(const std::string& key);
  bool traceEvents();
  bool oneEvent();
  bool distributedInfo();
  bool deviceProperties();
  bool keptScalar(std::string_view& raw, JsonKind& kind, uint64_t& offset);
  void rankOf(const Arg& arg);
  void baseTime(std::string_view raw, JsonKind kind);
  bool notJsonIn(const JsonCursor& cursor, uint64_t offset, const char* what);

  JsonStream& in_;
  EventParser parser_;
  const EventCallback* onEvent_;
  WalkMode mode_;
  TraceInfo* info_ = nullptr;
  TraceEvent event_;
  bool reachedEvents_ = false;
};

bool Walker::notJsonIn(const JsonCursor& cursor, uint64_t offset, const char* what) {
  return in_.fail(ReadErrorKind::NotJson, offset + cursor.position(),
                  std::string(what) + ": " + cursor.failure());
}

bool Walker::readKey(std::string& key) {
  std::string_view raw;
  uint64_t offset = 0;
  if (in_.peek() != '"') return in_.expect('"', "to start a top-level key");
  if (!in_.captureValue(raw, offset)) return false;
  JsonCursor cursor(raw);
  bool escaped = false;
  key.clear();
  if (!cursor.readString(raw, escaped) || !decodeJsonString(raw, key)) {
    return notJsonIn(cursor, offset, "bad top-level key");
  }
  return true;
}

// A kept top-level value (schemaVersion, baseTimeNanoseconds) validated.
bool Walker::keptScalar(std::string_view& raw, JsonKind& kind, uint64_t& offset) {
  std::string_view text;
  if (!in_.captureValue(text, offset)) return false;
  JsonCursor cursor(text);
  if (!cursor.readValue(raw, kind) || !cursor.atEnd()) {
    return notJsonIn(cursor, offset, "bad top-level value");
  }
  return true;
}

// distributedInfo.rank: an integer >= 0, as a number or a numeric string; anything else
// is no rank, said (never taken for a missing rank, nor for rank 0).
void Walker::rankOf(const Arg& arg) {
  std::optional<int64_t> rank = argRawToInt(arg);
  if (rank && *rank >= 0) {
    info_->rank = rank;
    info_->rankProblem.clear();
    return;
  }
  info_->rank.reset();
  info_->rankProblem = "distributedInfo.rank " + shortText(arg.rawValue) + " is not a rank";
}

// baseTimeNanoseconds: the first usable value is the base; an unusable one, or a second
// one that differs, is a problem of the file (never a base of 0).
void Walker::baseTime(std::string_view raw, JsonKind kind) {
  info_->hasBaseTimeKey = true;
  std::optional<int64_t> base = baseTimeFromText(raw, kind);
  if (!info_->baseTimeProblem.empty()) return;
  if (!base) {
    info_->baseTimeProblem = "baseTimeNanoseconds " + shortText(raw) +
                             " is not an integer count of ns (a number such as "
                             "1711964646000000000, or a string of digits)";
  } else if (info_->baseTimeNs && *info_->baseTimeNs != *base) {
    info_->baseTimeProblem = "two different baseTimeNanoseconds, " +
                             std::to_string(*info_->baseTimeNs) + " and " + std::to_string(*base);
  } else {
    info_->baseTimeNs = base;
  }
}

bool Walker::distributedInfo() {
  std::string_view text;
  uint64_t offset = 0;
  if (!in_.captureValue(text, offset)) return false;
  JsonCursor cursor(text);
  if (cursor.peek() != '{') {
    JsonKind kind;
    return cursor.readValue(text, kind) || notJsonIn(cursor, offset, "bad distributedInfo");
  }
  std::string_view key;
  bool escaped = false;
  cursor.beginObject();
  while (cursor.nextMember(key, escaped)) {
    Arg arg;
    if (!cursor.readValue(arg.rawValue, arg.kind)) break;
    if (key == "rank") rankOf(arg);
    if (key == "world_size") info_->worldSize = argRawToInt(arg);
  }
  if (!cursor.ok()) return notJsonIn(cursor, offset, "bad distributedInfo");
  if (info_->hasTraceEvents) info_->headerAfterEvents = true;
  return true;
}

// deviceProperties: an array with one element per GPU the process saw;
// only their number is kept. Not an array: skipped (unknown shape, not fatal).
bool Walker::deviceProperties() {
  std::string_view text;
  uint64_t offset = 0;
  if (!in_.captureValue(text, offset)) return false;
  JsonCursor cursor(text);
  if (!cursor.consume('[')) {
    JsonKind kind;
    return cursor.readValue(text, kind) || notJsonIn(cursor, offset, "bad deviceProperties");
  }
  int64_t n = 0;
  if (!cursor.consume(']')) {
    for (;;) {
      std::string_view raw;
      JsonKind kind;
      if (!cursor.readValue(raw, kind)) return notJsonIn(cursor, offset, "bad deviceProperties");
      ++n;
      if (cursor.consume(']')) break;
      if (!cursor.consume(',')) return notJsonIn(cursor, offset, "bad deviceProperties");
    }
  }
  info_->visibleGpus = n;
  return true;
}

ParseOutcome Walker::parse(std::string_view text, uint64_t offset, uint64_t& used) {
  event_.offset = offset;
  ParseOutcome outcome = parser_.parsePrefix(text, event_, used);
  if (outcome == ParseOutcome::Malformed) {
    in_.fail(ReadErrorKind::NotJson, offset + parser_.failureOffset(),
             std::string("bad event: ") + parser_.failure());
  }
  return outcome;
}

bool Walker::oneEvent() {
  if (!in_.parseInPlace(*this)) return false;
  if (parser_.empty()) {
    ++info_->emptyObjects;
    return true;
  }
  ++info_->events;
  (*onEvent_)(event_);
  return true;
}

bool Walker::traceEvents() {
  info_->hasTraceEvents = true;
  int c = in_.peek();
  if (c != '[') {
    if (c < 0) return in_.expect('[', "to start traceEvents");
    return in_.fail(ReadErrorKind::TraceEventsNotArray, in_.offset(),
                    "traceEvents is not an array");
  }
  if (mode_ == WalkMode::Sniff) {
    reachedEvents_ = true;
    return false;
  }
  if (mode_ == WalkMode::Header) return in_.skipValue();
  in_.consume();
  if (in_.peek() == ']') {
    in_.consume();
    return true;
  }
  for (;;) {
    c = in_.peek();
    if (c != '{') {
      if (c < 0) return in_.expect('{', "to start an event");
      return in_.fail(ReadErrorKind::EventNotObject, in_.offset(),
                      "an element of traceEvents is not an object");
    }
    if (!oneEvent()) return false;
    if (in_.peek() == ']') break;
    if (!in_.expect(',', "between events")) return false;
  }
  in_.consume();
  return true;
}

bool Walker::member(const std::string& key) {
  if (key == "traceEvents") return traceEvents();
  if (key == "distributedInfo") return distributedInfo();
  if (key == "deviceProperties") return deviceProperties();
  if (key == "span_indx") info_->hasSpanIndx = true;
  if (key != "baseTimeNanoseconds" && key != "schemaVersion") return in_.skipValue();
  std::string_view raw;
  JsonKind kind;
  uint64_t offset = 0;
  if (!keptScalar(raw, kind, offset)) return false;
  if (key == "schemaVersion") {  // 1 (Kineto) or "1.0.1" (Paddle): its text
    info_->schemaVersion.clear();
    info_->schemaVersionIsString = kind == JsonKind::String;
    if (kind == JsonKind::String) {
      decodeJsonString(raw.substr(1, raw.size() - 2), info_->schemaVersion);
    } else {
      info_->schemaVersion.assign(raw);
    }
    return true;
  }
  baseTime(raw, kind);
  if (info_->hasTraceEvents) info_->headerAfterEvents = true;
  return true;
}

bool Walker::root() {
  int c = in_.peek();
  if (c != '{') {
    if (c < 0) return in_.expect('{', "to start the document (empty text)");
    bool jsonStart = c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
                     c == 'f' || c == 'n';
    return in_.fail(jsonStart ? ReadErrorKind::NotTraceObject : ReadErrorKind::NotJson,
                    in_.offset(),
                    jsonStart ? "the document is not a JSON object" : "not JSON text");
  }
  in_.consume();
  if (in_.peek() == '}') {
    in_.consume();
    return true;
  }
  std::string key;
  for (;;) {
    if (!readKey(key) || !in_.expect(':', "after a top-level key") || !member(key)) return false;
    if (in_.peek() == '}') break;
    if (!in_.expect(',', "between top-level keys")) return false;
  }
  in_.consume();
  return true;
}

bool Walker::run(TraceInfo& info) {
  info_ = &info;
  if (!root()) return false;
  if (in_.peek() >= 0) {
    return in_.fail(ReadErrorKind::NotJson, in_.offset(), "bytes after the end of the document");
  }
  if (in_.error()) return false;
  if (!info.hasTraceEvents) {
    return in_.fail(ReadErrorKind::NoTraceEvents, in_.offset(),
                    "a JSON object without a traceEvents key");
  }
  return true;
}

ReadResult walk(ByteStream& source, const ReadOptions& options, const EventCallback* onEvent,
                WalkMode mode) {
  ReadResult result;
  JsonStream in(source, options.maxEventBytes, options.readBytes);
  Walker walker(in, options, onEvent, mode);
  walker.run(result.info);
  result.error = in.error();
  result.info.textBytes = source.textBytesRead();
  result.info.textDigest = source.textDigest();
  result.info.bufferBytes = in.bufferBytes();
  result.info.gzip = source.gzip();
  return result;
}

ReadResult openAndWalk(const std::string& path, const ReadOptions& options,
                       const EventCallback* onEvent, WalkMode mode) {
  std::optional<ReadError> error;
  std::unique_ptr<ByteStream> source = ByteStream::openFile(path, options.readBytes, error);
  if (!source) return ReadResult{TraceInfo{}, error};
  return walk(*source, options, onEvent, mode);
}

}  // namespace

ReadResult readTrace(const std::string& path, const EventCallback& onEvent,
                     const ReadOptions& options) {
  return openAndWalk(path, options, &onEvent, WalkMode::Events);
}

ReadResult readTraceBytes(std::string_view bytes, const std::string& name,
                          const EventCallback& onEvent, const ReadOptions& options) {
  std::unique_ptr<ByteStream> source = ByteStream::fromMemory(bytes, name, options.readBytes);
  return walk(*source, options, &onEvent, WalkMode::Events);
}

ReadResult readTraceHeader(const std::string& path, const ReadOptions& options) {
  return openAndWalk(path, options, nullptr, WalkMode::Header);
}

ReadResult readTraceHead(const std::string& path, const ReadOptions& options) {
  return openAndWalk(path, options, nullptr, WalkMode::Sniff);
}

SniffResult sniffTrace(std::string_view head) {
  ReadOptions options;
  options.maxEventBytes = head.size() + 1;
  options.readBytes = 64ull << 10;
  std::unique_ptr<ByteStream> source = ByteStream::fromMemory(head, "head", options.readBytes);
  JsonStream in(*source, options.maxEventBytes, options.readBytes);
  Walker walker(in, options, nullptr, WalkMode::Sniff);
  TraceInfo info;
  walker.run(info);
  if (walker.reachedEvents()) return SniffResult::Trace;
  if (in.error() && in.error()->kind == ReadErrorKind::Truncated) return SniffResult::Unknown;
  return SniffResult::NotTrace;
}

SniffResult sniffTraceFile(const std::string& path, uint64_t headBytes) {
  std::ifstream in(path, std::ios::binary);
  std::string head(headBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(headBytes));
  head.resize(static_cast<size_t>(in.gcount()));
  if (!in && !in.eof()) return SniffResult::NotTrace;
  SniffResult result = sniffTrace(head);
  // A whole file that is shorter than the head: Unknown means cut short.
  return result == SniffResult::Unknown && head.size() < headBytes ? SniffResult::NotTrace : result;
}

}  // namespace xstack::chrome
