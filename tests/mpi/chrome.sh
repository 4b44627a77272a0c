#!/usr/bin/env bash
# Chrome-trace JSON inputs end to end, with real mpirun.
#   chrome.sh XSTACK WORKDIR CASE
# CASE shared:  the real PyTorch traces of ../shared/traces/kineto (skipped,
#               77, when absent): np 1 = np 3 bytes (every output file);
#               every GPU kernel/memcpy/memset/sync of the input is in the
#               trace once with its exact ns; steps = the input's
#               ProfilerSteps; Perfetto's trace_processor loads both formats
#               with no import error and sees the same GPU slices, each
#               with a flow from its launch; ranks.csv within 0.5 pp of HTA.
# CASE errors:  two formats in one folder, Kineto and Paddle traces in one
#               job, two traces without a rank, a folder without a trace (in D or
#               D/profile), a folder whose only trace is unreadable: rc 2
#               naming the files, nothing written; zero-filled files named like
#               traces: rc 3 naming them; ignored (also hidden) files
#               and a partial world are notes (rc 0).
# CASE folders: traces in D and D/profile are both read (np 1 = np 3); one
#               rank in both is the duplicate-rank error naming both.
# CASE topology: GPUs per node from deviceProperties, else from the devices
#               of the ranks' GPU work (a note; the same bytes as the option
#               given; a display that changes with it is read again), an
#               explicit contradicted value: rc 2.
# CASE single:  every real trace of ../shared/traces/kineto-more and
#               ../shared/traces/kineto (skipped, 77, when absent) alone in a
#               folder under its published name: rc 0, no warning about ranks,
#               GPUs or topology and no Paddle word (trainer, --gpus-per-trainer;
#               a rankless one is rank 0, with a note), np 1 =
#               np 3 bytes (traces, CSVs, report.html); prints ranks.csv's
#               distance from HTA's temporal breakdown, in percentage points.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
X=$1
W=$2
CASE=$3
SHARED=${XSTACK_SHARED_DIR:-$here/../../../shared}
rm -rf "$W"
mkdir -p "$W"

# gpu_events_match INPUT_GZ... OUT_TRACE_JSON: the GPU activities of the
# inputs and the slices on the trace's gpu:<d> processes are the same
# multiset of (start - first start, dur) in ns.
gpu_events_match() {
  python3 - "$@" <<'PY'
import gzip, json, sys
from decimal import Decimal
*inputs, out = sys.argv[1:]
GPU = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_sync"}
def ns(v): return int(Decimal(str(v)) * 1000)
want = []
for p in inputs:
    d = json.load(gzip.open(p))
    base = int(d.get("baseTimeNanoseconds", 0))
    for e in d["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") in GPU:
            want.append((base + ns(e["ts"]), ns(e.get("dur", 0))))
doc = json.load(open(out))
pids = {e["pid"] for e in doc["traceEvents"] if e.get("ph") == "M" and e["name"] == "process_name"
        and ":gpu:" in e["args"]["name"]}
got = [(ns(e["ts"]), ns(e["dur"])) for e in doc["traceEvents"] if e.get("ph") == "X" and e["pid"] in pids]
def rel(xs):
    m = min(s for s, _ in xs)
    return sorted((s - m, d) for s, d in xs)
assert len(got) == len(want), (len(got), len(want))
assert rel(got) == rel(want), "GPU activities differ"
print("gpu events match:", len(got))
PY
}

# steps_match INPUT_GZ... STEPS_CSV: rows per rank = ProfilerStep annotations.
steps_match() {
  python3 - "$@" <<'PY'
import csv, gzip, json, sys
*inputs, steps = sys.argv[1:]
rows = {}
for r in csv.DictReader(open(steps)):
    rows[int(r["rank"])] = rows.get(int(r["rank"]), 0) + 1
for p in inputs:
    d = json.load(gzip.open(p))
    rank = d["distributedInfo"]["rank"]
    n = sum(1 for e in d["traceEvents"] if e.get("cat") == "user_annotation"
            and e["name"].startswith("ProfilerStep#"))
    assert rows.get(rank, 0) == n, (p, rank, rows.get(rank), n)
print("steps match:", rows)
PY
}

