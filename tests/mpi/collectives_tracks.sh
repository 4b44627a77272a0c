#!/usr/bin/env bash
# The traces' collectives process (docs/FORMAT.md section 3, `NN_collectives`): a synthetic
# TP2 x PP4 x DP2 job on two nodes (order TP, PP, DP: the data-parallel all-reduces span the
# nodes), node 1's clock 3 ms ahead, in both formats. Checks: np 1 and np 3 write the same bytes;
# each trace file has one track group per process group with a rank in the file, named with its
# ranks, and each group's slices there are its matched instances (collectives.csv's count); the
# slices of a lane never overlap; args name a last arriver of the group; the instances are on one
# clock: the same job with no skew draws the same slices; Perfetto's importer reads the JSON and the
# .pftrace of a file to the same slices and threads, without an import error (when
# ../shared/tools/trace_processor_shell exists); with --display-size 1 only the groups with a
# displayed rank are drawn; a group drawn in several JSON files is copied from its first rendering
# with the same bytes, also when the copy cannot be read back (it is rendered again).
#   usage: collectives_tracks.sh XSTACK WORKDIR
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --format kineto --tp 2 --pp 4 --dp 2 --rank-order tp-pp-dp --steps 2 \
  --slow 3:1.3 --seed 4 --skew-ns 3000000 --out "$work/data" 2>"$work/synth.log" ||
  fail "synth: $(cat "$work/synth.log")"
"$xstack" report --data-dir "$work/data" --out "$work/np1" --format json,perfetto \
  --no-progress 2>"$work/np1.log" || fail "report np 1: $(cat "$work/np1.log")"
xmpirun 3 "$xstack" report --data-dir "$work/data" --out "$work/np3" --format json,perfetto \
  --no-progress 2>"$work/np3.log" || fail "report np 3: $(cat "$work/np3.log")"
same_dir "$work/np1" "$work/np3" || fail "np 1 and np 3 differ"
"$xstack" synth --format kineto --tp 2 --pp 4 --dp 2 --rank-order tp-pp-dp --steps 2 \
  --slow 3:1.3 --seed 4 --skew-ns 0 --out "$work/data0" 2>"$work/synth0.log" ||
  fail "synth: $(cat "$work/synth0.log")"
"$xstack" report --data-dir "$work/data0" --out "$work/noskew" --no-progress 2>"$work/noskew.log" ||
  fail "report (no skew): $(cat "$work/noskew.log")"
python3 - "$work/np1" "$work/noskew" <<'PY' || fail "the collectives process"
import collections, csv, glob, json, os, re, sys
out, noskew = sys.argv[1:]
counts = collections.Counter()
for row in csv.DictReader(open(os.path.join(out, "collectives.csv"))):
    counts[row["group"]] += int(row["count"])
assert counts, "no collectives"

def ranks_of(name):
    m = re.fullmatch(r'group "(.*)" \(ranks ([0-9,-]+)\)( \(overlap \d+\))?', name)
    assert m, name
    ranks = set()
    for run in m.group(2).split(","):
        a, _, b = run.partition("-")
        ranks.update(range(int(a), int(b or a) + 1))
    return m.group(1), ranks

