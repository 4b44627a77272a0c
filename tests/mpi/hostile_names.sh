#!/usr/bin/env bash
# File names holding terminal control sequences: a CSI (ESC [ 2J, clear the
# screen), an OSC (ESC ] 0;title BEL, set the window title), an 8-bit CSI (0x9b) and a newline
# followed by a forged "xstack: wrote 0 trace files" line. report (2 ranks) and inspect name
# these files on stderr (a profile that cannot be read, a name without an id): no control
# byte reaches stderr or stdout raw, and no forged line appears.
# diff: a Kineto kernel renamed to hold a CSI and a newline followed by a forged line
# ("xstack: forged kernel"; names reach diff through kernels.csv), a finding whose fields hold
# such bytes (findings.json), the folder B named so too, an A that is not a folder and an option
# so named: the text and stderr are safe, --json is valid JSON with the names as the files hold
# them (kernels.csv: ESC as the text \u001b), diff.html holds them so, HTML-escaped.
#   usage: hostile_names.sh XSTACK WORKDIR
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/data" --trainers 1 --gpus-per-trainer 2 --steps 1 --ops-per-step 10 --seed 5 2>/dev/null
p=$work/data/profile
evil=$'bad\e[2J\e]0;owned\a\x9b31m\nxstack: wrote 0 trace files\r'
printf 'this is not a profile\n%.0s' {1..50} >"$p/$evil.1"  # rank 1, not a profile: named
cp "$p/profile_rank.1" "$p/$evil"          # no id: skipped, named
rm "$p/profile_rank.1"

# clean FILE WHAT: FILE holds no C0 control byte but '\n', no DEL, no 0x9b, no forged line.
clean() {
  python3 - "$1" "$2" <<'PY' || fail "$2 is not clean: $(cat -v "$1" | head -c 3000)"
import re, sys
data = open(sys.argv[1], 'rb').read()
bad = re.search(rb'[\x00-\x09\x0b-\x1f\x7f\x9b]', data)
assert bad is None, 'control byte %r at %d' % (bad.group(), bad.start())
for line in data.split(b'\n'):
    assert not line.startswith(b'xstack: wrote 0 trace files'), line
    assert not line.startswith(b'xstack: forged'), line
PY
}

set +e
xmpirun 2 "$xstack" report --data-dir "$work/data" --gpus-per-trainer 2 --no-progress --out "$work/out" \
  >"$work/report.out" 2>"$work/report.err"
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "report exit $rc, expected 3: $(cat -v "$work/report.err")"
grep -q "bad?\[2J?\]0;owned??31m?xstack: wrote 0 trace files?" "$work/report.err" ||
  fail "the file is not named (made safe): $(cat -v "$work/report.err")"
clean "$work/report.err" "report's stderr"
clean "$work/report.out" "report's stdout"

set +e
"$xstack" inspect "$p/$evil.1" >"$work/inspect.out" 2>"$work/inspect.err"
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "inspect of junk exit 0"
grep -q "owned" "$work/inspect.err" || fail "inspect does not name the file: $(cat -v "$work/inspect.err")"
clean "$work/inspect.err" "inspect's stderr"
clean "$work/inspect.out" "inspect's stdout"
"$xstack" inspect "$p/$evil" >"$work/inspect2.out" 2>"$work/inspect2.err" || fail "inspect of a profile"
grep -q "owned" "$work/inspect2.out" || fail "inspect does not name the file: $(cat -v "$work/inspect2.out")"
clean "$work/inspect2.out" "inspect's stdout"
clean "$work/inspect2.err" "inspect's stderr"

# xstack diff A B, B's kernel and finding names and B's folder name hostile.
"$xstack" synth --out "$work/kin" --format kineto --trainers 1 --gpus-per-trainer 2 --steps 2 \
  --ops-per-step 10 --seed 5 >/dev/null 2>&1 || fail "synth --format kineto"
cp -r "$work/kin" "$work/kin_evil"
python3 - "$work/kin_evil/profile" <<'PY' || fail "renaming the kernel"
import glob, gzip, json, os, sys
evil = "Softmax\x1b[31mRED\x1b[0m\nxstack: forged kernel"
for path in glob.glob(os.path.join(sys.argv[1], "*.pt.trace.json.gz")):
    trace = json.load(gzip.open(path, "rt"))
    n = 0
    for e in trace["traceEvents"]:
        if e.get("cat") == "kernel" and e.get("name") == "SoftmaxKernel":
            e["name"] = evil
            n += 1
    assert n > 0, path
    json.dump(trace, gzip.open(path, "wt"))