# hta_match RANKS_CSV HTA_JSON: ranks.csv within 0.5 percentage points of
# HTA's temporal breakdown and comm/comp overlap, rank by rank.
hta_match() {
  python3 - "$@" <<'PY'
import csv, json, sys
rows = {int(r["rank"]): r for r in csv.DictReader(open(sys.argv[1]))}
hta = json.load(open(sys.argv[2]))["hta"]
for t in hta["temporal_breakdown"]:
    r = rows[int(t["rank"])]
    for ours, theirs in (("idle_pct", "idle_time_pctg"), ("compute_pct", "compute_time_pctg"),
                         ("non_compute_pct", "non_compute_time_pctg")):
        assert abs(float(r[ours]) - t[theirs]) <= 0.5, (t["rank"], ours, r[ours], t[theirs])
for o in hta["comm_comp_overlap"]:
    r = rows[int(o["rank"])]
    assert abs(float(r["comm_comp_overlap_pct"]) - o["comp_comm_overlap_pctg"]) <= 0.5, (o, r)
print("ranks.csv within 0.5 pp of HTA:", {k: (v["idle_pct"], v["compute_pct"],
      v["non_compute_pct"], v["comm_comp_overlap_pct"]) for k, v in rows.items()})
PY
}

# idle_split_match REPORT_HTML INPUT_GZ...: report.html's host/kernel/other wait (its ranks
# table), recomputed here from the raw JSON with HTA's idle-breakdown rule (docs/ANALYSIS.md
# "ranks.csv"), within 0.02 pp.
idle_split_match() {
  python3 - "$@" <<'PY'
import gzip, json, re, sys
page = open(sys.argv[1]).read()
table = page[page.index('id="ranks"'):]
table = table[:table.index("</table>")]
cols = ("rank", "span", "idle", "compute", "non_compute", "overlap", "host_wait_pct",
        "kernel_wait_pct", "other_wait_pct", "memory")
rows = {}
for tr in re.findall(r"<tr>(.*?)</tr>", table, re.S):
    values = re.findall(r'data-v="([^"]*)"', tr)
    if len(values) == len(cols) + 1:  # PyTorch's words: rank, node (text), local rank, ...
        values = values[:1] + values[2:]
    if len(values) == len(cols):
        r = dict(zip(cols, values))
        rows[int(float(r["rank"]))] = r
for p in sys.argv[2:]:
    d = json.load(gzip.open(p))
    ev = [e for e in d["traceEvents"] if e.get("ph") == "X"]
    steps = sorted(e["ts"] for e in ev if e.get("cat") == "user_annotation"
                   and e["name"].startswith("ProfilerStep#"))
    launch = {}  # correlation -> latest CPU-side start
    for e in ev:
        c = e.get("args", {}).get("correlation", -1)
        if e.get("cat") in ("cuda_runtime", "cuda_driver", "cpu_op") and c >= 0:
            launch[c] = max(launch.get(c, e["ts"]), e["ts"])
    kept = {c for c, ts in launch.items() if len(steps) < 2 or ts < steps[-1]}
    gpu = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
           and e["args"].get("stream", -1) >= 0 and e["args"].get("correlation", -1) >= 0
           and e["args"]["correlation"] in kept]
    gpu.sort(key=lambda e: (e["args"]["stream"], e["ts"], e["ts"] + e["dur"]))
    split = [0.0, 0.0, 0.0]  # host, kernel, other (us)
    for prev, cur in zip(gpu, gpu[1:]):
        end = prev["ts"] + prev["dur"]
        if cur["args"]["stream"] != prev["args"]["stream"] or cur["ts"] <= end:
            continue
        gap = cur["ts"] - end
        split[0 if launch.get(cur["args"]["correlation"], -1) > end else 1 if gap < 30 else 2] += gap
    r = rows[d["distributedInfo"]["rank"]]
    for i, col in enumerate(("host_wait_pct", "kernel_wait_pct", "other_wait_pct")):
        assert abs(float(r[col]) - 100 * split[i] / sum(split)) <= 0.02, (p, col, r[col], split)
    print("idle split matches:", p, [r[c] for c in ("host_wait_pct", "kernel_wait_pct",
                                                     "other_wait_pct")])
