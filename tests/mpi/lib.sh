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