PY
B=$work/$'B\e[2J\nxstack: forged folder'
for pair in "kin:$work/A" "kin_evil:$B"; do
  "$xstack" report --data-dir "$work/${pair%%:*}" --out "${pair#*:}" --gpus-per-trainer 2 \
    --no-progress >/dev/null 2>&1 || fail "report of ${pair%%:*}"
done
python3 - "$B/findings.json" <<'PY' || fail "adding a finding"
import json, sys
j = json.load(open(sys.argv[1]))
j["findings"].append({"kind": "straggler\x1b]0;owned\x07", "ranks": [1], "steps": "all",
                      "cause": "host\x9b31m\nxstack: forged cause", "cost_ms": 12.5,
                      "evidence": "late\r\nxstack: forged evidence\x7f"})
json.dump(j, open(sys.argv[1], "w"))
PY
"$xstack" diff "$work/A" "$B" >"$work/diff.out" 2>"$work/diff.err" ||
  fail "diff rc $?: $(cat -v "$work/diff.err")"
clean "$work/diff.out" "diff's stdout"
clean "$work/diff.err" "diff's stderr"
grep -qF 'Softmax\u001b[31mRED\u001b[0m?xstack: forged kernel [' "$work/diff.out" ||
  fail "diff does not name the kernel (made safe): $(cat -v "$work/diff.out")"
grep -qF 'new: straggler?]0;owned? rank 1 (steps all, cause host??31m?xstack: forged cause, cost 12.500 ms): late??xstack: forged evidence?' \
  "$work/diff.out" || fail "diff does not give the finding (made safe): $(cat -v "$work/diff.out")"
grep -qF "xstack diff: A $work/A, B $work/B?[2J?xstack: forged folder" "$work/diff.out" ||
  fail "diff does not name B (made safe): $(head -1 "$work/diff.out" | cat -v)"
"$xstack" diff "$work/A" "$B" --json >"$work/diff.json" 2>"$work/diff.err" || fail "diff --json"
clean "$work/diff.json" "diff --json's stdout"
python3 - "$work/diff.json" "$B" <<'PY' || fail "diff --json: $(cat -v "$work/diff.json" | head -c 3000)"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["b"] == sys.argv[2], j["b"]
names = [k["name"] for k in j["kernels"]["top"]]
assert "Softmax\\u001b[31mRED\\u001b[0m\nxstack: forged kernel" in names, names  # as kernels.csv
f = j["findings"]["new"][-1]
assert f["kind"] == "straggler\x1b]0;owned\x07" and f["cause"] == "host\x9b31m\nxstack: forged cause", f
assert f["evidence"] == "late\r\nxstack: forged evidence\x7f" and f["cost_ms"] == 12.5, f
PY
python3 -c 'import sys; assert b"<td>Softmax\\u001b[31mRED\\u001b[0m\nxstack: forged kernel</td>" in open(sys.argv[1], "rb").read()' \
  "$B/diff.html" || fail "diff.html does not hold the kernel name (FORMAT.md's rule for names)"
# A folder that does not exist (rc 1) and an unknown option (rc 2), both named safely.
set +e
"$xstack" diff "$work/"$'x\e[31m\nxstack: forged A' "$B" >"$work/diffx.out" 2>"$work/diffx.err"
rc=$?
"$xstack" diff "$work/A" "$B" $'--x\e[31m\nxstack: forged option' >"$work/diffo.out" 2>"$work/diffo.err"
rco=$?
set -e
[ "$rc" -eq 1 ] || fail "diff of a missing folder: rc $rc"
grep -qF 'x?[31m?xstack: forged A' "$work/diffx.err" ||
  fail "the folder is not named: $(cat -v "$work/diffx.err")"
[ "$rco" -eq 2 ] || fail "diff with an unknown option: rc $rco"
grep -qF 'x?[31m?xstack: forged option' "$work/diffo.err" ||
  fail "the option is not named: $(cat -v "$work/diffo.err")"
for f in diffx.out diffx.err diffo.out diffo.err; do clean "$work/$f" "diff's $f"; done
echo "ok: control sequences in names never reach the terminal raw (report, inspect, diff)"