PY
}

# tp_check TRACE: trace_processor imports it with no error; prints "<import
# errors> <GPU slices> <flows from a cuda_api slice>".
tp_check() {
  local tp=$SHARED/tools/trace_processor_shell
  cat >"$W/q.sql" <<'SQL'
select count(*) as bad from stats where severity in ('error', 'data_loss') and value > 0;
select count(*) as gpu from slice s join thread_track tt on s.track_id = tt.id
  join thread using (utid) join process p using (upid) where p.name like '%:gpu:%';
select count(*) as flows from flow f join slice a on f.slice_out = a.id join slice b on f.slice_in = b.id
  join thread_track ta on a.track_id = ta.id join thread using (utid) join process pa using (upid)
  where pa.name like '%:cuda_api';
SQL
  "$tp" query -f "$W/q.sql" "$1" 2>/dev/null | tr -d '"' | grep -E '^[0-9]+$' | paste -sd' '
}

report_twice() {  # report_twice DATA OUTNAME [OPTIONS...]: np 1 and np 3, same bytes
  local data=$1 out=$2
  shift 2
  xmpirun 1 "$X" report --data-dir "$data" --out "$W/$out.np1" --format json,perfetto "$@" \
    2>"$W/$out.np1.log" || { cat "$W/$out.np1.log"; fail "np 1 report failed"; }
  xmpirun 3 "$X" report --data-dir "$data" --out "$W/$out.np3" --format json,perfetto "$@" \
    2>"$W/$out.np3.log" || { cat "$W/$out.np3.log"; fail "np 3 report failed"; }
  same_dir "$W/$out.np1" "$W/$out.np3"
  python3 - "$W/$out.np1" <<'PY'
import glob, json, sys
for name in glob.glob(sys.argv[1] + "/traceFile_*.json"):
    for e in json.load(open(name))["traceEvents"]:
        assert e.get("ts", 0) >= 0 and e.get("dur", 0) >= 0, (name, e)
PY
}

