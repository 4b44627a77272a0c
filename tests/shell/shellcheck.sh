#!/usr/bin/env bash
# Lint: shellcheck (warnings and errors) over every shell script of the repository: scripts/,
# cluster/, tests/, .ci/ (by #!...sh or a "shellcheck shell=" directive). scripts/build installs
# the linter; without it the test is skipped (77). Also: no pipe into grep -q (a pipefail race).
# usage: tests/shell/shellcheck.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
command -v shellcheck >/dev/null 2>&1 || { echo "SKIP: shellcheck not installed (apt-get install shellcheck)"; exit 77; }
cd "$repo"
mapfile -t files < <(find scripts cluster tests .ci bench -type f 2>/dev/null \
    | while read -r f; do
        head -n1 "$f" | grep -E '^#!.*\b(ba)?sh\b' >/dev/null && { echo "$f"; continue; }
        grep -qm1 '^# shellcheck shell=' "$f" && echo "$f"
      done | sort)
[ "${#files[@]}" -gt 20 ] || { echo "FAIL: found only ${#files[@]} shell scripts under $repo" >&2; exit 1; }
if ! shellcheck -x -P SCRIPTDIR -S warning "${files[@]}"; then
    echo "FAIL: shellcheck findings above (fix them, or disable one with a reason)" >&2
    exit 1
fi
# Under pipefail, a pipe into "grep -q" fails at random: grep exits at its first match and the
# producer may die of SIGPIPE (mpi_fault_hugelength failed so in CI). Let grep read everything.
if racy=$(grep -nE '\|[[:space:]]*grep[[:space:]]+-[a-zA-Z]*q' "${files[@]}"); then
    echo "FAIL: a pipe into grep -q races under pipefail; use '| grep PATTERN >/dev/null':" >&2
    echo "$racy" >&2
    exit 1
fi
echo "shellcheck: ${#files[@]} scripts clean (severity warning and above, no pipe into grep -q)"
