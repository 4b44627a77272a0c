#!/usr/bin/env bash
# Perfetto's own importer (../shared/tools/trace_processor_shell) on every golden trace, JSON and
# .pftrace of the same data: both import to the same processes (pid, name), the
# same threads (tid, name) and the same slice count per thread, the same counter tracks (one per
# series and trainer, same names, same sample counts; as many as the JSON has series), the same
# trace bounds (the .pftrace's metadata stays out of the timeline) and the run's metadata in the
# .pftrace; as many slices, named processes and threads, counter samples and flows as the JSON
# holds, in both formats; no process or thread of ours is the importer's swapper/idle task (pid
# 0, tid 0 are not used: the pipeline is pid 1, rank R's thread tid R + 1, named "rank R"). Each
# .pftrace process track has child_ordering "explicit" and a sibling_order_rank equal to the
# JSON's process_sort_index (trace_processor keeps no ordering of thread
# tracks: tests/perfetto/pftrace_check.cpp checks theirs in the bytes). Skips (77) when the
# shared folder is absent; XSTACK_SHARED_DIR overrides its place.
# With XSTACK, also:
# - a job whose files hold two displayed trainers (their counters must stay two tracks per series
#   in both formats);
# - a PyTorch trace whose ops overlap without nesting (both formats draw them on the same overlap
#   lane threads; no import error such as the JSON importer's
#   slice_spill_overlapping_complete_event);
# - a PyTorch trace with CPU ops on tid 0 and on the tid equal to their row's pid, and kernels on
#   stream 0 and on the stream equal to their row's pid (the importers would
#   merge each pair into one thread; docs/FORMAT.md section 3, "Thread ids of the rows");
# - the standard set's shape (bench/run, docs/PERFORMANCE.md "Method": 2 trainers x 8 GPUs,
#   `xstack report` with its defaults) at bench/run --quick's size (2 steps x 1000 ops per step,
#   1/10 of the standard set's 10 x 2000: the full set's 16 loads of 20-40 MB traces into this
#   -O0 trace_processor take minutes on 2 cores), --format json,perfetto: its 8 pairs checked as
#   above.
# Each trace is loaded once (one query file, rows tagged by section).
# usage: tests/shell/golden_trace_processor.sh [XSTACK]
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
shared=${XSTACK_SHARED_DIR:-$repo/../shared}
tp=$shared/tools/trace_processor_shell
[[ -x $tp ]] || { echo "SKIP: $tp not found (the shared folder is absent)"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Every question of one trace, each row tagged with its section:
#   T  our threads (the importer's own pid 0 swapper left out), with their slice counts;
#   I  a process of ours holding an idle thread;
#   C  counter tracks (one per series: name, with the trainer's id) with their sample counts;
#   U  counter names and units (what and whose in the name, units that are units);
#   B  the trace's bounds (the metadata must not move them);
#   M  the run's metadata;
#   S  import problems: none of severity error or data_loss, e.g. the JSON importer's
#      slice_spill_overlapping_complete_event for X events that overlap without nesting;
#   F  flows;
#   O  process tracks' ordering (.pftrace only: child_ordering, sibling_order_rank);
#   K  what was imported in all: slices, named processes, named threads, counter samples, flows.
cat >"$work/all.sql" <<'SQL'
SELECT 'T' AS tag, p.pid, p.name, t.tid, t.name, t.is_idle,
       (SELECT count(*) FROM thread_track tt JOIN slice s ON s.track_id = tt.id
        WHERE tt.utid = t.utid) AS slices
FROM thread t JOIN process p USING (upid) WHERE p.pid != 0 ORDER BY p.pid, t.tid;
SELECT 'I' AS tag, p.pid, p.name, t.tid FROM thread t JOIN process p USING (upid)
WHERE t.is_idle = 1 AND p.name IS NOT NULL;
SELECT 'C' AS tag, p.pid, ct.name, count(c.id) FROM process_counter_track ct JOIN process p USING (upid)
LEFT JOIN counter c ON c.track_id = ct.id GROUP BY ct.id ORDER BY p.pid, ct.name;
SELECT 'U' AS tag, ct.name, coalesce(ct.unit, 'none') FROM counter_track ct ORDER BY ct.name;
SELECT 'B' AS tag, start_ts, end_ts FROM trace_bounds;
SELECT 'M' AS tag, count(*) FROM metadata WHERE name = 'cr-xstack.otherData' AND str_value LIKE '{%';
SELECT 'S' AS tag, name, value FROM stats WHERE severity IN ('error', 'data_loss') AND value > 0;
SELECT 'F' AS tag, count(*) FROM flow;
SELECT 'O' AS tag, p.pid, extract_arg(pt.source_arg_set_id, 'child_ordering'),
       extract_arg(pt.source_arg_set_id, 'sibling_order_rank')
FROM process_track pt JOIN process p USING (upid)
WHERE extract_arg(pt.source_arg_set_id, 'source') = 'descriptor' ORDER BY p.pid;
SELECT 'K' AS tag, (SELECT count(*) FROM slice),
       (SELECT count(*) FROM process WHERE pid != 0 AND name IS NOT NULL),
       (SELECT count(*) FROM thread t JOIN process p USING (upid)
        WHERE p.pid != 0 AND t.name IS NOT NULL),
       (SELECT count(*) FROM counter), (SELECT count(*) FROM flow);
SQL
# load TRACE OUT: the tagged answers of TRACE in OUT.
load() {
  "$tp" query -f "$work/all.sql" "$1" >"$2" 2>"$work/tp.err" ||
    { tail -5 "$work/tp.err" >&2; fail "trace_processor_shell failed on $1"; }
}
# section TAG FILE: the rows of section TAG, without the tag.
section() { grep "^\"$1\"," "$2" | cut -d, -f2- || true; }
# What the JSON itself says (python, streaming would not pay at these sizes): "O pid sort_index"
# per process_sort_index, "N <count>" the distinct counter series (pid, name, arg key), and
# "K slices,processes,threads,samples,flows" as the K section counts them: X and i events, the
# named processes and threads, one counter sample per C event and arg, the flows started.
json_facts() {
  python3 - "$1" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
series, procs, threads = set(), set(), set()
slices = samples = flows = 0
for e in events:
    ph = e.get("ph")
    if ph == "M" and e.get("name") == "process_sort_index":
        print("O", e["pid"], e["args"]["sort_index"])
    if ph == "M" and e.get("name") == "process_name":
        procs.add(e["pid"])
    if ph == "M" and e.get("name") == "thread_name":
        threads.add((e["pid"], e["tid"]))
    if ph in ("X", "i"):
        slices += 1
        flows += 1 if e.get("flow_out") else 0
    if ph == "C":
        series.update((e["pid"], e["name"], k) for k in e["args"])
        samples += len(e["args"])
print("N", len(series))
print("K %d,%d,%d,%d,%d" % (slices, len(procs), len(threads), samples, flows))
PY
}
# check_counters NAME ANSWERS: every counter track is named "<whose> <series>" (trainer T GPU g /
# tx / rx, or a rank's memory row), no name twice, and its unit is a unit (JSON: none, the
# format has no field for it); memory in bytes.
check_counters() {
  local t=$1 answers=$2 name unit
  section U "$answers" >"$work/units.txt"
  while IFS=, read -r name unit; do
    name=${name//\"/} unit=${unit//\"/}
    [[ $name =~ ^(trainer\ [0-9]+\ (GPU\ [0-9]+|tx|rx)|trainerRank\.[0-9]+:(gpu|cpu|cudapinnedplace):[0-9]+\ memory)\ [^\ ]+$ ]] ||
      fail "$t: counter track '$name' does not say what and whose"
    [[ $unit =~ ^(none|bytes|bytes/s|ratio)$ ]] || fail "$t: counter '$name' has unit '$unit'"
    [[ $name != *" memory allocated_bytes" || $unit == bytes || $t == *.json ]] ||
      fail "$t: memory counter '$name' not in bytes ($unit)"
  done <"$work/units.txt"
  [[ -z "$(cut -d, -f1 "$work/units.txt" | sort | uniq -d)" ]] || fail "$t: two counter tracks share a name"
}
# check_pair JSON: the JSON and its .pftrace import alike (the checks of the header).
check_pair() {
  local json=$1 pf=${1%.json}.pftrace name
  name=$(basename "$json")
  [[ -f $pf ]] || fail "no .pftrace beside $json"
  load "$json" "$work/json.out"
  load "$pf" "$work/pf.out"
  section T "$work/json.out" >"$work/json.txt"
  section T "$work/pf.out" >"$work/pf.txt"
  [[ -s $work/json.txt ]] || fail "no thread imported from $json"
  diff "$work/json.txt" "$work/pf.txt" >&2 || fail "$name and its .pftrace import to different processes/threads/slices"
  section C "$work/json.out" >"$work/json.counters"
  section C "$work/pf.out" >"$work/pf.counters"
  diff "$work/json.counters" "$work/pf.counters" >&2 || fail "$name and its .pftrace import to different counter tracks"
  json_facts "$json" >"$work/facts.txt"
  [[ $(wc -l <"$work/pf.counters") == "$(sed -n 's/^N //p' "$work/facts.txt")" ]] ||
    fail "$name: $(wc -l <"$work/pf.counters") counter tracks, not one per series ($(sed -n 's/^N //p' "$work/facts.txt"))"
  # Counts (slices, processes, threads, counter samples, flows): the JSON's own, in both formats.
  local want
  want=$(sed -n 's/^K //p' "$work/facts.txt")
  [[ "$(section K "$work/json.out")" == "$want" ]] ||
    fail "$name imports slices,processes,threads,samples,flows $(section K "$work/json.out"), the file has $want"
  [[ "$(section K "$work/pf.out")" == "$want" ]] ||
    fail "${name%.json}.pftrace imports slices,processes,threads,samples,flows $(section K "$work/pf.out"), the JSON has $want"
  counts+=("$name $want")
  [[ "$(section B "$work/json.out")" == "$(section B "$work/pf.out")" ]] ||
    fail "$name and its .pftrace start or end at different times:" \
      "$(section B "$work/json.out") vs $(section B "$work/pf.out")"
  [[ -z "$(section S "$work/json.out")" ]] || fail "$name: import problems: $(section S "$work/json.out")"
  [[ -z "$(section S "$work/pf.out")" ]] || fail "${name%.json}.pftrace: import problems: $(section S "$work/pf.out")"
  check_counters "$name" "$work/json.out"
  check_counters "${name%.json}.pftrace" "$work/pf.out"
  [[ "$(section M "$work/pf.out")" == 1 ]] || fail "${name%.json}.pftrace: no cr-xstack.otherData metadata"
  grep -q '"00_pipeline",[0-9]*,"rank ' "$work/json.txt" || fail "$name: no named pipeline thread"
  [[ -z "$(section I "$work/json.out")$(section I "$work/pf.out")" ]] ||
    fail "$name: a process of ours holds the idle thread"
  # Ordering: every process explicit, ranked as the JSON sorts it.
  sed -n 's/^O \([0-9-]*\) \([0-9-]*\)$/\1,"explicit",\2/p' "$work/facts.txt" |
    sort -t, -k1,1n >"$work/json.order"
  section O "$work/pf.out" | sort -t, -k1,1n >"$work/pf.order"
  [[ -s $work/json.order ]] || fail "$name: no process_sort_index"
  diff "$work/json.order" "$work/pf.order" >&2 ||
    fail "${name%.json}.pftrace: process ordering (pid, child_ordering, sibling_order_rank) is not the JSON's"
}
# threads_of TRACE: the tagged T rows of TRACE (its threads with their slice counts).
threads_of() { load "$1" "$work/one.out" && section T "$work/one.out"; }
flows_of() { load "$1" "$work/one.out" && section F "$work/one.out"; }

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
    threads_of "$t" >"$work/lanes.txt"
    grep -q '"stream 7 (overlap 1)",0,1$' "$work/lanes.txt" ||
      fail "$(basename "$t"): no overlap lane holding kernel b: $(cat "$work/lanes.txt")"
    grep -q '"thread 1 (overlap 1)",0,1$' "$work/lanes.txt" ||
      fail "$(basename "$t"): no overlap lane holding CPU op y"
    [[ $(flows_of "$t") -ge 1 ]] || fail "$(basename "$t"): the launch -> b flow is lost"
  done
  [[ $(flows_of "$work"/overlap_out/traceFile_0_0.json) == \
     $(flows_of "$work"/overlap_out/traceFile_0_0.pftrace) ]] ||
    fail "the overlap job's formats import different flows"
  traces+=("$work"/overlap_out/traceFile_*.json)

  # Items 12/16: thread ids the importers reserve. The rank's rows: cpu:block:0 (pid 9) with
  # CPU ops on tid 0 and on tid 9, gpu:0 (pid 10) with kernels on stream 0, stream 10 and two
  # overlapping ones on stream 9 (a lane). Each thread must stay a thread of its own with one
  # slice, in both formats, named by its input id; no spill.
  mkdir -p "$work/tids"
  cat >"$work/tids/rank0.trace.json" <<'JSON'
{"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
{"ph": "X", "cat": "cpu_op", "name": "on tid 0", "pid": 1, "tid": 0, "ts": 10, "dur": 40},
{"ph": "X", "cat": "cpu_op", "name": "on tid 9", "pid": 1, "tid": 9, "ts": 30, "dur": 40},
{"ph": "X", "cat": "kernel", "name": "on stream 0", "pid": 0, "tid": 0, "ts": 100, "dur": 100, "args": {"device": 0, "stream": 0}},
{"ph": "X", "cat": "kernel", "name": "on stream 10", "pid": 0, "tid": 10, "ts": 150, "dur": 100, "args": {"device": 0, "stream": 10}},
{"ph": "X", "cat": "kernel", "name": "p", "pid": 0, "tid": 9, "ts": 100, "dur": 100, "args": {"device": 0, "stream": 9}},
{"ph": "X", "cat": "kernel", "name": "q", "pid": 0, "tid": 9, "ts": 150, "dur": 100, "args": {"device": 0, "stream": 9}}
]}
JSON
  "$1" report --data-dir "$work/tids" --out "$work/tids_out" --format json,perfetto \
    --no-progress 2>"$work/tids.log" || { cat "$work/tids.log" >&2; fail "report failed"; }
  for t in "$work"/tids_out/traceFile_0_0.json "$work"/tids_out/traceFile_0_0.pftrace; do
    threads_of "$t" >"$work/tids.txt"
    for want in '9,"08_trainerRank.000:cpu:block:0",[0-9]*,"thread 0",0,1' \
                '9,"08_trainerRank.000:cpu:block:0",[0-9]*,"thread 9",0,1' \
                '10,"09_trainerRank.000:gpu:0",[0-9]*,"stream 0",0,1' \
                '10,"09_trainerRank.000:gpu:0",[0-9]*,"stream 9",0,1' \
                '10,"09_trainerRank.000:gpu:0",[0-9]*,"stream 9 (overlap 1)",0,1' \
                '10,"09_trainerRank.000:gpu:0",[0-9]*,"stream 10",0,1'; do
      grep -q "^$want\$" "$work/tids.txt" ||
        fail "$(basename "$t"): no thread $want of its own: $(cat "$work/tids.txt")"
    done
  done
  traces+=("$work"/tids_out/traceFile_*.json)

  # The standard set's shape (see the header): 8 files of 2 displayed ranks each.
  "$1" synth --out "$work/std" --trainers 2 --gpus-per-trainer 8 --steps 2 --ops-per-step 1000 \
    --seed 1 >/dev/null 2>&1 || fail "synth of the standard set failed"
  "$1" report --data-dir "$work/std" --out "$work/std_out" --format json,perfetto --no-progress \
    2>"$work/std.log" || { cat "$work/std.log" >&2; fail "report of the standard set failed"; }
  std=("$work"/std_out/traceFile_*.json)
  [[ ${#std[@]} == 8 ]] || fail "the standard set gave ${#std[@]} JSON traces, not 8"
  traces+=("${std[@]}")
fi
n=0
counts=()
for json in "${traces[@]}"; do
  check_pair "$json"
  n=$((n + 1))
done
printf '  %s (slices,processes,threads,counter samples,flows)\n' "${counts[@]}"
echo "golden traces through trace_processor: $n pairs import alike"
