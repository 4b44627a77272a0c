#include "xstack/source/paddle/ProfileDecoder.h"

#include <algorithm>
#include <string>
#include <utility>

namespace xstack {
namespace {

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLen = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5
};

// Deepest nesting of unknown groups skipped (protobuf's default recursion
// limit); deeper is an error, so a hostile file cannot recurse without bound.
constexpr int kMaxGroupDepth = 100;

class Cursor {
 public:
  Cursor(const char* begin, const char* end) : p_(begin), end_(end) {}
  bool done() const { return p_ >= end_; }
  const char* pos() const { return p_; }

  bool varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return false;
      uint8_t b = static_cast<uint8_t>(*p_++);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;  // more than 10 bytes
  }
  bool bytes(std::string_view& out) {
    uint64_t n;
    if (!varint(n)) return false;
    if (n > static_cast<uint64_t>(end_ - p_)) return false;
    out = std::string_view(p_, n);
    p_ += n;
    return true;
  }
  // Skips the value of a field whose tag (field number and wire type) was just
  // read. A group (wire type 3) is skipped up to its matching end tag (wire
  // type 4, same field number), nested groups included, as protobuf skips an
  // unknown group. A stray end tag, an unterminated group or a wire type 6/7
  // is an error.
  bool skip(uint64_t tag) {
    uint32_t wireType = static_cast<uint32_t>(tag & 7);
    if (wireType != kStartGroup) return skipScalar(wireType);
    return skipGroup(static_cast<uint32_t>(tag >> 3));
  }

 private:
  bool skipScalar(uint32_t wireType) {
    uint64_t v;
    std::string_view s;
    switch (wireType) {
      case kVarint:
        return varint(v);
      case kFixed64:
        if (end_ - p_ < 8) return false;
        p_ += 8;
        return true;
      case kFixed32:
        if (end_ - p_ < 4) return false;
        p_ += 4;
        return true;
      case kLen:
        return bytes(s);
      default:
        return false;  // an end group outside its group, and invalid types 6, 7
    }
  }
  // Iterative: `open` holds the field numbers of the groups not yet closed.
  bool skipGroup(uint32_t field) {
    uint32_t open[kMaxGroupDepth];
    int depth = 0;
    open[depth++] = field;
    while (depth > 0) {
      uint64_t tag;
      if (!varint(tag)) return false;
      uint32_t f = static_cast<uint32_t>(tag >> 3), wt = static_cast<uint32_t>(tag & 7);
      if (f == 0 || tag > 0xffffffffu) return false;
      if (wt == kEndGroup) {
        if (f != open[depth - 1]) return false;
        --depth;
      } else if (wt == kStartGroup) {
        if (depth == kMaxGroupDepth) return false;
        open[depth++] = f;
      } else if (!skipScalar(wt)) {
        return false;
      }
    }
    return true;
  }

  const char* p_;
  const char* end_;
};

// Each sub-decoder returns false on a malformed field.
bool decodeMemCopy(std::string_view b, uint64_t& bytes) {
  Cursor c(b.data(), b.data() + b.size());
  while (!c.done()) {
    uint64_t tag;
    if (!c.varint(tag)) return false;
    uint32_t field = static_cast<uint32_t>(tag >> 3), wt = tag & 7;
    if (field == 1 && wt == kVarint) {
      if (!c.varint(bytes)) return false;
    } else if (field == 0 || !c.skip(tag)) {
      return false;
    }
  }
  return true;
}

bool decodeEvent(std::string_view b, ProfileEvent& e) {
  Cursor c(b.data(), b.data() + b.size());
  while (!c.done()) {
    uint64_t tag, v;
    if (!c.varint(tag)) return false;
    uint32_t field = static_cast<uint32_t>(tag >> 3), wt = tag & 7;
    bool ok = true;
    if (wt == kVarint && field >= 2 && field <= 8 && field != 4 && field != 7) {
      ok = c.varint(v);
      switch (field) {
        case 2:
          e.startNs = v;
          break;
        case 3:
          e.endNs = v;
          break;
        case 5:
          e.deviceId = static_cast<int64_t>(v);
          break;
        case 6:
          e.subDeviceId = static_cast<int64_t>(v);
          break;
        case 8:
          e.type = static_cast<int64_t>(v);
          break;
      }
    } else if (wt == kLen && (field == 1 || field == 9 || field == 7)) {
      std::string_view s;
      ok = c.bytes(s);
      if (ok) {
        if (field == 1)
          e.name = s;
        else if (field == 9)
          e.detail = s;
        else
          ok = decodeMemCopy(s, e.memcopyBytes);
      }
    } else {
      ok = field != 0 && c.skip(tag);
    }
    if (!ok) return false;
  }
  return true;
}

