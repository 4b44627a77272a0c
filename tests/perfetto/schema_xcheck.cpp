// Test-only: cross-checks our subset schema (tests/perfetto/perfetto_subset.proto) against a
// .pftrace written by other software with Perfetto's official encoder (e.g. Chromium). The trace
// is parsed with our subset and walked with reflection:
//  - schema: a field our subset defines whose number arrives as an unknown field means our wire
//    type is wrong (protobuf keeps a wire-type mismatch, or an enum value outside our enum, as
//    an unknown field); every `string` field of ours must hold valid UTF-8; parse failure fails;
//  - semantics, to catch a wrong number mapped onto a field of the same wire type: iids resolve
//    against interned_data of the same sequence (SEQ_INCREMENTAL_STATE_CLEARED resets it),
//    tracks and parents are defined, counter tracks only get TYPE_COUNTER events, BEGIN/END depth
//    per track never negative (open slices at the end are allowed), thread/process names;
//    thresholds only where Chromium itself deviates, each with its numbers in the report
//    (unmatched ENDs <= 1%, parents without descriptor <= 5%, name-like categories <= 10%);
//  - coverage: how often each field of our subset occurs in the foreign trace.
//   perfetto_schema_xcheck trace.pftrace [--expect-event-name S] [--expect-category S]
//                          [--expect-thread-name S] [--expect-process-name S]
//                          [--expect-annotation-name S]   (strings the trace must hold)
//   perfetto_schema_xcheck --self-test     (proves each check can fail on a broken trace)
// Exit 0 ok, 1 mismatch, 2 usage.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/unknown_field_set.h>

#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "perfetto_subset.pb.h"

