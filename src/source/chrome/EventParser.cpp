#include "xstack/source/chrome/EventParser.h"

#include <array>
#include <cstdint>
#include <iterator>

#include "xstack/source/chrome/ExactDecimal.h"

namespace xstack::chrome {
namespace {

struct KnownSpelling {
  std::string_view key;
  ArgKey arg;
};

constexpr KnownSpelling kKnownArgs[] = {
    {"device", ArgKey::Device},
    {"stream", ArgKey::Stream},
    {"correlation", ArgKey::Correlation},
    {"correlation id", ArgKey::Correlation},
    {"External id", ArgKey::ExternalId},
    {"external id", ArgKey::ExternalId},
    {"bytes", ArgKey::Bytes},
    {"Bytes", ArgKey::MemoryBytes},
    {"Total Allocated", ArgKey::TotalAllocated},
    {"Total Reserved", ArgKey::TotalReserved},
    {"Device Type", ArgKey::DeviceType},
    {"Device Id", ArgKey::DeviceId},
    {"current_allocated", ArgKey::CurrentAllocated},
    {"current_reserved", ArgKey::CurrentReserved},
    {"place", ArgKey::Place},
    {"Collective name", ArgKey::CollectiveName},
    {"In msg nelems", ArgKey::InMsgNelems},
    {"Out msg nelems", ArgKey::OutMsgNelems},
    {"Group size", ArgKey::GroupSize},
    {"dtype", ArgKey::Dtype},
    {"Process Group Ranks", ArgKey::ProcessGroupRanks},
    {"name", ArgKey::Name},
    {"labels", ArgKey::Labels},
    {"sort_index", ArgKey::SortIndex},
    {"Addr", ArgKey::Addr},
    {"addr", ArgKey::Addr},
    {"increase_bytes", ArgKey::IncreaseBytes},
    {"Process Group Name", ArgKey::ProcessGroupName},
    {"Process Group Description", ArgKey::ProcessGroupDesc},
    {"Seq", ArgKey::Seq},
    {"Dst Rank", ArgKey::DstRank},
    {"Src Rank", ArgKey::SrcRank},
};

// A key's length with its first and last bytes: most keys differ from every
// known spelling in these, so only a near match costs a comparison (an
// args key is read for every arg of every event).
constexpr uint32_t signatureOf(std::string_view key) {
  if (key.empty()) return 0;
  return static_cast<uint32_t>(key.size() & 0xffff) << 16 |
         static_cast<uint32_t>(static_cast<unsigned char>(key.front())) << 8 |
         static_cast<unsigned char>(key.back());
}

constexpr auto kKnownSignatures = [] {
  std::array<uint32_t, std::size(kKnownArgs)> out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = signatureOf(kKnownArgs[i].key);
  return out;
}();

int knownArgIndex(std::string_view key) {
  const uint32_t sig = signatureOf(key);
  for (size_t i = 0; i < kKnownSignatures.size(); ++i)
    if (kKnownSignatures[i] == sig && kKnownArgs[i].key == key)
      return static_cast<int>(kKnownArgs[i].arg);
  return -1;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// "<digits>[.<digits>] ms" or "... us".
bool isDurationText(std::string_view t) {
  if (t.size() < 4 || t[t.size() - 3] != ' ') return false;
  std::string_view unit = t.substr(t.size() - 2);
  if (unit != "ms" && unit != "us") return false;
  t.remove_suffix(3);
  size_t dot = t.find('.');
  std::string_view whole = t.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? "" : t.substr(dot + 1);
  auto allDigits = [](std::string_view s) {
    for (char c : s) {
      if (!isDigit(c)) return false;
    }
    return true;
  };
  return !whole.empty() && allDigits(whole) && allDigits(frac) &&
         (dot == std::string_view::npos || !frac.empty());
}

// Which top-level event key a key is.
enum class Field : uint8_t { Ph, Name, Cat, Pid, Tid, Ts, Dur, Id, Bp, Scope, Args, Other };

Field fieldOf(std::string_view key) {
  switch (key.size()) {
    case 1:
      return key[0] == 's' ? Field::Scope : Field::Other;
    case 2:
      if (key == "ph") return Field::Ph;
      if (key == "ts") return Field::Ts;
      if (key == "id") return Field::Id;
      if (key == "bp") return Field::Bp;
      return Field::Other;
    case 3:
      if (key == "cat") return Field::Cat;
      if (key == "pid") return Field::Pid;
      if (key == "tid") return Field::Tid;
      if (key == "dur") return Field::Dur;
      return Field::Other;
    case 4:
      return key == "name" ? Field::Name : key == "args" ? Field::Args : Field::Other;
    default:
      return Field::Other;
  }
}

}  // namespace

std::string_view argKeyName(ArgKey key) {
  for (const KnownSpelling& k : kKnownArgs) {
    if (k.arg == key) return k.key;
  }
  return {};
}

// "0x1f" -> 31; nullopt when not all hex digits or beyond int64.
std::optional<int64_t> parseHex(std::string_view text) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
  uint64_t v = 0;
  for (char c : text.substr(2)) {
    const char lower = static_cast<char>(c | 0x20);
    int h = isDigit(c) ? c - '0' : (lower >= 'a' && lower <= 'f') ? lower - 'a' + 10 : -1;
    if (h < 0 || v > (UINT64_MAX >> 4)) return std::nullopt;
    v = v * 16 + static_cast<uint64_t>(h);
  }
  if (v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<int64_t> argRawToInt(const Arg& arg) {
  std::string_view raw = arg.rawValue;
  if (arg.kind == JsonKind::Number) return parseExactInteger(raw);
  if (arg.kind != JsonKind::String || raw.size() < 2) return std::nullopt;
  raw = raw.substr(1, raw.size() - 2);
  if (std::optional<int64_t> hex = parseHex(raw)) return hex;
  return parseExactInteger(raw);
}

std::optional<int64_t> TraceEvent::argInt(ArgKey key) const {
  const Arg* a = arg(key);
  return a ? argRawToInt(*a) : std::nullopt;
}

std::string_view stripDurationSuffix(std::string_view name) {
  if (name.size() < 6 || name.back() != ']') return name;
  size_t open = name.rfind('[');
  if (open == std::string_view::npos || open == 0) return name;
  std::string_view inside = name.substr(open + 1, name.size() - open - 2);
  return isDurationText(inside) ? name.substr(0, open) : name;
}

std::string_view EventParser::decoded(std::string_view raw, bool escaped) {
  if (!escaped) return raw;
  if (arenaUsed_ == arena_.size()) arena_.emplace_back();
  std::string& slot = arena_[arenaUsed_++];
  slot.clear();
  if (!decodeJsonString(raw, slot)) badEscape_ = true;
  return slot;
}

bool EventParser::failAt(const JsonCursor& in, const char* what) {
  failure_ = in.ok() ? what : in.failure();
  if (*failure_ == '\0') failure_ = what;
  failureOffset_ = in.position();
  return false;
}

// A string field decoded; any other value kind as its JSON text.
bool EventParser::readText(JsonCursor& in, std::string_view& out) {
  if (in.peek() == '"') {
    bool escaped;
    if (!in.readString(out, escaped)) return false;
    out = decoded(out, escaped);
    return true;
  }
  JsonKind kind;
  return in.readValue(out, kind);
}

bool EventParser::readId(JsonCursor& in, IdField& out) {
  const bool isString = in.peek() == '"';
  if (!readText(in, out.text)) return false;
  out.present = out.text != "null" || isString;
  std::optional<int64_t> v = !isString ? parseExactInteger(out.text) : parseHex(out.text);
  if (isString && !v) v = parseLeadingInteger(out.text);
  out.numeric = v.has_value();
  out.value = v.value_or(0);
  return true;
}

bool EventParser::readTime(JsonCursor& in, TimeField& out) {
  const bool isString = in.peek() == '"';
  std::string_view text;
  if (!readText(in, text)) return false;
  out.present = isString || text != "null";
  std::optional<int64_t> ns = out.present ? parseMicrosToNanos(text) : std::nullopt;
  out.valid = ns.has_value();
  out.ns = ns.value_or(0);
  return true;
}

bool EventParser::readArg(JsonCursor& in, TraceEvent& event) {
  Arg arg;
  if (!readText(in, arg.key)) return false;
  // readText decoded the key; the cursor stands after the key's closing quote.
  if (!in.consume(':')) return failAt(in, "expected ':' in args");
  if (!in.readValue(arg.rawValue, arg.kind)) return false;
  int known = knownArgIndex(arg.key);
  if (known >= 0) {
    event.known[static_cast<size_t>(known)] = static_cast<int32_t>(args_.size());
    std::string_view text = arg.rawValue;
    if (arg.kind == JsonKind::String) {
      bool escaped = text.find('\\') != std::string_view::npos;
      text = decoded(text.substr(1, text.size() - 2), escaped);
    }
    event.knownText[static_cast<size_t>(known)] = text;
  }
  args_.push_back(arg);
  return true;
}

bool EventParser::readArgs(JsonCursor& in, TraceEvent& event) {
  if (in.peek() != '{') {  // args that are not an object: kept out, not an error
    std::string_view raw;
    JsonKind kind;
    return in.readValue(raw, kind);
  }
  in.consume('{');
  if (in.consume('}')) return true;
  for (;;) {
    if (in.peek() != '"') return failAt(in, "expected an args key");
    if (!readArg(in, event)) return false;
    if (in.consume('}')) return true;
    if (!in.consume(',')) return failAt(in, "expected ',' or '}' in args");
  }
}

bool EventParser::member(std::string_view key, JsonCursor& in, TraceEvent& event) {
  std::string_view text;
  switch (fieldOf(key)) {
    case Field::Ph:
      if (!readText(in, text)) return false;
      event.ph = text.empty() ? '\0' : text[0];
      return true;
    case Field::Name:
      if (!readText(in, event.name)) return false;
      if (stripSuffix_) event.name = stripDurationSuffix(event.name);
      return true;
    case Field::Cat:
      event.hasCat = true;
      return readText(in, event.cat);
    case Field::Pid:
      return readId(in, event.pid);
    case Field::Tid:
      return readId(in, event.tid);
    case Field::Id:
      return readId(in, event.id);
    case Field::Ts:
      return readTime(in, event.ts);
    case Field::Dur:
      return readTime(in, event.dur);
    case Field::Bp:
      return readText(in, event.bp);
    case Field::Scope:
      return readText(in, event.scope);
    case Field::Args:
      return readArgs(in, event);
    case Field::Other:
      break;
  }
  JsonKind kind;
  return in.readValue(text, kind);
}

ParseOutcome EventParser::parsePrefix(std::string_view text, TraceEvent& event, uint64_t& used) {
  const uint64_t offset = event.offset;
  event = TraceEvent{};
  event.offset = offset;
  event.known.fill(-1);
  arenaUsed_ = 0;
  args_.clear();
  badEscape_ = false;
  members_ = 0;
  failure_ = "";
  JsonCursor in(text);
  bool ok = in.beginObject();
  std::string_view rawKey;
  bool escapedKey = false;
  while (ok && in.nextMember(rawKey, escapedKey)) {
    ++members_;
    ok = member(decoded(rawKey, escapedKey), in, event);
  }
  if (!ok || !in.ok()) {
    if (in.hitEnd()) return ParseOutcome::NeedMore;
    if (!in.ok() || *failure_ == '\0') failAt(in, "bad event");
    return ParseOutcome::Malformed;
  }
  if (badEscape_) {
    failAt(in, "bad string escape");
    return ParseOutcome::Malformed;
  }
  used = in.position();
  event.args = std::span<const Arg>(args_.data(), args_.size());
  return ParseOutcome::Parsed;
}

bool EventParser::parse(std::string_view objectText, TraceEvent& event) {
  uint64_t used = 0;
  ParseOutcome outcome = parsePrefix(objectText, event, used);
  if (outcome == ParseOutcome::NeedMore) {
    failure_ = "the object is cut short";
    failureOffset_ = objectText.size();
  }
  if (outcome != ParseOutcome::Parsed) return false;
  JsonCursor rest(objectText.substr(used));
  if (rest.atEnd()) return true;
  failure_ = "bytes after the event object";
  failureOffset_ = used;
  return false;
}

}  // namespace xstack::chrome
