#!/usr/bin/env bash
# Perfetto's own importer (../shared/tools/trace_processor_shell) on every golden trace, JSON and
# .pftrace of the same data (issue 21 part D): both import to the same processes (pid, name), the
# same threads (tid, name) and the same slice count per thread; no process or thread of ours is
# the importer's swapper/idle task (pid 0, tid 0 are not used: the pipeline is pid 1, rank R's
# thread tid R + 1, named "rank R"). Skips (77) when the shared folder is absent;
# XSTACK_SHARED_DIR overrides its place.
# usage: tests/shell/golden_trace_processor.sh
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
query() { "$tp" query -f "$1" "$2" 2>/dev/null | tail -n +2; }
n=0
for json in "$repo"/tests/golden/expected/traceFile_*.json; do
  pf=${json%.json}.pftrace
  [[ -f $pf ]] || fail "no .pftrace beside $json"
  query "$work/threads.sql" "$json" >"$work/json.txt"
  query "$work/threads.sql" "$pf" >"$work/pf.txt"
  [[ -s $work/json.txt ]] || fail "no thread imported from $json"
  diff "$work/json.txt" "$work/pf.txt" >&2 ||
    fail "$(basename "$json") and its .pftrace import to different processes/threads/slices"
  grep -q '"00_pipeline",1,"rank 0"\|"00_pipeline",[0-9]*,"rank ' "$work/json.txt" ||
    fail "$(basename "$json"): no named pipeline thread"
  for t in "$json" "$pf"; do
    [[ -z "$(query "$work/idle.sql" "$t")" ]] || fail "$(basename "$t"): a process of ours holds the idle thread"
  done
  n=$((n + 1))
done
echo "golden traces through trace_processor: $n pairs import alike"
