// The one table of warning kinds (like Perfetto's stats.h): every kind that
// Warnings::add may count is declared here once, in XSTACK_WARNING_KINDS, with
// its severity, what it means and what the user can do. The list generates both
// the enum Warn (so counting a kind that is not declared is a compile error) and
// kWarningKinds (indexed by Warn). The names are the keys of otherData.warnings
// and of the end-of-run "warnings:" line; docs/WARNINGS.md holds the table that
// warningKindsMarkdown() prints (`xstack warnings-table`; WarningKindsTest
// checks that the doc holds exactly it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "xstack/core/Status.h"

namespace xstack {

enum class Severity {
  Note,     // the output is complete; something in the input was unusual
  Warning,  // an input record was dropped, clamped or repaired: the trace shows less or changed
  Error,    // part of an output is missing (the run exits 3, partial)
};

// X(Enumerator, "name", Severity, "meaning (one line)", "what the user can do"),
// sorted by name (a static_assert below checks it, and that each name is its
// enumerator in snake_case).
// clang-format off
#define XSTACK_WARNING_KINDS(X)                                                                   \
  X(CollectiveSliceDropped, "collective_slice_dropped", Note,                                     \
    "a matched collective instance was not drawn in the traces' collectives process: its group's " \
    "track already had 32 overlapping instances at its start (collectives.csv and waits.csv "     \
    "count it)",                                                                                   \
    "nothing: the analysis files hold every instance")                                            \
  X(DcgmBadRatio, "dcgm_bad_ratio", Warning,                                                      \
    "a DCGM FBUSD/FBTTL ratio that is not a finite number (e.g. 1e308 over 1e-300) was left out", \
    "check the FBUSD and FBTTL fields; the other fields of the row are kept")                     \
  X(DcgmBadRow, "dcgm_bad_row", Warning,                                                          \
    "a DCGM GPU row with too few fields or no usable TIMESTAMP was skipped",                      \
    "check the dcgmi dmon command line and that the file was not cut")                            \
  X(DcgmBadValue, "dcgm_bad_value", Warning,                                                      \
    "a DCGM field that is not a number (nor N/A) was skipped",                                    \
    "check the DCGM field list; other fields of the row are kept")                                \
  X(DcgmNoiseLine, "dcgm_noise_line", Note,                                                       \
    "a DCGM line that is neither a header nor a GPU row was ignored",                             \
    "nothing, unless the file is not DCGM output at all")                                         \
  X(DcgmRowBeforeHeader, "dcgm_row_before_header", Warning,                                       \
    "a DCGM GPU row before any header line was skipped",                                          \
    "keep the header line dcgmi prints at the top of the file")                                   \
  X(EventBadDevice, "event_bad_device", Warning,                                                  \
    "a CPU event with a device id below -1 has no row and was dropped",                           \
    "check the profiler that wrote the file")                                                     \
  X(EventBadTime, "event_bad_time", Warning,                                                       \
    "a profile's event or memory block starting or ending past 2^63 - 1 ns (after 2262) was "      \
    "dropped",                                                                                     \
    "check the profiler's clock")                                                                  \
  X(EventEndBeforeStart, "event_end_before_start", Warning,                                       \
    "an event ends before it starts; drawn with duration 0",                                      \
    "check the profiler's clock")                                                                 \
  X(EventOverlapLane, "event_overlap_lane", Note,                                                 \
    "an event overlaps an earlier one on its thread without nesting in it; drawn on the "        \
    "thread's overlap lane '<thread> (overlap N)', the same in every format",                    \
    "nothing: Chrome JSON allows it, trace viewers nest slices only")                           \
  X(EventUnknownType, "event_unknown_type", Warning,                                              \
    "an event of a type other than 0 (CPU) or 1 (GPU) was dropped",                               \
    "check the profiler version against docs/FORMAT.md")                                          \
  X(JsonBadCollectiveArg, "json_bad_collective_arg", Warning,                                    \
    "a JSON trace's collective arg (Process Group Ranks, nelems, dtype, Group size...) did not "  \
    "parse; the event is kept with the collective fields that did",                              \
    "check the profiler that wrote the file; the first examples name the arg")                    \
  X(JsonBadDevice, "json_bad_device", Warning,                                                    \
    "a JSON trace's GPU event with no numeric device (args.device, pid) was dropped",             \
    "check the profiler that wrote the file")                                                     \
  X(JsonBadTime, "json_bad_time", Warning,                                                        \
    "a JSON trace's event whose ts or dur is not an exact number of us was dropped",              \
    "check the profiler that wrote the file")                                                     \
  X(JsonClampedTime, "json_clamped_time", Warning,                                                \
    "a Kineto trace's event at relative ts 0 (Kineto's clamp of a time before "                    \
    "baseTimeNanoseconds: its real time is unknown) was dropped; it never moves the time origin",  \
    "nothing, unless many are dropped: check the profiler's clock")                                \
  X(JsonIgnoredEvent, "json_ignored_event", Note,                                                 \
    "a JSON trace's event xstack does not draw (ph B/E/C, GPU annotations) was ignored",          \
    "nothing: the kinds xstack reads are in docs/FORMAT.md section 8")                            \
  X(JsonMemoryMismatch, "json_memory_mismatch", Warning,                                          \
    "a JSON trace frees more memory than its running totals say was held; clamped at 0",          \
    "check that the trace was not cut or filtered")                                               \
  X(MarkerReplacedBegin, "marker_replaced_begin", Warning,                                        \
    "a marker begin came while the same phase was open; the later one is kept",                   \
    "check the training loop's marker calls")                                                     \
  X(MarkerUnmatchedBegin, "marker_unmatched_begin", Warning,                                      \
    "a marker begin without an end; no span drawn",                                               \
    "normal for a job stopped mid-step; else check the marker calls")                             \
  X(MarkerUnmatchedEnd, "marker_unmatched_end", Warning,                                          \
    "a marker end without a begin; no span drawn",                                                \
    "check the marker calls (or a profile that starts mid-step)")                                 \
  X(MemoryNeverFreed, "memory_never_freed", Note,                                                 \
    "a memory allocation with end_ns 0 or before start_ns stays allocated",                       \
    "nothing: shown as held to the end")                                                          \
  X(MemorySumOverflow, "memory_sum_overflow", Warning,                                            \
    "a memory track's bytes in use passed 2^63 - 1: shown as 2^63 - 1 until frees bring the "      \
    "exact sum below it (never negative)",                                                         \
    "check the allocation sizes in the profile")                                                  \
  X(MemoryUnknownPlace, "memory_unknown_place", Warning,                                          \
    "a memory event with an unknown place was dropped",                                           \
    "check the profiler version against docs/FORMAT.md")                                          \
  X(NetBadLine, "net_bad_line", Warning,                                                          \
    "a net line that is not a JSON object with a usable ts was skipped",                          \
    "check the net logger; the first examples are printed on stderr")                             \
  X(NetNonNumericArg, "net_non_numeric_arg", Note,                                                \
    "a non-numeric net counter argument was left out",                                            \
    "nothing, unless that counter was wanted")                                                    \
  X(RenderFailed, "render_failed", Error,                                                         \
    "a chunk could not be rendered (e.g. a profile gone before it was read again)",               \
    "see otherData.problems and stderr; rerun when the file is back")                             \
  X(StepNumberIgnored, "step_number_ignored", Warning,                                           \
    "a profile's step marks (ProfilerStep#N) are not all numbered or do not increase; its steps "  \
    "are numbered by position, which may pair them with other ranks' steps wrongly",               \
    "check the trace: a cut or merged file, or a profiler writing steps twice")                    \
  X(StringControlChar, "string_control_char", Note,                                               \
    "a name held control characters; they are escaped",                                           \
    "nothing")                                                                                    \
  X(StringInvalidUtf8, "string_invalid_utf8", Note,                                               \
    "a name was not valid UTF-8; bad bytes replaced by U+FFFD",                                   \
    "nothing, unless names look wrong")                                                           \
  X(SumSaturated, "sum_saturated", Warning,                                                        \
    "a sum of ns in an analysis file (a kernel's total_ns in kernels.csv, findings' kernel "       \
    "totals) passed 2^63 - 1 and is shown as 2^63 - 1",                                            \
    "check the profiler's clock: no real run sums 292 years of kernel time")                       \
  X(TimeNoiseLine, "time_noise_line", Note,                                                       \
    "a time file line that is not \"start time:\" or \"end time:\" was ignored",                  \
    "nothing")                                                                                    \
  X(TimeRepeatedLine, "time_repeated_line", Warning,                                              \
    "a time file repeats start or end time; the first one is kept",                               \
    "check the job script that writes the time file")                                             \
  X(TimestampBeforeOrigin, "timestamp_before_origin", Warning,                                    \
    "a timestamp before the time origin was clamped to it",                                       \
    "give a smaller --time-origin-ns, or none")                                                   \
  X(TimestampZero, "timestamp_zero", Warning,                                                     \
    "a timestamp of 0 was clamped to the time origin",                                            \
    "check the profiler's clock")
// clang-format on

// A warning kind. Its order is the order of the names (bytes), so a
// std::map<Warn, ...> iterates in the same order as one keyed by name.
enum class Warn : uint8_t {
#define XSTACK_WARN_ENUMERATOR(id, name, severity, meaning, action) id,
  XSTACK_WARNING_KINDS(XSTACK_WARN_ENUMERATOR)
#undef XSTACK_WARN_ENUMERATOR
};

struct WarningKind {
  std::string_view id;  // the enumerator of Warn, e.g. "DcgmBadRow"
  std::string_view name;
  Severity severity;
  std::string_view meaning;  // one line
  std::string_view action;   // what the user can do
};

const char* severityName(Severity s);

// Indexed by Warn: kWarningKinds[static_cast<size_t>(w)] describes w.
inline constexpr WarningKind kWarningKinds[] = {
#define XSTACK_WARN_ROW(id, name, severity, meaning, action) \
  {#id, name, Severity::severity, meaning, action},
    XSTACK_WARNING_KINDS(XSTACK_WARN_ROW)
#undef XSTACK_WARN_ROW
};
inline constexpr size_t kWarnCount = std::size(kWarningKinds);
static_assert(kWarnCount <= 256, "Warn is a uint8_t");

namespace warn_detail {

constexpr bool isUpper(char c) { return c >= 'A' && c <= 'Z'; }

// `snake` is `camel` in snake_case: "DcgmBadRow" -> "dcgm_bad_row", digits kept.
constexpr bool isSnakeOf(std::string_view camel, std::string_view snake) {
  size_t j = 0;
  for (size_t i = 0; i < camel.size(); ++i) {
    const char c = camel[i];
    if (isUpper(c) && i > 0 && (j >= snake.size() || snake[j++] != '_')) return false;
    const char lower = isUpper(c) ? static_cast<char>(c - 'A' + 'a') : c;
    if (j >= snake.size() || snake[j++] != lower) return false;
  }
  return j == snake.size();
}

constexpr bool tableIsSortedAndNamed() {
  for (size_t i = 0; i < kWarnCount; ++i) {
    if (!isSnakeOf(kWarningKinds[i].id, kWarningKinds[i].name)) return false;
    if (kWarningKinds[i].meaning.empty() || kWarningKinds[i].action.empty()) return false;
    if (i > 0 && !(kWarningKinds[i - 1].name < kWarningKinds[i].name)) return false;
  }
  return true;
}

}  // namespace warn_detail

static_assert(warn_detail::tableIsSortedAndNamed(),
              "XSTACK_WARNING_KINDS: sort by name; each name is its enumerator in snake_case, "
              "with a meaning and an action");

constexpr const WarningKind& warningKind(Warn w) { return kWarningKinds[static_cast<size_t>(w)]; }
constexpr std::string_view warnName(Warn w) { return warningKind(w).name; }

// The kind named `name`, or an Error naming it when it is not in the table
// (a summary decoded from another rank or file).
Expected<Warn> warnByName(std::string_view name);

// The table of docs/WARNINGS.md: a header and one row per kind, in table order.
std::string warningKindsMarkdown();

}  // namespace xstack
