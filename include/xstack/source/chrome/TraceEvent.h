// One element of a Chrome trace's traceEvents array, normalised but without
// meaning (no rows, no categories mapped): every view points into the event's
// JSON text or the reader's arena and is valid only during the callback that
// receives the event. Time fields are exact int64 nanoseconds of the file's
// microseconds, as written: relative to TraceInfo::baseTimeNs when the file
// has one (epoch ns = baseTimeNs + ts.ns).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "xstack/source/chrome/JsonCursor.h"

namespace xstack::chrome {

// pid, tid and id: an int, or a string. A hex string ("0x1f") is numeric
// with its value, so is a string starting with an integer ("123(C++)" ->
// 123); "Spans" and "" are not numeric.
struct IdField {
  bool present = false;
  bool numeric = false;
  int64_t value = 0;      // the (leading) integer when numeric, else 0
  std::string_view text;  // the decoded string, or the number's JSON text
};

// ts or dur: JSON number or numeric string of microseconds, in ns.
struct TimeField {
  bool present = false;  // key present and not null
  bool valid = false;    // present and an exact decimal within int64 ns
  int64_t ns = 0;
};

// One args member: the decoded key and the value's raw JSON text (strings
// with their quotes and escapes), ready to be re-emitted as JSON.
struct Arg {
  std::string_view key;
  std::string_view rawValue;
  JsonKind kind = JsonKind::Null;
};

// The args the readers need downstream, found by key while parsing.
enum class ArgKey : uint8_t {
  Device,             // "device"
  Stream,             // "stream"
  Correlation,        // "correlation" (Kineto) or "correlation id" (Paddle)
  ExternalId,         // "External id" (or the 2022 "external id")
  Bytes,              // "bytes" (memcpy/memset)
  MemoryBytes,        // "Bytes" ([memory] instants; negative = free)
  TotalAllocated,     // "Total Allocated"
  TotalReserved,      // "Total Reserved"
  DeviceType,         // "Device Type" (0 CPU, 1 CUDA)
  DeviceId,           // "Device Id"
  CurrentAllocated,   // Paddle "current_allocated"
  CurrentReserved,    // Paddle "current_reserved"
  Place,              // Paddle "place"
  CollectiveName,     // "Collective name"
  InMsgNelems,        // "In msg nelems"
  OutMsgNelems,       // "Out msg nelems"
  GroupSize,          // "Group size"
  Dtype,              // "dtype"
  ProcessGroupRanks,  // "Process Group Ranks" (a string holding a JSON array)
  Name,               // "name" (M events: process_name, thread_name)
  Labels,             // "labels" (M process_labels)
  SortIndex,          // "sort_index"
  Addr,               // "Addr" (Kineto [memory]) or "addr" (Paddle, a string)
  IncreaseBytes,      // Paddle "increase_bytes" (negative = free)
  ProcessGroupName,   // "Process Group Name" (a string, "0")
  ProcessGroupDesc,   // "Process Group Description" ("default_pg")
  Seq,                // "Seq" (a collective's sequence number in its group)
  DstRank,            // "Dst Rank" (send: the receiver's global rank)
  SrcRank,            // "Src Rank" (recv: the sender's global rank)
  Count
};
constexpr size_t kArgKeyCount = static_cast<size_t>(ArgKey::Count);

// The JSON key of an ArgKey (its first spelling).
std::string_view argKeyName(ArgKey key);

struct TraceEvent {
  uint64_t offset = 0;    // byte offset of the event's '{' in the JSON text
  char ph = '\0';         // first byte of "ph"; '\0' when absent
  std::string_view name;  // decoded; Paddle's "[1.2 ms]"/"[3 us]" suffix removed
  std::string_view cat;   // decoded; empty when absent (hasCat false)
  bool hasCat = false;
  std::string_view bp;     // flow binding point ("e"), empty when absent
  std::string_view scope;  // instant scope "s" ("g", "t", "p"), empty when absent
  IdField pid, tid, id;
  TimeField ts, dur;
  std::span<const Arg> args;  // in file order

  // The arg of a known key, or nullptr. (Last one wins on duplicates.)
  const Arg* arg(ArgKey key) const {
    int32_t i = known[static_cast<size_t>(key)];
    return i < 0 ? nullptr : &args[static_cast<size_t>(i)];
  }
  // int64 from a JSON integer, an integral number ("108.0") or a numeric
  // string ("108", and "0x6c" hex); nullopt otherwise or when absent.
  std::optional<int64_t> argInt(ArgKey key) const;
  // A string arg decoded; other kinds as their JSON text; empty when absent.
  std::string_view argText(ArgKey key) const { return knownText[static_cast<size_t>(key)]; }

  std::array<int32_t, kArgKeyCount> known{};  // index into args, -1 = absent
  std::array<std::string_view, kArgKeyCount> knownText{};
};

// int64 from one arg's raw JSON value (see TraceEvent::argInt).
std::optional<int64_t> argRawToInt(const Arg& arg);
// "0x1f" -> 31 (the whole text must be hex); nullopt otherwise.
std::optional<int64_t> parseHex(std::string_view text);

}  // namespace xstack::chrome
