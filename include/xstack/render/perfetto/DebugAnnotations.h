// The debug annotations of an event (the JSON event's args) in a Perfetto
// TrackEvent: DebugArg, the caller's description of one, and the writer of
// an event's list.
//
// Contract:
// - intern() first (before the event's packet begins: new names go into
//   that packet's InternedData), then write() with the same args into the
//   event's TrackEvent; the writer keeps the iids in between.
// - Annotation names are always interned; a string value only when the
//   caller marks it (`internValue`), and a value equal to the event's name
//   shares that name's entry (EventIids::stringValue).
// - Values: Int -> int_value, Uint -> uint_value, Double -> double_value,
//   Bool -> bool_value, String -> string_value_iid when interned, else
//   string_value made valid UTF-8 (appendValidUtf8, counted in `text`).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "xstack/core/TextWriting.h"
#include "xstack/render/perfetto/InternTables.h"
#include "xstack/render/perfetto/ProtoWriter.h"

namespace xstack::perfetto {

// A debug annotation (JSON args entry). `internValue`: write a string value
// once per sequence (worth it for values that repeat, e.g. args.name).
struct DebugArg {
  enum class Type { Int, Uint, Double, Bool, String };
  std::string_view key;
  Type type = Type::Int;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string_view s;
  bool internValue = false;

  static DebugArg ofInt(std::string_view k, int64_t v) {
    return {k, Type::Int, v, 0, 0, {}, false};
  }
  static DebugArg ofUint(std::string_view k, uint64_t v) {
    return {k, Type::Uint, 0, v, 0, {}, false};
  }
  static DebugArg ofDouble(std::string_view k, double v) {
    return {k, Type::Double, 0, 0, v, {}, false};
  }
  static DebugArg ofBool(std::string_view k, bool v) {
    return {k, Type::Bool, v ? 1 : 0, 0, 0, {}, false};
  }
  static DebugArg ofString(std::string_view k, std::string_view v, bool intern = false) {
    return {k, Type::String, 0, 0, 0, v, intern};
  }
};

class DebugAnnotations {
 public:
  // Interns the args' names and marked values. `event`: the entry of the
  // event's name, whose string value iid a value equal to `eventName` uses.
  void intern(std::span<const DebugArg> args, std::string_view eventName, EventIids& event,
              InternTables& tables, NewInternedEntries& fresh);
  // Writes the args of the last intern() as TrackEvent.debug_annotations.
  void write(ProtoWriter& w, std::span<const DebugArg> args, JsonTextStats& text) const;

 private:
  // Writes the value of `arg`; `valueIid`: its interned string value or 0.
  static void writeValue(ProtoWriter& w, const DebugArg& arg, uint64_t valueIid,
                         JsonTextStats& text);

  std::vector<std::pair<uint64_t, uint64_t>> iids_;  // (name iid, value iid or 0) per arg
};

}  // namespace xstack::perfetto
