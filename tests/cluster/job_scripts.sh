#!/usr/bin/env bash
# Cluster test (e): the user launch scripts of scripts/job on a 3-node Slurm cluster whose nodes
# hold only their own trainers' dumps in /local/data:
#  - a training batch job with scripts/job/append-to-job.sh appended (xstack-run, srun branch,
#    and the mpirun branch inside the allocation),
#  - scripts/job/xstack-postprocess.sbatch for a finished job,
#  - xstack-run with mpirun outside Slurm (cluster/mpirun as the mpirun).
# Every run must give traces byte-identical to the single-process run.
# usage: tests/cluster/job_scripts.sh [XSTACK]
. "$(dirname "$0")/lib.sh"
t_require_root
t_require_xstack
t_cluster_up --nodes 3 --slurm
JOB="$T_JOB"     # scripts/job, staged where the nodes see it

t_synth_and_reference "$T_WORK/all" "$T_WORK/ref"
by_trainer() { echo $(( $(t_file_trainer "$1") + 1 )); }
t_distribute "$T_WORK/all" by_trainer "$T_WORK/placement"

# A training job: "trains" on every node, then the appended xstack block.
for launcher in srun mpirun; do
    out="$T_WORK/train-$launcher"
    {
        cat <<EOF
#!/bin/bash
#SBATCH --nodes=3
#SBATCH --ntasks-per-node=2
#SBATCH --output=$T_WORK/train-$launcher.log
set -u
srun --mpi=pmix hostname >/dev/null     # the training itself
XSTACK=$XSTACK
XSTACK_RUN=$JOB/xstack-run
XSTACK_DATA_DIR=/local/data
XSTACK_OUT=$out
XSTACK_GPUS_PER_TRAINER=$P
XSTACK_GROUP_SIZE=$GROUP
XSTACK_DISPLAY_SIZE=$DISPLAY
EOF
        echo "export XSTACK_LAUNCHER=$launcher"
        cat "$JOB/append-to-job.sh"
    } >"$T_WORK/train-$launcher.sh"
    t0=$SECONDS
    t_sbatch_retry "$T_WORK/train-$launcher.log" -D "$T_WORK" "$T_WORK/train-$launcher.sh" \
        || { cat "$T_WORK/train-$launcher.log" >&2; t_fail "training job ($launcher) failed"; }
    grep -q "xstack: traces in $out" "$T_WORK/train-$launcher.log" \
        || { cat "$T_WORK/train-$launcher.log" >&2; t_fail "training job ($launcher): no success line"; }
    grep -q "xstack-run: .*$launcher" "$T_WORK/train-$launcher.log" \
        || { cat "$T_WORK/train-$launcher.log" >&2; t_fail "training job did not use $launcher"; }
    t_log "training job + appended block ($launcher): $((SECONDS - t0))s"
    t_same_traces "$T_WORK/ref" "$out" "appended block, $launcher in a Slurm job"
done

# Post-processing a finished job with the sbatch template, on the same nodes.
t0=$SECONDS
t_sbatch_retry "$T_WORK/post.log" -D "$T_WORK" --nodes=3 --nodelist=node1,node2,node3 \
    --output="$T_WORK/post.log" --export="ALL,XSTACK=$XSTACK" \
    "$JOB/xstack-postprocess.sbatch" --data-dir /local/data --out "$T_WORK/post" "${REPORT_OPTS[@]}" --plan \
    || { cat "$T_WORK/post.log" >&2; t_fail "xstack-postprocess.sbatch failed"; }
t_log "xstack-postprocess.sbatch: $((SECONDS - t0))s"
# It says what it took: XSTACK as given, xstack-run from its checkout (found through scontrol).
grep -qx "xstack-post: xstack = $XSTACK (from \$XSTACK)" "$T_WORK/post.log" \
    || { cat "$T_WORK/post.log" >&2; t_fail "sbatch template: no line naming the XSTACK it used"; }
grep -qx "xstack-post: xstack-run = $JOB/xstack-run (from checkout of this template)" "$T_WORK/post.log" \
    || { cat "$T_WORK/post.log" >&2; t_fail "sbatch template: no line naming the xstack-run it used"; }
t_same_traces "$T_WORK/ref" "$T_WORK/post" "sbatch template"
t_check_plan "$T_WORK/post.log" "$T_WORK/placement" "$T_WORK/all" /local/data "sbatch template"

# xstack-run outside Slurm, mpirun launcher (the cluster's mpirun stands for the site's).
t0=$SECONDS
t_launch "xstack-run --launcher mpirun" "$T_WORK/run-mpirun.stdout" "$T_WORK/run-mpirun.stderr" \
    env XSTACK_MPIRUN="$T_CLUSTER/mpirun" "$JOB/xstack-run" --launcher mpirun --xstack "$XSTACK" --timeout 300 -- \
    --data-dir /local/data --out "$T_WORK/run-mpirun" "${REPORT_OPTS[@]}" \
    || t_fail "xstack-run --launcher mpirun failed"
t_log "xstack-run --launcher mpirun: $((SECONDS - t0))s"
t_same_traces "$T_WORK/ref" "$T_WORK/run-mpirun" "xstack-run, mpirun"
