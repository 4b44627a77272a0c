#!/usr/bin/env bash
# Runs every cluster test in turn, outside ctest: tests/cluster/run.sh [XSTACK] [TEST...]
# (TEST = smoke, local_files, shared_fs, split_trainer, job_scripts, down_cleanup).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
xstack="${1:-${XSTACK:-$here/../../build/bin/xstack}}"
shift || true
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(smoke local_files shared_fs split_trainer job_scripts down_cleanup)
pass=0 fail=0 skip=0
for t in "${tests[@]}"; do
    start=$SECONDS
    timeout 900 bash "$here/$t.sh" "$xstack"
    rc=$?
    case $rc in
        0) pass=$((pass + 1)); echo "cluster test $t: passed in $((SECONDS - start))s" ;;
        77) skip=$((skip + 1)); echo "cluster test $t: skipped" ;;
        *) fail=$((fail + 1)); echo "cluster test $t: FAILED (exit $rc) in $((SECONDS - start))s" ;;
    esac
done
echo "cluster: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
