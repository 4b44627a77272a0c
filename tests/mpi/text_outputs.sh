#!/usr/bin/env bash
# Names in the text outputs (docs/FORMAT.md section 3, "Names in the text outputs"): a Kineto
# kernel renamed to hold invalid UTF-8 bytes, NUL, ESC, BEL, DEL and a C1 control (JSON escapes
# such as \u001b and \u0000), a comma, a quote, a TAB and a newline, and another one of 2 MiB.
# report (2 ranks) writes kernels.csv that Python's csv module reads with a strict UTF-8 decode,
# with no control byte but TAB/CR/LF inside quoted fields and the names as the rule gives them;
# report.html is valid UTF-8 without control bytes; `xstack diff` of two such runs reads the
# 2 MiB name back (rc 0) and its diff.html is clean too.
#   usage: text_outputs.sh XSTACK WORKDIR
source "$(dirname "$0")/lib.sh"
xstack=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$xstack" synth --out "$work/kin" --format kineto --trainers 1 --gpus-per-trainer 2 --steps 2 \
  --ops-per-step 10 --seed 5 >/dev/null 2>&1 || fail "synth --format kineto"
cp -r "$work/kin" "$work/kin_b"
# rename PROFILE_DIR SCALE: SoftmaxKernel -> the hostile name, LayerNormForward -> the 2 MiB
# name; its durations times SCALE (so that diff finds it changed).
rename() {
  python3 - "$1" "$2" <<'PY' || fail "renaming the kernels in $1"
import glob, gzip, json, os, sys
scale = int(sys.argv[2])
for path in glob.glob(os.path.join(sys.argv[1], "*.pt.trace.json.gz")):
    trace = json.load(gzip.open(path, "rt"))
    n = 0
    for e in trace["traceEvents"]:
        if e.get("cat") != "kernel":
            continue
        if e.get("name") == "SoftmaxKernel":
            e["name"] = "Soft@BAD@max\x00\x1b[31m\x07\x7f\x9b,\"q\"\tx\nend\u00e9"
            n += 1
        elif e.get("name") == "LayerNormForward":
            e["name"] = "LN\x1b" + "x" * (2 << 20) + "@BAD@"
            e["dur"] = e["dur"] * scale
            n += 1
    assert n > 0, path
    text = json.dumps(trace).encode()  # ASCII: \u0000, \u001b, ... as JSON escapes
    assert b"\\u001b" in text and b"\\u0000" in text
    text = text.replace(b"@BAD@", b"\xff\xc3(\xed\xa0\x80")  # raw invalid UTF-8 bytes
    gzip.open(path, "wb").write(text)
PY
}
rename "$work/kin/profile" 1
rename "$work/kin_b/profile" 3
for x in a b; do
  src=$work/kin; [ "$x" = b ] && src=$work/kin_b
  xmpirun 2 "$xstack" report --data-dir "$src" --out "$work/$x" --gpus-per-trainer 2 \
    --no-progress >"$work/report_$x.out" 2>"$work/report_$x.err" ||
    fail "report $x rc $?: $(cat -v "$work/report_$x.err" | head -c 3000)"
done

# The rule, in Python: each maximal invalid subpart -> U+FFFD, controls but TAB/LF/CR -> \u00XX.
python3 - "$work/a" <<'PY' || fail "the text outputs of report"
import csv, io, os, re, sys
d = sys.argv[1]
bad = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]")
def clean(name, raw):
    m = bad.search(raw)
    assert m is None, "%s: control byte %r at %d" % (name, m.group(), m.start())
    return raw.decode("utf-8")  # strict: raises on invalid UTF-8
for name in sorted(os.listdir(d)):
    if name.endswith(".csv") or name.endswith(".html"):
        clean(name, open(os.path.join(d, name), "rb").read())
text = clean("kernels.csv", open(os.path.join(d, "kernels.csv"), "rb").read())
csv.field_size_limit(1 << 30)  # Python's default is 128 KiB a field
rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
assert rows[0] == "rank,name,category,count,total_ns,mean_ns,min_ns,max_ns".split(","), rows[0]
names = {r[1] for r in rows[1:]}
hostile = "Soft\ufffd\ufffd(\ufffd\ufffd\ufffdmax\\u0000\\u001b[31m\\u0007\\u007f\\u009b,\"q\"\tx\nend\u00e9"
long = "LN\\u001b" + "x" * (2 << 20) + "\ufffd\ufffd(\ufffd\ufffd\ufffd"
assert hostile in names, [n for n in names if n.startswith("Soft")]
assert long in names, [n[:40] for n in names]
for r in rows[1:]:
    assert len(r) == 8, r[:2]
html = clean("report.html", open(os.path.join(d, "report.html"), "rb").read())
assert "Soft\ufffd\ufffd(\ufffd\ufffd\ufffdmax\\u0000\\u001b[31m\\u0007\\u007f\\u009b,&quot;q&quot;" in html
PY

set +e
"$xstack" diff "$work/a" "$work/b" --json >"$work/diff.json" 2>"$work/diff.err"
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "diff --json rc $rc: $(cat -v "$work/diff.err" | head -c 3000)"
"$xstack" diff "$work/a" "$work/b" --out "$work/d" >"$work/diff.out" 2>"$work/diff.err" ||
  fail "diff rc $?: $(cat -v "$work/diff.err" | head -c 3000)"
python3 - "$work/diff.json" "$work/d/diff.html" <<'PY' || fail "diff did not read the names back"
import json, re, sys
j = json.load(open(sys.argv[1], encoding="utf-8"))
long = "LN\\u001b" + "x" * (2 << 20) + "\ufffd\ufffd(\ufffd\ufffd\ufffd"
names = [k["name"] for k in j["kernels"]["top"]]
assert long in names, [n[:40] for n in names]
raw = open(sys.argv[2], "rb").read()
m = re.search(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]", raw)
assert m is None, "diff.html: control byte %r at %d" % (m.group(), m.start())
raw.decode("utf-8")
PY
echo "ok: kernels.csv, report.html and diff.html are valid UTF-8 without control bytes; diff reads a 2 MiB name back"