case_shared() {
  [ -d "$SHARED/traces/kineto" ] || { echo "SKIP: $SHARED/traces/kineto not found"; exit 77; }
  local k=$SHARED/traces/kineto
  mkdir -p "$W/filter/profile" "$W/nccl"
  ln -s "$k"/trace_filter/*.json.gz "$W/filter/profile/"
  ln -s "$k"/nccl_data/*.json.gz "$W/nccl/"  # directly in the data dir
  report_twice "$W/filter" filter
  report_twice "$W/nccl" nccl
  grep -q "2 of the job's 128 ranks have a trace here" "$W/filter.np1.log" ||
    fail "no partial-world note"
  for f in "$W"/filter.np1/traceFile_*.json "$W"/nccl.np1/traceFile_*.json; do
    [ -s "$f" ] || fail "empty $f"
  done
  gpu_events_match "$k"/trace_filter/sampled_rank-0.json.gz "$W/filter.np1/traceFile_0_0.json"
  gpu_events_match "$k"/trace_filter/sampled_rank-1.json.gz "$W/filter.np1/traceFile_0_1.json"
  gpu_events_match "$k"/nccl_data/nccl_data.json.gz "$W/nccl.np1/traceFile_0_0.json"
  steps_match "$k"/trace_filter/*.json.gz "$W/filter.np1/steps.csv"
  steps_match "$k"/nccl_data/nccl_data.json.gz "$W/nccl.np1/steps.csv"
  local exact=$k/hta-expected/nccl_data.exact-ns.json
  [ -f "$exact" ] || exact=$k/hta-expected/nccl_data.json
  hta_match "$W/nccl.np1/ranks.csv" "$exact"
  hta_match "$W/filter.np1/ranks.csv" "$k/hta-expected/trace_filter.json"
  idle_split_match "$W/nccl.np1/report.html" "$k"/nccl_data/nccl_data.json.gz
  idle_split_match "$W/filter.np1/report.html" "$k"/trace_filter/*.json.gz
  [ -x "$SHARED/tools/trace_processor_shell" ] || { echo "SKIP: no trace_processor_shell"; exit 77; }
  local want json pf
  want=$(python3 -c "
import gzip, json
d = json.load(gzip.open('$k/nccl_data/nccl_data.json.gz'))
print(sum(1 for e in d['traceEvents'] if e.get('ph') == 'X' and e.get('cat') in
          ('kernel', 'gpu_memcpy', 'gpu_memset', 'cuda_sync')))")
  json=$(tp_check "$W/nccl.np1/traceFile_0_0.json")
  pf=$(tp_check "$W/nccl.np1/traceFile_0_0.pftrace")
  # every GPU activity of nccl_data has its launch: as many launch -> kernel flows
  [ "$json" = "0 $want $want" ] || fail "trace_processor on the JSON trace: '$json' (want 0 $want $want)"
  [ "$pf" = "0 $want $want" ] || fail "trace_processor on the .pftrace: '$pf' (want 0 $want $want)"
  for f in "$W"/filter.np1/traceFile_*; do
    [ "$(tp_check "$f" | cut -d' ' -f1)" = 0 ] || fail "import errors in $f"
  done
  echo "shared traces: ok"
}

# hta_distance RANKS_CSV HTA_JSON: prints, rank by rank, ours - HTA's idle, compute and
# non-compute percentages (HTA's exact times when the file has them), in points.
hta_distance() {
  python3 - "$@" <<'PY'
import csv, json, sys
rows = {int(r["rank"]): r for r in csv.DictReader(open(sys.argv[1]))}
for t in json.load(open(sys.argv[2]))["hta"]["temporal_breakdown"]:
    r = rows[int(t["rank"])]
    total = t["idle_time_us"] + t["compute_time_us"] + t["non_compute_time_us"]
    out = []
    for ours, theirs in (("idle_pct", "idle_time"), ("compute_pct", "compute_time"),
                         ("non_compute_pct", "non_compute_time")):
        exact = 100 * t[theirs + "_us"] / total if total else t[theirs + "_pctg"]
        out.append("%s %s vs %.2f (%+.2f pp)" % (ours, r[ours], exact, float(r[ours]) - exact))
    print("HTA distance: %s rank %s: %s" % (sys.argv[2].split("/")[-1], t["rank"], "; ".join(out)))
PY
}

# single_trace NAME GZ [HTA_JSON]: GZ alone in a folder as NAME, read at np 1 and 3.
single_trace() {
  local name=$1 gz=$2 hta=${3:-} d=$W/alone/$1
  mkdir -p "$d"
  ln -s "$gz" "$d/$name"
  xmpirun 1 "$X" report --data-dir "$d" --out "$W/$name.np1" 2>"$W/$name.np1.log" ||
    { cat "$W/$name.np1.log"; fail "$name: np 1 report failed"; }
  xmpirun 3 "$X" report --data-dir "$d" --out "$W/$name.np3" 2>"$W/$name.np3.log" ||
    { cat "$W/$name.np3.log"; fail "$name: np 3 report failed"; }
  same_dir "$W/$name.np1" "$W/$name.np3"
  for f in ranks.csv steps.csv kernels.csv report.html; do
    [ -s "$W/$name.np1/$f" ] || fail "$name: no $f"
  done
  ls "$W/$name.np1"/traceFile_*.json >/dev/null || fail "$name: no trace written"
  local log
  for log in "$W/$name.np1.log" "$W/$name.np3.log"; do
    if grep -iE "(warning|error):.*(rank|gpu|topolog|trainer|device)" "$log"; then
      fail "$name: a warning about ranks, GPUs or topology ($log)"
    fi
    # PyTorch's words (FORMAT.md section 2, "Words"): node and local rank, --gpus-per-node.
    if grep -E "trainers?\b|--gpus-per-trainer" "$log"; then
      fail "$name: Paddle's words on a PyTorch trace ($log)"
    fi
  done
  [ -z "$hta" ] || hta_distance "$W/$name.np1/ranks.csv" "$hta"
}

case_single() {
  local more=$SHARED/traces/kineto-more k=$SHARED/traces/kineto
  [ -d "$more" ] && [ -d "$k" ] || { echo "SKIP: $more or $k not found"; exit 77; }
  local resnet=resnet50_worker0.1623143089861.pt.trace.json.gz
  single_trace "$resnet" "$more/$resnet" "$more/hta-expected/resnet50_worker0.exact-ns.json"
  grep -qF "note: one trace without a rank ($W/alone/$resnet/$resnet): read as rank 0" \
    "$W/$resnet.np3.log" || { cat "$W/$resnet.np3.log"; fail "no rank-0 note"; }
  grep -q "^0," "$W/$resnet.np1/ranks.csv" || fail "the rankless trace is not rank 0"
  single_trace vllm_graph_capture_rank_0.pt.trace.json.gz \
    "$more/vllm_graph_capture_rank_0.pt.trace.json.gz" \
    "$more/hta-expected/vllm_graph_capture.exact-ns.json"
  single_trace xdit_sd35_profile_trace_rank_0.json.gz "$more/xdit_sd35_profile_trace_rank_0.json.gz" \
    "$more/hta-expected/xdit_sd35.exact-ns.json"
  grep -q "gpus-per-node 1: the job has one rank" "$W/xdit_sd35_profile_trace_rank_0.json.gz.np1.log" ||
    { cat "$W/xdit_sd35_profile_trace_rank_0.json.gz.np1.log"; fail "xdit: no one-rank note"; }
  single_trace nccl_data.json.gz "$k/nccl_data/nccl_data.json.gz"
  single_trace sampled_rank-0.json.gz "$k/trace_filter/sampled_rank-0.json.gz"
  single_trace sampled_rank-1.json.gz "$k/trace_filter/sampled_rank-1.json.gz"
  echo "single traces: ok"
}

# expect_rc2 LOG WORDS...: the run failed with rc 2 and the log names every word.
expect_rc2() {
  local rc=$1 log=$2
  shift 2
  [ "$rc" = 2 ] || { cat "$log"; fail "rc $rc, want 2"; }
  for w in "$@"; do grep -qF -- "$w" "$log" || { cat "$log"; fail "log does not name $w"; }; done
}

trace_json() {  # trace_json RANK: a small Kineto-like trace of one rank
  printf '{"schemaVersion":1,"distributedInfo":{"rank":%s,"world_size":4},"traceEvents":[' "$1"
  printf '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":9,"tid":9,"ts":100,"dur":50},'
  printf '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":9,"tid":9,"ts":101,"dur":2,"args":{"correlation":1}},'
  printf '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":104,"dur":10,"args":{"device":0,"stream":7,"correlation":1}}'
  printf ']}'
}

case_errors() {
  local rc
  # two formats: a Paddle dump beside a JSON trace
  "$X" synth --out "$W/mixed" --trainers 1 --gpus-per-trainer 1 --steps 2 >/dev/null
  trace_json 0 >"$W/mixed/profile/rank0.pt.trace.json"
  set +e
  xmpirun 2 "$X" report --data-dir "$W/mixed" --out "$W/mixed.out" 2>"$W/mixed.log"
  rc=$?
  set -e
  expect_rc2 "$rc" "$W/mixed.log" "mix two formats" "rank0.pt.trace.json" "profile_rank.0"
  # two traces whose rank nothing says (one alone is rank 0: case single)
  mkdir -p "$W/norank"
  trace_json 0 | sed 's/"distributedInfo":{"rank":0,"world_size":4},//' >"$W/norank/worker.json"
  trace_json 0 | sed 's/"distributedInfo":{"rank":0,"world_size":4},//' >"$W/norank/other.json"
  set +e
  xmpirun 2 "$X" report --data-dir "$W/norank" --out "$W/norank.out" 2>"$W/norank.log"
  rc=$?
  set -e
  expect_rc2 "$rc" "$W/norank.log" "$W/norank/worker.json" "$W/norank/other.json" "rank" \
    "e.g. worker_rank<N>.json"
  # PyTorch's and Paddle's traces in one job (rank 0 Kineto, rank 1 Paddle JSON)
  "$X" synth --format paddle-json --out "$W/twoprof" --trainers 1 --gpus-per-trainer 2 \
    --steps 2 --ops-per-step 4 >/dev/null
  local paddle1
  paddle1=$(cd "$W/twoprof" && find . -name '*rank1*paddle_trace.json' | head -1)
  [ -n "$paddle1" ] || { find "$W/twoprof"; fail "no Paddle JSON trace of rank 1"; }
  find "$W/twoprof" -name '*rank0*paddle_trace.json' -delete
  trace_json 0 >"$W/twoprof/rank0.pt.trace.json"
  for np in 1 2; do
    set +e
    xmpirun "$np" "$X" report --data-dir "$W/twoprof" --out "$W/twoprof.out" \
      2>"$W/twoprof.$np.log"
    rc=$?
    set -e
    expect_rc2 "$rc" "$W/twoprof.$np.log" "mix two profilers" "rank0.pt.trace.json" \
      "PyTorch profiler (Kineto)" "$(basename "$paddle1")" "Paddle profiler"
  done
  [ ! -e "$W/twoprof.out" ] || [ -z "$(ls -A "$W/twoprof.out")" ] || fail "twoprof: files written"
  # no trace: garbage and a JSON document that is no trace, in D and in D/profile
  local d
  for d in none none2/profile; do
    mkdir -p "$W/$d"
    echo '{"model": "x"}' >"$W/$d/gen_info.json"
    head -c 100 /dev/urandom >"$W/$d/noise.json"
    set +e
    xmpirun 2 "$X" report --data-dir "$W/${d%/profile}" --out "$W/none.out" 2>"$W/none.log"
    rc=$?
    set -e
    expect_rc2 "$rc" "$W/none.log" "no trace or profile on any rank in" "looked for Chrome-trace JSON" \
      "hold 2 files that are neither" "$W/$d/gen_info.json" "$W/$d/noise.json"
    ! grep -q "no integer suffix" "$W/none.log" || { cat "$W/none.log"; fail "legacy skip lines"; }
    [ ! -e "$W/none.out" ] || fail "no trace: --out created"
  done
  # the only trace unreadable: rc 2 naming it, nothing written
  mkdir -p "$W/trunc"
  echo '{"traceEvents": [ {"ph":"X", ' >"$W/trunc/rank0.trunc.json"
  set +e
  xmpirun 2 "$X" report --data-dir "$W/trunc" --out "$W/trunc.out" 2>"$W/trunc.log"
  rc=$?
  set -e
  expect_rc2 "$rc" "$W/trunc.log" "no readable trace" "$W/trunc/rank0.trunc.json"
  [ -z "$(ls -A "$W/trunc.out" 2>/dev/null)" ] || fail "unreadable trace: files written"
  # ... beside a readable one: rc 3 naming the bad one, as before
  trace_json 1 >"$W/trunc/rank1.json"
  set +e
  xmpirun 2 "$X" report --data-dir "$W/trunc" --out "$W/trunc.out" 2>"$W/trunc.log"
  rc=$?
  set -e
  [ "$rc" = 3 ] || { cat "$W/trunc.log"; fail "one readable trace: rc $rc, want 3"; }
  grep -q "rank0.trunc.json" "$W/trunc.log" || fail "bad trace not named"
  # zeros where a trace should be (a preallocated file of a writer that died; sparse, 2 GiB):
  # with a rank in the name, that rank's damaged trace; with a profiler's ending and no rank,
  # a bad input named. Not "no input xstack reads", never rc 0; nothing read past byte 0.
  rm "$W/trunc/rank0.trunc.json"
  truncate -s 2G "$W/trunc/sampled_rank-2.json"
  truncate -s 1M "$W/trunc/host_77.1700000000.pt.trace.json"
  set +e
  xmpirun 2 "$X" report --data-dir "$W/trunc" --out "$W/zeros.out" 2>"$W/zeros.log"
  rc=$?
  set -e
  [ "$rc" = 3 ] || { cat "$W/zeros.log"; fail "zero-filled traces: rc $rc, want 3"; }
  grep -q "$W/trunc/sampled_rank-2.json (read by rank [01] on .*): byte 0: " "$W/zeros.log" ||
    { cat "$W/zeros.log"; fail "zero-filled rank-2 trace not named"; }
  grep -q "$W/trunc/host_77.1700000000.pt.trace.json: byte 0: .*a damaged trace (named like one)" "$W/zeros.log" ||
    { cat "$W/zeros.log"; fail "zero-filled rankless trace not named"; }
  ! grep -q "no input xstack reads" "$W/zeros.log" || { cat "$W/zeros.log"; fail "zeros ignored"; }
  ls "$W/zeros.out"/traceFile_* >/dev/null || fail "zero-filled traces: rank 1 not written"
  # ignored files (hidden ones counted) and a partial world: notes, rc 0; a rank without
  # GPU events gets rows
  mkdir -p "$W/some/profile"
  trace_json 0 >"$W/some/profile/a.json"
  trace_json 2 | sed 's/"cat":"kernel"/"cat":"cpu_op"/' >"$W/some/profile/b.json"
  echo hello >"$W/some/profile/README"
  echo x >"$W/some/profile/.a.json.swp"
  xmpirun 2 "$X" report --data-dir "$W/some" --out "$W/some.out" 2>"$W/some.log" ||
    { cat "$W/some.log"; fail "partial world failed"; }
  grep -q "2 of the job's 4 ranks" "$W/some.log" || fail "no partial-world note"
  grep -q "2 files in the input folders are no input xstack reads and were ignored (1 hidden; e.g. $W/some/profile/README)" \
    "$W/some.log" || { cat "$W/some.log"; fail "no ignored-file note"; }
  ls "$W/some.out"/traceFile_* >/dev/null || fail "no traces"
  echo "errors: ok"
}

# Traces in D and in D/profile: both read.
case_folders() {
  local rc
  "$X" synth --format kineto --out "$W/k" --trainers 2 --gpus-per-trainer 2 --steps 2 \
    --ops-per-step 4 >/dev/null
  mkdir -p "$W/flat" "$W/split/profile" "$W/onlyd/profile"
  find "$W/k" -name '*.json.gz' -exec cp {} "$W/flat/" \;
  local n=0 f
  for f in "$W"/flat/*.json.gz; do  # half in D, half in D/profile
    if [ $((n % 2)) = 0 ]; then cp "$f" "$W/split/"; else cp "$f" "$W/split/profile/"; fi
    cp "$f" "$W/onlyd/"  # D/profile exists, empty: the traces in D are read
    n=$((n + 1))
  done
  [ "$n" = 4 ] || fail "synth wrote $n traces, want 4"
  report_twice "$W/flat" flat
  report_twice "$W/split" split
  report_twice "$W/onlyd" onlyd
  same_dir "$W/flat.np1" "$W/split.np1"
  same_dir "$W/flat.np1" "$W/onlyd.np1"
  # one rank in D and in D/profile: the duplicate-rank error naming both (rc 1, nothing written)
  f=$(find "$W/split/profile" -name '*.json.gz' | head -1)
  cp "$f" "$W/split/dup.$(basename "$f")"
  set +e
  xmpirun 2 "$X" report --data-dir "$W/split" --out "$W/split.dup" 2>"$W/split.dup.log"
  rc=$?
  set -e
  [ "$rc" = 1 ] || { cat "$W/split.dup.log"; fail "duplicate rank: rc $rc, want 1"; }
  grep -F "$f" "$W/split.dup.log" | grep -F "$W/split/dup.$(basename "$f")" >/dev/null ||
    { cat "$W/split.dup.log"; fail "duplicate rank: both files not named on one line"; }
  echo "folders: ok"
}

# GPUs per node from the traces: deviceProperties before the
# read, the device of each rank's GPU work checked after it, at np 1 and 3.
case_topology() {
  local rc np
  "$X" synth --format kineto --out "$W/k2" --trainers 3 --gpus-per-trainer 2 --steps 2 \
    --ops-per-step 4 >/dev/null
  report_twice "$W/k2" k2
  grep -q "gpus-per-node 2, from the traces' deviceProperties" "$W/k2.np1.log" ||
    { cat "$W/k2.np1.log"; fail "no deviceProperties note"; }
  python3 - "$W/k2.np1" <<'PY' || fail "otherData does not say 2 GPUs per trainer"
import json, sys
d = json.load(open(sys.argv[1] + "/traceFile_0_1.json"))
assert d["otherData"]["options"]["gpus_per_trainer"] == 2, d["otherData"]["options"]
PY
  for np in 1 3; do
    set +e
    xmpirun "$np" "$X" report --data-dir "$W/k2" --out "$W/k2.given4.$np" --gpus-per-trainer 4 \
      2>"$W/k2.given4.$np.log"
    rc=$?
    set -e
    expect_rc2 "$rc" "$W/k2.given4.$np.log" "--gpus-per-node 4 contradicts the traces" \
      "(rank 2) runs its GPU work on GPU 0" "fit --gpus-per-node 2"
  done
  # Old Kineto traces (no deviceProperties) of 2-GPU nodes: P from the devices of the ranks'
  # GPU work (rank 1 and 3 on GPU 1; ranks on GPU 0 tell nothing: a process that sees one GPU
  # also calls it 0), with a note; the same bytes as --gpus-per-trainer 2.
  mkdir -p "$W/old"
  for r in 0 1 2 3; do
    trace_json "$r" | sed "s/\"device\":0/\"device\":$((r % 2))/; s/\"pid\":0,/\"pid\":$((r % 2)),/" \
      >"$W/old/rank$r.json"
  done
  report_twice "$W/old" old
  grep -qF "note: --gpus-per-node 2, from the GPUs the traces' GPU work runs on (no deviceProperties; largest GPU 1, of rank1.json (rank 1))" \
    "$W/old.np1.log" || { cat "$W/old.np1.log"; fail "no device-id note"; }
  ! grep -q "assumed" "$W/old.np1.log" || { cat "$W/old.np1.log"; fail "P still assumed"; }
  report_twice "$W/old" old.p2 --gpus-per-trainer 2
  same_dir "$W/old.np1" "$W/old.p2.np1"
  # an explicit value the devices contradict stays an error
  set +e
  xmpirun 2 "$X" report --data-dir "$W/old" --out "$W/old.given4" --gpus-per-trainer 4 \
    2>"$W/old.given4.log"
  rc=$?
  set -e
  expect_rc2 "$rc" "$W/old.given4.log" "--gpus-per-node 4 contradicts the traces" \
    "rank3.json (rank 3) runs its GPU work on GPU 1" "fit --gpus-per-node 2"
  # A bigger job of 2-GPU nodes without deviceProperties: the display that P = 2 gives
  # (trainers 0, 1, 8, 9 of 10: ranks 0-3 and 16-19) differs from the 8 the read began
  # with (ranks 0-15); those ranks are read again: the same bytes as the option given.
  "$X" synth --format kineto --out "$W/k10" --trainers 10 --gpus-per-trainer 2 --steps 2 \
    --ops-per-step 4 >/dev/null
  python3 - "$W/k10" <<'PY'
import glob, gzip, json, sys
for p in glob.glob(sys.argv[1] + "/**/*.json.gz", recursive=True):
    d = json.load(gzip.open(p))
    del d["deviceProperties"]
    with gzip.open(p, "wt") as f:
        json.dump(d, f)
PY
  report_twice "$W/k10" k10
  report_twice "$W/k10" k10.p2 --gpus-per-trainer 2
  grep -q "note: --gpus-per-node 2, from the GPUs" "$W/k10.np3.log" ||
    { cat "$W/k10.np3.log"; fail "k10: no device-id note"; }
  same_dir "$W/k10.np1" "$W/k10.p2.np1"
  ls "$W/k10.np1"/traceFile_1_* >/dev/null || fail "k10: no trace of group 1"
  echo "topology: ok"
}

"case_$CASE"
