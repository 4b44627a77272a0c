# shellcheck shell=bash
# Helpers of the cluster tests (sourced). Each test: `bash tests/cluster/X.sh [XSTACK]`.
# The xstack binary is $1, else $XSTACK, else build/bin/xstack of this checkout.
# Every test brings the cluster up itself and tears it down in an EXIT trap (also on failure).
set -eEuo pipefail
# A command that fails under set -e names itself (the test then ends, unless it was inside $(...)).
# shellcheck disable=SC2154
trap 't_err=$?; echo "[${0##*/}] exit $t_err from: $BASH_COMMAND (line $LINENO of ${BASH_SOURCE[0]##*/})" >&2' ERR

T_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
T_CLUSTER="$T_REPO/cluster"
T_NAME="$(basename "$0" .sh)"
XSTACK="${1:-${XSTACK:-$T_REPO/build/bin/xstack}}"
export XSTACK_CLUSTER_DIR="${XSTACK_CLUSTER_DIR:-/var/tmp/xstack-cluster}"
# Data and outputs live in the cluster's shared folder: the same path on the host and every node
# (not under /tmp, which is private to each node). cluster/down removes it.
T_SHARED="$XSTACK_CLUSTER_DIR/shared"
T_WORK="$T_SHARED/$T_NAME"
T_START=$SECONDS
# Run bounds (seconds) so that nothing can hang a CI run.
T_STEP_TIMEOUT="${T_STEP_TIMEOUT:-180}"
export XSTACK_CLUSTER_TIMEOUT="$T_STEP_TIMEOUT"

# Topology of the synthetic job used by the tests.
P=2           # GPUs per trainer
TRAINERS=3
GROUP=2       # trainers per group: groups {0,1} and {2} (a partial last group)
DISPLAY=2
REPORT_OPTS=(--gpus-per-trainer "$P" --group-size "$GROUP" --display-size "$DISPLAY")

t_log() { printf '[%s %3ds] %s\n' "$T_NAME" $((SECONDS - T_START)) "$*" >&2; }
t_fail() { printf '[%s] FAIL: %s\n' "$T_NAME" "$*" >&2; exit 1; }

t_require_root() {
    [ "$(id -u)" = 0 ] || { echo "[$T_NAME] SKIP: needs root (namespaces)"; exit 77; }
}
t_require_xstack() {
    [ -x "$XSTACK" ] || t_fail "xstack binary not found: $XSTACK (give it as \$1 or \$XSTACK)"
    XSTACK="$(cd "$(dirname "$XSTACK")" && pwd)/$(basename "$XSTACK")"
}

