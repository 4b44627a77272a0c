// The one table of warning kinds (like Perfetto's stats.h): every kind that
// Warnings::add may count is declared here once, with its severity, what it
// means and what the user can do. The names are the keys of otherData.warnings
// and of the end-of-run "warnings:" line; docs/WARNINGS.md lists this table
// (WarningKindsTest checks both ways, and that src/ counts no other kind).
#pragma once

#include <string_view>

namespace xstack {

enum class Severity {
  Note,     // the output is complete; something in the input was unusual
  Warning,  // an input record was dropped, clamped or repaired: the trace shows less or changed
  Error,    // part of an output is missing (the run exits 3, partial)
};

struct WarningKind {
  std::string_view name;
  Severity severity;
  std::string_view meaning;  // one line
  std::string_view action;   // what the user can do
};

const char* severityName(Severity s);

inline constexpr WarningKind kWarningKinds[] = {
    {"dcgm_bad_row", Severity::Warning,
     "a DCGM GPU row with too few fields or no usable TIMESTAMP was skipped",
     "check the dcgmi dmon command line and that the file was not cut"},
    {"dcgm_bad_value", Severity::Warning, "a DCGM field that is not a number (nor N/A) was skipped",
     "check the DCGM field list; other fields of the row are kept"},
    {"dcgm_noise_line", Severity::Note,
     "a DCGM line that is neither a header nor a GPU row was ignored",
     "nothing, unless the file is not DCGM output at all"},
    {"dcgm_row_before_header", Severity::Warning,
     "a DCGM GPU row before any header line was skipped",
     "keep the header line dcgmi prints at the top of the file"},
    {"event_bad_device", Severity::Warning,
     "a CPU event with a device id below -1 has no row and was dropped",
     "check the profiler that wrote the file"},
    {"event_end_before_start", Severity::Warning,
     "an event ends before it starts; drawn with duration 0", "check the profiler's clock"},
    {"event_unknown_type", Severity::Warning,
     "an event of a type other than 0 (CPU) or 1 (GPU) was dropped",
     "check the profiler version against docs/FORMAT.md"},
    {"marker_replaced_begin", Severity::Warning,
     "a marker begin came while the same phase was open; the later one is kept",
     "check the training loop's marker calls"},
    {"marker_unmatched_begin", Severity::Warning, "a marker begin without an end; no span drawn",
     "normal for a job stopped mid-step; else check the marker calls"},
    {"marker_unmatched_end", Severity::Warning, "a marker end without a begin; no span drawn",
     "check the marker calls (or a profile that starts mid-step)"},
    {"memory_never_freed", Severity::Note,
     "a memory allocation with end_ns 0 or before start_ns stays allocated",
     "nothing: shown as held to the end"},
    {"memory_sum_overflow", Severity::Warning,
     "a memory track's running sum overflowed 64 bits and was clamped",
     "check the allocation sizes in the profile"},
    {"memory_unknown_place", Severity::Warning, "a memory event with an unknown place was dropped",
     "check the profiler version against docs/FORMAT.md"},
    {"net_bad_line", Severity::Warning,
     "a net line that is not a JSON object with a usable ts was skipped",
     "check the net logger; the first examples are printed on stderr"},
    {"net_non_numeric_arg", Severity::Note, "a non-numeric net counter argument was left out",
     "nothing, unless that counter was wanted"},
    {"render_failed", Severity::Error,
     "a chunk could not be rendered (e.g. a profile gone before it was read again)",
     "see otherData.problems and stderr; rerun when the file is back"},
    {"string_control_char", Severity::Note, "a name held control characters; they are escaped",
     "nothing"},
    {"string_invalid_utf8", Severity::Note,
     "a name was not valid UTF-8; bad bytes replaced by U+FFFD",
     "nothing, unless names look wrong"},
    {"time_noise_line", Severity::Note,
     "a time file line that is not \"start time:\" or \"end time:\" was ignored", "nothing"},
    {"time_repeated_line", Severity::Warning,
     "a time file repeats start or end time; the first one is kept",
     "check the job script that writes the time file"},
    {"timestamp_before_origin", Severity::Warning,
     "a timestamp before the time origin was clamped to it",
     "give a smaller --time-origin-ns, or none"},
    {"timestamp_zero", Severity::Warning, "a timestamp of 0 was clamped to the time origin",
     "check the profiler's clock"},
};

// The kind named `name`, or nullptr when it is not in the table.
const WarningKind* findWarningKind(std::string_view name);

}  // namespace xstack