seen = set()
for path in sorted(glob.glob(os.path.join(out, "traceFile_*.json"))):
    events = json.load(open(path))["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "process_name"}
    coll = [p for p, n in procs.items() if n.endswith("_collectives")]
    assert len(coll) == 1, (path, procs)
    pid = coll[0]
    assert procs[pid] == "%02d_collectives" % (pid - 1), procs[pid]
    file_ranks = {e["tid"] - 1 for e in events if e["ph"] == "M" and e["pid"] == 1
                  and e["name"] == "thread_name"}
    threads = {e["tid"]: e["args"]["name"] for e in events
               if e["ph"] == "M" and e["pid"] == pid and e["name"] == "thread_name"}
    per_group, groups_here = collections.Counter(), {}
    last_end = {}
    for e in sorted((e for e in events if e["ph"] == "X" and e["pid"] == pid),
                    key=lambda e: (e["tid"], e["ts"])):
        assert e["cat"] == "collective", e
        group, ranks = ranks_of(threads[e["tid"]])
        groups_here[group] = ranks
        per_group[group] += 1
        assert e["args"]["last_arriver"] in ranks, e
        assert e["ts"] >= last_end.get(e["tid"], 0), ("lane overlap", e)
        last_end[e["tid"]] = e["ts"] + e["dur"]
    for group, ranks in groups_here.items():
        assert ranks & file_ranks, (path, group, ranks, file_ranks)
        assert per_group[group] == counts[group], (path, group, per_group[group], counts[group])
    seen.update(groups_here)
    one_clock = json.load(open(os.path.join(noskew, os.path.basename(path))))["traceEvents"]
    mine = [e for e in events if e["pid"] == pid]
    assert mine == [e for e in one_clock if e["pid"] == pid], ("the skew moved slices", path)
assert seen == set(counts), (sorted(set(counts) - seen), sorted(seen - set(counts)))
print("collectives process: %d groups, %d instances, in %d files" %
      (len(seen), sum(counts.values()), len(glob.glob(os.path.join(out, "traceFile_*.json")))))
PY
# A group drawn in several JSON files is rendered once per rank and copied (RenderedTracks):
# the JSON-only runs (np 1 with 2 threads, np 3) write the bytes of json,perfetto's JSON, where
# every group is rendered where drawn; so does a run whose copies cannot be read back.
copies() { sed -n 's/.*track_copies \([0-9]*\).*/\1/p' "$1" | head -n 1; }
"$xstack" report --data-dir "$work/data" --out "$work/json1" --threads 2 --timings --no-progress \
  2>"$work/json1.log" || fail "report --format json: $(cat "$work/json1.log")"
[ "$(copies "$work/json1.log")" -gt 0 ] || fail "no track group copied: $(cat "$work/json1.log")"
xmpirun 3 "$xstack" report --data-dir "$work/data" --out "$work/json3" --no-progress \
  2>"$work/json3.log" || fail "report --format json np 3: $(cat "$work/json3.log")"
XSTACK_INJECT_FAULT=tracks-text-read:0 "$xstack" report --data-dir "$work/data" --timings \
  --out "$work/jsonf" --no-progress 2>"$work/jsonf.log" || fail "unread copies: $(cat "$work/jsonf.log")"
[ "$(copies "$work/jsonf.log")" = 0 ] || fail "copies made that could not be read: $(cat "$work/jsonf.log")"
for j in "$work/np1"/traceFile_*.json; do
  for run in json1 json3 jsonf; do
    cmp "$j" "$work/$run/$(basename "$j")" || fail "$run: $(basename "$j") differs from json,perfetto's"
  done
done
echo "track groups copied: $(copies "$work/json1.log") chunks, the same bytes"
# --display-size 1: only node 0's ranks are displayed; a group of node 1's ranks alone is not drawn.
"$xstack" report --data-dir "$work/data" --out "$work/d1" --display-size 1 --no-progress \
  2>"$work/d1.log" || fail "report --display-size 1: $(cat "$work/d1.log")"
python3 - "$work/d1" <<'PY' || fail "the collectives process with --display-size 1"
import glob, json, os, re, sys
names = set()
for path in glob.glob(os.path.join(sys.argv[1], "traceFile_*.json")):
    events = json.load(open(path))["traceEvents"]
    pids = [e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"
            and e["args"]["name"].endswith("_collectives")]
    names.update(e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"
                 and e["pid"] in pids)
assert names, "no collectives tracks"
for n in names:
    first = int(re.search(r"\(ranks (\d+)", n).group(1))
    assert first < 8, ("a group without a displayed rank", n)
print("--display-size 1: %d tracks, each of a group with a rank of node 0" % len(names))
PY
tp=${XSTACK_SHARED_DIR:-$(dirname "$0")/../../../shared}/tools/trace_processor_shell
if [[ -x $tp ]]; then
  cat >"$work/q.sql" <<'SQL'
SELECT 'problem', name, value FROM stats WHERE severity IN ('error', 'data_loss') AND value > 0;
SELECT 'slices', count(*), sum(dur) FROM slice WHERE category = 'collective';
SELECT 'threads', group_concat(name, '|') FROM (SELECT thread.name AS name FROM thread
  JOIN process USING (upid) WHERE process.name LIKE '%_collectives' ORDER BY thread.tid);
SQL
  for f in traceFile_0_0.json traceFile_0_0.pftrace; do
    "$tp" query -f "$work/q.sql" "$work/np1/$f" >"$work/$f.tp" 2>"$work/$f.err" ||
      fail "trace_processor_shell on $f: $(cat "$work/$f.err")"
    ! grep -q '"problem"' "$work/$f.tp" || fail "import problems in $f: $(cat "$work/$f.tp")"
    grep -q '^"slices",[1-9]' "$work/$f.tp" || fail "no collective slices in $f: $(cat "$work/$f.tp")"
  done
  diff <(grep -v '^"name"' "$work/traceFile_0_0.json.tp") \
    <(grep -v '^"name"' "$work/traceFile_0_0.pftrace.tp") >&2 ||
    fail "the JSON and the .pftrace import to different collectives slices or threads"
  echo "trace_processor: $(grep '^"slices"' "$work/traceFile_0_0.json.tp") in both formats"
else
  echo "SKIP part: $tp not found (the shared folder is absent)"
fi
echo "PASS collectives_tracks"