# Bring the cluster up (after clearing what a killed earlier run may have left) and make sure
# it goes down whatever happens.
t_cluster_up() {  # cluster/up args...
    trap 't_on_exit' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    "$T_CLUSTER/down" >/dev/null 2>&1 || true
    local t0=$SECONDS
    timeout 900 "$T_CLUSTER/up" "$@" || t_fail "cluster/up $* failed"
    t_log "cluster/up $* took $((SECONDS - t0))s"
    mkdir -p "$T_WORK"
    # The nodes see the host's files except /tmp (theirs is private): a checkout or build under
    # /tmp (CI clones may be there) is invisible to them. Stage what they run in the shared folder.
    mkdir -p "$T_SHARED/bin"
    if [ -x "$XSTACK" ]; then
        cp "$XSTACK" "$T_SHARED/bin/xstack"
        XSTACK="$T_SHARED/bin/xstack"
    fi
    cp -r "$T_REPO/scripts/job" "$T_SHARED/job"
    T_JOB="$T_SHARED/job"  # used by job_scripts.sh
    export T_JOB
    cd "$T_WORK"
}
t_on_exit() {
    local rc=$?
    trap - EXIT INT TERM
    if [ $rc -ne 0 ] && [ -d "$XSTACK_CLUSTER_DIR/slurm" ]; then
        # leave a clue in the test log before the state goes away
        tail -n 20 "$XSTACK_CLUSTER_DIR"/slurm/*.log >&2 2>/dev/null || true
    fi
    timeout 120 "$T_CLUSTER/down" || { echo "[$T_NAME] cluster/down failed" >&2; rc=1; }
    if [ $rc -eq 0 ]; then
        echo "[$T_NAME] PASS in $((SECONDS - T_START))s"
    else
        echo "[$T_NAME] FAIL (exit $rc) after $((SECONDS - T_START))s" >&2
    fi
    exit $rc
}

# Synthetic job data in $1 (host path), and the single-process reference traces in $2.
t_synth_and_reference() {
    local data="$1" ref="$2"
    timeout "$T_STEP_TIMEOUT" "$XSTACK" synth --out "$data" --trainers "$TRAINERS" \
        --gpus-per-trainer "$P" --steps 4 --ops-per-step 10 --seed 7 \
        || t_fail "xstack synth failed"
    [ -n "$(ls -A "$data/profile" 2>/dev/null)" ] || t_fail "xstack synth wrote no profile files"
    timeout "$T_STEP_TIMEOUT" "$XSTACK" report --data-dir "$data" --out "$ref" "${REPORT_OPTS[@]}" \
        || t_fail "single-process xstack report failed"
    ls "$ref"/traceFile_*_*.json >/dev/null 2>&1 || t_fail "reference run wrote no traceFile_*.json"
    t_log "reference: $(find "$data" -type f | wc -l) input files, $(ls "$ref" | wc -l) traces"
}

# Trainer / rank a file belongs to. profile/*.R -> rank R; dcgm/*.T, net/*.T -> trainer T;
# time/time.txt.g.T -> rank T*P+g.
t_file_rank() {  # relpath -> rank (profile, time) or empty
    local f="$1" b; b="$(basename "$f")"
    case "$f" in
        profile/*) echo "${b##*.}" ;;
        time/*) local t="${b##*.}" r="${b%.*}"; local g="${r##*.}"; echo $((t * P + g)) ;;
    esac
}
t_file_trainer() {  # relpath -> trainer
    local f="$1" b; b="$(basename "$f")"
    case "$f" in
        profile/*|time/*) echo $(( $(t_file_rank "$f") / P )) ;;
        *) echo "${b##*.}" ;;
    esac
}

# Copy every file of $1 into node <placer relpath>'s /local/data, same sub-folder layout.
# The placer is a function name printing the node number for a relative path.
# Writes "<node> <relpath>" lines to $2 (the placement, for the plan check).
t_distribute() {  # data placer placement-file
    local data="$1" placer="$2" out="$3" f n
    : >"$out"
    for i in $(seq 1 "$(t_nodes)"); do rm -rf "$XSTACK_CLUSTER_DIR/node$i/local/data"; done
    (cd "$data" && find . -type f | sed 's|^\./||' | sort) | while read -r f; do
        n="$("$placer" "$f")"
        mkdir -p "$XSTACK_CLUSTER_DIR/node$n/local/data/$(dirname "$f")"
        cp "$data/$f" "$XSTACK_CLUSTER_DIR/node$n/local/data/$f"
        echo "node$n $f" >>"$out"
    done
    local i
    for i in $(seq 1 "$(t_nodes)"); do
        t_log "node$i /local/data: $(grep -c "^node$i " "$out" || true) files"
    done
}
t_nodes() { (. "$XSTACK_CLUSTER_DIR/cluster.env"; echo "$NODES"); }

# Byte-identical outputs: same file names, every file equal.
t_same_traces() {  # ref got label
    local ref="$1" got="$2" label="$3" f
    [ -d "$got" ] || t_fail "$label: no output folder $got"
    diff <(cd "$ref" && ls) <(cd "$got" && ls) >&2 || t_fail "$label: output file names differ from the single-process run"
    for f in "$ref"/*; do
        cmp "$f" "$got/$(basename "$f")" >&2 || t_fail "$label: $(basename "$f") differs from the single-process run"
    done
    t_log "$label: $(ls "$got" | wc -l) traces byte-identical to the single-process run"
}

# Plan check. The plan lines of rank 0 (stderr) are
#   xstack: plan: <kind> <path> <bytes> bytes -> rank <r> on <host>
# Every expected "<host> <path> <bytes>" must appear exactly once and nothing else may.
# $2 lists the expected "<host|*> <path>" (host * = any host may read it); bytes from $3/<relpath>.
t_check_plan() {  # stderr-file expected-file data-root path-prefix label
    local log="$1" expected="$2" data="$3" prefix="$4" label="$5" errs
    grep -E '^xstack: plan: ' "$log" >"$log.plan" || { cat "$log" >&2; t_fail "$label: no plan lines on stderr"; }
    # "<host> <relpath> <bytes>" for every expected file
    awk '{print $2}' "$expected" | (cd "$data" && xargs stat -c '%n %s') >"$expected.sizes" \
        || t_fail "$label: cannot stat the expected files"
    # fields of a plan line: 1 xstack: 2 plan: 3 kind 4 path 5 bytes 6 "bytes" 7 -> 8 rank 9 r 10 on 11 host
    errs="$(awk -v prefix="$prefix" '
        FILENAME == ARGV[1] { host[prefix "/" $2] = $1; n++; next }
        FILENAME == ARGV[2] { size[prefix "/" $1] = $2; next }
        {
            p = $4; seen[p]++
            if (!(p in host)) { print "not expected: " $0; next }
            split(substr(p, length(prefix) + 2), parts, "/")
            if ($3 != parts[1]) print "wrong kind: " $0
            if ($5 != size[p] || $6 != "bytes" || $7 != "->" || $8 != "rank" || $10 != "on" || NF != 11)
                print "bad line (file has " size[p] " bytes): " $0
            if (host[p] != "*" && $11 != host[p]) print "read on " $11 ", file is on " host[p] ": " p
        }
        END {
            for (p in seen) if (seen[p] > 1) print "read " seen[p] " times: " p
            for (p in host) if (!(p in seen)) print "never read: " p
        }' "$expected" "$expected.sizes" "$log.plan")"
    [ -z "$errs" ] || { echo "$errs" >&2; t_fail "$label: the plan does not read each file exactly once where it is"; }
    t_log "$label: plan reads each of the $(wc -l <"$expected") files exactly once$(grep -q '^\*' "$expected" || echo ', on the node that holds it')"
}

# OpenMPI 4.1.4 (Debian 12) under Slurm's PMIx plugin sometimes fails in MPI_Init, before the
# program runs a line of its own (docs/CLUSTER.md, "Known issue"): with the modex fence a rank gets
# SIGSEGV in its TCP wire-up ("Open MPI failed to TCP connect to a peer" on its peer); without it
# (cluster/srun's default) and 2 tasks per node, "PML add procs failed ... Not found" (25 of 600
# launches). A launch that failed with one of these signatures is run again, loudly, up to
# T_LAUNCH_TRIES times in all; a deterministic failure fails every time.
T_OMPI_FLAKE='MPI_INIT failed|An error occurred in MPI_Init|Open MPI failed to TCP connect to a peer|mca_btl_tcp|Segmentation fault'
T_LAUNCH_TRIES=3
# t_retry_mpi_init LABEL LOG CMD...: runs CMD (which writes LOG) until it succeeds; again, up
# to T_LAUNCH_TRIES in all, only while LOG shows one of the signatures above.
t_retry_mpi_init() {
    local label="$1" log="$2" try; shift 2
    for ((try = 1; ; try++)); do
        rm -f "$log"
        "$@" && return 0
        [ $try -lt $T_LAUNCH_TRIES ] && grep -qE "$T_OMPI_FLAKE" "$log" 2>/dev/null || return 1
        t_log "RETRY $label: OpenMPI failed in MPI_Init (known OpenMPI 4.1.4 race), try $try:"
        grep -E "$T_OMPI_FLAKE" "$log" | head -n 3 >&2
    done
}
t_run_to() { local out="$1" err="$2"; shift 2; "$@" >"$out" 2>"$err"; }  # out-file err-file cmd...
t_launch() {  # label stdout-file stderr-file cmd...
    local label="$1" out="$2" err="$3"; shift 3
    t_retry_mpi_init "$label" "$err" t_run_to "$out" "$err" "$@" && return 0
    cat "$err" >&2
    return 1
}

# Run xstack report over cluster/mpirun or cluster/srun; stderr kept in $out.stderr.
t_report_mpirun() {  # out mpirun-args... -- report-args...
    local out="$1"; shift
    local margs=()
    while [ "$1" != -- ]; do margs+=("$1"); shift; done; shift
    local t0=$SECONDS
    rm -rf "$out"
    t_launch "cluster/mpirun ${margs[*]}" "$out.stdout" "$out.stderr" \
        "$T_CLUSTER/mpirun" "${margs[@]}" "$XSTACK" report --out "$out" "${REPORT_OPTS[@]}" "$@" \
        || t_fail "cluster/mpirun ${margs[*]} xstack report failed"
    t_log "cluster/mpirun ${margs[*]}: $((SECONDS - t0))s"
}
t_report_srun() {  # out srun-args... -- report-args...
    local out="$1"; shift
    local sargs=()
    while [ "$1" != -- ]; do sargs+=("$1"); shift; done; shift
    local t0=$SECONDS
    rm -rf "$out"
    t_launch "cluster/srun ${sargs[*]}" "$out.stdout" "$out.stderr" \
        "$T_CLUSTER/srun" "${sargs[@]}" "$XSTACK" report --out "$out" "${REPORT_OPTS[@]}" "$@" \
        || t_fail "cluster/srun ${sargs[*]} xstack report failed"
    t_log "cluster/srun ${sargs[*]}: $((SECONDS - t0))s"
}

# Submit a batch job and wait for its end (polls faster than `sbatch --wait`); fails unless the
# job COMPLETED with exit code 0.
t_sbatch_wait() {  # sbatch-args...
    local id st info
    id="$("$T_CLUSTER/sbatch" --parsable "$@")" || t_fail "sbatch $* failed"
    id="${id%%;*}"
    local end=$((SECONDS + T_STEP_TIMEOUT))
    while st="$("$T_CLUSTER/squeue" -h -j "$id" -o %T 2>/dev/null)" && [ -n "$st" ]; do
        [ $SECONDS -lt $end ] || { "$T_CLUSTER/scancel" "$id"; t_log "job $id timed out"; return 1; }
        sleep 0.2
    done
    info="$("$T_CLUSTER/scontrol" show job "$id" 2>/dev/null || true)"
    grep -q 'JobState=COMPLETED' <<<"$info" && grep -q 'ExitCode=0:0' <<<"$info" && return 0
    t_log "job $id: $(grep -oE '(JobState|ExitCode)=[^ ]+' <<<"$info" | tr '\n' ' ')"
    return 1
}
# t_sbatch_wait, run again if the job's log shows the OpenMPI MPI_Init failure (see t_launch).
t_sbatch_retry() {  # log-file sbatch-args...
    local log="$1"; shift
    t_retry_mpi_init "batch job" "$log" t_sbatch_wait "$@"
}
