#!/usr/bin/env bash
# Unit test of cluster/lib.sh xsc_ensure_pkgs on the from-nothing path, with the real dpkg-query:
# a package that is not installed (dpkg-query exits 1 for it) must lead to apt-get install of
# exactly the missing ones, never to a silent exit under set -euo pipefail.
# apt-get is replaced by a recorder on PATH (nothing is installed); needs dpkg-query (skip: 77).
# usage: tests/shell/ensure_pkgs.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
command -v dpkg-query >/dev/null 2>&1 || { echo "SKIP: no dpkg-query"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

absent="xstack-test-absent-package-$$"       # never installed anywhere
present="$(dpkg-query -W -f='${Package}\n' bash)"   # bash runs this test: it is installed
! dpkg-query -W "$absent" >/dev/null 2>&1 || fail "$absent is installed?"

# The recorder: logs its arguments; APT_FAIL=install makes `apt-get install` fail. A successful
# "install" lists the packages in $APT_DONE; dpkg-query answers for those and otherwise is the
# real one, so the first probe of an absent package is the real dpkg-query exiting 1.
mkdir -p "$work/bin"
real_dpkg_query="$(command -v dpkg-query)"
cat >"$work/bin/apt-get" <<'SH'
#!/bin/sh
echo "apt-get $*" >>"$APT_LOG"
[ "${APT_FAIL:-}" = "$1" ] && { echo "E: simulated $1 failure" >&2; exit 100; }
if [ "$1" = install ]; then
  for a in "$@"; do case "$a" in -*|install) ;; *) echo "$a" >>"$APT_DONE" ;; esac; done
fi
exit 0
SH
cat >"$work/bin/dpkg-query" <<SH
#!/bin/sh
last=""; for a in "\$@"; do last="\$a"; done
if grep -qx "\$last" "\$APT_DONE" 2>/dev/null; then printf 'install ok installed'; exit 0; fi
exec "$real_dpkg_query" "\$@"
SH
chmod +x "$work/bin/apt-get" "$work/bin/dpkg-query"
export APT_LOG="$work/apt.log" APT_DONE="$work/apt.done"

# run_case NAME PACKAGES... : sources lib.sh in a fresh strict shell, as cluster/up does.
# Pretends to be root (the id check) so that the install path is taken as on CI.
run_case() {
    local name="$1"; shift
    : >"$APT_LOG"; : >"$APT_DONE"
    set +e
    PATH="$work/bin:$PATH" bash -c '
        set -euo pipefail
        id() { echo 0; }
        . "$0/cluster/lib.sh"
        xsc_ensure_pkgs "$@"
        echo "returned 0"' "$repo" "$@" >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    set -e
}

# 1. only an installed package: no apt-get at all.
run_case present "$present"
[ "$rc" = 0 ] || fail "installed package only: exit $rc: $(cat "$work/present.err")"
[ ! -s "$APT_LOG" ] || fail "apt-get called for an installed package: $(cat "$APT_LOG")"

# 2. an absent package (an old bug: silent exit 1 before any install).
run_case absent "$present" "$absent"
[ "$rc" = 0 ] || fail "absent package: exit $rc (stderr: $(cat "$work/absent.err"))"
grep -q "returned 0" "$work/absent.out" || fail "absent package: xsc_ensure_pkgs did not return"
grep -qx "apt-get install -y -qq --no-install-recommends $absent" "$APT_LOG" \
    || fail "absent package: expected apt-get install of $absent only, got: $(cat "$APT_LOG")"
grep -q "installing packages: $absent" "$work/absent.err" || fail "no 'installing packages' line"
grep -q "apt-get update" "$APT_LOG" || fail "absent package: no apt-get update before the install"

# 3. apt-get install fails: exit 1 with a message naming the packages and what to do.
APT_FAIL=install run_case aptfail "$absent"
[ "$rc" = 1 ] || fail "failing apt-get install: exit $rc, want 1"
grep -q "apt-get install $absent failed" "$work/aptfail.err" \
    || fail "failing apt-get install: no message naming it: $(cat "$work/aptfail.err")"
echo "ensure_pkgs: ok (installed-only: no apt; absent: installs exactly it; apt failure: named, exit 1)"
