#!/usr/bin/env bash
# Cluster test: PyTorch (Kineto) JSON traces, one per rank, each on the node of its trainer only
# (node-local disks, no shared input folder). xstack over cluster/mpirun (1 and 2 ranks per node)
# and over cluster/srun --mpi=pmix must write every output (traces in both formats, steps.csv,
# ranks.csv, kernels.csv, findings.json, report.html) byte-identical to a single-process run over
# all files in one folder but for the node names (each rank's node is the host that read its
# trace, docs/FORMAT.md section 2, "Words"), and read every trace once, on the node that holds it.
# usage: tests/cluster/local_kineto.sh [XSTACK]
. "$(dirname "$0")/lib.sh"
t_require_root
t_require_xstack
t_cluster_up --nodes 3 --slurm

data="$T_WORK/all"
timeout "$T_STEP_TIMEOUT" "$XSTACK" synth --format kineto --out "$data" --trainers "$TRAINERS" \
    --gpus-per-trainer "$P" --steps 4 --ops-per-step 10 --seed 7 || t_fail "xstack synth failed"
ls "$data"/profile/rank*.pt.trace.json.gz >/dev/null || t_fail "synth wrote no Kineto traces"
timeout "$T_STEP_TIMEOUT" "$XSTACK" report --data-dir "$data" --out "$T_WORK/ref" \
    --format json,perfetto "${REPORT_OPTS[@]}" || t_fail "single-process xstack report failed"
for f in steps.csv ranks.csv kernels.csv findings.json report.html; do
    [ -s "$T_WORK/ref/$f" ] || t_fail "the reference run wrote no $f"
done

# profile/rank<R>.*.pt.trace.json.gz -> node (R / P) + 1: each trainer's ranks on its own node.
# synth's sync_truth.csv is the test's answer key, not an input: it stays off the nodes.
by_trainer() {
    local r
    r="$(basename "$1" | sed -E 's/^rank([0-9]+)\..*/\1/')"
    echo $((r / P + 1))
}
mv "$data/sync_truth.csv" "$T_WORK/sync_truth.csv"
t_distribute "$data" by_trainer "$T_WORK/placement"

# The node-local runs' outputs: every file byte-identical to the single-process run's but
# where PyTorch's words name a rank's node (docs/FORMAT.md section 2, "Words"): there the host
# that read its trace (nodeN, N = its trainer + 1), in the single-process run (one host, every
# trace) its trainer number.
t_same_in_node_words() {  # ref got label
    local ref="$1" got="$2" label="$3" f
    diff <(cd "$ref" && ls) <(cd "$got" && ls) >&2 || t_fail "$label: output file names differ"
    for f in "$ref"/*; do
        python3 - "$f" "$got/$(basename "$f")" <<'PY' ||
import re, sys
ref, got = (open(p, "rb").read() for p in sys.argv[1:])
numbered = re.sub(rb"\bnode(\d+)\b", lambda m: str(int(m.group(1)) - 1).encode(), got)
sys.exit(0 if ref in (got, numbered) else 1)
PY
            t_fail "$label: $(basename "$f") differs from the single-process run beyond the node names"
    done
    grep -qE '^5,.*,node3,1$' "$got/ranks.csv" || t_fail "$label: ranks.csv does not name rank 5's host"
    t_log "$label: the single-process run's files, nodes named by their hosts"
}

t_report_mpirun "$T_WORK/mpi1" -np 3 --map-by ppr:1:node -- --data-dir /local/data \
    --format json,perfetto --plan
t_same_in_node_words "$T_WORK/ref" "$T_WORK/mpi1" "mpirun 1 rank/node"
t_check_plan "$T_WORK/mpi1.stderr" "$T_WORK/placement" "$data" /local/data "mpirun 1 rank/node"

t_report_mpirun "$T_WORK/mpi2" -np 6 --map-by ppr:2:node -- --data-dir /local/data \
    --format json,perfetto --plan
t_same_in_node_words "$T_WORK/ref" "$T_WORK/mpi2" "mpirun 2 ranks/node"
t_check_plan "$T_WORK/mpi2.stderr" "$T_WORK/placement" "$data" /local/data "mpirun 2 ranks/node"

t_report_srun "$T_WORK/srun1" -N 3 --ntasks-per-node=1 --mpi=pmix -- --data-dir /local/data \
    --format json,perfetto --plan
t_same_in_node_words "$T_WORK/ref" "$T_WORK/srun1" "srun --mpi=pmix 1 task/node"
t_check_plan "$T_WORK/srun1.stderr" "$T_WORK/placement" "$data" /local/data "srun --mpi=pmix 1 task/node"
