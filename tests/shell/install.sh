#!/usr/bin/env bash
# Install test: `cmake --install BUILD --prefix P` into a temporary prefix, then from P only:
#  - P/bin/xstack --version names the tool version, git describe, protobuf and MPI library,
#  - P/bin/xstack-run --help, and xstack-run finds P/bin/xstack when xstack is not on PATH,
#  - a real run through P/bin/xstack-run (mpirun, one rank) gives the bytes of a direct run,
#  - the installed sbatch template, run as a job would run it but with no scontrol (absent, or
#    failing), falls back to the install prefix and says so; XSTACK and XSTACK_RUN still win;
#    with nothing to fall back to it exits 2 naming the variable to set.
# usage: tests/shell/install.sh BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
P="$work/prefix"
cmake --install "$build" --prefix "$P" >"$work/install.log" || { cat "$work/install.log" >&2; fail "cmake --install"; }
for f in bin/xstack bin/xstack-run share/xstack/job/xstack-postprocess.sbatch share/xstack/job/append-to-job.sh \
         share/doc/xstack/README.md share/doc/xstack/DESIGN.md; do
    [ -e "$P/$f" ] || fail "not installed: $f"
done
[ -x "$P/share/xstack/job/xstack-postprocess.sbatch" ] || fail "sbatch template not executable"

# --version
"$P/bin/xstack" --version >"$work/version"
version="$(sed -n 's/^project(xstack VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")"
[ "$(sed -n 1p "$work/version")" = "xstack $version" ] || fail "first line of --version: $(cat "$work/version")"
grep -qE '^git .+' "$work/version" || fail "--version: no git line"
grep -qE '^protobuf [0-9]+\.[0-9]+\.[0-9]+$' "$work/version" || fail "--version: no protobuf line"
grep -qE '^mpi .*[0-9]' "$work/version" || fail "--version: no MPI library line"

# xstack-run from the prefix, xstack not on PATH
"$P/bin/xstack-run" --help | grep "usage\|xstack-run \[--launcher" >/dev/null || fail "xstack-run --help"
clean_path="$(dirname "$(command -v mpirun)"):/usr/bin:/bin"
PATH="$clean_path" "$P/bin/xstack-run" --dry-run -- --data-dir d --out o 2>"$work/dry.err" || fail "xstack-run --dry-run: $(cat "$work/dry.err")"
grep -q "xstack-run: .*$P/bin/xstack report --data-dir d --out o" "$work/dry.err" \
    || fail "xstack-run did not find the installed xstack: $(cat "$work/dry.err")"

# a real run through the installed wrapper == a direct run
"$P/bin/xstack" synth --out "$work/data" --trainers 2 --gpus-per-trainer 2 --steps 2 --ops-per-step 20 --seed 3 2>/dev/null
"$P/bin/xstack" report --data-dir "$work/data" --out "$work/direct" --no-progress 2>/dev/null
PATH="$clean_path" "$P/bin/xstack-run" --launcher mpirun --timeout 120 -- --data-dir "$work/data" --out "$work/wrapped" \
    --no-progress 2>"$work/run.err" || fail "installed xstack-run: $(cat "$work/run.err")"
diff <(cd "$work/direct" && ls) <(cd "$work/wrapped" && ls) >&2 || fail "installed run: other files"
for f in "$work/direct"/*; do cmp "$f" "$work/wrapped/${f##*/}" || fail "installed run: ${f##*/} differs"; done

# The sbatch template as inside a job, on a PATH with no scontrol and no xstack.
mkdir -p "$work/bin"
for c in bash sed head dirname date cat id awk env; do ln -s "$(command -v "$c")" "$work/bin/$c"; done
job() {  # job TEMPLATE OUT ERR [VAR=VALUE...]: run TEMPLATE as a batch step would, dry run
    local t="$1" out="$2" err="$3"; shift 3
    env -i PATH="$work/bin" HOME="$work" SLURM_JOB_ID=42 SLURM_JOB_NUM_NODES=1 SLURM_JOB_NODELIST=n1 \
        XSTACK_DRY_RUN=1 "$@" bash "$t" --data-dir /local/d --out /shared/o >"$out" 2>"$err"
}
T="$P/share/xstack/job/xstack-postprocess.sbatch"
job "$T" "$work/t1.out" "$work/t1.err" || fail "template without scontrol: $(cat "$work/t1.out" "$work/t1.err")"
grep -q "scontrol not found" "$work/t1.out" || fail "template does not say scontrol is missing"
grep -qx "xstack-post: xstack-run = $P/bin/xstack-run (from install prefix $P)" "$work/t1.out" \
    || fail "template: xstack-run not from the prefix: $(cat "$work/t1.out")"
grep -qx "xstack-post: xstack = $P/bin/xstack (from install prefix $P)" "$work/t1.out" \
    || fail "template: xstack not from the prefix: $(cat "$work/t1.out")"
grep -q "xstack-run: srun .*$P/bin/xstack report --data-dir /local/d --out /shared/o" "$work/t1.err" \
    || fail "template: wrong command: $(cat "$work/t1.err")"

# scontrol present but failing
printf '#!/bin/sh\necho "slurm_load_jobs error: Unable to contact slurm controller" >&2\nexit 1\n' >"$work/bin/scontrol"
chmod +x "$work/bin/scontrol"
job "$T" "$work/t2.out" "$work/t2.err" || fail "template with failing scontrol: $(cat "$work/t2.out" "$work/t2.err")"
grep -q "scontrol show job 42 gave no Command=" "$work/t2.out" || fail "template: failing scontrol not reported"
grep -q "from install prefix" "$work/t2.out" || fail "template: no prefix fallback after a failing scontrol"

# overrides win
cp "$P/bin/xstack" "$work/my-xstack"
printf '#!/bin/sh\necho "my-run $*"\n' >"$work/my-run"; chmod +x "$work/my-run"
job "$T" "$work/t3.out" "$work/t3.err" XSTACK="$work/my-xstack" XSTACK_RUN="$work/my-run" || fail "template overrides"
grep -qx "my-run --launcher srun --xstack $work/my-xstack -- --data-dir /local/d --out /shared/o" "$work/t3.out" \
    || fail "template: XSTACK/XSTACK_RUN overrides not used: $(cat "$work/t3.out")"

# the checkout's template (no install prefix) with no scontrol and nothing on PATH: exit 2, named
set +e; job "$repo/scripts/job/xstack-postprocess.sbatch" "$work/t4.out" "$work/t4.err"; rc=$?; set -e
[ "$rc" = 2 ] || fail "template with nothing to find: exit $rc, want 2"
grep -q "xstack-run not found.*XSTACK_RUN=" "$work/t4.err" || fail "template: no advice: $(cat "$work/t4.err")"
echo "install: ok ($P: --version, xstack-run, installed run == direct run, template fallbacks and overrides)"
