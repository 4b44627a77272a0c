// The strings one packet sequence interns (InternedData): event names,
// event categories, debug annotation names and annotation string values,
// each kind with its own iids from 1 in first-use order. iids are valid in
// the sequence that wrote them only (the first packet clears the state).
//
// Contract:
// - Each lookup returns the text's iid; a text seen for the first time is
//   added (copied) and also recorded in `fresh`, whose entries the caller
//   writes, with write(), into the packet that first uses them. `fresh`
//   holds views of the caller's text, valid until that packet is written.
// - Event names: a direct-mapped cache keyed by the caller's text address
//   and size sits in front of the hash table (callers pass names from stable
//   tables); a hit is confirmed by comparing the text, so an address reused
//   for other text is only a miss. An event name's entry also holds, once
//   known, the iid of the same text among the annotation string values
//   (args.name repeats the op name), so that value costs no second lookup.
// - The find* functions add nothing: 0 (or nullptr) when not interned.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xstack/core/TextHash.h"
#include "xstack/core/TextWriting.h"
#include "xstack/render/perfetto/ProtoWriter.h"

namespace xstack::perfetto {

// The entries a packet must carry, per kind: (iid, raw text).
struct NewInternedEntries {
  using List = std::vector<std::pair<uint64_t, std::string_view>>;
  List events, categories, names, strings;
  bool empty() const {
    return events.empty() && categories.empty() && names.empty() && strings.empty();
  }
};

// An event name's iid and the iid of the same text as an annotation string
// value (0: not interned as a value yet).
struct EventIids {
  uint64_t name = 0;
  uint64_t stringValue = 0;
};

class InternTables {
 public:
  // The entry of an event name (a reference into the table, stable).
  EventIids& eventName(std::string_view name, NewInternedEntries& fresh);
  uint64_t category(std::string_view text, NewInternedEntries& fresh) {
    return intern(categories_, text, fresh.categories);
  }
  uint64_t annotationName(std::string_view text, NewInternedEntries& fresh) {
    return intern(annotationNames_, text, fresh.names);
  }
  uint64_t stringValue(std::string_view text, NewInternedEntries& fresh) {
    return intern(strings_, text, fresh.strings);
  }

  const EventIids* findEventName(std::string_view name) const;
  uint64_t findCategory(std::string_view text) const { return find(categories_, text); }
  uint64_t findAnnotationName(std::string_view text) const { return find(annotationNames_, text); }

  // TracePacket.interned_data holding `fresh` (categories, event names,
  // annotation names, string values, each text made valid UTF-8 and counted
  // in `text`); nothing when `fresh` is empty.
  static void write(ProtoWriter& w, const NewInternedEntries& fresh, JsonTextStats& text);

 private:
  // Text -> iid, with the last hit remembered: categories and annotation
  // names repeat call after call ("Op", "name"), a compare beats a hash.
  struct Index {
    TextMap<uint64_t> iids;
    std::string_view lastText;  // a key of `iids` (node keys are stable)
    uint64_t lastIid = 0;       // 0: no last hit yet
  };
  using EventIndex = TextMap<EventIids>;
  // A slot of the direct-mapped cache in front of `events_`.
  struct EventSlot {
    const char* data = nullptr;
    size_t size = 0;
    EventIndex::value_type* entry = nullptr;  // node of `events_` (stable)
  };
  static constexpr size_t kEventSlots = 1024;

  static uint64_t intern(Index& index, std::string_view text, NewInternedEntries::List& fresh);
  static uint64_t find(const Index& index, std::string_view text);

  EventIndex events_;
  std::vector<EventSlot> eventSlots_;  // kEventSlots once used
  Index categories_, annotationNames_, strings_;
};

}  // namespace xstack::perfetto
