# shellcheck shell=bash
# Shared helpers for the MPI integration tests (sourced).
set -euo pipefail
: "${MPIRUN:=mpirun}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A hang fails the test: mpirun kills the job after this many seconds.
MPI_TIMEOUT=${MPI_TIMEOUT:-120}

fail() { echo "FAIL: $*" >&2; exit 1; }

xmpirun() {  # xmpirun NP ARGS...
  local np=$1; shift
  "$MPIRUN" --timeout "$MPI_TIMEOUT" -np "$np" --oversubscribe --bind-to none \
    --mca btl self,tcp,vader "$@"
}

# same_dir A B: every file in A is byte-identical in B and no extra files.
same_dir() {
  local a=$1 b=$2
  diff <(cd "$a" && ls) <(cd "$b" && ls) || fail "different file sets in $a and $b"
  for f in "$a"/*; do cmp "$f" "$b/$(basename "$f")" || fail "$(basename "$f") differs between $a and $b"; done
}

# valid_json DIR: every trace parses, no negative ts/dur.
valid_json() {
  python3 - "$1" <<'PY'
import json, sys, os
d = sys.argv[1]
for name in sorted(n for n in os.listdir(d) if n.startswith('traceFile_')):
    with open(os.path.join(d, name), 'rb') as f:
        doc = json.loads(f.read().decode('utf-8'))
    assert list(doc.keys()) == ['traceEvents', 'displayTimeUnit', 'otherData'], name
    for e in doc['traceEvents']:
        assert e.get('ts', 0) >= 0 and e.get('dur', 0) >= 0, (name, e)
PY
}

# find_chromium [install]: sets `browser` to Debian's chromium (installing it with apt when
# asked and missing); exits 77 (skip) when there is none.
find_chromium() {
  browser=""
  for b in chromium chromium-browser; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; return 0; fi
  done
  if [ "${1:-}" = install ] && command -v apt-get >/dev/null 2>&1; then
    "$(dirname "${BASH_SOURCE[0]}")/../../scripts/apt-install" chromium >"${work:-/tmp}/apt.log" 2>&1 || true
    if command -v chromium >/dev/null 2>&1; then browser=chromium; return 0; fi
  fi
  echo "SKIP: no chromium${1:+ and it cannot be installed}"
  exit 77
}

# load_page HTML OUTDIR [ALLOWED_HREF_REGEX]: opens HTML in headless $browser with no network
# (all names unresolvable), writes OUTDIR/dom.html (the DOM after its scripts ran), console.log
# and net.json, then checks that the page is self-contained: no console message, no request
# the page started, nothing in the file that could load anything (src=, href= other than
# ALLOWED_HREF_REGEX, url(), @import, fetch, XMLHttpRequest, <link>).
load_page() {
  local html=$1 out=$2 allowed=${3:-} profile rc=0
  profile=$(mktemp -d)
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
    --enable-logging=stderr --v=0 --log-net-log="$out/net.json" --virtual-time-budget=5000 \
    --host-resolver-rules="MAP * ~NOTFOUND" --dump-dom "file://$html" >"$out/dom.html" \
    2>"$out/console.log" || rc=$?
  rm -rf "$profile"
  [ "$rc" -eq 0 ] || fail "chromium --dump-dom exited $rc: $(tail -5 "$out/console.log")"
  python3 - "$out/console.log" "$out/net.json" "$html" "$allowed" <<'PY' || fail "$(basename "$html") is not self-contained"
import json, re, sys
console = open(sys.argv[1], encoding="utf-8", errors="replace").read()
# Any console message from the page (errors, uncaught exceptions) is a failure.
bad = [l for l in console.splitlines() if "CONSOLE" in l or "Uncaught" in l]
assert not bad, "console: " + "\n".join(bad[:5])
# No request initiated by the page: the browser's own background requests (component updater,
# accounts; initiator "not an origin", and blocked by --host-resolver-rules anyway) are not its.
log = json.load(open(sys.argv[2], encoding="utf-8", errors="replace"))
start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
page = [e["params"]["url"] for e in log["events"]
        if e["type"] == start and "url" in e.get("params", {})
        and e["params"].get("initiator") != "not an origin"]
remote = [u for u in page if not u.startswith(("file:", "data:", "blob:"))]
assert not remote, f"network requests from the page: {remote}"
src = open(sys.argv[3], encoding="utf-8").read()
href = r'\bhref\s*=' + (f'(?!"{sys.argv[4]}")' if sys.argv[4] else "")
for pattern in (r'\bsrc\s*=', href, r'url\(', r'@import', r'\bfetch\(', r'XMLHttpRequest', r'<link\b'):
    assert not re.search(pattern, src), f"{sys.argv[3]} contains {pattern}"
PY
}
