#!/usr/bin/env bash
# File names holding terminal control sequences (issue 21 item 11): a CSI (ESC [ 2J, clear the
# screen), an OSC (ESC ] 0;title BEL, set the window title), an 8-bit CSI (0x9b) and a newline
# followed by a forged "xstack: wrote 0 trace files" line. report (2 ranks) and inspect name
# these files on stderr (a profile that cannot be read, a name without an id): no control
# byte reaches stderr or stdout raw, and no forged line appears.
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
echo "ok: control sequences in names never reach the terminal raw"
