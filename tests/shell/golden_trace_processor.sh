#!/usr/bin/env bash
# Perfetto's own importer (../shared/tools/trace_processor_shell) on every golden trace, JSON and
# .pftrace of the same data (issue 21 part D): both import to the same processes (pid, name), the
# same threads (tid, name) and the same slice count per thread, the same counter tracks (one per
# series and trainer, same names, same sample counts), the same trace bounds (the .pftrace's
# metadata stays out of the timeline) and the run's metadata in the .pftrace; no process or thread of ours is
# the importer's swapper/idle task (pid 0, tid 0 are not used: the pipeline is pid 1, rank R's
# thread tid R + 1, named "rank R"). Skips (77) when the shared folder is absent;
# XSTACK_SHARED_DIR overrides its place.
# With XSTACK, also a job whose files hold two displayed trainers (their counters must stay two
# tracks per series in both formats), and a PyTorch trace whose ops overlap without nesting (both
# formats draw them on the same overlap lane threads; no import error such as the JSON
# importer's slice_spill_overlapping_complete_event, issue 21 item 16).
# usage: tests/shell/golden_trace_processor.sh [XSTACK]
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
shared=${XSTACK_SHARED_DIR:-$repo/../shared}
tp=$shared/tools/trace_processor_shell
[[ -x $tp ]] || { echo "SKIP: $tp not found (the shared folder is absent)"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Our threads (the importer's own pid 0 swapper left out), with their slice counts.
cat >"$work/threads.sql" <<'SQL'
SELECT p.pid, p.name, t.tid, t.name, t.is_idle,
       (SELECT count(*) FROM thread_track tt JOIN slice s ON s.track_id = tt.id
        WHERE tt.utid = t.utid) AS slices
FROM thread t JOIN process p USING (upid) WHERE p.pid != 0 ORDER BY p.pid, t.tid;
SQL
cat >"$work/idle.sql" <<'SQL'
SELECT 'ours-idle', p.pid, p.name, t.tid FROM thread t JOIN process p USING (upid)
WHERE t.is_idle = 1 AND p.name IS NOT NULL;
SQL
# Counter tracks: one per series (name, with the trainer's id), with their sample counts.
cat >"$work/counters.sql" <<'SQL'
SELECT p.pid, ct.name, count(c.id) FROM process_counter_track ct JOIN process p USING (upid)
LEFT JOIN counter c ON c.track_id = ct.id GROUP BY ct.id ORDER BY p.pid, ct.name;
SQL
# The trace's bounds (the metadata must not move them) and the run's metadata.
cat >"$work/bounds.sql" <<'SQL'
SELECT start_ts, end_ts FROM trace_bounds;
SQL
# Counter names and units (issue 21 item 14): what and whose in the name, units that are units.
cat >"$work/units.sql" <<'SQL'
SELECT ct.name, coalesce(ct.unit, 'none') FROM counter_track ct ORDER BY ct.name;
SQL
cat >"$work/meta.sql" <<'SQL'
SELECT count(*) FROM metadata WHERE name = 'cr-xstack.otherData' AND str_value LIKE '{%';
SQL
# Import problems (issue 21): none of severity error or data_loss, e.g. the JSON importer's
# slice_spill_overlapping_complete_event for X events that overlap without nesting.
cat >"$work/stats.sql" <<'SQL'
SELECT name, value FROM stats WHERE severity IN ('error', 'data_loss') AND value > 0;
SQL
cat >"$work/flows.sql" <<'SQL'
SELECT count(*) FROM flow;
SQL
query() { "$tp" query -f "$1" "$2" 2>/dev/null | tail -n +2; }
# check_counters TRACE: every counter track is named "<whose> <series>" (trainer T GPU g / tx /
# rx, or a rank's memory row), no name twice, and its unit is a unit (JSON: none, the format has
# no field for it); memory in bytes.
check_counters() {
  local t=$1 name unit
  query "$work/units.sql" "$t" >"$work/units.txt"
  while IFS=, read -r name unit; do
    name=${name//\"/} unit=${unit//\"/}
    [[ $name =~ ^(trainer\ [0-9]+\ (GPU\ [0-9]+|tx|rx)|trainerRank\.[0-9]+:(gpu|cpu|cudapinnedplace):[0-9]+\ memory)\ [^\ ]+$ ]] ||
      fail "$(basename "$t"): counter track '$name' does not say what and whose"
    [[ $unit =~ ^(none|bytes|bytes/s|ratio)$ ]] || fail "$(basename "$t"): counter '$name' has unit '$unit'"
    [[ $name != *" memory allocated_bytes" || $unit == bytes || $t == *.json ]] ||
      fail "$(basename "$t"): memory counter '$name' not in bytes ($unit)"
  done <"$work/units.txt"
  [[ -z "$(cut -d, -f1 "$work/units.txt" | sort | uniq -d)" ]] ||
    fail "$(basename "$t"): two counter tracks share a name"
}
traces=("$repo"/tests/golden/expected/traceFile_*.json)
if [[ $# -ge 1 ]]; then
  "$1" synth --out "$work/data" --trainers 2 --gpus-per-trainer 2 --steps 2 --ops-per-step 8 \
    --seed 3 >/dev/null 2>&1 || fail "synth failed"
  "$1" report --data-dir "$work/data" --out "$work/out" --format json,perfetto --no-progress \
    2>/dev/null || fail "report failed"
  traces+=("$work"/out/traceFile_*.json)
  # Item 16: ops of one thread that overlap without nesting (kernels a/b on stream 7, CPU ops
  # x/y), one launching the other's flow, and two ops at one ts, the shorter first in the file
  # (the importers nest the longer around it). Both formats must draw the same slices on the
  # same threads: the overlapping ones on the overlap lane threads, no spill in the JSON.
  mkdir -p "$work/overlap"
  cat >"$work/overlap/rank0.trace.json" <<'JSON'
{"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
{"ph": "X", "cat": "cpu_op", "name": "x", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
{"ph": "X", "cat": "cpu_op", "name": "y", "pid": 1, "tid": 1, "ts": 30, "dur": 40},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 140, "dur": 5, "args": {"correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 100, "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 4}},
{"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 150, "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "c", "pid": 0, "tid": 7, "ts": 160, "dur": 10, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "short", "pid": 0, "tid": 7, "ts": 300, "dur": 10, "args": {"device": 0, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "long", "pid": 0, "tid": 7, "ts": 300, "dur": 100, "args": {"device": 0, "stream": 7}},
{"ph": "f", "id": 5, "pid": 0, "tid": 7, "ts": 150, "cat": "ac2g", "name": "ac2g", "bp": "e"},
{"ph": "s", "id": 5, "pid": 1, "tid": 1, "ts": 140, "cat": "ac2g", "name": "ac2g"}
]}
JSON
  "$1" report --data-dir "$work/overlap" --out "$work/overlap_out" --format json,perfetto \
    --no-progress 2>"$work/overlap.log" || { cat "$work/overlap.log" >&2; fail "report failed"; }
  grep -q 'event_overlap_lane 2' "$work/overlap.log" || fail "overlap lanes not counted"
  for t in "$work"/overlap_out/traceFile_*.json "$work"/overlap_out/traceFile_*.pftrace; do
    query "$work/threads.sql" "$t" >"$work/lanes.txt"
    grep -q '"stream 7 (overlap 1)",0,1$' "$work/lanes.txt" ||
      fail "$(basename "$t"): no overlap lane holding kernel b: $(cat "$work/lanes.txt")"
    grep -q '"thread 1 (overlap 1)",0,1$' "$work/lanes.txt" ||
      fail "$(basename "$t"): no overlap lane holding CPU op y"
    [[ $(query "$work/flows.sql" "$t") -ge 1 ]] || fail "$(basename "$t"): the launch -> b flow is lost"
  done
  [[ $(query "$work/flows.sql" "$work"/overlap_out/traceFile_0_0.json) == \
     $(query "$work/flows.sql" "$work"/overlap_out/traceFile_0_0.pftrace) ]] ||
    fail "the overlap job's formats import different flows"
  traces+=("$work"/overlap_out/traceFile_*.json)
fi
n=0
for json in "${traces[@]}"; do
  pf=${json%.json}.pftrace
  [[ -f $pf ]] || fail "no .pftrace beside $json"
  query "$work/threads.sql" "$json" >"$work/json.txt"
  query "$work/threads.sql" "$pf" >"$work/pf.txt"
  [[ -s $work/json.txt ]] || fail "no thread imported from $json"
  diff "$work/json.txt" "$work/pf.txt" >&2 ||
    fail "$(basename "$json") and its .pftrace import to different processes/threads/slices"
  query "$work/counters.sql" "$json" >"$work/json.counters"
  query "$work/counters.sql" "$pf" >"$work/pf.counters"
  diff "$work/json.counters" "$work/pf.counters" >&2 ||
    fail "$(basename "$json") and its .pftrace import to different counter tracks"
  [[ "$(query "$work/bounds.sql" "$json")" == "$(query "$work/bounds.sql" "$pf")" ]] ||
    fail "$(basename "$json") and its .pftrace start or end at different times:" \
      "$(query "$work/bounds.sql" "$json") vs $(query "$work/bounds.sql" "$pf")"
  for t in "$json" "$pf"; do
    [[ -z "$(query "$work/stats.sql" "$t")" ]] ||
      fail "$(basename "$t"): import problems: $(query "$work/stats.sql" "$t")"
  done
  check_counters "$json"
  check_counters "$pf"
  [[ "$(query "$work/meta.sql" "$pf")" == 1 ]] || fail "$(basename "$pf"): no cr-xstack.otherData metadata"
  grep -q '"00_pipeline",1,"rank 0"\|"00_pipeline",[0-9]*,"rank ' "$work/json.txt" ||
    fail "$(basename "$json"): no named pipeline thread"
  for t in "$json" "$pf"; do
    [[ -z "$(query "$work/idle.sql" "$t")" ]] || fail "$(basename "$t"): a process of ours holds the idle thread"
  done
  n=$((n + 1))
done
echo "golden traces through trace_processor: $n pairs import alike"