bool decodeMemEvent(std::string_view b, ProfileMemEvent& m) {
  Cursor c(b.data(), b.data() + b.size());
  while (!c.done()) {
    uint64_t tag, v;
    if (!c.varint(tag)) return false;
    uint32_t field = static_cast<uint32_t>(tag >> 3), wt = tag & 7;
    bool ok = true;
    if (wt == kVarint && field >= 1 && field <= 6) {
      ok = c.varint(v);
      switch (field) {
        case 1:
          m.startNs = v;
          break;
        case 2:
          m.endNs = v;
          break;
        case 3:
          m.bytes = v;
          break;
        case 4:
          m.place = static_cast<int64_t>(v);
          break;
        case 5:
          m.threadId = v;
          break;
        case 6:
          m.deviceId = v & 0xffffffffu;
          break;  // uint32 on the wire
      }
    } else {
      ok = field != 0 && c.skip(tag);  // alloc_in, free_in: not used
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace

// A cheap first pass: how many events and memory events the buffer holds
// (up to the first malformed field), so the vectors are allocated once.
static void countTopLevel(std::string_view bytes, size_t& events, size_t& memEvents) {
  Cursor c(bytes.data(), bytes.data() + bytes.size());
  events = memEvents = 0;
  while (!c.done()) {
    uint64_t tag;
    if (!c.varint(tag)) return;
    uint32_t field = static_cast<uint32_t>(tag >> 3), wt = tag & 7;
    if (field == 0 || !c.skip(tag)) return;
    if (wt == kLen) {
      if (field == 1)
        ++events;
      else if (field == 4)
        ++memEvents;
    }
  }
}

namespace {

// The decoder's error: `what` failed at byte `offset` of the profile.
Error decodeError(uint64_t offset, std::string what) {
  return Failure::read(std::move(what)).atOffset(offset);
}

}  // namespace

Status decodeProfile(std::string_view bytes, ProfileSink& sink) {
  const char* base = bytes.data();
  Cursor c(base, base + bytes.size());
  auto fail = [base](const char* at, std::string what) -> Status {
    return decodeError(static_cast<uint64_t>(at - base), std::move(what));
  };
  while (!c.done()) {
    const char* fieldStart = c.pos();
    uint64_t tag, v;
    if (!c.varint(tag)) return fail(fieldStart, "bad field tag");
    uint32_t field = static_cast<uint32_t>(tag >> 3), wt = tag & 7;
    if ((field == 1 || field == 4) && wt == kLen) {
      std::string_view sub;
      if (!c.bytes(sub))
        return fail(fieldStart, field == 1
                                    ? "event cut short (length runs past end of file)"
                                    : "memory event cut short (length runs past end of file)");
      if (field == 1) {
        ProfileEvent e;
        if (!decodeEvent(sub, e)) return fail(fieldStart, "malformed event");
        sink.onEvent(e);
      } else {
        ProfileMemEvent m;
        if (!decodeMemEvent(sub, m)) return fail(fieldStart, "malformed memory event");
        sink.onMemEvent(m);
      }
    } else if ((field == 2 || field == 3) && wt == kVarint) {
      if (!c.varint(v)) return fail(fieldStart, "bad varint");
      if (field == 2)
        sink.onStartNs(v);
      else
        sink.onEndNs(v);
    } else if (field == 0 || !c.skip(tag)) {
      return fail(fieldStart, "bad field (number " + std::to_string(field) + ", wire type " +
                                  std::to_string(wt) + ")");
    }
  }
  return {};
}

Status decodeProfile(std::string_view bytes, ProfileData& out) {
  // With headroom: vectors are reused for the next profile (ProfileReader),
  // which is often a little larger; growing would allocate fresh pages.
  size_t nEvents, nMem;
  countTopLevel(bytes, nEvents, nMem);
  auto reserve = [](auto& v, size_t more) {
    if (v.size() + more > v.capacity()) v.reserve(v.size() + more + more / 8);
  };
  reserve(out.events, nEvents);
  reserve(out.memEvents, nMem);
  struct DataSink final : ProfileSink {
    ProfileData& d;
    explicit DataSink(ProfileData& out) : d(out) {}
    void onEvent(const ProfileEvent& e) override { d.events.push_back(e); }
    void onMemEvent(const ProfileMemEvent& m) override { d.memEvents.push_back(m); }
    void onStartNs(uint64_t ns) override {
      d.startNs = ns;
      d.hasStartNs = true;
    }
    void onEndNs(uint64_t ns) override {
      d.endNs = ns;
      d.hasEndNs = true;
    }
  } sink(out);
  return decodeProfile(bytes, sink);
}

namespace {

// Events larger than this are walked inside as they arrive (ProfilePrefixCheck).
constexpr uint64_t kWalkInsideBytes = 4 << 20;

// What the walk learns of the field at an offset.
struct WalkedField {
  enum State { Whole, Rejected, Cut, Group } state;  // Cut: the prefix ends too early to tell
  uint64_t end = 0;                                  // Whole: where it ends (tag included)
  uint32_t field = 0;
  uint64_t content = 0;  // Whole, wire type 2: where its bytes start
};

// The field at `at` of a message that ends at `end` (the file, or an event), in a file
// whose first bytes are `prefix`, judged as the decoder judges it: Rejected only when
// the decoder fails on it whatever the bytes not yet read.
WalkedField walkField(std::string_view prefix, uint64_t at, uint64_t end) {
  const uint64_t avail = std::min<uint64_t>(prefix.size(), end);
  Cursor c(prefix.data() + at, prefix.data() + avail);
  const auto offset = [&] { return static_cast<uint64_t>(c.pos() - prefix.data()); };
  // A varint that fails near the end of the prefix (a tag and a length take at most 20
  // bytes) may only be cut there.
  const WalkedField badVarint{avail < end && avail - at < 24 ? WalkedField::Cut
                                                             : WalkedField::Rejected};
  uint64_t tag = 0, v = 0;
  if (!c.varint(tag)) return badVarint;
  WalkedField f{WalkedField::Whole};
  f.field = static_cast<uint32_t>(tag >> 3);
  const uint32_t wt = tag & 7;
  if (f.field == 0) return {WalkedField::Rejected};
  if (wt == kVarint || wt == kLen) {
    if (!c.varint(v)) return badVarint;
    f.content = f.end = offset();
    if (wt == kLen && v > end - std::min(f.end, end)) return {WalkedField::Rejected};
    if (wt == kLen) f.end += v;
  } else if (wt == kFixed64 || wt == kFixed32) {
    f.end = offset() + (wt == kFixed64 ? 8 : 4);
  } else {
    // a group is skipped by its content; an end group outside one, types 6, 7 are errors
    return {wt == kStartGroup ? WalkedField::Group : WalkedField::Rejected};
  }
  if (f.end > end) return {WalkedField::Rejected};  // runs past the end of its message
  if (wt != kLen) f.content = 0;
  return f;
}

}  // namespace

bool ProfilePrefixCheck::walkInside(std::string_view prefix) {
  Inside& in = *inside_;
  while (in.next < in.end) {
    if (in.next >= prefix.size()) return false;
    const WalkedField f = walkField(prefix, in.next, in.end);
    if (f.state == WalkedField::Cut) return false;
    if (f.state == WalkedField::Group) break;  // not walked: the event is read whole
    if (f.state == WalkedField::Rejected) {
      rejected_ = decodeError(in.start, in.memory ? "malformed memory event" : "malformed event");
      stop_ = true;
      return true;
    }
    in.next = f.end;
  }
  inside_.reset();  // the event's fields are whole (their content decoded later)
  return true;
}

uint64_t ProfilePrefixCheck::usefulBytes(std::string_view prefix, uint64_t fileSize) {
  while (!readAll_ && !stop_) {
    if (inside_) {
      if (!walkInside(prefix)) break;
      continue;
    }
    if (next_ >= prefix.size()) break;
    const WalkedField f = walkField(prefix, next_, fileSize);
    if (f.state == WalkedField::Rejected) stop_ = true;  // decodeProfile stops here
    if (f.state == WalkedField::Group) readAll_ = true;
    if (f.state != WalkedField::Whole) break;
    const bool event = (f.field == 1 || f.field == 4) && f.content > 0;
    if (event && f.end - f.content > kWalkInsideBytes)
      inside_ = Inside{next_, f.content, f.end, f.field == 4};
    next_ = f.end;
  }
  return stop_ ? prefix.size() : UINT64_MAX;
}

namespace {

template <class Out>
Status decodeCheckedInto(std::string_view bytes, const ProfilePrefixCheck& check, Out& out) {
  const std::optional<Error>& cut = check.rejected();
  if (!cut) return decodeProfile(bytes, out);
  // The fields before the rejected event are whole in `bytes`; an error among them
  // comes first, as in the whole file.
  Status r = decodeProfile(bytes.substr(0, cut->offset.value_or(0)), out);
  return r.ok() ? Status(*cut) : r;
}

}  // namespace

Status decodeChecked(std::string_view bytes, const ProfilePrefixCheck& check, ProfileSink& sink) {
  return decodeCheckedInto(bytes, check, sink);
}

Status decodeChecked(std::string_view bytes, const ProfilePrefixCheck& check, ProfileData& out) {
  return decodeCheckedInto(bytes, check, out);
}

}  // namespace xstack