namespace {

namespace pb = xstack_test::perfetto;
namespace gp = google::protobuf;

constexpr uint32_t kSeqIncrementalStateCleared = 1;  // TracePacket.SequenceFlags value
constexpr uint32_t kSeqNeedsIncrementalState = 2;    // TracePacket.SequenceFlags value
constexpr int kPreviousPacketDropped = 42;           // TracePacket field, not in our subset

// What one run of the check found. `failures`: broken rules (any one fails the run), with a
// count per kind; `notes`: counts of legitimate foreign behaviour, reported, never failing.
struct Findings {
  std::map<std::string, uint64_t> failures;
  std::map<std::string, uint64_t> notes;
  std::map<const gp::FieldDescriptor*, uint64_t> fieldSeen;
  std::map<std::pair<const gp::FieldDescriptor*, int>, uint64_t> enumSeen;
  std::map<std::string, std::set<int>> foreignNumbers;  // message -> numbers not in our subset
  std::set<std::string> eventNames, categories, threadNames, processNames, annotationNames;
  uint64_t packets = 0;
  void fail(const std::string& what, uint64_t n = 1) { failures[what] += n; }
  void note(const std::string& what, uint64_t n = 1) { notes[what] += n; }
};

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
bool isValidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    if (len == 0 || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t kMinForLen[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLen[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

const char* wireTypeName(gp::UnknownField::Type t) {
  switch (t) {
    case gp::UnknownField::TYPE_VARINT:
      return "varint";
    case gp::UnknownField::TYPE_FIXED32:
      return "fixed32";
    case gp::UnknownField::TYPE_FIXED64:
      return "fixed64";
    case gp::UnknownField::TYPE_LENGTH_DELIMITED:
      return "length-delimited";
    case gp::UnknownField::TYPE_GROUP:
      return "group";
  }
  return "?";
}

// Enum values Perfetto added after the ones our encoder writes: TrackEvent.Type TYPE_STATE = 5
// (google/perfetto PR #6068, 2026; Chromium 156 writes it on state tracks). Any other value
// outside our enums is a mismatch.
bool isNewerOfficialEnumValue(const gp::FieldDescriptor* fd, uint64_t value) {
  return fd == pb::TrackEvent::descriptor()->FindFieldByName("type") && value == 5;
}

// Unknown fields of one message: a number our subset defines is a mismatch (wrong wire type, or
// for an enum of ours a value outside our enum); other numbers are fields we do not use.
void checkUnknownFields(const gp::Descriptor* d, const gp::UnknownFieldSet& unknown, Findings& f) {
  for (int i = 0; i < unknown.field_count(); ++i) {
    const gp::UnknownField& u = unknown.field(i);
    const gp::FieldDescriptor* ours = d->FindFieldByNumber(u.number());
    if (ours == nullptr) {
      f.foreignNumbers[d->name()].insert(u.number());
    } else if (ours->type() == gp::FieldDescriptor::TYPE_ENUM &&
               u.type() == gp::UnknownField::TYPE_VARINT) {
      const std::string what = ours->full_name() + " = " + std::to_string(u.varint());
      if (isNewerOfficialEnumValue(ours, u.varint()))
        f.note("official enum value our subset does not define: " + what);
      else
        f.fail("enum value outside our enum: " + what);
    } else {
      f.fail("wire type mismatch: " + ours->full_name() + " (" + std::to_string(u.number()) +
             ", ours " + ours->type_name() + ", foreign " + wireTypeName(u.type()) + ")");
    }
  }
}

void walkMessage(const gp::Message& m, Findings& f);

void visitValue(const gp::Message& m, const gp::FieldDescriptor* fd, int index, Findings& f) {
  const gp::Reflection* r = m.GetReflection();
  const bool rep = fd->is_repeated();
  switch (fd->cpp_type()) {
    case gp::FieldDescriptor::CPPTYPE_MESSAGE:
      walkMessage(rep ? r->GetRepeatedMessage(m, fd, index) : r->GetMessage(m, fd), f);
      break;
    case gp::FieldDescriptor::CPPTYPE_STRING:
      if (fd->type() == gp::FieldDescriptor::TYPE_STRING &&
          !isValidUtf8(rep ? r->GetRepeatedString(m, fd, index) : r->GetString(m, fd)))
        f.fail("invalid UTF-8 in string field " + fd->full_name());
      break;
    case gp::FieldDescriptor::CPPTYPE_ENUM:
      ++f.enumSeen[{fd, rep ? r->GetRepeatedEnumValue(m, fd, index) : r->GetEnumValue(m, fd)}];
      break;
    default:
      break;
  }
}

// Schema pass: counts every field of ours that is present, recursively; checks unknowns.
void walkMessage(const gp::Message& m, Findings& f) {
  const gp::Reflection* r = m.GetReflection();
  std::vector<const gp::FieldDescriptor*> present;
  r->ListFields(m, &present);
  for (const gp::FieldDescriptor* fd : present) {
    const int n = fd->is_repeated() ? r->FieldSize(m, fd) : 1;
    f.fieldSeen[fd] += n;
    for (int i = 0; i < n; ++i) visitValue(m, fd, fd->is_repeated() ? i : -1, f);
  }
  checkUnknownFields(m.GetDescriptor(), r->GetUnknownFields(m), f);
}

// ---- semantic pass ----

// Per process (pid) and per thread (pid, tid): was a non-empty name seen.
struct NameSeen {
  bool nonEmpty = false;
};

struct TrackInfo {
  bool counter = false;
  std::optional<uint64_t> parent;
};

// Incremental state of one trusted packet sequence, as Perfetto's readers keep it.
struct SequenceState {
  bool valid = false;  // cleared at least once and no packet loss since
  std::map<uint64_t, std::string> categories, names, annotationNames, annotationStrings;
  std::optional<uint64_t> defaultTrack;
};

bool packetLossBefore(const pb::TracePacket& p) {
  const gp::UnknownFieldSet& u = p.GetReflection()->GetUnknownFields(p);
  for (int i = 0; i < u.field_count(); ++i)
    if (u.field(i).number() == kPreviousPacketDropped &&
        u.field(i).type() == gp::UnknownField::TYPE_VARINT && u.field(i).varint() != 0)
      return true;
  return false;
}

void checkName(const std::string& what, const std::string& name, NameSeen& seen, Findings& f) {
  f.note(what + " present");
  if (name.empty()) f.note(what + " empty");
  seen.nonEmpty = seen.nonEmpty || !name.empty();
}

// Chromium writes an empty process_name before it knows a process's name and a real one later:
// every process and thread that carries a name must have a non-empty one somewhere.
void checkNamed(const std::string& what, const std::map<std::pair<int, int>, NameSeen>& seen,
                Findings& f) {
  for (const auto& [id, s] : seen)
    if (!s.nonEmpty) f.fail(what + " only ever empty for one " + what.substr(0, what.find('_')));
  f.note(what + ": distinct named " + (what[0] == 't' ? "(pid, tid)" : "pids"), seen.size());
}

// Chromium names as parent the process track of a few renderer processes whose own descriptor
// never reaches the trace; a wrong parent_uuid number would leave most parents undefined.
void checkParents(const std::map<uint64_t, TrackInfo>& tracks, Findings& f) {
  uint64_t withParent = 0, missing = 0;
  for (const auto& [uuid, info] : tracks) {
    if (!info.parent) continue;
    ++withParent;
    if (tracks.count(*info.parent) == 0) ++missing;
  }
  f.note("tracks with parent_uuid", withParent);
  f.note("tracks whose parent_uuid has no TrackDescriptor", missing);
  if (missing * 20 > withParent) f.fail("more than 5% of parent_uuids have no TrackDescriptor");
}

// Track pass: every TrackDescriptor, wherever it is in the file (Chromium writes some after
// first use, on another sequence).
std::map<uint64_t, TrackInfo> collectTracks(const pb::Trace& trace, Findings& f) {
  std::map<uint64_t, TrackInfo> tracks;
  std::map<std::pair<int, int>, NameSeen> processes, threads;
  for (const pb::TracePacket& p : trace.packet()) {
    if (!p.has_track_descriptor()) continue;
    const pb::TrackDescriptor& t = p.track_descriptor();
    if (!t.has_uuid()) f.fail("TrackDescriptor without uuid");
    TrackInfo& info = tracks[t.uuid()];
    info.counter = info.counter || t.has_counter();
    if (t.has_parent_uuid()) info.parent = t.parent_uuid();
    if (t.has_thread() && t.thread().has_thread_name()) {
      checkName("thread_name", t.thread().thread_name(),
                threads[{t.thread().pid(), t.thread().tid()}], f);
      f.threadNames.insert(t.thread().thread_name());
    }
    if (t.has_process() && t.process().has_process_name()) {
      checkName("process_name", t.process().process_name(), processes[{t.process().pid(), 0}], f);
      f.processNames.insert(t.process().process_name());
    }
  }
  checkNamed("thread_name", threads, f);
  checkNamed("process_name", processes, f);
  checkParents(tracks, f);
  return tracks;
}

void internEntries(const gp::RepeatedPtrField<pb::InternedEntry>& entries,
                   std::map<uint64_t, std::string>& table) {
  for (const pb::InternedEntry& e : entries) table[e.iid()] = e.name();
}

void applyInternedData(const pb::InternedData& d, SequenceState& s) {
  internEntries(d.event_categories(), s.categories);
  internEntries(d.event_names(), s.names);
  internEntries(d.debug_annotation_names(), s.annotationNames);
  for (const pb::InternedBytes& e : d.debug_annotation_string_values())
    s.annotationStrings[e.iid()] = e.str();
}

// One iid against one table of the event's own sequence; the resolved string is kept.
void resolve(const std::string& what, uint64_t iid, const std::map<uint64_t, std::string>& table,
             std::set<std::string>* seen, Findings& f) {
  auto it = table.find(iid);
  if (it == table.end()) {
    f.fail(what + " does not resolve in interned_data of its sequence");
    return;
  }
  f.note(what + " resolved");
  if (seen != nullptr) seen->insert(it->second);
}

void checkEventInterning(const pb::TrackEvent& e, const SequenceState& s, Findings& f) {
  if (e.has_name_iid()) resolve("TrackEvent.name_iid", e.name_iid(), s.names, &f.eventNames, f);
  for (uint64_t iid : e.category_iids())
    resolve("TrackEvent.category_iids", iid, s.categories, &f.categories, f);
  for (const pb::DebugAnnotation& a : e.debug_annotations()) {
    if (a.has_name_iid())
      resolve("DebugAnnotation.name_iid", a.name_iid(), s.annotationNames, &f.annotationNames, f);
    if (a.has_string_value_iid())
      resolve("DebugAnnotation.string_value_iid", a.string_value_iid(), s.annotationStrings,
              nullptr, f);
  }
}

constexpr const char* kEndsOnTracks = "TYPE_SLICE_END events on tracks";
constexpr const char* kUnmatchedEnds = "TYPE_SLICE_END without an open slice on its track";

struct TrackUse {
  int64_t depth = 0;
  bool begun = false;  // a BEGIN seen on this track
  std::set<uint32_t> sequences;
};

void checkEventTrack(const pb::TrackEvent& e, uint64_t track, uint32_t sequence,
                     const std::map<uint64_t, TrackInfo>& tracks,
                     std::map<uint64_t, TrackUse>& uses, Findings& f) {
  auto it = tracks.find(track);
  if (it == tracks.end()) {
    f.fail("event track_uuid without a TrackDescriptor");
    return;
  }
  const bool isCounterEvent = e.type() == pb::TrackEvent::TYPE_COUNTER;
  if (it->second.counter && !isCounterEvent) f.fail("non-counter event on a counter track");
  if (!it->second.counter && isCounterEvent) f.fail("TYPE_COUNTER event on a non-counter track");
  TrackUse& use = uses[track];
  use.sequences.insert(sequence);
  if (e.type() == pb::TrackEvent::TYPE_SLICE_BEGIN) {
    ++use.depth;
    use.begun = true;
  }
  if (e.type() != pb::TrackEvent::TYPE_SLICE_END) return;
  f.note(kEndsOnTracks);
  if (use.depth > 0) {
    --use.depth;
  } else if (use.begun) {
    f.note(kUnmatchedEnds);
  } else {
    // The slice began before tracing started on this thread (startup tracing).
    f.note("TYPE_SLICE_END before the first BEGIN of its track");
  }
}

void checkEvent(const pb::TracePacket& p, const SequenceState& s,
                const std::map<uint64_t, TrackInfo>& tracks, std::map<uint64_t, TrackUse>& uses,
                Findings& f) {
  const pb::TrackEvent& e = p.track_event();
  f.note("track events");
  if ((e.has_counter_value() || e.has_double_counter_value()) &&
      e.type() != pb::TrackEvent::TYPE_COUNTER)
    f.fail("counter value on an event that is not TYPE_COUNTER");
  const bool needsState = (p.sequence_flags() & kSeqNeedsIncrementalState) != 0;
  if (needsState && !s.valid) {
    // Perfetto's trace processor drops these too: interning before them may be lost.
    f.note("events skipped: incremental state invalid (never cleared, or packet loss)");
    return;
  }
  checkEventInterning(e, s, f);
  const std::optional<uint64_t> track = e.has_track_uuid() ? e.track_uuid() : s.defaultTrack;
  if (!track || *track == 0) {
    f.note("events without track_uuid (thread of the sequence)");
    return;
  }
  f.note(e.has_track_uuid() ? "events with TrackEvent.track_uuid"
                            : "events with track_uuid from TrackEventDefaults");
  checkEventTrack(e, *track, p.trusted_packet_sequence_id(), tracks, uses, f);
}

void checkSemantics(const pb::Trace& trace, Findings& f) {
  const std::map<uint64_t, TrackInfo> tracks = collectTracks(trace, f);
  std::map<uint32_t, SequenceState> sequences;
  std::map<uint64_t, TrackUse> uses;
  for (const pb::TracePacket& p : trace.packet()) {
    SequenceState& s = sequences[p.trusted_packet_sequence_id()];
    if (packetLossBefore(p)) {
      f.note("packets after a packet loss (previous_packet_dropped)");
      s.valid = false;
    }
    if ((p.sequence_flags() & kSeqIncrementalStateCleared) != 0) {
      s = SequenceState{};
      s.valid = true;
    }
    if (p.has_trace_packet_defaults() &&
        p.trace_packet_defaults().track_event_defaults().has_track_uuid())
      s.defaultTrack = p.trace_packet_defaults().track_event_defaults().track_uuid();
    if (p.has_interned_data()) applyInternedData(p.interned_data(), s);
    if (p.has_track_event()) checkEvent(p, s, tracks, uses, f);
  }
  f.note("trusted packet sequences", sequences.size());
  f.note("TrackDescriptors (distinct uuids)", tracks.size());
  // Perfetto's trace processor counts these as misplaced END events; Chromium writes a few (its
  // BEGIN filtered or never written). Swapped BEGIN/END numbers would make it about half.
  if (f.notes[kUnmatchedEnds] * 100 > f.notes[kEndsOnTracks])
    f.fail("more than 1% of TYPE_SLICE_END events close no open slice on their track");
  for (const auto& [uuid, use] : uses) {
    if (use.depth > 0) f.note("tracks with slices left open at the end");
    if (use.sequences.size() > 1) f.note("tracks written by more than one sequence");
  }
}

// Category strings are comma-joined identifiers: few hold the spaces or "::" of C++-style event
// names, which a swapped InternedData number would put there (Chromium has one such category).
void checkCategoryPlausibility(Findings& f) {
  auto nameLike = [](const std::set<std::string>& strings) {
    uint64_t n = 0;
    for (const std::string& c : strings)
      n += c.find(' ') != std::string::npos || c.find("::") != std::string::npos;
    return n;
  };
  const uint64_t categoriesNameLike = nameLike(f.categories);
  f.note("distinct categories with ' ' or '::'", categoriesNameLike);
  f.note("distinct event names with ' ' or '::'", nameLike(f.eventNames));
  if (categoriesNameLike * 10 > f.categories.size())
    f.fail("more than 10% of category strings look like event names (' ' or '::')");
}

void expectSeen(const std::set<std::string>& seen, const std::string& what,
                const std::vector<std::string>& wanted, Findings& f) {
  for (const std::string& w : wanted)
    if (seen.count(w) == 0) f.fail("expected " + what + " '" + w + "' not found");
}

struct Expectations {
  std::vector<std::string> eventNames, categories, threadNames, processNames, annotationNames;
};

Findings checkTrace(const std::string& bytes, const Expectations& want) {
  Findings f;
  pb::Trace trace;
  if (!trace.ParseFromString(bytes)) {
    f.fail("protobuf parse failed with our subset schema");
    return f;
  }
  f.packets = static_cast<uint64_t>(trace.packet_size());
  if (f.packets == 0) f.fail("no packets");
  walkMessage(trace, f);
  checkSemantics(trace, f);
  checkCategoryPlausibility(f);
  expectSeen(f.eventNames, "event name", want.eventNames, f);
  expectSeen(f.categories, "category", want.categories, f);
  expectSeen(f.threadNames, "thread name", want.threadNames, f);
  expectSeen(f.processNames, "process name", want.processNames, f);
  expectSeen(f.annotationNames, "debug annotation name", want.annotationNames, f);
  return f;
}

// ---- report ----

void collectMessages(const gp::Descriptor* d, std::vector<const gp::Descriptor*>& out) {
  out.push_back(d);
  for (int i = 0; i < d->nested_type_count(); ++i) collectMessages(d->nested_type(i), out);
}

void printCoverage(const Findings& f) {
  const gp::FileDescriptor* file = pb::Trace::descriptor()->file();
  std::vector<const gp::Descriptor*> messages;
  for (int i = 0; i < file->message_type_count(); ++i)
    collectMessages(file->message_type(i), messages);
  std::cout << "coverage of our subset schema (" << file->name() << "):\n";
  uint64_t exercised = 0, total = 0;
  for (const gp::Descriptor* d : messages) {
    for (int i = 0; i < d->field_count(); ++i) {
      const gp::FieldDescriptor* fd = d->field(i);
      auto it = f.fieldSeen.find(fd);
      std::ostringstream label;
      label << d->name() << "." << fd->name() << " = " << fd->number() << " (" << fd->type_name()
            << ")";
      std::cout << "  " << std::left << std::setw(62) << label.str();
      ++total;
      if (it == f.fieldSeen.end()) {
        std::cout << "not exercised\n";
        continue;
      }
      ++exercised;
      std::cout << "seen " << it->second << "\n";
      if (fd->enum_type() == nullptr) continue;
      for (const auto& [key, n] : f.enumSeen)
        if (key.first == fd)
          std::cout << "      value " << key.second << " ("
                    << (fd->enum_type()->FindValueByNumber(key.second)
                            ? fd->enum_type()->FindValueByNumber(key.second)->name()
                            : "?")
                    << "): " << n << "\n";
    }
  }
  std::cout << "fields exercised: " << exercised << " of " << total << "\n";
}

void printReport(const Findings& f) {
  std::cout << "packets: " << f.packets << "\n";
  printCoverage(f);
  std::cout << "foreign field numbers our subset does not define (fine):\n";
  for (const auto& [message, numbers] : f.foreignNumbers) {
    std::cout << "  " << message << ":";
    for (int n : numbers) std::cout << " " << n;
    std::cout << "\n";
  }
  std::cout << "semantic counts:\n";
  for (const auto& [what, n] : f.notes) std::cout << "  " << what << ": " << n << "\n";
  std::cout << "distinct resolved strings: event names " << f.eventNames.size() << ", categories "
            << f.categories.size() << ", debug annotation names " << f.annotationNames.size()
            << ", thread names " << f.threadNames.size() << ", process names "
            << f.processNames.size() << "\n";
  for (const auto& [what, n] : f.failures) std::cout << "MISMATCH: " << what << " (" << n << "x)\n";
  std::cout << (f.failures.empty() ? "OK: no mismatch with the foreign trace\n"
                                   : "FAIL: the foreign trace disagrees with our subset\n");
}

// ---- self-test: hand-built traces, one clean and one per broken rule ----

std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string tag(int number, int wireType) {
  return varint((static_cast<uint64_t>(number) << 3) | static_cast<uint64_t>(wireType));
}
std::string varintField(int number, uint64_t v) { return tag(number, 0) + varint(v); }
std::string bytesField(int number, const std::string& payload) {
  return tag(number, 2) + varint(payload.size()) + payload;
}

// Knobs of a hand-built trace; the defaults build a valid one.
struct TraceKnobs {
  std::string eventExtra;   // raw bytes appended to the BEGIN event (protobuf merges them)
  std::string packetExtra;  // raw bytes appended to the BEGIN packet
  std::string tail;         // raw packets appended to the trace
  int eventNamesField = 2;  // InternedData field the event names are written under
  uint64_t beginTrack = 7;
};

// A one-sequence trace: thread track 7 (named "main"), counter track 8, a slice BEGIN/END named
// "step" in category "cat" on track 7, one counter sample on track 8.
std::string buildTrace(const TraceKnobs& k = {}) {
  pb::TracePacket threadTrack, counterTrack, begin, end, sample;
  for (pb::TracePacket* p : {&threadTrack, &counterTrack, &begin, &end, &sample})
    p->set_trusted_packet_sequence_id(1);
  threadTrack.set_sequence_flags(kSeqIncrementalStateCleared);
  threadTrack.mutable_track_descriptor()->set_uuid(7);
  threadTrack.mutable_track_descriptor()->mutable_thread()->set_thread_name("main");
  counterTrack.mutable_track_descriptor()->set_uuid(8);
  counterTrack.mutable_track_descriptor()->set_parent_uuid(7);
  counterTrack.mutable_track_descriptor()->mutable_counter()->set_unit(
      pb::CounterDescriptor::UNIT_COUNT);
  auto* cats = begin.mutable_interned_data()->add_event_categories();
  cats->set_iid(1);
  cats->set_name("cat");
  begin.set_timestamp(10);
  begin.mutable_track_event()->set_type(pb::TrackEvent::TYPE_SLICE_BEGIN);
  begin.mutable_track_event()->set_name_iid(2);
  begin.mutable_track_event()->add_category_iids(1);
  begin.mutable_track_event()->set_track_uuid(k.beginTrack);
  end.set_timestamp(20);
  end.mutable_track_event()->set_type(pb::TrackEvent::TYPE_SLICE_END);
  end.mutable_track_event()->set_track_uuid(7);
  sample.set_timestamp(20);
  sample.mutable_track_event()->set_type(pb::TrackEvent::TYPE_COUNTER);
  sample.mutable_track_event()->set_track_uuid(8);
  sample.mutable_track_event()->set_counter_value(3);
  const std::string names =
      bytesField(k.eventNamesField, varintField(1, 2) + bytesField(2, "step"));
  const std::string beginBytes = begin.SerializeAsString() + bytesField(12, names) +
                                 bytesField(11, k.eventExtra) + k.packetExtra;
  return bytesField(1, threadTrack.SerializeAsString()) +
         bytesField(1, counterTrack.SerializeAsString()) + bytesField(1, beginBytes) +
         bytesField(1, end.SerializeAsString()) + bytesField(1, sample.SerializeAsString()) +
         k.tail;
}

struct Mutation {
  std::string what, bytes, expectedFailure;  // expectedFailure: prefix of one failure
};

std::vector<Mutation> mutations() {
  const std::string clean = buildTrace();
  auto with = [](const auto& set) {
    TraceKnobs k;
    set(k);
    return buildTrace(k);
  };
  const std::string endOnly =
      bytesField(1, varintField(10, 1) + bytesField(11, varintField(9, 2) + varintField(11, 7)));
  const std::string badThreadName = bytesField(
      1, varintField(10, 1) +
             bytesField(60, varintField(1, 9) + bytesField(4, bytesField(5, "\xC3\x28"))));
  return {
      {"TrackEvent.type (9) as length-delimited",
       with([&](TraceKnobs& k) { k.eventExtra = bytesField(9, "x"); }),
       "wire type mismatch: xstack_test.perfetto.TrackEvent.type"},
      {"TrackEvent.type = 7", with([&](TraceKnobs& k) { k.eventExtra = varintField(9, 7); }),
       "enum value outside our enum: xstack_test.perfetto.TrackEvent.type"},
      {"TracePacket.timestamp (8) as fixed64",
       with([&](TraceKnobs& k) { k.packetExtra = tag(8, 1) + std::string(8, '\0'); }),
       "wire type mismatch: xstack_test.perfetto.TracePacket.timestamp"},
      {"event names interned under another number (InternedData 2 -> 4)",
       with([&](TraceKnobs& k) { k.eventNamesField = 4; }), "TrackEvent.name_iid does not resolve"},
      {"event names interned under event_categories' number (2 -> 1)",
       with([&](TraceKnobs& k) { k.eventNamesField = 1; }), "TrackEvent.name_iid does not resolve"},
      {"track_uuid of an undefined track", with([&](TraceKnobs& k) { k.beginTrack = 99; }),
       "event track_uuid without a TrackDescriptor"},
      {"slice BEGIN on a counter track", with([&](TraceKnobs& k) { k.beginTrack = 8; }),
       "non-counter event on a counter track"},
      {"counter_value (30) on a slice event",
       with([&](TraceKnobs& k) { k.eventExtra = varintField(30, 5); }),
       "counter value on an event that is not TYPE_COUNTER"},
      {"TrackDescriptor.thread (4) as varint",
       with([&](TraceKnobs& k) { k.tail = bytesField(1, bytesField(60, varintField(4, 1))); }),
       "wire type mismatch: xstack_test.perfetto.TrackDescriptor.thread"},
      {"END without BEGIN", with([&](TraceKnobs& k) { k.tail = endOnly; }),
       "more than 1% of TYPE_SLICE_END events close no open slice"},
      {"invalid UTF-8 in a thread name", with([&](TraceKnobs& k) { k.tail = badThreadName; }),
       "invalid UTF-8 in string field xstack_test.perfetto.ThreadDescriptor.thread_name"},
      {"truncated trace", clean.substr(0, clean.size() - 3), "protobuf parse failed"},
  };
}

int selfTest() {
  int broken = 0;
  const Findings clean = checkTrace(buildTrace(), {{"step"}, {"cat"}, {"main"}, {}, {}});
  if (!clean.failures.empty()) {
    std::cout << "self-test: the clean trace fails:\n";
    printReport(clean);
    ++broken;
  }
  for (const Mutation& m : mutations()) {
    const Findings f = checkTrace(m.bytes, {});
    bool caught = false;
    for (const auto& [what, n] : f.failures) caught = caught || what.find(m.expectedFailure) == 0;
    std::cout << (caught ? "caught:   " : "MISSED:   ") << m.what << "\n";
    if (!caught) {
      for (const auto& [what, n] : f.failures) std::cout << "          got: " << what << "\n";
      ++broken;
    }
  }
  std::cout << (broken == 0 ? "self-test OK\n" : "self-test FAILED\n");
  return broken == 0 ? 0 : 1;
}

int usage() {
  std::cerr << "usage: perfetto_schema_xcheck trace.pftrace [--expect-event-name S]"
               " [--expect-category S] [--expect-thread-name S] [--expect-process-name S]"
               " [--expect-annotation-name S]\n"
               "       perfetto_schema_xcheck --self-test\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  GOOGLE_PROTOBUF_VERIFY_VERSION;
  if (argc == 2 && std::string(argv[1]) == "--self-test") return selfTest();
  if (argc < 2 || argv[1][0] == '-') return usage();
  Expectations want;
  const std::map<std::string, std::vector<std::string>*> options = {
      {"--expect-event-name", &want.eventNames},
      {"--expect-category", &want.categories},
      {"--expect-thread-name", &want.threadNames},
      {"--expect-process-name", &want.processNames},
      {"--expect-annotation-name", &want.annotationNames}};
  for (int i = 2; i < argc; i += 2) {
    auto it = options.find(argv[i]);
    if (it == options.end() || i + 1 >= argc) return usage();
    it->second->push_back(argv[i + 1]);
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "perfetto_schema_xcheck: cannot read " << argv[1] << "\n";
    return 2;
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  const Findings f = checkTrace(bytes.str(), want);
  printReport(f);
  return f.failures.empty() ? 0 : 1;
}
