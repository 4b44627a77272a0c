#!/usr/bin/env bash
# The cluster tests' launch retry (tests/cluster/lib.sh t_launch): a launch that failed inside
# OpenMPI's MPI_Init is run again, up to T_LAUNCH_TRIES in all; any other failure is final.
# No cluster needed: the "launches" are a script that fails as told by a counter file.
# shellcheck source=../cluster/lib.sh
. "$(dirname "$0")/../cluster/lib.sh"
trap - ERR
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# fake_launch COUNTER FAILURES MESSAGE: fails (rc 1, MESSAGE on stderr) FAILURES times, then succeeds.
cat >"$work/fake_launch" <<'SH'
#!/bin/sh
n=$(cat "$1" 2>/dev/null || echo 0); echo $((n + 1)) >"$1"
[ "$n" -ge "$2" ] && { echo ok; exit 0; }
echo "$3" >&2; exit 1
SH
chmod +x "$work/fake_launch"
fails=0
check() {  # label expected-rc expected-launches failures message
    local label="$1" want_rc="$2" want_n="$3" rc=0
    rm -f "$work/n"
    t_launch "$label" "$work/out" "$work/err" "$work/fake_launch" "$work/n" "$4" "$5" 2>"$work/log" || rc=$?
    local n; n="$(cat "$work/n")"
    if [ "$rc" != "$want_rc" ] || [ "$n" != "$want_n" ]; then
        echo "FAIL $label: rc $rc after $n launches, want rc $want_rc after $want_n"; cat "$work/log"; fails=$((fails + 1))
    else
        echo "ok   $label: rc $rc after $n launches"
    fi
}
check "MPI_Init failure twice, then success" 0 3 2 '  PML add procs failed
  --> Returned "Not found" (-13) instead of "Success" (0)
It looks like MPI_INIT failed for some reason'
check "wire-up SIGSEGV once, then success" 0 2 1 '[node1:1] Signal: Segmentation fault (11)'
check "MPI_Init failure every time" 1 "$T_LAUNCH_TRIES" 99 'An error occurred in MPI_Init'
check "xstack's own error is final" 1 1 99 'xstack: error: --out: not a folder'
[ $fails = 0 ]
